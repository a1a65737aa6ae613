package connect

import (
	"fmt"
	"net/url"
	"os"
	"regexp"
	"strings"

	"checkpoint-explorer/backend/collect"
	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/source/flink"
	"checkpoint-explorer/backend/source/prometheus"
	"checkpoint-explorer/backend/source/restclient"
)

var clusterNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9 ._-]{0,63}$`)

// ReservedPrefixes begin the names of the read-only sources opened from
// files (captures, the samples); no configured cluster takes them.
var ReservedPrefixes = []string{"capture:", "sample:"}

// CheckTraces checks a cluster's traces settings (model.Cluster.TracesURL, TracesService).
func CheckTraces(c model.Cluster) error {
	if c.Engine != model.EngineFlink {
		return fmt.Errorf("cluster %q: a traces URL is for Flink's checkpoint spans", c.Name)
	}
	tu, err := url.Parse(c.TracesURL)
	if err != nil || (tu.Scheme != "http" && tu.Scheme != "https") || tu.Host == "" {
		return fmt.Errorf("cluster %q: traces (Jaeger query) URL %q: give an http:// or https:// address", c.Name, restclient.RedactURL(c.TracesURL))
	}
	if tu.User != nil {
		return fmt.Errorf("cluster %q: traces URL: put no credentials in the URL", c.Name)
	}
	if strings.TrimSpace(c.TracesService) == "" {
		return fmt.Errorf("cluster %q: traces: give the service name Flink's trace reporter sends (traces.reporter.<name>.service.name)", c.Name)
	}
	return nil
}

// Check checks the settings of a cluster the user typed, naming the first
// problem: its name, engine, URLs, authentication, request budget,
// JobManager log mode, custom lanes, traces and CA file.
func Check(c model.Cluster) error {
	for _, p := range ReservedPrefixes {
		if strings.HasPrefix(c.Name, p) {
			return fmt.Errorf("cluster name %q: the prefix %q is reserved for opened files", c.Name, p)
		}
	}
	if !clusterNameRE.MatchString(c.Name) {
		return fmt.Errorf("cluster name %q: use 1–64 letters, digits, spaces, '.', '_' or '-', starting with a letter or digit", c.Name)
	}
	if !c.Engine.Valid() {
		return fmt.Errorf("cluster %q: engine %q: choose flink or seatunnel", c.Name, c.Engine)
	}
	u, err := url.Parse(c.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("cluster %q: base URL %q: give an http:// or https:// address", c.Name, restclient.RedactURL(c.BaseURL))
	}
	if u.User != nil {
		return fmt.Errorf("cluster %q: put credentials in the auth fields, not in the URL", c.Name)
	}
	if c.PrometheusURL != "" {
		p, err := url.Parse(c.PrometheusURL)
		if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
			return fmt.Errorf("cluster %q: Prometheus URL %q: give an http:// or https:// address", c.Name, restclient.RedactURL(c.PrometheusURL))
		}
	}
	for _, r := range c.ReporterURLs {
		ru, err := url.Parse(r)
		if err != nil || (ru.Scheme != "http" && ru.Scheme != "https") || ru.Host == "" {
			return fmt.Errorf("cluster %q: reporter URL %q: give an http:// or https:// address", c.Name, restclient.RedactURL(r))
		}
	}
	if len(c.ReporterURLs) > 0 && c.Engine != model.EngineFlink {
		return fmt.Errorf("cluster %q: reporter URLs are for Flink's Prometheus reporter", c.Name)
	}
	if c.TracesURL != "" || c.TracesService != "" {
		if err := CheckTraces(c); err != nil {
			return err
		}
	}
	if _, err := prometheus.ParseNames(c.PrometheusNames); err != nil {
		return fmt.Errorf("cluster %q: %w", c.Name, err)
	}
	switch c.Auth.Kind {
	case "", model.AuthNone:
	case model.AuthBasic:
		if c.Auth.Username == "" {
			return fmt.Errorf("cluster %q: basic auth needs a user name", c.Name)
		}
	case model.AuthBearer:
		if c.Auth.Token == "" {
			return fmt.Errorf("cluster %q: bearer auth needs a token", c.Name)
		}
	default:
		return fmt.Errorf("cluster %q: auth kind %q: choose none, basic or bearer", c.Name, c.Auth.Kind)
	}
	if err := collect.CheckBudget(c.RequestsPerSecond, c.MaxInFlight); err != nil {
		return fmt.Errorf("cluster %q: %w", c.Name, err)
	}
	if err := flink.CheckLogMode(c.JobManagerLog); err != nil {
		return fmt.Errorf("cluster %q: %w", c.Name, err)
	}
	if c.JobManagerLog != "" && c.Engine != model.EngineFlink {
		return fmt.Errorf("cluster %q: the JobManager log is Flink's; %s has none to read", c.Name, c.Engine)
	}
	if err := CheckLanes(c); err != nil {
		return fmt.Errorf("cluster %q: %w", c.Name, err)
	}
	if c.CAFile != "" {
		if _, err := os.Stat(c.CAFile); err != nil {
			return fmt.Errorf("cluster %q: CA file %s: %w", c.Name, c.CAFile, err)
		}
	}
	return nil
}

// MaxLanes bounds a cluster's custom lanes (each costs requests).
const MaxLanes = 8

// CheckLanes checks a cluster's custom lanes: a name each (unique, at most
// 40 characters), and either a PromQL query (which needs the cluster's
// Prometheus) or a Flink metric name; Flink clusters only.
func CheckLanes(c model.Cluster) error {
	if len(c.Lanes) == 0 {
		return nil
	}
	if c.Engine != model.EngineFlink {
		return fmt.Errorf("custom lanes are sampled for Flink clusters only")
	}
	if len(c.Lanes) > MaxLanes {
		return fmt.Errorf("%d custom lanes: at most %d", len(c.Lanes), MaxLanes)
	}
	seen := map[string]bool{}
	for _, l := range c.Lanes {
		name := strings.TrimSpace(l.Name)
		switch {
		case name == "" || len(name) > 40:
			return fmt.Errorf("lane %q: give a name of 1 to 40 characters", l.Name)
		case seen[name]:
			return fmt.Errorf("lane %q: two lanes have this name", name)
		case (l.PromQL == "") == (l.Metric == ""):
			return fmt.Errorf("lane %q: give either a PromQL query or a Flink metric name", name)
		case l.PromQL != "" && c.PrometheusURL == "":
			return fmt.Errorf("lane %q: a PromQL lane needs the cluster's Prometheus URL", name)
		case l.Metric != "" && strings.ContainsAny(l.Metric, ", \t"):
			return fmt.Errorf("lane %q: metric %q: give one Flink metric name, without commas or spaces", name, l.Metric)
		}
		seen[name] = true
	}
	return nil
}
