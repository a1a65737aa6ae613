package app

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"checkpoint-explorer/backend/collect"
	"checkpoint-explorer/backend/model"
)

// appMetrics is the app's own health, exported at /metrics by `serve`.
type appMetrics struct {
	reg         *prometheus.Registry
	requests    *prometheus.CounterVec
	errors      *prometheus.CounterVec
	latency     *prometheus.HistogramVec
	checkpoints *prometheus.CounterVec
	gaps        *prometheus.CounterVec
	samples     *prometheus.CounterVec
}

func newAppMetrics(a *App) *appMetrics {
	m := &appMetrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "checkpoint_explorer_cluster_requests_total", Help: "Requests made to clusters, by endpoint template and HTTP status (0: no response).",
		}, []string{"cluster", "endpoint", "code"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "checkpoint_explorer_cluster_request_errors_total", Help: "Requests to clusters that failed (transport error or non-2xx).",
		}, []string{"cluster", "endpoint"}),
		// By endpoint only: by cluster too, its 13 lines per endpoint made 130 per cluster, and
		// /metrics 4 MB at 200 clusters. requests_total and errors_total say which cluster.
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "checkpoint_explorer_cluster_request_duration_seconds", Help: "Latency of requests to clusters, by endpoint template.",
			Buckets: prometheus.ExponentialBuckets(0.005, 2.5, 9),
		}, []string{"endpoint"}),
		checkpoints: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "checkpoint_explorer_checkpoints_ingested_total", Help: "Checkpoints stored in the cache by the collector, by status.",
		}, []string{"cluster", "status"}),
		gaps: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "checkpoint_explorer_checkpoints_missed_total", Help: "Checkpoints recorded as gaps (evicted before a poll saw them).",
		}, []string{"cluster"}),
		samples: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "checkpoint_explorer_samples_ingested_total", Help: "Metric and ack-progress samples stored by the collector.",
		}, []string{"cluster", "kind"}),
	}
	m.reg.MustRegister(m.requests, m.errors, m.latency, m.checkpoints, m.gaps, m.samples)
	stat := func(f func(s storeStats) float64) func() float64 {
		return func() float64 {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			st, err := a.store.Stats(ctx)
			if err != nil {
				return 0
			}
			return f(storeStats{bytes: st.FileBytes, checkpoints: st.Checkpoints, pruned: st.PrunedTotal.Checkpoints,
				prunedSubtasks: st.PrunedTotal.SubtaskRows, prunedSamples: st.PrunedTotal.MetricSamples + st.PrunedTotal.AckSamples})
		}
	}
	m.reg.MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "checkpoint_explorer_store_bytes", Help: "Size of the cache (database and WAL)."},
			stat(func(s storeStats) float64 { return float64(s.bytes) })),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "checkpoint_explorer_store_checkpoints", Help: "Checkpoints in the cache."},
			stat(func(s storeStats) float64 { return float64(s.checkpoints) })),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "checkpoint_explorer_retention_pruned_checkpoints_total", Help: "Checkpoints removed by retention."},
			stat(func(s storeStats) float64 { return float64(s.pruned) })),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "checkpoint_explorer_retention_pruned_subtask_rows_total", Help: "Per-subtask rows removed by retention."},
			stat(func(s storeStats) float64 { return float64(s.prunedSubtasks) })),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "checkpoint_explorer_retention_pruned_samples_total", Help: "Metric and ack samples removed by retention."},
			stat(func(s storeStats) float64 { return float64(s.prunedSamples) })),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "checkpoint_explorer_clusters", Help: "Configured clusters."},
			func() float64 { a.mu.Lock(); defer a.mu.Unlock(); return float64(len(a.clusters)) }),
	)
	return m
}

type storeStats struct{ bytes, checkpoints, pruned, prunedSubtasks, prunedSamples int64 }

// observe records one request a source made.
func (m *appMetrics) observe(cluster, endpoint string, code int, d time.Duration, err error) {
	m.requests.WithLabelValues(cluster, endpoint, strconv.Itoa(code)).Inc()
	m.latency.WithLabelValues(endpoint).Observe(d.Seconds())
	if err != nil || code < 200 || code > 299 {
		m.errors.WithLabelValues(cluster, endpoint).Inc()
	}
}

// metricsHandler serves the app's own metrics (for `serve`'s /metrics).
func metricsHandler(a *App) http.Handler {
	return promhttp.HandlerFor(a.metrics.reg, promhttp.HandlerOpts{})
}

// countingSink counts what the collector stores, on its way to the cache.
type countingSink struct {
	collect.Sink
	m *appMetrics
}

func (s countingSink) PutCheckpoints(ctx context.Context, cps []model.Checkpoint) error {
	return putCounted(ctx, cps, s.Sink.PutCheckpoints, func() {
		for _, c := range cps {
			if c.Status.Final() {
				s.m.checkpoints.WithLabelValues(c.Cluster, string(c.Status)).Inc()
			}
		}
	})
}

func (s countingSink) PutGaps(ctx context.Context, gs []model.Gap) error {
	return putCounted(ctx, gs, s.Sink.PutGaps, func() {
		for _, g := range gs {
			s.m.gaps.WithLabelValues(g.Cluster).Add(float64(g.Count()))
		}
	})
}

func (s countingSink) PutMetricSamples(ctx context.Context, ms []model.MetricSample) error {
	return putCounted(ctx, ms, s.Sink.PutMetricSamples, func() {
		if len(ms) > 0 {
			s.m.samples.WithLabelValues(ms[0].Cluster, "metric").Add(float64(len(ms)))
		}
	})
}

func (s countingSink) PutAckSamples(ctx context.Context, as []model.AckSample) error {
	return putCounted(ctx, as, s.Sink.PutAckSamples, func() {
		if len(as) > 0 {
			s.m.samples.WithLabelValues(as[0].Cluster, "ack").Add(float64(len(as)))
		}
	})
}

// putCounted stores xs with put and, once they are stored, counts them.
func putCounted[T any](ctx context.Context, xs []T, put func(context.Context, []T) error, count func()) error {
	if err := put(ctx, xs); err != nil {
		return err
	}
	count()
	return nil
}
