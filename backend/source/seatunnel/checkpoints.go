package seatunnel

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"checkpoint-explorer/backend/model"
)

// HistoryCapacity is how many finished checkpoints Zeta keeps per pipeline (a ring buffer).
const HistoryCapacity = 32

// CompletedPointID is the id of the "completed-point" a pipeline takes when all its sources
// have finished (Long.MAX_VALUE).
const CompletedPointID = math.MaxInt64

// Checkpoint type names as the engine sends them (CheckpointType.getName()).
const (
	TypeCheckpoint         = "checkpoint"
	TypeSavepoint          = "savepoint"
	TypeCompletedPoint     = "completed-point"
	TypeSchemaChangeBefore = "schema-change-before-point"
	TypeSchemaChangeAfter  = "schema-change-after-point"
)

// expiredPrefix starts the failure reason of CheckpointCloseReason.CHECKPOINT_EXPIRED.
const expiredPrefix = "Checkpoint expired before completing"

// CheckpointInfo is one finished checkpoint as the engine reports it.
type CheckpointInfo struct {
	Pipeline int
	ID       int64
	// Type is the engine's type name: checkpoint, savepoint, completed-point, schema-change-*.
	Type string
	// Status is COMPLETED, FAILED or CANCELED.
	Status    string
	TriggerMs int64
	// CompletedMs is the time of the last acknowledgement; 0 for failed checkpoints.
	CompletedMs int64
	// DurationMs is completed - trigger; nil when not reported (failed checkpoints).
	DurationMs *int64
	// StateBlobs is the engine's stateSize: a count of non-empty state blobs, not bytes.
	StateBlobs *int64
	// FailureReason is the close reason's message, optionally " - " and the cause's message.
	FailureReason string
}

// InProgressCheckpoint is a checkpoint still collecting acknowledgements.
type InProgressCheckpoint struct {
	Pipeline     int
	ID           int64
	Type         string
	TriggerMs    int64
	Acknowledged int
	Total        int
}

// CheckpointCounts are a pipeline's counters since the job started.
type CheckpointCounts struct {
	Triggered, Completed, Failed, InProgress, Restored int64
}

// PipelineCheckpoints is one pipeline's part of the checkpoint overview.
type PipelineCheckpoints struct {
	Pipeline int
	Counts   CheckpointCounts
	// LatestCompleted, LatestFailed and LatestSavepoint are nil when the engine sent {}.
	LatestCompleted *CheckpointInfo
	LatestFailed    *CheckpointInfo
	LatestSavepoint *CheckpointInfo
	InProgress      []InProgressCheckpoint
	// History is the ring buffer, newest first as sent.
	History []CheckpointInfo
}

// CheckpointOverview is GET /jobs/checkpoints/:jobId.
type CheckpointOverview struct {
	JobID string
	// UpdatedMs is when the engine last changed this overview (a trigger, an ack, an end), on
	// the engine's clock; 0 before the first checkpoint.
	UpdatedMs int64
	Pipelines []PipelineCheckpoints
	// Problems lists entries that were skipped because they made no sense (no id, an unknown
	// status); the rest of the answer is kept.
	Problems []string
}

type checkpointJSON struct {
	ID                 flexInt `json:"checkpointId"`
	Type               string  `json:"checkpointType"`
	Status             string  `json:"status"`
	TriggerTimestamp   flexInt `json:"triggerTimestamp"`
	CompletedTimestamp flexInt `json:"completedTimestamp"`
	DurationMillis     flexInt `json:"durationMillis"`
	StateSize          flexInt `json:"stateSize"`
	FailureReason      string  `json:"failureReason"`
}

type historyEntryJSON struct {
	PipelineID flexInt        `json:"pipelineId"`
	Checkpoint checkpointJSON `json:"checkpoint"`
}

type overviewJSON struct {
	JobID     flexID  `json:"jobId"`
	UpdatedAt flexInt `json:"updatedAt"`
	Pipelines []struct {
		PipelineID flexInt `json:"pipelineId"`
		Counts     struct {
			Triggered  flexInt `json:"triggered"`
			Completed  flexInt `json:"completed"`
			Failed     flexInt `json:"failed"`
			InProgress flexInt `json:"inProgress"`
			Restored   flexInt `json:"restored"`
		} `json:"counts"`
		LatestCompleted checkpointJSON `json:"latestCompleted"`
		LatestFailed    checkpointJSON `json:"latestFailed"`
		LatestSavepoint checkpointJSON `json:"latestSavepoint"`
		InProgress      []struct {
			ID           flexInt `json:"checkpointId"`
			Type         string  `json:"checkpointType"`
			Trigger      flexInt `json:"triggerTimestamp"`
			Acknowledged flexInt `json:"acknowledged"`
			Total        flexInt `json:"total"`
		} `json:"inProgress"`
		History []historyEntryJSON `json:"history"`
	} `json:"pipelines"`
}

