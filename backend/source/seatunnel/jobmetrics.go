package seatunnel

import (
	"bytes"
	"encoding/json"
	"math"
	"regexp"
	"strings"
	"time"

	"checkpoint-explorer/backend/model"
)

// IntermediateQueueCapacity is how many records one intermediate queue holds in SeaTunnel
// 2.3.x: the ArrayBlockingQueue of TaskGroupWithIntermediateBlockingQueue (QUEUE_SIZE). Each
// subtask of a pipeline has one such queue in front of each of its sinks; a writer that finds
// it full blocks in put(), so a full queue is backpressure on the vertex that feeds the sink.
// With seatunnel.yaml's queue-type: disruptor (not the default) the engine uses a ring of 1024
// and counts nothing: IntermediateQueueSize stays 0.
const IntermediateQueueCapacity = 2048

// JobMetrics is the metrics block of GET /job-info/:jobId: the job's connector counters, each
// summed over all subtasks of the job, gathered from the task groups when asked (2.3.13), plus
// what ended attempts of restored pipelines left. Absent values are nil.
type JobMetrics struct {
	SourceReceivedCount, SinkWriteCount, SinkCommittedCount *int64
	// IntermediateQueueSize is the records waiting in the queues in front of the sinks, summed
	// over every queue of the job (all subtasks, all sinks, all pipelines).
	IntermediateQueueSize *int64
	// The QPS values are averages since each subtask started (count ÷ time since its meter was
	// made), summed over subtasks: no use as current rates.
	SourceReceivedQPS, SinkWriteQPS, SinkCommittedQPS *float64
	// Per-table counters keyed as the engine keys them: the vertex identifier and the table
	// ("Sink[0].db.schema.table"), or the table alone when it could not tell the vertex.
	TableSourceReceivedCount, TableSinkWriteCount, TableSinkCommittedCount map[string]int64
}

// decodeJobMetrics reads a metrics block; nil when there is none. A value that is not a number
// is left out rather than failing the job's answer.
func decodeJobMetrics(raw json.RawMessage) *JobMetrics {
	var m map[string]json.RawMessage
	if len(bytes.TrimSpace(raw)) == 0 || json.Unmarshal(raw, &m) != nil || len(m) == 0 {
		return nil
	}
	count := func(k string) *int64 {
		var v flexInt
		if json.Unmarshal(m[k], &v) != nil {
			return nil
		}
		return v.nonNeg()
	}
	rate := func(k string) *float64 {
		var v flexFloat
		if json.Unmarshal(m[k], &v) != nil || !v.ok || v.v < 0 {
			return nil
		}
		return &v.v
	}
	table := func(k string) map[string]int64 {
		var t map[string]flexInt
		if json.Unmarshal(m[k], &t) != nil {
			return nil
		}
		out := map[string]int64{}
		for key, v := range t {
			if v.ok && v.v >= 0 {
				out[key] = v.v
			}
		}
		if len(out) == 0 {
			return nil
		}
		return out
	}
	return &JobMetrics{
		SourceReceivedCount: count("SourceReceivedCount"), SinkWriteCount: count("SinkWriteCount"),
		SinkCommittedCount: count("SinkCommittedCount"), IntermediateQueueSize: count("IntermediateQueueSize"),
		SourceReceivedQPS: rate("SourceReceivedQPS"), SinkWriteQPS: rate("SinkWriteQPS"), SinkCommittedQPS: rate("SinkCommittedQPS"),
		TableSourceReceivedCount: table("TableSourceReceivedCount"), TableSinkWriteCount: table("TableSinkWriteCount"),
		TableSinkCommittedCount: table("TableSinkCommittedCount"),
	}
}

// fingerprint tells snapshots apart: a later one differs at least in its QPS values (their
// time base moves) as soon as anything was counted.
func (m *JobMetrics) fingerprint() string {
	b, _ := json.Marshal(m) // maps marshal in key order
	return string(b)
}

// vertexIdent matches the engine's vertex identifier in a vertex name ("Sink[0]-Console" →
// "Sink[0]"), the prefix of its per-table metric keys.
var vertexIdent = regexp.MustCompile(`(?:Source|Sink|Transform)\[\d+\]`)

// jobRoles is what the job graph says about where the engine's job-wide counters belong.
type jobRoles struct {
	sources, sinks []string
	// into lists, per sink, the vertices feeding it: the queue's upstream.
	into map[string][]string
	// byIdent maps the engine's vertex identifiers to vertex ids ("" when several vertices
	// share one, as copies of a sink in two pipelines do: the engine cannot tell them apart).
	byIdent map[string]string
	// queues is how many intermediate queues the job has: one per sink and subtask.
	queues int
}

// rolesOf finds the job's sources and sinks by name (Source[i]…, Sink[i]…) or, failing that, by
// the graph (no input; no output).
func rolesOf(job *model.Job) jobRoles {
	r := jobRoles{into: map[string][]string{}, byIdent: map[string]string{}}
	if job == nil {
		return r
	}
	in, out := map[string]bool{}, map[string]bool{}
	for _, e := range job.Edges {
		out[e.Source], in[e.Target] = true, true
		r.into[e.Target] = append(r.into[e.Target], e.Source)
	}
	for _, v := range job.Vertices {
		name := strings.ToLower(v.Name)
		if ident := vertexIdent.FindString(v.Name); ident != "" {
			if _, dup := r.byIdent[ident]; dup {
				r.byIdent[ident] = ""
			} else {
				r.byIdent[ident] = v.ID
			}
		}
		switch {
		case strings.HasPrefix(name, "source") || !strings.HasPrefix(name, "sink") && !in[v.ID] && out[v.ID]:
			r.sources = append(r.sources, v.ID)
		case strings.HasPrefix(name, "sink") || in[v.ID] && !out[v.ID]:
			r.sinks = append(r.sinks, v.ID)
			r.queues += max(v.Parallelism, 1) // the engine's default parallelism is 1
		}
	}
	return r
}

