package seatunnel

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"checkpoint-explorer/backend/model"
)

// Realtime windows: the engine keeps 5 s buckets (bucket_ms) for a few minutes and serves a
// window of up to 10 minutes per request.
const (
	DefaultBucket     = 5 * time.Second
	MaxRealtimeWindow = 10 * time.Minute
	minRealtimeWindow = 10 * time.Second
)

// Vertex metric names as the engine sends them; kept for vertices whose role they describe.
const (
	MetricSourceReadRatio    = "sourceReadRatio"
	MetricSourceIdleRatio    = "sourceIdleRatio"
	MetricTransformBusyRatio = "transformBusyRatio"
	MetricSinkBusyRatio      = "sinkBusyRatio"
)

// RealtimeEdgePoint is one bucket of a queue between two vertices.
type RealtimeEdgePoint struct {
	TimeMs int64
	// BPRatio is the share of the bucket the upstream spent blocked on a full queue (0..1).
	BPRatio        *float64
	QueueFillRatio *float64
	QueueSize      int64
	QueueCapacity  int64
	EmitBlockedNs  int64
}

// RealtimeEdge is one queue's series. TargetVertexID is the vertex the queue feeds.
type RealtimeEdge struct {
	QueueID        int64
	TargetVertexID string
	Points         []RealtimeEdgePoint
}

// RealtimeWindow is the span a realtime answer covers, and its buckets' length.
type RealtimeWindow struct {
	BucketMs, FromMs, ToMs int64
}

// RealtimeEdges is GET /metrics/realtime/jobs/:jobId/edges.
type RealtimeEdges struct {
	RealtimeWindow
	Edges []RealtimeEdge
}

// RealtimeVertexPoint is one bucket of a vertex (averaged over its subtasks by the engine).
// Ratios that do not apply to the vertex's role are 0 or absent.
type RealtimeVertexPoint struct {
	TimeMs             int64
	SubtaskCount       int
	SourceReadRatio    *float64
	SourceIdleRatio    *float64
	TransformBusyRatio *float64
	SinkBusyRatio      *float64
	TransformRecordsIn int64
	SinkRecordsIn      int64
	// SinkPrepareCommitNs and SinkCommitNs are the time the sink's subtasks
	// spent preparing and doing commits in the bucket (PR #10572).
	SinkPrepareCommitNs int64
	SinkCommitNs        int64
}

// RealtimeVertex is one vertex's series.
type RealtimeVertex struct {
	VertexID string
	Points   []RealtimeVertexPoint
}

// RealtimeVertices is GET /metrics/realtime/jobs/:jobId/vertices.
type RealtimeVertices struct {
	RealtimeWindow
	Vertices []RealtimeVertex
}

// windowJSON is what every realtime answer says of itself.
type windowJSON struct {
	Enabled  *bool   `json:"enabled"`
	BucketMs flexInt `json:"bucketMs"`
	FromMs   flexInt `json:"fromMs"`
	ToMs     flexInt `json:"toMs"`
}

// header is how getRealtime finds the windowJSON an answer embeds.
func (w *windowJSON) header() *windowJSON { return w }