// Checkpoints returns the job's checkpoint overview: per pipeline its counters, latest
// checkpoints, checkpoints in flight with their ack progress, and the history ring — all in one
// request (GET /jobs/checkpoints/:jobId). A job without checkpoints yet (or unknown to the
// engine, which answers both alike) gives an overview without pipelines. An engine without the
// endpoint gives an error matching ErrNoCheckpointAPI.
func (c *Client) Checkpoints(ctx context.Context, jobID string) (CheckpointOverview, error) {
	if err := checkJobID(jobID); err != nil {
		return CheckpointOverview{}, err
	}
	var raw overviewJSON
	if err := c.getCheckpointAPI(ctx, "/jobs/checkpoints/:jobId", "/jobs/checkpoints/"+url.PathEscape(jobID), nil, &raw); err != nil {
		return CheckpointOverview{}, err
	}
	o := CheckpointOverview{JobID: string(raw.JobID), UpdatedMs: max(raw.UpdatedAt.v, 0)}
	if o.JobID == "" {
		o.JobID = jobID
	}
	for _, p := range raw.Pipelines {
		if !p.PipelineID.ok || p.PipelineID.v < 0 {
			o.Problems = append(o.Problems, "a pipeline without pipelineId, or a negative one")
			continue
		}
		pid := int(p.PipelineID.v)
		pc := PipelineCheckpoints{
			Pipeline: pid,
			Counts: CheckpointCounts{
				Triggered: p.Counts.Triggered.v, Completed: p.Counts.Completed.v, Failed: p.Counts.Failed.v,
				InProgress: p.Counts.InProgress.v, Restored: p.Counts.Restored.v,
			},
			LatestCompleted: latest(pid, p.LatestCompleted),
			LatestFailed:    latest(pid, p.LatestFailed),
			LatestSavepoint: latest(pid, p.LatestSavepoint),
		}
		for _, ip := range p.InProgress {
			if !ip.ID.ok || ip.ID.v < 0 {
				o.Problems = append(o.Problems, fmt.Sprintf("pipeline %d: an in-progress checkpoint without checkpointId, or a negative one", pid))
				continue
			}
			pc.InProgress = append(pc.InProgress, InProgressCheckpoint{
				Pipeline: pid, ID: ip.ID.v, Type: ip.Type, TriggerMs: max(ip.Trigger.v, 0),
				Acknowledged: int(max(ip.Acknowledged.v, 0)), Total: int(max(ip.Total.v, 0)),
			})
		}
		for _, h := range p.History {
			hp := pid
			if h.PipelineID.ok {
				hp = int(h.PipelineID.v)
			}
			info, problem := checkpointInfo(hp, h.Checkpoint)
			if problem != "" {
				o.Problems = append(o.Problems, problem)
				continue
			}
			pc.History = append(pc.History, info)
		}
		o.Pipelines = append(o.Pipelines, pc)
	}
	sort.Slice(o.Pipelines, func(a, b int) bool { return o.Pipelines[a].Pipeline < o.Pipelines[b].Pipeline })
	return o, nil
}

// HistoryQuery filters GET /jobs/checkpoints/history/:jobId.
type HistoryQuery struct {
	// Pipeline limits the answer to one pipeline; 0 for all.
	Pipeline int
	// Limit caps the entries (the engine's default is 20).
	Limit int
	// Status is COMPLETED, FAILED or CANCELED; "" for all.
	Status string
}

// CheckpointHistory returns finished checkpoints, newest trigger first (GET
// /jobs/checkpoints/history/:jobId). Entries that make no sense are skipped and listed in the
// second result.
func (c *Client) CheckpointHistory(ctx context.Context, jobID string, q HistoryQuery) ([]CheckpointInfo, []string, error) {
	if err := checkJobID(jobID); err != nil {
		return nil, nil, err
	}
	query := url.Values{}
	if q.Pipeline > 0 {
		query.Set("pipelineId", strconv.Itoa(q.Pipeline))
	}
	if q.Limit > 0 {
		query.Set("limit", strconv.Itoa(q.Limit))
	}
	if q.Status != "" {
		switch s := strings.ToUpper(q.Status); s {
		case "COMPLETED", "FAILED", "CANCELED":
			query.Set("status", s)
		default:
			return nil, nil, fmt.Errorf("seatunnel: history status %q, want COMPLETED, FAILED or CANCELED", q.Status)
		}
	}
	var raw []historyEntryJSON
	if err := c.getCheckpointAPI(ctx, "/jobs/checkpoints/history/:jobId", "/jobs/checkpoints/history/"+url.PathEscape(jobID), query, &raw); err != nil {
		return nil, nil, err
	}
	var (
		out      []CheckpointInfo
		problems []string
	)
	for _, h := range raw {
		info, problem := checkpointInfo(int(h.PipelineID.v), h.Checkpoint)
		if problem != "" {
			problems = append(problems, problem)
			continue
		}
		out = append(out, info)
	}
	return out, problems, nil
}

