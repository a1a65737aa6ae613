package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/dustin/go-humanize"

	"checkpoint-explorer/backend/collect"
	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/source/flink"
	"checkpoint-explorer/backend/source/prometheus"
	"checkpoint-explorer/backend/source/restclient"
	"checkpoint-explorer/backend/store"
)

// Config is what the user configured: clusters (with their secrets) and
// retention limits. It lives in a file of mode 0600 because it holds secrets.
type Config struct {
	Clusters  []model.Cluster  `json:"clusters"`
	Retention *RetentionLimits `json:"retention,omitempty"`
	// SecretsInKeychain names the clusters whose passwords and tokens are
	// in the OS keychain rather than in this file.
	SecretsInKeychain []string `json:"secrets_in_keychain,omitempty"`
}

// RetentionLimits is the JSON-friendly form of store.Retention.
type RetentionLimits struct {
	MaxCheckpointsPerJob int   `json:"max_checkpoints_per_job"`
	MaxAgeMs             int64 `json:"max_age_ms"`
	MaxBytes             int64 `json:"max_bytes"`
}

func limitsFromStore(r store.Retention) RetentionLimits {
	return RetentionLimits{MaxCheckpointsPerJob: r.MaxCheckpointsPerJob, MaxAgeMs: r.MaxAge.Milliseconds(), MaxBytes: r.MaxBytes}
}

func (l RetentionLimits) store() store.Retention {
	// A time.Duration holds 292 years: a longer age saturates instead of wrapping around
	// to a short one (which would prune nearly everything).
	age := time.Duration(math.MaxInt64)
	if l.MaxAgeMs < int64(age/time.Millisecond) {
		age = time.Duration(l.MaxAgeMs) * time.Millisecond
	}
	return store.Retention{MaxCheckpointsPerJob: l.MaxCheckpointsPerJob, MaxAge: age, MaxBytes: l.MaxBytes}
}

func (l RetentionLimits) validate() error {
	switch {
	case l.MaxCheckpointsPerJob < 0:
		return errors.New("max checkpoints per job must be 0 (unlimited) or positive")
	case l.MaxAgeMs < 0:
		return errors.New("max age must be 0 (unlimited) or positive")
	case l.MaxBytes < 0:
		return errors.New("max database size must be 0 (unlimited) or positive")
	case l.MaxBytes > 0 && l.MaxBytes < 1<<20:
		return errors.New("max database size below 1 MiB cannot hold even the schema")
	}
	return nil
}

// configFile loads and saves Config atomically with mode 0600, its
// secrets in the OS keychain when there is one (keychain nil: never).
type configFile struct {
	path     string
	mu       sync.Mutex
	keychain *keychain
	log      *slog.Logger
	held     []string // the clusters whose secrets the keychain holds
}

func newConfigFile(path string, opts Options, log *slog.Logger) *configFile {
	f := &configFile{path: path, log: log}
	if opts.Keychain == "on" || opts.Keychain == "" && opts.DataDir == "" {
		f.keychain = openKeychain()
	}
	return f
}

// load reads the config, its secrets from the keychain; secrets still in
// the file move to the keychain when there is one.
func (f *configFile) load() (Config, error) {
	c, err := f.read()
	if err != nil || f.keychain == nil {
		return c, err
	}
	f.keychain.fill(c.Clusters, c.SecretsInKeychain, f.log)
	f.held = c.SecretsInKeychain
	inFile := 0
	for _, cl := range c.Clusters {
		if (cl.Auth.Password != "" || cl.Auth.Token != "") && !slices.Contains(c.SecretsInKeychain, cl.Name) {
			inFile++
		}
	}
	switch {
	case inFile == 0:
	case !f.keychain.available():
		f.log.Warn("config: no OS keychain answers: passwords and tokens stay in the config file (mode 0600)",
			"path", f.path, "err", f.keychain.err)
	default:
		if err := f.save(c); err != nil {
			return c, err
		}
		f.log.Info("config: moved secrets from the config file to the OS keychain", "clusters", inFile, "path", f.path)
	}
	return c, nil
}

