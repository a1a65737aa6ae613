package jaeger

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"time"

	"checkpoint-explorer/backend/interop"
	"checkpoint-explorer/backend/model"
)

// JobIDTag is the span attribute the search filters on: the checkpoint stats tracker's own
// jobId, which Flink 1.20 and 2.x both send (2.x also sends the job metric group's <job_id> as
// job_id and job_name; 1.20 only jobId).
const JobIDTag = "jobId"

// Window is a half-open time range [From, To).
type Window struct {
	From, To time.Time
}

func (w Window) String() string {
	return w.From.UTC().Format(time.RFC3339Nano) + " .. " + w.To.UTC().Format(time.RFC3339Nano)
}

// Result is what one Checkpoints call read.
type Result struct {
	// Checkpoints are the job's checkpoints triggered in the range, by id (then trigger time),
	// each once.
	Checkpoints []model.Checkpoint
	// Requests is how many requests were made (at most MaxRequests).
	Requests int
	// Incomplete lists the windows that may hold checkpoints not read: an answer still full
	// (PageSize traces) or too large at MinWindow, or windows never asked because MaxRequests
	// ran out. Empty when the whole range was read.
	Incomplete []Window
	// Skipped counts spans in the answers that are not Flink checkpoint spans.
	Skipped int
	// Job is the job as its spans name it (Flink 2.x sends job_name; 1.20 only the id, which
	// is then its name too); zero when no checkpoint was read.
	Job model.Job
}

// Complete reports whether the whole range was read.
func (r Result) Complete() bool { return len(r.Incomplete) == 0 }

// Checkpoints reads the checkpoints of job jobID triggered in [from, to) from the job-level
// "Checkpoint" spans of Config.Service (one trace per checkpoint, with the Checkpoint_Task and
// Checkpoint_Subtask spans where Flink's span-detail-level sends them).
//
// Requests: GET /api/traces?service=S&operation=Checkpoint&tags={"jobId":J}&start=…&end=…
// &limit=PageSize&raw=true. A full or too large answer splits its window in two (both halves
// asked), down to MinWindow; at most MaxRequests requests in all. An error of a request fails the
// call; windows not read whole are in Result.Incomplete.
func (c *Client) Checkpoints(ctx context.Context, jobID string, from, to time.Time) (Result, error) {
	return c.CheckpointsIn(ctx, jobID, []Window{{from, to}})
}

// CheckpointsIn is Checkpoints over several windows, asked in order, under one MaxRequests
// bound: the windows not reached are in Result.Incomplete.
func (c *Client) CheckpointsIn(ctx context.Context, jobID string, windows []Window) (Result, error) {
	var res Result
	if jobID == "" {
		return res, errors.New("jaeger: no job id")
	}
	for _, w := range windows {
		if !w.To.After(w.From) {
			return res, fmt.Errorf("jaeger: empty time range %s", w)
		}
	}
	tags, err := json.Marshal(map[string]string{JobIDTag: jobID})
	if err != nil {
		return res, err
	}
	seen := map[string]bool{}
	queue := append([]Window(nil), windows...)
	for len(queue) > 0 {
		w := queue[0]
		queue = queue[1:]
		if res.Requests >= c.cfg.MaxRequests {
			res.Incomplete = append(res.Incomplete, w)
			continue
		}
		res.Requests++
		cps, job, traces, skipped, err := c.window(ctx, w, string(tags), jobID)
		full := traces >= c.cfg.PageSize
		if errors.Is(err, errBodyTooLarge) {
			full, err = true, nil
		}
		if err != nil {
			return res, err
		}
		res.Skipped += skipped
		if job.ID != "" && (res.Job.ID == "" || res.Job.Name == res.Job.ID) {
			res.Job = job
		}
		for _, cp := range cps {
			key := strconv.FormatInt(cp.ID, 10) + "@" + strconv.FormatInt(cp.TriggerMs, 10)
			if !seen[key] {
				seen[key] = true
				res.Checkpoints = append(res.Checkpoints, cp)
			}
		}
		if full {
			if w.To.Sub(w.From) <= c.cfg.MinWindow {
				res.Incomplete = append(res.Incomplete, w)
				continue
			}
			mid := w.From.Add(w.To.Sub(w.From) / 2)
			queue = append(queue, Window{w.From, mid}, Window{mid, w.To})
		}
	}
	sort.Slice(res.Checkpoints, func(i, j int) bool {
		a, b := res.Checkpoints[i], res.Checkpoints[j]
		if a.ID != b.ID {
			return a.ID < b.ID
		}
		return a.TriggerMs < b.TriggerMs
	})
	sort.Slice(res.Incomplete, func(i, j int) bool { return res.Incomplete[i].From.Before(res.Incomplete[j].From) })
	return res, nil
}