// getCheckpointAPI is get for the checkpoint endpoints, where the engine never answers 404
// itself (an unknown job gets 200 and no pipelines): a 404, or v1's empty 204 for unknown
// paths, means the endpoint does not exist in this version.
func (c *Client) getCheckpointAPI(ctx context.Context, endpoint, path string, query url.Values, out any) error {
	r, err := c.fetch(ctx, endpoint, path, query)
	if err != nil {
		return err
	}
	if r.status == 404 || (r.ok() && r.empty()) {
		e := r.fail(ErrNoCheckpointAPI.Error())
		e.StatusText = http.StatusText(r.status)
		e.kind = ErrNoCheckpointAPI
		return e
	}
	if !r.ok() {
		return c.statusError(r, nil)
	}
	return c.decode(r, out)
}

// latest reads a latestCompleted/latestFailed/latestSavepoint object; {} (no such checkpoint
// yet) gives nil.
func latest(pipeline int, j checkpointJSON) *CheckpointInfo {
	if !j.ID.ok {
		return nil
	}
	info, problem := checkpointInfo(pipeline, j)
	if problem != "" {
		return nil
	}
	return &info
}

// checkpointInfo reads one finished checkpoint. Ids must be whole and non-negative; a negative
// time, duration or state size, which the model cannot hold, reads as not reported.
func checkpointInfo(pipeline int, j checkpointJSON) (CheckpointInfo, string) {
	if !j.ID.ok {
		return CheckpointInfo{}, fmt.Sprintf("pipeline %d: a history entry without checkpointId", pipeline)
	}
	if j.ID.v < 0 || pipeline < 0 {
		return CheckpointInfo{}, fmt.Sprintf("pipeline %d: checkpoint %d: a negative id", pipeline, j.ID.v)
	}
	status := strings.ToUpper(strings.TrimSpace(j.Status))
	switch status {
	case "COMPLETED", "FAILED", "CANCELED", "CANCELLED":
	default:
		return CheckpointInfo{}, fmt.Sprintf("pipeline %d checkpoint %d: unknown status %q", pipeline, j.ID.v, snippet([]byte(j.Status)))
	}
	return CheckpointInfo{
		Pipeline: pipeline, ID: j.ID.v, Type: j.Type, Status: status,
		TriggerMs: max(j.TriggerTimestamp.v, 0), CompletedMs: max(j.CompletedTimestamp.v, 0),
		DurationMs: j.DurationMillis.nonNeg(), StateBlobs: j.StateSize.nonNeg(),
		FailureReason: j.FailureReason,
	}, ""
}

// Kind maps an engine type name to a model kind; ok is false for the completed-point, which is
// not a checkpoint of the stream but the pipeline's final one (id Long.MAX_VALUE): kept out of
// the model so it cannot break id order and gap detection. Schema-change points are
// checkpoints taken around a schema change and count as checkpoints.
func Kind(typeName string, id int64) (model.CheckpointKind, bool) {
	t := strings.ToLower(strings.TrimSpace(typeName))
	switch {
	case id == CompletedPointID || t == TypeCompletedPoint || t == "completed_point_type":
		return "", false
	case strings.Contains(t, "savepoint"):
		return model.KindSavepoint, true
	}
	return model.KindCheckpoint, true
}