// RealtimeEdges fetches the job's queue series over the last window (capped at 10 minutes).
func (c *Client) RealtimeEdges(ctx context.Context, jobID string, window time.Duration) (RealtimeEdges, error) {
	var raw struct {
		windowJSON
		Edges []struct {
			QueueID        flexInt `json:"queueId"`
			TargetVertexID flexID  `json:"targetVertexId"`
			Points         []struct {
				TS             flexInt   `json:"ts"`
				BPRatio        flexFloat `json:"bpRatio"`
				QueueFillRatio flexFloat `json:"queueFillRatio"`
				QueueSize      flexInt   `json:"queueSize"`
				QueueCapacity  flexInt   `json:"queueCapacity"`
				EmitBlockedNs  flexInt   `json:"emitBlockedNs"`
			} `json:"points"`
		} `json:"edges"`
	}
	win, err := c.getRealtime(ctx, "/metrics/realtime/jobs/:jobId/edges", jobID, "edges", window, &raw)
	if err != nil {
		return RealtimeEdges{}, err
	}
	out := RealtimeEdges{RealtimeWindow: win}
	for _, e := range raw.Edges {
		re := RealtimeEdge{QueueID: e.QueueID.v, TargetVertexID: string(e.TargetVertexID)}
		if re.TargetVertexID == "" && e.QueueID.ok {
			re.TargetVertexID = targetOfQueue(e.QueueID.v)
		}
		for _, p := range e.Points {
			if !p.TS.ok {
				continue
			}
			re.Points = append(re.Points, RealtimeEdgePoint{
				TimeMs: p.TS.v, BPRatio: p.BPRatio.ptr(), QueueFillRatio: p.QueueFillRatio.ptr(),
				QueueSize: p.QueueSize.v, QueueCapacity: p.QueueCapacity.v, EmitBlockedNs: p.EmitBlockedNs.v,
			})
		}
		out.Edges = append(out.Edges, re)
	}
	return out, nil
}

// RealtimeVertices fetches the job's vertex series over the last window (capped at 10 minutes).
func (c *Client) RealtimeVertices(ctx context.Context, jobID string, window time.Duration) (RealtimeVertices, error) {
	var raw struct {
		windowJSON
		Vertices []struct {
			VertexID flexID `json:"vertexId"`
			Points   []struct {
				TS                 flexInt   `json:"ts"`
				SubtaskCount       flexInt   `json:"subtaskCount"`
				SourceReadRatio    flexFloat `json:"sourceReadRatio"`
				SourceIdleRatio    flexFloat `json:"sourceIdleRatio"`
				TransformBusyRatio flexFloat `json:"transformBusyRatio"`
				SinkBusyRatio      flexFloat `json:"sinkBusyRatio"`
				TransformRecordsIn flexInt   `json:"transformRecordsIn"`
				SinkRecordsIn      flexInt   `json:"sinkRecordsIn"`
				SinkPrepareCommit  flexInt   `json:"sinkPrepareCommitNs"`
				SinkCommit         flexInt   `json:"sinkCommitNs"`
			} `json:"points"`
		} `json:"vertices"`
	}
	win, err := c.getRealtime(ctx, "/metrics/realtime/jobs/:jobId/vertices", jobID, "vertices", window, &raw)
	if err != nil {
		return RealtimeVertices{}, err
	}
	out := RealtimeVertices{RealtimeWindow: win}
	for _, v := range raw.Vertices {
		if v.VertexID == "" {
			continue
		}
		rv := RealtimeVertex{VertexID: string(v.VertexID)}
		for _, p := range v.Points {
			if !p.TS.ok {
				continue
			}
			rv.Points = append(rv.Points, RealtimeVertexPoint{
				TimeMs: p.TS.v, SubtaskCount: int(p.SubtaskCount.v),
				SourceReadRatio: p.SourceReadRatio.ptr(), SourceIdleRatio: p.SourceIdleRatio.ptr(),
				TransformBusyRatio: p.TransformBusyRatio.ptr(), SinkBusyRatio: p.SinkBusyRatio.ptr(),
				TransformRecordsIn: p.TransformRecordsIn.v, SinkRecordsIn: p.SinkRecordsIn.v,
				SinkPrepareCommitNs: p.SinkPrepareCommit.v, SinkCommitNs: p.SinkCommit.v,
			})
		}
		out.Vertices = append(out.Vertices, rv)
	}
	return out, nil
}