// window asks for one window's traces and returns the job's checkpoints triggered in it, the job
// as its spans name it, the number of traces in the answer, and the spans skipped.
func (c *Client) window(ctx context.Context, w Window, tags, jobID string) ([]model.Checkpoint, model.Job, int, int, error) {
	q := url.Values{}
	q.Set("service", c.cfg.Service)
	q.Set("operation", DefaultOperation)
	q.Set("tags", tags)
	q.Set("start", micros(w.From))
	// Jaeger's end is inclusive; the window is half-open.
	q.Set("end", micros(w.To.Add(-time.Microsecond)))
	q.Set("limit", strconv.Itoa(c.cfg.PageSize))
	// As stored: no clock-skew or other adjustment of the times.
	q.Set("raw", "true")
	data, err := c.getTraces(ctx, q)
	if err != nil {
		return nil, model.Job{}, 0, 0, err
	}
	a, err := parseAnswer(data, c.cfg.Cluster)
	if err != nil {
		return nil, model.Job{}, 0, 0, newError(endpointTraces+"?"+q.Encode(), 200, err.Error(), nil)
	}
	var job model.Job
	for _, j := range a.jobs {
		if j.ID == jobID {
			job = j
		}
	}
	cps := a.checkpoints
	out := cps[:0]
	fromMs, toMs := w.From.UnixMilli(), w.To.UnixMilli()
	for _, cp := range cps {
		// The tag filter is Jaeger's; a span without the tag (another reporter setup) is kept
		// out here too, and so is one outside the window (a trace's other spans started earlier).
		if cp.JobID == jobID && cp.TriggerMs >= fromMs && (cp.TriggerMs < toMs || w.To.Sub(w.From) < time.Millisecond) {
			out = append(out, cp)
		}
	}
	return out, job, a.traces, a.skipped, nil
}

// answer is one GET /api/traces body read as Flink checkpoints.
type answer struct {
	checkpoints []model.Checkpoint
	jobs        []model.Job
	// traces is how many traces the answer held; skipped the spans not Flink checkpoint spans.
	traces, skipped int
}

// parseAnswer turns a GET /api/traces body into checkpoints (through interop.ReadOTLP), marked
// as read from traces.
func parseAnswer(data []byte, cluster string) (answer, error) {
	a, err := decodeAnswer(data)
	if err != nil {
		return answer{}, fmt.Errorf("not Jaeger's trace JSON: %w", err)
	}
	if len(a.Errors) > 0 {
		return answer{}, fmt.Errorf("Jaeger answered an error: %s", a.Errors[0].Msg)
	}
	otlp, err := toOTLP(a.Data)
	if err != nil {
		return answer{}, err
	}
	spans, err := interop.ReadOTLP(bytes.NewReader(otlp), cluster)
	if err != nil {
		return answer{}, err
	}
	for i := range spans.Checkpoints {
		spans.Checkpoints[i].Source = model.OriginTraces
		sortTasks(&spans.Checkpoints[i])
	}
	return answer{checkpoints: spans.Checkpoints, jobs: spans.Jobs, traces: len(a.Data), skipped: spans.Skipped}, nil
}

// sortTasks orders a checkpoint's tasks by vertex id and their subtasks by index: spans come in
// no particular order, equal input gives equal output.
func sortTasks(c *model.Checkpoint) {
	sort.Slice(c.Tasks, func(i, j int) bool { return c.Tasks[i].VertexID < c.Tasks[j].VertexID })
	for t := range c.Tasks {
		subs := c.Tasks[t].Subtasks
		sort.Slice(subs, func(i, j int) bool { return subs[i].Index < subs[j].Index })
	}
}
