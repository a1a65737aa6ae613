package app

import (
	"context"
	"slices"
	"time"

	"checkpoint-explorer/backend/collect"
	"checkpoint-explorer/backend/connect"
	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/source/restclient"
)

// collectorHandle is the running collector; nil while polling is off.
type collectorHandle = *collect.Manager

func (a *App) startCollector(ctx context.Context) {
	m := collect.NewManager(ctx, collect.Options{
		Sink:      countingSink{Sink: a.store, m: a.metrics},
		Logger:    a.log,
		JobsEvery: a.opts.JobsEvery,
		OnStored: func(cluster, job string) {
			a.emit(CheckpointsEvent{Cluster: cluster, Job: job})
		},
		OnJob: func(cluster, job string) {
			// Checkpoints cached before this connection may lack backpressure:
			// the cluster's Prometheus has it.
			a.backfillInBackground(cluster, func(c model.Cluster) bool { return c.PrometheusURL != "" }, func() {
				if _, err := a.BackfillBackpressure(cluster, job); err != nil {
					a.log.Warn("backfill from Prometheus failed", "cluster", cluster, "job", job, "err", err)
				}
			})
		},
		OnFirstPoll: func(cluster, job string) {
			// What the engine no longer lists may be in the cluster's traces.
			a.backfillInBackground(cluster, func(c model.Cluster) bool { return c.TracesURL != "" }, func() {
				a.backfillTracesWhileGaps(cluster, job)
			})
		},
		OnHealth: func(cluster string, h collect.Health) {
			a.emit(HealthEvent{Cluster: cluster, State: h.State, LastError: h.LastError})
		},
	})
	a.mu.Lock()
	a.coll = m
	a.mu.Unlock()
	a.applyCollector()
}

// backfillInBackground runs backfill on a goroutine Close waits for, when
// cluster is configured and has the source it reads (has says).
func (a *App) backfillInBackground(cluster string, has func(model.Cluster) bool, backfill func()) {
	if c, ok := a.configuredCluster(cluster); !ok || !has(c) {
		return
	}
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		backfill()
	}()
}

func (a *App) stopCollector() {
	a.mu.Lock()
	m := a.coll
	a.coll = nil
	a.mu.Unlock()
	if m != nil {
		m.Stop()
	}
}

// applyCollector makes the pollers match the configured clusters.
func (a *App) applyCollector() {
	a.mu.Lock()
	m := a.coll
	clusters := append([]model.Cluster(nil), a.clusters...)
	a.mu.Unlock()
	if m == nil {
		return
	}
	var targets []collect.Target
	for _, c := range clusters {
		if len(a.opts.Clusters) > 0 && !slices.Contains(a.opts.Clusters, c.Name) {
			continue
		}
		t, err := newTarget(c, a.metrics, a.opts.JobManagerLogEvery)
		if err != nil {
			a.setHealth(c.Name, collect.Health{State: collect.HealthError, LastError: err.Error()})
			continue
		}
		targets = append(targets, t)
	}
	m.Apply(targets)
}

// RequestBudget gives the request budget a cluster's settings amount to, the
// defaults filled in for zeros: requests per second and requests in flight.
func RequestBudget(requestsPerSecond float64, maxInFlight int) (float64, int) {
	o := collect.BudgetFor(requestsPerSecond, maxInFlight).WithDefaults()
	return o.RequestsPerSecond, o.Concurrency
}

// newTarget builds the collector's view of a configured cluster, its
// requests counted in m. logEvery, when set, overrides how often the
// JobManager log may be read.
func newTarget(c model.Cluster, m *appMetrics, logEvery time.Duration) (collect.Target, error) {
	o := connect.Options{LogEvery: logEvery}
	if m != nil {
		o.OnRequest = func(r restclient.RequestInfo) { m.observe(c.Name, r.Endpoint, r.Status, r.Duration, r.Err) }
	}
	return connect.Target(c, o)
}

func (a *App) setHealth(name string, h collect.Health) {
	a.mu.Lock()
	a.health[name] = h
	a.mu.Unlock()
}

// clusterHealth is the collector's health of a configured cluster: what it
// polled, or why it could not, or idle when polling is off.
func (a *App) clusterHealth(name string) collect.Health {
	a.mu.Lock()
	m := a.coll
	h, ok := a.health[name]
	a.mu.Unlock()
	if m != nil {
		if ch, polled := m.Health(name); polled {
			ch.Problems = slices.Clone(ch.Problems)
			return ch
		}
	}
	if ok {
		return h
	}
	return collect.Health{State: collect.HealthIdle}
}