// perVertex splits a counter over the vertices of one role by the vertex identifier that starts
// each per-table key. When a key names no such vertex, the job's total goes to the role's only
// vertex, or to "" (the job) when there are several.
func (r jobRoles) perVertex(table map[string]int64, total *int64, role []string) map[string]int64 {
	of := map[string]bool{}
	for _, id := range role {
		of[id] = true
	}
	out := map[string]int64{}
	var sum int64
	whole := len(table) > 0
	for key, v := range table {
		sum += v
		ident, _, _ := strings.Cut(key, ".")
		if id := r.byIdent[ident]; id != "" && of[id] {
			out[id] += v
		} else {
			whole = false
		}
	}
	if whole {
		return out
	}
	switch {
	case total != nil:
		sum = *total
	case len(table) == 0:
		return nil
	}
	if len(role) == 1 {
		return map[string]int64{role[0]: sum}
	}
	return map[string]int64{"": sum}
}

// JobMetricSamples converts one snapshot into samples stamped ts:
//   - queueSize (the engine's sum over the job's intermediate queues) and queueFillRatio (that
//     sum over their capacity, IntermediateQueueCapacity each) on every edge into a sink:
//     VertexID the upstream vertex, Target the sink. The engine sums over all pipelines, so each
//     pipeline's sink edges get the same job-wide values;
//   - commit.records (records covered by completed checkpoints, the engine's SinkCommittedCount)
//     and commit.lagRecords (written − committed) on each sink.
func (c *Client) JobMetricSamples(job *model.Job, m *JobMetrics, ts int64) []model.MetricSample {
	if m == nil {
		return nil
	}
	r := rolesOf(job)
	var out []model.MetricSample
	if q := m.IntermediateQueueSize; q != nil {
		fill := math.Min(1, float64(*q)/float64(IntermediateQueueCapacity*max(r.queues, 1)))
		edges := 0
		for _, sink := range r.sinks {
			for _, up := range r.into[sink] {
				out = append(out, c.total(job, up, sink, model.MetricQueueSize, ts, float64(*q)),
					c.sample(job, up, sink, model.MetricQueueFillRatio, ts, fill))
				edges++
			}
		}
		if edges == 0 { // no graph: the job's queues as a whole
			out = append(out, c.total(job, "", "", model.MetricQueueSize, ts, float64(*q)),
				c.sample(job, "", "", model.MetricQueueFillRatio, ts, fill))
		}
	}
	written := r.perVertex(m.TableSinkWriteCount, m.SinkWriteCount, r.sinks)
	for v, n := range r.perVertex(m.TableSinkCommittedCount, m.SinkCommittedCount, r.sinks) {
		out = append(out, c.total(job, v, "", model.MetricCommittedRecords, ts, float64(n)))
		if w, ok := written[v]; ok {
			out = append(out, c.total(job, v, "", model.MetricCommitLagRecords, ts, float64(max(w-n, 0))))
		}
	}
	sortSamples(out)
	return out
}

// RateSamples gives the records per second each source read (sourceRecordsPerSec) and each sink
// wrote (sinkRecordsPerSec) between two snapshots taken gap apart, stamped ts. The engine's own
// QPS values are averages since the job started, no use for what happens now. A counter that
// went back (a restored pipeline counts anew) gives nothing.
func (c *Client) RateSamples(job *model.Job, prev, cur *JobMetrics, gap time.Duration, ts int64) []model.MetricSample {
	if prev == nil || cur == nil || gap <= 0 {
		return nil
	}
	r := rolesOf(job)
	var out []model.MetricSample
	for _, s := range []struct {
		metric      string
		role        []string
		prev, cur   map[string]int64
		prevT, curT *int64
	}{
		{metric: model.MetricSourceRecordsPerSec, role: r.sources, prev: prev.TableSourceReceivedCount, cur: cur.TableSourceReceivedCount,
			prevT: prev.SourceReceivedCount, curT: cur.SourceReceivedCount},
		{metric: model.MetricSinkRecordsPerSec, role: r.sinks, prev: prev.TableSinkWriteCount, cur: cur.TableSinkWriteCount,
			prevT: prev.SinkWriteCount, curT: cur.SinkWriteCount},
	} {
		before := r.perVertex(s.prev, s.prevT, s.role)
		for v, n := range r.perVertex(s.cur, s.curT, s.role) {
			if p, ok := before[v]; ok && n >= p {
				out = append(out, c.total(job, v, "", s.metric, ts, float64(n-p)/gap.Seconds()))
			}
		}
	}
	sortSamples(out)
	return out
}

// total is sample for a value the engine sums over subtasks: one value per vertex, no aggregate.
func (c *Client) total(job *model.Job, vertex, target, metric string, ts int64, v float64) model.MetricSample {
	s := c.sample(job, vertex, target, metric, ts, v)
	s.Agg = model.AggNone
	return s
}