// getRealtime GETs one realtime endpoint and classifies the engine's "no" answers: 503 is
// ErrRealtimeDisabled; a 404 (or v1's empty 204) is ErrNoRealtimeAPI when the list endpoint
// /metrics/realtime/jobs is missing too, else ErrNotFound (the job is not tracked); an answer
// saying the job's realtime metrics are off (enabled false) is ErrRealtimeDisabled too. It
// decodes the answer into out and returns the window it covers.
func (c *Client) getRealtime(ctx context.Context, endpoint, jobID, kind string, window time.Duration,
	out interface{ header() *windowJSON }) (RealtimeWindow, error) {
	if err := checkJobID(jobID); err != nil {
		return RealtimeWindow{}, err
	}
	window = max(minRealtimeWindow, min(window, MaxRealtimeWindow))
	q := url.Values{"windowMs": {strconv.FormatInt(window.Milliseconds(), 10)}}
	r, err := c.fetch(ctx, endpoint, "/metrics/realtime/jobs/"+url.PathEscape(jobID)+"/"+kind, q)
	if err != nil {
		return RealtimeWindow{}, err
	}
	switch {
	case r.status == http.StatusServiceUnavailable:
		e := c.statusError(r, ErrRealtimeDisabled)
		e.Message = strings.TrimSpace(e.Message + " (the master collects no realtime metrics for this job: submit it with env engine.observability.enabled=true)")
		return RealtimeWindow{}, e
	case r.status == http.StatusNotFound || (r.ok() && r.empty()):
		probe, err := c.fetch(ctx, "/metrics/realtime/jobs", "/metrics/realtime/jobs", nil)
		if err != nil {
			return RealtimeWindow{}, err
		}
		if probe.status == http.StatusNotFound || (probe.ok() && probe.empty()) {
			e := r.fail(ErrNoRealtimeAPI.Error())
			e.StatusText = http.StatusText(r.status)
			e.kind = ErrNoRealtimeAPI
			return RealtimeWindow{}, e
		}
		e := c.statusError(r, ErrNotFound)
		e.Message = strings.TrimSpace(fmt.Sprintf("job %s has no realtime metrics (not running, or submitted without env engine.observability.enabled=true) %s", jobID, e.Message))
		return RealtimeWindow{}, e
	case !r.ok():
		return RealtimeWindow{}, c.statusError(r, nil)
	}
	if err := c.decodeLenient(r, out); err != nil {
		return RealtimeWindow{}, err
	}
	h := out.header()
	if h.Enabled != nil && !*h.Enabled {
		return RealtimeWindow{}, fmt.Errorf("job %s: %w", jobID, ErrRealtimeDisabled)
	}
	return RealtimeWindow{BucketMs: h.BucketMs.v, FromMs: h.FromMs.v, ToMs: h.ToMs.v}, nil
}

// targetOfQueue decodes the target vertex from a queue id the way the engine's web UI does: a
// non-negative id is the vertex; a negative one is -(2*vertex) or -(2*vertex+1).
func targetOfQueue(q int64) string {
	if q >= 0 {
		return strconv.FormatInt(q, 10)
	}
	abs := -q
	if abs%2 == 0 {
		return strconv.FormatInt(abs/2, 10)
	}
	return strconv.FormatInt((abs-1)/2, 10)
}

// complete reports whether the bucket starting at ts had ended when the answer was made: the
// newest bucket is still filling, and returning it would make the caller skip its final value.
func complete(ts, bucketMs, toMs int64) bool {
	return bucketMs <= 0 || toMs <= 0 || ts+bucketMs <= toMs
}

// EdgeSamples converts queue series newer than sinceMs (complete buckets only) into samples: bpRatio and
// queueFillRatio with VertexID the upstream vertex and Target the vertex the queue feeds. The
// engine names only the target; the upstream comes from the job graph when exactly one vertex
// feeds the target, else VertexID is "queue <id>".
func (c *Client) EdgeSamples(job *model.Job, e RealtimeEdges, sinceMs int64) []model.MetricSample {
	upstream := map[string][]string{}
	if job != nil {
		for _, ed := range job.Edges {
			upstream[ed.Target] = append(upstream[ed.Target], ed.Source)
		}
	}
	var out []model.MetricSample
	for _, edge := range e.Edges {
		src := "queue " + strconv.FormatInt(edge.QueueID, 10)
		if ups := upstream[edge.TargetVertexID]; len(ups) == 1 {
			src = ups[0]
		}
		for _, p := range edge.Points {
			if p.TimeMs <= sinceMs || !complete(p.TimeMs, e.BucketMs, e.ToMs) {
				continue
			}
			for _, m := range []struct {
				name string
				v    *float64
			}{{model.MetricBPRatio, p.BPRatio}, {model.MetricQueueFillRatio, p.QueueFillRatio}} {
				if m.v == nil {
					continue
				}
				out = append(out, c.sample(job, src, edge.TargetVertexID, m.name, p.TimeMs, *m.v))
			}
		}
	}
	sortSamples(out)
	return out
}