// Checkpoint converts a finished checkpoint to the model. timeoutMs is the job's
// checkpoint.timeout when known: an expired checkpoint then gets FailureMs = trigger + timeout
// (when the engine's expiry timer fired) and that duration; other failures have no end time
// (Zeta does not report one). ok is false for the completed-point (see Kind).
func (c *Client) Checkpoint(jobID string, info CheckpointInfo, timeoutMs int64) (model.Checkpoint, bool) {
	kind, ok := Kind(info.Type, info.ID)
	if !ok {
		return model.Checkpoint{}, false
	}
	cp := model.Checkpoint{
		Cluster: c.cluster(), JobID: jobID, ID: info.ID, Pipeline: info.Pipeline,
		Kind: kind, TriggerMs: info.TriggerMs, StateBlobs: info.StateBlobs,
	}
	switch info.Status {
	case "COMPLETED":
		cp.Status = model.StatusCompleted
		// Zeta completes a checkpoint on its last acknowledgement: both times are the same.
		cp.CompletionMs, cp.LatestAckMs = info.CompletedMs, info.CompletedMs
		switch {
		case info.DurationMs != nil:
			cp.EndToEndMs = *info.DurationMs
		case info.CompletedMs > 0 && info.TriggerMs > 0:
			cp.EndToEndMs = info.CompletedMs - info.TriggerMs
		}
	default:
		cp.Status = model.StatusFailed
		cp.FailureMessage = info.FailureReason
		if info.Status != "FAILED" {
			// CANCELED: the coordinator finished (the pipeline ended) while it ran.
			cp.FailureMessage = strings.TrimSpace("canceled: " + info.FailureReason)
		}
		switch {
		case info.DurationMs != nil:
			cp.EndToEndMs = *info.DurationMs
			cp.FailureMs = addMs(info.TriggerMs, *info.DurationMs)
		case info.CompletedMs > 0:
			cp.FailureMs = info.CompletedMs
			cp.EndToEndMs = info.CompletedMs - info.TriggerMs
		case timeoutMs > 0 && info.TriggerMs > 0 && strings.HasPrefix(info.FailureReason, expiredPrefix):
			cp.FailureMs = addMs(info.TriggerMs, timeoutMs)
			cp.EndToEndMs = timeoutMs
		}
	}
	if cp.EndToEndMs < 0 {
		cp.EndToEndMs = 0
	}
	return cp, true
}

// addMs adds two non-negative times, saturating instead of overflowing into the negative.
func addMs(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// History converts an overview to what the collector consumes: finished checkpoints from every
// pipeline's ring and latest entries (deduplicated), checkpoints in flight as IN_PROGRESS with
// their ack counts, and one AckSample per checkpoint in flight, stamped with the engine's
// updatedAt (the overview holds the state as of that moment) or 0 for "now".
func (c *Client) History(o CheckpointOverview, intervalMs, timeoutMs int64) model.History {
	h := model.History{Capacity: HistoryCapacity, IntervalMs: intervalMs, Triggered: -1}
	type key struct {
		p  int
		id int64
	}
	seen := map[key]int{}
	add := func(cp model.Checkpoint) {
		k := key{cp.Pipeline, cp.ID}
		if i, ok := seen[k]; ok {
			// The same id twice: a pipeline restored from an older checkpoint reuses ids. The
			// newer trigger is the one that counts.
			if cp.TriggerMs > h.Checkpoints[i].TriggerMs {
				h.Checkpoints[i] = cp
			}
			return
		}
		seen[k] = len(h.Checkpoints)
		h.Checkpoints = append(h.Checkpoints, cp)
	}
	for _, p := range o.Pipelines {
		if p.Counts.Triggered > 0 {
			h.Triggered = max(h.Triggered, 0) + p.Counts.Triggered
		}
		if p.Counts != (CheckpointCounts{}) {
			if h.Counts == nil {
				h.Counts = map[int]model.EngineCounts{}
			}
			h.Counts[p.Pipeline] = model.EngineCounts{Triggered: p.Counts.Triggered, Completed: p.Counts.Completed,
				Failed: p.Counts.Failed, InProgress: p.Counts.InProgress, Restored: p.Counts.Restored}
		}
		if len(p.History) > h.Capacity {
			h.Capacity = len(p.History)
		}
		for _, info := range p.History {
			if cp, ok := c.Checkpoint(o.JobID, info, timeoutMs); ok {
				add(cp)
			}
		}
		// The latest entries are also in the ring unless it rolled over them; keeping them
		// loses nothing and can save one from eviction.
		for _, info := range []*CheckpointInfo{p.LatestCompleted, p.LatestFailed, p.LatestSavepoint} {
			if info == nil {
				continue
			}
			if _, dup := seen[key{info.Pipeline, info.ID}]; dup {
				continue
			}
			if cp, ok := c.Checkpoint(o.JobID, *info, timeoutMs); ok {
				add(cp)
			}
		}
		for _, ip := range p.InProgress {
			kind, ok := Kind(ip.Type, ip.ID)
			if !ok {
				continue
			}
			if _, done := seen[key{ip.Pipeline, ip.ID}]; done {
				continue // ended between the ring's update and the in-flight list's
			}
			add(model.Checkpoint{
				Cluster: c.cluster(), JobID: o.JobID, ID: ip.ID, Pipeline: ip.Pipeline,
				Kind: kind, Status: model.StatusInProgress, TriggerMs: ip.TriggerMs,
				NumSubtasks: ip.Total, NumAcknowledged: ip.Acknowledged,
			})
			h.InFlight = append(h.InFlight, model.AckSample{
				Cluster: c.cluster(), JobID: o.JobID, Pipeline: ip.Pipeline, CheckpointID: ip.ID,
				TimeMs: o.UpdatedMs, Acknowledged: ip.Acknowledged, Total: ip.Total,
			})
		}
	}
	return h
}
