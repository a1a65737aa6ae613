package jaeger

import (
	"regexp"
	"sort"
	"time"

	"checkpoint-explorer/backend/model"
)

// Bounds of reading a cluster's traces (docs/interop.md, "A cluster's traces").
const (
	// Lookback is how far back traces are read: Jaeger deployments keep spans for days.
	Lookback = 7 * 24 * time.Hour
	// OpenRequests bounds the requests of reading one job's spans whole (opening it from
	// traces alone, recording it).
	OpenRequests = 256
	// MaxWindows caps the time ranges Uncovered returns; more are joined.
	MaxWindows = 32
)

// UnknownState is the state of a job known from its spans alone: they say nothing of it.
const UnknownState = "UNKNOWN"

// jobID is how an engine writes a job id: Flink's JobID.toHexString, 32
// hexadecimal digits, or SeaTunnel's, a decimal number (spans the app exported).
var jobID = regexp.MustCompile(`^([0-9a-f]{32}|[0-9]{1,20})$`)

// JobIDForm says how ValidJobID wants a job id written, for errors.
const JobIDForm = "a Flink job id is 32 hexadecimal digits, a SeaTunnel one a number"

// ValidJobID reports whether id is written as Flink (32 hexadecimal digits) or
// SeaTunnel (a decimal number) writes a job id.
func ValidJobID(id string) bool { return jobID.MatchString(id) }

// Uncovered returns the time ranges a cache holding the checkpoints all has no record of: before the first cached
// checkpoint (from from on), between cached checkpoints whose ids skip, and — when toNow —
// after the last one. A checkpoint cached in progress with a final one after it is no record
// either (it left the engine's history before it ended). At most MaxWindows are
// returned: neighbouring ranges are joined beyond that.
func Uncovered(all []model.Checkpoint, from, now time.Time, toNow bool) []Window {
	var newestFinal int64 = -1
	for _, c := range all {
		if c.Status.Final() {
			newestFinal = max(newestFinal, c.ID)
		}
	}
	cached := make([]model.Checkpoint, 0, len(all))
	for _, c := range all {
		if c.Status.Final() || c.ID > newestFinal {
			cached = append(cached, c)
		}
	}
	var out []Window
	addW := func(f, t time.Time) {
		if f.Before(from) {
			f = from
		}
		if t.After(f) {
			out = append(out, Window{From: f, To: t})
		}
	}
	if len(cached) == 0 {
		addW(from, now)
		return out
	}
	sorted := append([]model.Checkpoint(nil), cached...)
	sort.Slice(sorted, func(i, k int) bool { return sorted[i].ID < sorted[k].ID })
	addW(from, time.UnixMilli(sorted[0].TriggerMs))
	for i := 1; i < len(sorted); i++ {
		a, b := sorted[i-1], sorted[i]
		if b.ID > a.ID+1 {
			addW(time.UnixMilli(a.TriggerMs+1), time.UnixMilli(b.TriggerMs))
		}
	}
	if toNow {
		addW(time.UnixMilli(sorted[len(sorted)-1].TriggerMs+1), now)
	}
	if len(out) <= MaxWindows {
		return out
	}
	// Join runs of neighbours: each of MaxWindows groups spans its first to its last.
	joined := make([]Window, 0, MaxWindows)
	per := (len(out) + MaxWindows - 1) / MaxWindows
	for i := 0; i < len(out); i += per {
		last := min(i+per, len(out)) - 1
		joined = append(joined, Window{From: out[i].From, To: out[last].To})
	}
	return joined
}

// JobOf is job id of cluster as the spans r holds describe it: its name where Flink 2.x sends it, its
// engine where the app's own spans say (Flink otherwise), its vertices from the per-task spans
// (ids only: spans carry no operator names).
func JobOf(cluster, id string, r Result) model.Job {
	j := model.Job{Cluster: cluster, ID: id, Name: r.Job.Name, Engine: model.EngineFlink, State: UnknownState}
	if r.Job.Engine.Valid() {
		j.Engine = r.Job.Engine // the app's own spans say (a SeaTunnel job's history sent by a collector)
	}
	if j.Name == "" {
		j.Name = id
	}
	par := map[string]int{}
	var order []string
	for _, cp := range r.Checkpoints {
		for _, t := range cp.Tasks {
			if _, ok := par[t.VertexID]; !ok {
				order = append(order, t.VertexID)
			}
			par[t.VertexID] = max(par[t.VertexID], len(t.Subtasks))
		}
	}
	for _, v := range order {
		j.Vertices = append(j.Vertices, model.Vertex{ID: v, Name: v, Parallelism: par[v]})
	}
	return j
}