func (f *configFile) read() (Config, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var c Config
	b, err := os.ReadFile(f.path)
	if errors.Is(err, os.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return c, fmt.Errorf("config: read %s: %w", f.path, err)
	}
	if err := json.Unmarshal(b, &c); err != nil {
		return c, fmt.Errorf("config: %s is not valid JSON: %w", f.path, err)
	}
	// Tighten a file someone loosened by hand: it holds secrets.
	if fi, err := os.Stat(f.path); err == nil && fi.Mode().Perm() != 0o600 {
		_ = os.Chmod(f.path, 0o600)
	}
	return c, nil
}

// save writes c, its secrets to the keychain when there is one. If the
// keychain fails they are written to the file instead, so none is lost.
func (f *configFile) save(c Config) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	c.SecretsInKeychain = nil
	if f.keychain.available() {
		cs := slices.Clone(c.Clusters)
		held, err := f.keychain.stash(cs, f.held)
		if err != nil {
			f.log.Warn("config: the OS keychain failed: passwords and tokens are written to the config file (mode 0600)",
				"path", f.path, "err", err)
		} else {
			c.Clusters, c.SecretsInKeychain, f.held = cs, held, held
		}
	}
	if err := os.MkdirAll(filepath.Dir(f.path), 0o700); err != nil {
		return fmt.Errorf("config: create dir: %w", err)
	}
	sort.Slice(c.Clusters, func(i, j int) bool { return c.Clusters[i].Name < c.Clusters[j].Name })
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return fmt.Errorf("config: encode: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(f.path), ".config-*.json")
	if err != nil {
		return fmt.Errorf("config: write: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return fmt.Errorf("config: chmod: %w", err)
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return fmt.Errorf("config: write: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("config: write: %w", err)
	}
	if err := os.Rename(tmp.Name(), f.path); err != nil {
		return fmt.Errorf("config: replace %s: %w", f.path, err)
	}
	return nil
}

var clusterNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9 ._-]{0,63}$`)

// ReservedPrefixes are names the app gives read-only sources; users cannot take them.
var reservedPrefixes = []string{"capture:", "sample:"}

// validateCluster checks a cluster the user typed, naming the first problem.
// checkTraces checks a cluster's traces settings (model.Cluster.TracesURL, TracesService).
func checkTraces(c model.Cluster) error {
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

func validateCluster(c model.Cluster) error {
	for _, p := range reservedPrefixes {
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
		if err := checkTraces(c); err != nil {
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
	if err := CheckJobManagerLogMode(c.JobManagerLog); err != nil {
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

// ParseLane reads a lane as the CLI takes it: NAME=promql:QUERY or NAME=metric:METRIC.
func ParseLane(v string) (model.Lane, error) {
	name, spec, ok := strings.Cut(v, "=")
	kind, what, ok2 := strings.Cut(spec, ":")
	if !ok || !ok2 || strings.TrimSpace(name) == "" || what == "" {
		return model.Lane{}, fmt.Errorf("lane %q: want NAME=promql:QUERY or NAME=metric:METRIC", v)
	}
	switch strings.TrimSpace(kind) {
	case "promql":
		return model.Lane{Name: strings.TrimSpace(name), PromQL: what}, nil
	case "metric":
		return model.Lane{Name: strings.TrimSpace(name), Metric: what}, nil
	}
	return model.Lane{}, fmt.Errorf("lane %q: %q is neither promql nor metric", v, kind)
}

// CheckJobManagerLogMode accepts "", auto, on and off (flink.CheckLogMode).
func CheckJobManagerLogMode(m model.JobManagerLogMode) error { return flink.CheckLogMode(m) }

// HumanBytes prints a byte count in binary units ("16 MiB", "1.5 KiB"), as
// the capture reader's errors do (go-humanize).
func HumanBytes(n int64) string { return humanize.IBytes(uint64(max(n, 0))) }
