package interop

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"

	"checkpoint-explorer/backend/model"
)

// Trace Event Format (the JSON Perfetto and chrome://tracing open): times
// in microseconds; "X" complete slices, which on one thread must nest or
// not overlap; "b"/"e" async slices paired by category and id, for the
// checkpoints themselves (they may overlap one another); "C" counters; "M"
// metadata naming processes and threads.
type traceEvent struct {
	Name string         `json:"name"`
	Cat  string         `json:"cat,omitempty"`
	Ph   string         `json:"ph"`
	Ts   int64          `json:"ts"`
	Dur  *int64         `json:"dur,omitempty"`
	Pid  int            `json:"pid"`
	Tid  int            `json:"tid"`
	ID   string         `json:"id,omitempty"`
	Args map[string]any `json:"args,omitempty"`
}

// PerfettoWriter lays a job's checkpoints out as a trace: a process for the
// job; a track "checkpoints" with each checkpoint as an async slice; a
// thread per vertex and subtask with the subtask's phases (start delay,
// alignment, sync, async) under a slice for the checkpoint; counters for
// the checkpointed size and each vertex's backpressure.
type PerfettoWriter struct {
	job     model.Job
	names   map[string]string // vertex id → name
	events  []traceEvent
	threads map[string]int // "vertex/subtask" → tid
	lastEnd map[int]int64  // tid → end of its last slice (µs)
	// Skipped counts subtask slices left out because a concurrent
	// checkpoint's slices were still open on that thread.
	Skipped int
}

const (
	perfettoPid   = 1
	checkpointTid = 1
	catCheckpoint = "checkpoint"
	catPhase      = "phase"
)

// NewPerfettoWriter starts a trace of job.
func NewPerfettoWriter(job model.Job) *PerfettoWriter {
	w := &PerfettoWriter{job: job, names: map[string]string{}, threads: map[string]int{}, lastEnd: map[int]int64{}}
	for _, v := range job.Vertices {
		w.names[v.ID] = v.Name
	}
	name := cmp.Or(job.Name, job.ID)
	w.events = append(w.events,
		traceEvent{Name: "process_name", Ph: "M", Pid: perfettoPid, Args: map[string]any{"name": name + " (" + job.ID + ")"}},
		traceEvent{Name: "thread_name", Ph: "M", Pid: perfettoPid, Tid: checkpointTid, Args: map[string]any{"name": "checkpoints"}},
		traceEvent{Name: "thread_sort_index", Ph: "M", Pid: perfettoPid, Tid: checkpointTid, Args: map[string]any{"sort_index": 0}})
	return w
}

func us(ms int64) int64 { return ms * 1000 }

func (w *PerfettoWriter) thread(vertex string, subtask int) int {
	key := vertex + "/" + strconv.Itoa(subtask)
	if tid, ok := w.threads[key]; ok {
		return tid
	}
	tid := checkpointTid + 1 + len(w.threads)
	w.threads[key] = tid
	w.events = append(w.events,
		traceEvent{Name: "thread_name", Ph: "M", Pid: perfettoPid, Tid: tid,
			Args: map[string]any{"name": fmt.Sprintf("%s #%d", cmp.Or(w.names[vertex], vertex), subtask)}},
		traceEvent{Name: "thread_sort_index", Ph: "M", Pid: perfettoPid, Tid: tid, Args: map[string]any{"sort_index": tid}})
	return tid
}

func slice(name, cat string, tid int, from, to int64, args map[string]any) traceEvent {
	d := max(0, to-from)
	return traceEvent{Name: name, Cat: cat, Ph: "X", Ts: from, Dur: &d, Pid: perfettoPid, Tid: tid, Args: args}
}