// VertexSamples converts vertex series newer than sinceMs (complete buckets only) into samples. Each vertex gets
// model.MetricBusyRatio from the ratio of its role (sourceReadRatio for a source,
// transformBusyRatio for a transform, sinkBusyRatio for a sink) so the same views work for every
// engine; a source also keeps sourceIdleRatio under its own name.
func (c *Client) VertexSamples(job *model.Job, v RealtimeVertices, sinceMs int64) []model.MetricSample {
	names := map[string]string{}
	if job != nil {
		for _, vx := range job.Vertices {
			names[vx.ID] = vx.Name
		}
	}
	var out []model.MetricSample
	for _, vx := range v.Vertices {
		for _, p := range vx.Points {
			if p.TimeMs <= sinceMs || !complete(p.TimeMs, v.BucketMs, v.ToMs) {
				continue
			}
			role := vertexRole(names[vx.VertexID], p)
			var busy *float64
			switch role {
			case "source":
				busy = p.SourceReadRatio
				if p.SourceIdleRatio != nil {
					out = append(out, c.sample(job, vx.VertexID, "", MetricSourceIdleRatio, p.TimeMs, *p.SourceIdleRatio))
				}
			case "transform":
				busy = p.TransformBusyRatio
			case "sink":
				busy = p.SinkBusyRatio
				if ns := p.SinkPrepareCommitNs + p.SinkCommitNs; ns > 0 {
					// The sink-commit lane: commit time in the bucket.
					out = append(out, c.sample(job, vx.VertexID, "", model.MetricCommitDurationMs, p.TimeMs, float64(ns)/1e6))
				}
			}
			if busy != nil {
				out = append(out, c.sample(job, vx.VertexID, "", model.MetricBusyRatio, p.TimeMs, *busy))
			}
		}
	}
	sortSamples(out)
	return out
}

// vertexRole tells a vertex's role from its name (Source[0]-..., Transform..., Sink[0]-...),
// else from which of its counters move.
func vertexRole(name string, p RealtimeVertexPoint) string {
	n := strings.ToLower(name)
	switch {
	case strings.HasPrefix(n, "source"):
		return "source"
	case strings.HasPrefix(n, "transform"):
		return "transform"
	case strings.HasPrefix(n, "sink"):
		return "sink"
	}
	nonZero := func(f *float64) bool { return f != nil && *f != 0 }
	switch {
	case p.SinkRecordsIn > 0 || nonZero(p.SinkBusyRatio):
		return "sink"
	case p.TransformRecordsIn > 0 || nonZero(p.TransformBusyRatio):
		return "transform"
	}
	return "source"
}

func (c *Client) sample(job *model.Job, vertex, target, metric string, ts int64, v float64) model.MetricSample {
	s := model.MetricSample{
		Cluster: c.cluster(), VertexID: vertex, Target: target, Subtask: -1,
		Metric: metric, Agg: model.AggAvg, TimeMs: ts, Value: v, Source: "rest",
	}
	if job != nil {
		s.JobID = job.ID
	}
	return s
}

func sortSamples(s []model.MetricSample) {
	sort.SliceStable(s, func(a, b int) bool {
		if s[a].TimeMs != s[b].TimeMs {
			return s[a].TimeMs < s[b].TimeMs
		}
		if s[a].VertexID != s[b].VertexID {
			return s[a].VertexID < s[b].VertexID
		}
		return s[a].Metric < s[b].Metric
	})
}
