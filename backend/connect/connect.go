// Package connect turns a configured cluster (model.Cluster) into what talks
// to it: the engine's client and the collector's source and budget
// (Target), the clients of its Prometheus and its traces, and the
// connection test of the settings dialog (Test). It is the one place that
// knows which source serves which setting; the sources know nothing of one
// another, and nothing here touches the cache.
package connect

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"checkpoint-explorer/backend/collect"
	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/source/flink"
	"checkpoint-explorer/backend/source/jaeger"
	"checkpoint-explorer/backend/source/prometheus"
	"checkpoint-explorer/backend/source/restclient"
	"checkpoint-explorer/backend/source/seatunnel"
)

// Options configure Target; zero values take the defaults.
type Options struct {
	// OnRequest, when set, is called after every request to the engine.
	OnRequest func(restclient.RequestInfo)
	// LogEvery, when set, overrides how often a Flink cluster's JobManager
	// log may be read (flink.LogEvery).
	LogEvery time.Duration
}

// Target builds the collector's view of a configured cluster: its engine's
// source, spending the request budget its settings amount to. Key changes
// whenever any setting does, so that the collector restarts its poller.
func Target(c model.Cluster, o Options) (collect.Target, error) {
	b, _ := json.Marshal(c)
	sum := sha256.Sum256(b)
	key := hex.EncodeToString(sum[:8])
	budget := collect.NewBudget(collect.BudgetFor(c.RequestsPerSecond, c.MaxInFlight))
	switch c.Engine {
	case model.EngineFlink:
		cl, err := flink.New(flinkConfig(c, o.OnRequest))
		if err != nil {
			return collect.Target{}, err
		}
		src, err := flinkSource(cl, budget, c, o.LogEvery)
		if err != nil {
			return collect.Target{}, err
		}
		return collect.Target{Name: c.Name, Key: key, Budget: budget, Source: src}, nil
	case model.EngineSeaTunnel:
		cl, err := seatunnel.New(seatunnelConfig(c, o.OnRequest))
		if err != nil {
			return collect.Target{}, err
		}
		return collect.Target{Name: c.Name, Key: key, Budget: budget, Source: seatunnel.NewSource(cl, budget)}, nil
	}
	return collect.Target{}, fmt.Errorf("engine %s is not supported by this build yet", c.Engine)
}

// flinkSource is the collector's source of a Flink cluster: its reporters
// scraped for backpressure when it has some, its PromQL lanes asked of its
// Prometheus.
func flinkSource(c *flink.Client, b *collect.Budget, cluster model.Cluster, logEvery time.Duration) (*flink.Source, error) {
	o := flink.SourceOptions{Reporters: cluster.ReporterURLs, Lanes: cluster.Lanes, LogMode: cluster.JobManagerLog, LogEvery: logEvery}
	if len(cluster.ReporterURLs) > 0 {
		names, err := prometheus.ParseNames(cluster.PrometheusNames)
		if err != nil {
			return nil, err
		}
		o.Scraper = &prometheus.Scraper{Budget: b, Names: names, Cluster: cluster.Name}
	}
	for _, l := range cluster.Lanes {
		if l.PromQL != "" && cluster.PrometheusURL != "" {
			p, err := Prometheus(cluster)
			if err != nil {
				return nil, err
			}
			o.Querier = partialValues{p}
			break
		}
	}
	return flink.NewSource(c, b, o), nil
}

// partialValues answers PromQL lanes with what a partial answer holds.
type partialValues struct{ *prometheus.Client }

func (p partialValues) Value(ctx context.Context, query string, at time.Time) (float64, bool, error) {
	v, ok, err := p.Client.Value(ctx, query, at)
	if errors.Is(err, prometheus.ErrPartial) {
		err = nil
	}
	return v, ok, err
}

// seatunnelConfig and flinkConfig are the engine clients' settings; onRequest
// (nil: none) is called after every request.
func seatunnelConfig(c model.Cluster, onRequest func(restclient.RequestInfo)) seatunnel.Config {
	return seatunnel.Config{BaseURL: c.BaseURL, Auth: c.Auth, CAFile: c.CAFile, InsecureSkipVerify: c.InsecureSkipVerify, Timeout: 10 * time.Second, Cluster: c.Name,
		OnRequest: onRequest}
}

func flinkConfig(c model.Cluster, onRequest func(restclient.RequestInfo)) flink.Config {
	return flink.Config{BaseURL: c.BaseURL, Auth: c.Auth, CAFile: c.CAFile, InsecureSkipVerify: c.InsecureSkipVerify, Timeout: 10 * time.Second,
		OnRequest: onRequest}
}

// Prometheus is the client of the cluster's Prometheus (c.PrometheusURL).
func Prometheus(c model.Cluster) (*prometheus.Client, error) {
	cfg, err := PrometheusConfig(c)
	if err != nil {
		return nil, err
	}
	return prometheus.New(cfg)
}

// PrometheusConfig is the client configuration of the cluster's Prometheus,
// for callers that add hooks (OnRequest) before building the client.
func PrometheusConfig(c model.Cluster) (prometheus.Config, error) {
	names, err := prometheus.ParseNames(c.PrometheusNames)
	if err != nil {
		return prometheus.Config{}, err
	}
	return prometheus.Config{URL: c.PrometheusURL, Auth: c.Auth, CAFile: c.CAFile,
		InsecureSkipVerify: c.InsecureSkipVerify, Timeout: 15 * time.Second, Cluster: c.Name, Names: names}, nil
}

// AtScrapeInterval reads at the server's own scrape interval when it says
// what it is: finer than the 15 s default, it gives short checkpoint windows
// their own backpressure points. A server that does not say (an old version,
// a query front end) keeps the default step; that is logged, not an error.
func AtScrapeInterval(ctx context.Context, pc *prometheus.Client, log *slog.Logger) *prometheus.Client {
	iv, err := pc.ScrapeInterval(ctx)
	if err == nil {
		if fine, ferr := pc.WithMinStep(iv); ferr == nil {
			log.Info("reading Prometheus at its scrape interval", "url", pc.URL(), "step", iv)
			return fine
		}
	}
	log.Info("Prometheus does not say its scrape interval; reading at the default step",
		"url", pc.URL(), "step", pc.MinStep(), "err", err)
	return pc
}

// Traces is the client of the cluster's traces (a Jaeger query service,
// c.TracesURL); maxRequests bounds each call.
func Traces(c model.Cluster, maxRequests int) (*jaeger.Client, error) {
	if c.TracesURL == "" {
		return nil, fmt.Errorf("cluster %q has no traces URL (a Jaeger query service Flink sends its checkpoint spans to)", c.Name)
	}
	return jaeger.New(jaeger.Config{EngineConfig: restclient.EngineConfig{BaseURL: c.TracesURL, Cluster: c.Name, Timeout: 15 * time.Second},
		Service: c.TracesService, MaxRequests: max(1, maxRequests)})
}