// Add lays out one checkpoint. In-progress checkpoints are left out.
func (w *PerfettoWriter) Add(c *model.Checkpoint) {
	end := c.EndMs()
	if end == 0 {
		return
	}
	name := fmt.Sprintf("checkpoint %d", c.ID)
	id := strconv.FormatInt(c.ID, 10)
	if c.Pipeline != 0 {
		name = fmt.Sprintf("pipeline %d checkpoint %d", c.Pipeline, c.ID)
		id = strconv.Itoa(c.Pipeline) + "-" + id
	}
	args := map[string]any{"status": string(c.Status), "end_to_end_ms": c.EndToEndMs, "checkpointed_size": c.CheckpointedSize}
	if c.FailureMessage != "" {
		args["failure"] = c.FailureMessage
	}
	w.events = append(w.events,
		traceEvent{Name: name, Cat: catCheckpoint, Ph: "b", Ts: us(c.TriggerMs), Pid: perfettoPid, Tid: checkpointTid, ID: id, Args: args},
		traceEvent{Name: name, Cat: catCheckpoint, Ph: "e", Ts: us(max(end, c.TriggerMs)), Pid: perfettoPid, Tid: checkpointTid, ID: id},
		traceEvent{Name: "checkpointed size", Ph: "C", Ts: us(max(end, c.TriggerMs)), Pid: perfettoPid,
			Args: map[string]any{"bytes": c.CheckpointedSize}})
	for t := range c.Tasks {
		task := &c.Tasks[t]
		for s := range task.Subtasks {
			st := &task.Subtasks[s]
			if !st.Acknowledged() || st.AckMs < c.TriggerMs {
				continue
			}
			w.addSubtask(c, name, task.VertexID, st)
		}
	}
}

// addSubtask lays a subtask's phases in order from the trigger: start
// delay, alignment, then sync and async ending at the acknowledgement
// (Flink measures them, not the gaps between), all inside one slice for
// the checkpoint.
func (w *PerfettoWriter) addSubtask(c *model.Checkpoint, name, vertex string, st *model.SubtaskStats) {
	tid := w.thread(vertex, st.Index)
	t0, ack := us(c.TriggerMs), us(st.AckMs)
	if t0 < w.lastEnd[tid] {
		w.Skipped++ // a concurrent checkpoint still open on this thread: slices must nest
		return
	}
	sd := t0 + us(max(0, st.StartDelayMs))
	al := sd + us(max(0, st.AlignmentMs))
	asyncFrom := max(al, ack-us(max(0, st.AsyncMs)))
	syncFrom := max(al, asyncFrom-us(max(0, st.SyncMs)))
	syncTo := max(syncFrom, min(asyncFrom, syncFrom+us(max(0, st.SyncMs))))
	asyncTo := max(asyncFrom, ack)
	end := max(asyncTo, syncTo)
	w.events = append(w.events, slice(name, catCheckpoint, tid, t0, end, map[string]any{"ack_ms": st.AckMs - c.TriggerMs}))
	for _, p := range []struct {
		name     string
		from, to int64
		ms       int64
	}{
		{"start_delay", t0, sd, st.StartDelayMs}, {"alignment", sd, al, st.AlignmentMs},
		{"sync", syncFrom, syncTo, st.SyncMs}, {"async", asyncFrom, asyncTo, st.AsyncMs},
	} {
		if p.to > p.from {
			w.events = append(w.events, slice(p.name, catPhase, tid, p.from, p.to, map[string]any{"ms": p.ms}))
		}
	}
	w.lastEnd[tid] = end
}

// AddMetric adds a backpressure sample as a counter per vertex (subtask
// aggregates only).
func (w *PerfettoWriter) AddMetric(m *model.MetricSample) {
	if m.Metric != model.MetricBackPressuredMsPerSec || m.Subtask >= 0 {
		return
	}
	w.events = append(w.events, traceEvent{Name: "backpressure " + cmp.Or(w.names[m.VertexID], m.VertexID), Ph: "C",
		Ts: us(m.TimeMs), Pid: perfettoPid, Args: map[string]any{"ratio": m.Value / 1000}})
}

// WriteTo writes the trace, its events in time order (metadata first).
func (w *PerfettoWriter) WriteTo(out io.Writer) (int64, error) {
	evs := slices.Clone(w.events)
	slices.SortStableFunc(evs, func(a, b traceEvent) int {
		if (a.Ph == "M") != (b.Ph == "M") {
			if a.Ph == "M" {
				return -1
			}
			return 1
		}
		return cmp.Compare(a.Ts, b.Ts)
	})
	b, err := json.Marshal(map[string]any{"traceEvents": evs, "displayTimeUnit": "ms",
		"otherData": map[string]any{"producer": "checkpoint-explorer", "job_id": w.job.ID, "skipped_subtask_slices": w.Skipped}})
	if err != nil {
		return 0, err
	}
	n, err := out.Write(append(b, '\n'))
	return int64(n), err
}
