package flink

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"checkpoint-explorer/backend/model"
)

// extraMetrics samples, with the backpressure samples, what a job's
// vertices say beyond backpressure: a sink committer's metrics (the
// "sink commit" lane) and the cluster's custom lanes. Which vertex has
// which metric is found from Flink's listing of a vertex's metrics, asked
// for once per candidate vertex — those named like a sink or committer, or
// every vertex when the cluster has Flink-metric lanes — and again every
// listEvery while the listing is empty (metrics register some seconds after
// a job starts), listTries times at most; then each sampling costs one
// request per vertex that has some, and one Prometheus query per PromQL
// lane.
type extraMetrics struct {
	c     *Client
	b     Budget
	lanes []model.Lane
	prom  Querier // nil: no PromQL lanes, or no Prometheus

	mu   sync.Mutex
	jobs map[string]map[string]*vertexMetrics // job → vertex →
}

// vertexMetrics is what one vertex has to sample: REST metric id → the
// name it is stored under.
type vertexMetrics struct {
	ids    map[string]string
	listed time.Time
	tries  int
	// registered: the listing named metrics (the vertex's tasks run): a
	// vertex without those sampled is not asked again.
	registered bool
}

const (
	listEvery = 10 * time.Second
	listTries = 6
	// relistEvery: after listTries, a candidate vertex still without what is
	// sampled is listed again this often (one request a minute).
	relistEvery = time.Minute
)

func newExtraMetrics(c *Client, b Budget, lanes []model.Lane, prom Querier) *extraMetrics {
	e := &extraMetrics{c: c, b: b, lanes: lanes, jobs: map[string]map[string]*vertexMetrics{}}
	for _, l := range lanes {
		if l.PromQL != "" {
			e.prom = prom
			break
		}
	}
	return e
}

// sample returns the job's extra samples taken now.
func (e *extraMetrics) sample(ctx context.Context, job *model.Job, now time.Time) ([]model.MetricSample, error) {
	var out []model.MetricSample
	var errs []error
	for _, v := range job.Vertices {
		if !e.candidate(v) {
			continue
		}
		vm := e.vertex(job.ID, v.ID)
		since := now.Sub(vm.listed)
		if vm.tries == 0 || !vm.registered && (vm.tries < listTries && since >= listEvery || since >= relistEvery) {
			vm.tries++
			vm.listed = now
			names, err := spend(ctx, e.b, func() ([]string, error) { return e.c.VertexMetricNames(ctx, job.ID, v.ID) })
			if err != nil {
				errs = append(errs, fmt.Errorf("metrics of vertex %s: %w", v.ID, err))
				continue
			}
			vm.ids = e.pick(names)
			// Registered once what is sampled is there: a committer's metrics can come
			// after the vertex's others (Iceberg's at its first commit).
			vm.registered = len(vm.ids) > 0
		}
		if len(vm.ids) == 0 {
			continue
		}
		ids := make([]string, 0, len(vm.ids))
		for id := range vm.ids {
			ids = append(ids, id)
		}
		ms, err := spend(ctx, e.b, func() ([]model.MetricSample, error) {
			return e.c.VertexMetrics(ctx, job.ID, v.ID, ids, now.UnixMilli())
		})
		if err != nil {
			errs = append(errs, fmt.Errorf("commit and lane metrics of vertex %s: %w", v.ID, err))
			continue
		}
		for _, m := range ms {
			if m.Agg != model.AggMax {
				continue
			}
			m.Metric = vm.ids[m.Metric]
			out = append(out, m)
		}
	}
	if e.prom != nil {
		for _, l := range e.lanes {
			if l.PromQL == "" {
				continue
			}
			q := strings.ReplaceAll(l.PromQL, "$job_id", job.ID)
			v, ok, err := e.prom.Value(ctx, q, now)
			if err != nil {
				errs = append(errs, fmt.Errorf("lane %q: %w", l.Name, err))
				continue
			}
			if ok {
				out = append(out, model.MetricSample{JobID: job.ID, Subtask: -1, Metric: model.MetricLanePrefix + l.Name,
					Agg: model.AggMax, TimeMs: now.UnixMilli(), Value: v, Source: "prometheus"})
			}
		}
	}
	return out, errors.Join(errs...)
}

// candidate tells whether a vertex may have what is sampled: a sink's or a
// committer's (Iceberg's IcebergFilesCommitter, Sink V2's "…: Committer"),
// or any vertex when a lane names a Flink metric.
func (e *extraMetrics) candidate(v model.Vertex) bool {
	for _, l := range e.lanes {
		if l.Metric != "" {
			return true
		}
	}
	n := strings.ToLower(v.Name)
	return strings.Contains(n, "committer") || strings.Contains(n, "sink")
}

func (e *extraMetrics) vertex(job, vid string) *vertexMetrics {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.jobs[job] == nil {
		e.jobs[job] = map[string]*vertexMetrics{}
	}
	vm := e.jobs[job][vid]
	if vm == nil {
		vm = &vertexMetrics{}
		e.jobs[job][vid] = vm
	}
	return vm
}

// pick maps a vertex's metric ids to what is sampled: the committer's
// metrics and the Flink-metric lanes it has; nil when none.
func (e *extraMetrics) pick(names []string) map[string]string {
	ids := CommitterMetrics(names)
	for _, l := range e.lanes {
		if l.Metric == "" {
			continue
		}
		if id := MetricIDFor(names, l.Metric); id != "" {
			ids[id] = model.MetricLanePrefix + l.Name
		}
	}
	if len(ids) == 0 {
		return nil
	}
	return ids
}
