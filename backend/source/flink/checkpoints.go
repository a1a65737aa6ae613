package flink

import (
	"context"
	"fmt"
	"net/url"
	"sort"
	"strconv"

	"checkpoint-explorer/backend/model"
)

// Counts are Flink's checkpoint counters for a job since its JobManager started.
type Counts struct {
	Restored   int64 `json:"restored"`
	Total      int64 `json:"total"`
	InProgress int64 `json:"in_progress"`
	Completed  int64 `json:"completed"`
	Failed     int64 `json:"failed"`
}

// CheckpointList is GET /jobs/:jid/checkpoints: counters and the short history.
type CheckpointList struct {
	Counts Counts
	// History holds summaries (no Tasks), newest first as Flink sends them; only the last
	// web.checkpoints.history (default 10) and empty after a JobManager failover.
	History []model.Checkpoint
	// LatestCompletedID, LatestFailedID, LatestSavepointID and RestoredID are 0 when Flink has none.
	LatestCompletedID int64
	LatestFailedID    int64
	LatestSavepointID int64
	RestoredID        int64
	// RestoredMs is when the job was last restored, 0 if never.
	RestoredMs int64
}

// Checkpoints returns the job's checkpoint counters and history.
func (c *Client) Checkpoints(ctx context.Context, jid string) (CheckpointList, error) {
	var resp struct {
		Counts Counts `json:"counts"`
		Latest struct {
			Completed *struct {
				ID int64 `json:"id"`
			} `json:"completed"`
			Savepoint *struct {
				ID int64 `json:"id"`
			} `json:"savepoint"`
			Failed *struct {
				ID int64 `json:"id"`
			} `json:"failed"`
			Restored *struct {
				ID        int64 `json:"id"`
				RestoreMs int64 `json:"restore_timestamp"`
			} `json:"restored"`
		} `json:"latest"`
		History []checkpointJSON `json:"history"`
	}
	path, err := c.getJob(ctx, jid, "/checkpoints", &resp)
	if err != nil {
		return CheckpointList{}, err
	}
	out := CheckpointList{Counts: resp.Counts}
	if l := resp.Latest.Completed; l != nil {
		out.LatestCompletedID = l.ID
	}
	if l := resp.Latest.Failed; l != nil {
		out.LatestFailedID = l.ID
	}
	if l := resp.Latest.Savepoint; l != nil {
		out.LatestSavepointID = l.ID
	}
	if l := resp.Latest.Restored; l != nil {
		out.RestoredID, out.RestoredMs = l.ID, positive(l.RestoreMs)
	}
	out.History = make([]model.Checkpoint, 0, len(resp.History))
	for _, h := range resp.History {
		if h.ID < 0 {
			return CheckpointList{}, fmt.Errorf("flink: GET %s: a history entry with the negative id %d", path, h.ID)
		}
		out.History = append(out.History, c.checkpoint(jid, h))
	}
	return out, nil
}

// checkpointJSON is a history entry or a details response; the per-vertex tasks map is filled
// only in details.
type checkpointJSON struct {
	ClassName        string                   `json:"className"`
	ID               int64                    `json:"id"`
	Status           string                   `json:"status"`
	IsSavepoint      bool                     `json:"is_savepoint"`
	CheckpointType   string                   `json:"checkpoint_type"`
	TriggerMs        int64                    `json:"trigger_timestamp"`
	LatestAckMs      int64                    `json:"latest_ack_timestamp"`
	StateSize        int64                    `json:"state_size"`
	CheckpointedSize *int64                   `json:"checkpointed_size"` // 1.15+
	EndToEndMs       int64                    `json:"end_to_end_duration"`
	ProcessedData    int64                    `json:"processed_data"`
	PersistedData    int64                    `json:"persisted_data"`
	NumSubtasks      int                      `json:"num_subtasks"`
	NumAcknowledged  int                      `json:"num_acknowledged_subtasks"`
	ExternalPath     string                   `json:"external_path"`
	FailureMs        int64                    `json:"failure_timestamp"`
	FailureMessage   string                   `json:"failure_message"`
	Tasks            map[string]taskStatsJSON `json:"tasks"`
}

type taskStatsJSON struct {
	LatestAckMs      int64  `json:"latest_ack_timestamp"`
	StateSize        int64  `json:"state_size"`
	CheckpointedSize *int64 `json:"checkpointed_size"`
	EndToEndMs       int64  `json:"end_to_end_duration"`
	ProcessedData    int64  `json:"processed_data"`
	PersistedData    int64  `json:"persisted_data"`
	NumSubtasks      int    `json:"num_subtasks"`
	NumAcknowledged  int    `json:"num_acknowledged_subtasks"`
}

// checkpoint maps a history entry or details. Sizes and counts are clamped to 0 like times: a
// negative one (Flink's -1 for "unknown") cannot be exported in a capture.
func (c *Client) checkpoint(jid string, h checkpointJSON) model.Checkpoint {
	cp := model.Checkpoint{
		Cluster:          c.cluster(),
		JobID:            jid,
		ID:               h.ID,
		Kind:             kindOf(h.CheckpointType, h.IsSavepoint),
		Status:           statusOf(h.Status, h.ClassName),
		TriggerMs:        positive(h.TriggerMs),
		LatestAckMs:      positive(h.LatestAckMs),
		FailureMs:        positive(h.FailureMs),
		EndToEndMs:       positive(h.EndToEndMs), // clock skew can make ack precede trigger
		StateSize:        positive(h.StateSize),
		CheckpointedSize: positive(orDefault(h.CheckpointedSize, h.StateSize)),
		ProcessedData:    positive(h.ProcessedData),
		PersistedData:    positive(h.PersistedData),
		NumSubtasks:      max(h.NumSubtasks, 0),
		NumAcknowledged:  max(h.NumAcknowledged, 0),
		FailureMessage:   h.FailureMessage,
		ExternalPath:     externalPath(h.ExternalPath),
	}
	for vid, t := range h.Tasks {
		cp.Tasks = append(cp.Tasks, t.stats(vid))
	}
	// Flink's tasks object is a hash map; sort so equal input gives equal output.
	sort.Slice(cp.Tasks, func(i, j int) bool { return cp.Tasks[i].VertexID < cp.Tasks[j].VertexID })
	return cp
}

// kindOf maps checkpoint_type (UNALIGNED_CHECKPOINT from 1.18) and is_savepoint to a kind.
func kindOf(checkpointType string, isSavepoint bool) model.CheckpointKind {
	switch {
	case isSavepoint, checkpointType == "SAVEPOINT", checkpointType == "SYNC_SAVEPOINT":
		return model.KindSavepoint
	case checkpointType == "UNALIGNED_CHECKPOINT":
		return model.KindUnaligned
	}
	return model.KindCheckpoint
}

// statusOf maps status, falling back on className. A status this client does not know is
// treated as in progress: not final, so a collector fetches it again rather than losing it.
func statusOf(status, className string) model.Status {
	switch status {
	case "COMPLETED":
		return model.StatusCompleted
	case "FAILED":
		return model.StatusFailed
	case "IN_PROGRESS":
		return model.StatusInProgress
	}
	switch className {
	case "completed":
		return model.StatusCompleted
	case "failed":
		return model.StatusFailed
	}
	return model.StatusInProgress
}

func orDefault(v *int64, def int64) int64 {
	if v == nil {
		return def
	}
	return *v
}

// CheckpointDetail returns one checkpoint with per-vertex Tasks (without subtasks). A checkpoint
// evicted from Flink's history and details cache gives an error matching ErrNotFound.
func (c *Client) CheckpointDetail(ctx context.Context, jid string, cid int64) (model.Checkpoint, error) {
	if err := checkID("job id", jid); err != nil {
		return model.Checkpoint{}, err
	}
	var resp checkpointJSON
	path := "/jobs/" + url.PathEscape(jid) + "/checkpoints/details/" + strconv.FormatInt(cid, 10)
	if err := c.get(ctx, "/jobs/:jid/checkpoints/details/:cid", path, nil, &resp); err != nil {
		return model.Checkpoint{}, err
	}
	if resp.ID != cid {
		return model.Checkpoint{}, fmt.Errorf("flink: GET %s: response is for checkpoint %d", path, resp.ID)
	}
	return c.checkpoint(jid, resp), nil
}

// CheckpointConfig is GET /jobs/:jid/checkpoints/config.
type CheckpointConfig struct {
	// Mode is "exactly_once" or "at_least_once".
	Mode            string
	IntervalMs      int64
	TimeoutMs       int64
	MinPauseMs      int64
	MaxConcurrent   int
	Unaligned       bool
	AlignedTimeout  int64 // ms; 0 = always aligned unless Unaligned
	TolerableFailed int
	// Externalized reports whether completed checkpoints are retained; DeleteOnCancel whether
	// they are deleted when the job is cancelled.
	Externalized     bool
	DeleteOnCancel   bool
	StateBackend     string
	Storage          string
	ChangelogEnabled bool
	// Settings holds the same answer with absent fields nil (BuildJobConfig reads it).
	Settings CheckpointSettings
}

// CheckpointConfig returns the job's checkpoint settings (a job without checkpointing gives an
// error matching ErrNotFound).
func (c *Client) CheckpointConfig(ctx context.Context, jid string) (CheckpointConfig, error) {
	var resp checkpointConfigJSON
	if _, err := c.getJob(ctx, jid, "/checkpoints/config", &resp); err != nil {
		return CheckpointConfig{}, err
	}
	set := resp.settings()
	cc := CheckpointConfig{
		IntervalMs:       deref(set.IntervalMs),
		TimeoutMs:        deref(set.TimeoutMs),
		MinPauseMs:       deref(set.MinPauseMs),
		MaxConcurrent:    int(deref(set.MaxConcurrent)),
		AlignedTimeout:   deref(set.AlignedTimeoutMs),
		TolerableFailed:  int(deref(set.TolerableFailures)),
		Unaligned:        set.Unaligned != nil && *set.Unaligned,
		ChangelogEnabled: set.ChangelogEnabled != nil && *set.ChangelogEnabled,
		Settings:         set,
	}
	if set.Mode != nil {
		cc.Mode = *set.Mode
	}
	if set.StateBackend != nil {
		cc.StateBackend = *set.StateBackend
	}
	if set.CheckpointStorage != nil {
		cc.Storage = *set.CheckpointStorage
	}
	if e := resp.Externalization; e != nil {
		cc.Externalized, cc.DeleteOnCancel = e.Enabled, e.DeleteOnCancel
	}
	return cc, nil
}

func deref(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}

// stats maps a vertex's part of a checkpoint, clamping like checkpoint.
func (t taskStatsJSON) stats(vid string) model.TaskStats {
	return model.TaskStats{
		VertexID:         vid,
		LatestAckMs:      positive(t.LatestAckMs),
		EndToEndMs:       positive(t.EndToEndMs),
		StateSize:        positive(t.StateSize),
		CheckpointedSize: positive(orDefault(t.CheckpointedSize, t.StateSize)),
		ProcessedData:    positive(t.ProcessedData),
		PersistedData:    positive(t.PersistedData),
		NumSubtasks:      max(t.NumSubtasks, 0),
		NumAcknowledged:  max(t.NumAcknowledged, 0),
	}
}

type subtaskJSON struct {
	ClassName        string `json:"className"`
	Index            int    `json:"index"`
	Status           string `json:"status"`
	AckMs            int64  `json:"ack_timestamp"`
	EndToEndMs       int64  `json:"end_to_end_duration"`
	StateSize        int64  `json:"state_size"`
	CheckpointedSize *int64 `json:"checkpointed_size"`
	Checkpoint       struct {
		Sync  int64 `json:"sync"`
		Async int64 `json:"async"`
	} `json:"checkpoint"`
	Alignment struct {
		Processed int64 `json:"processed"`
		Persisted int64 `json:"persisted"`
		Duration  int64 `json:"duration"`
	} `json:"alignment"`
	StartDelay int64 `json:"start_delay"`
	Unaligned  bool  `json:"unaligned_checkpoint"`
	Aborted    bool  `json:"aborted"`
}

// SubtaskStats returns one vertex's part of a checkpoint with a row per subtask, sorted by
// index. Before the vertex reported anything Flink answers 404 ("There is no checkpoint
// statistics for task ..."): the error matches ErrNotFound.
func (c *Client) SubtaskStats(ctx context.Context, jid string, cid int64, vid string) (model.TaskStats, error) {
	if err := checkID("job id", jid); err != nil {
		return model.TaskStats{}, err
	}
	if err := checkID("vertex id", vid); err != nil {
		return model.TaskStats{}, err
	}
	var resp struct {
		taskStatsJSON
		Subtasks []subtaskJSON `json:"subtasks"`
	}
	path := "/jobs/" + url.PathEscape(jid) + "/checkpoints/details/" + strconv.FormatInt(cid, 10) +
		"/subtasks/" + url.PathEscape(vid)
	if err := c.get(ctx, "/jobs/:jid/checkpoints/details/:cid/subtasks/:vid", path, nil, &resp); err != nil {
		return model.TaskStats{}, err
	}
	ts := resp.taskStatsJSON.stats(vid)
	ts.Subtasks = make([]model.SubtaskStats, 0, len(resp.Subtasks))
	for _, s := range resp.Subtasks {
		if s.Index < 0 {
			return model.TaskStats{}, fmt.Errorf("flink: GET %s: negative subtask index %d", path, s.Index)
		}
		ts.Subtasks = append(ts.Subtasks, subtask(s))
	}
	sort.SliceStable(ts.Subtasks, func(i, j int) bool { return ts.Subtasks[i].Index < ts.Subtasks[j].Index })
	for i := 1; i < len(ts.Subtasks); i++ {
		// The store keeps one row per subtask index: a list holding one twice cannot be stored.
		if ts.Subtasks[i].Index == ts.Subtasks[i-1].Index {
			return model.TaskStats{}, fmt.Errorf("flink: GET %s: subtask %d listed twice", path, ts.Subtasks[i].Index)
		}
	}
	return ts, nil
}

func subtask(s subtaskJSON) model.SubtaskStats {
	completed := s.Status == model.SubtaskCompleted || (s.Status == "" && s.ClassName == "completed")
	if !completed {
		// Flink sends only index and status for a subtask that has not acknowledged.
		return model.SubtaskStats{Index: s.Index, Status: model.SubtaskPendingOrFailed}
	}
	return model.SubtaskStats{
		Index:            s.Index,
		Status:           model.SubtaskCompleted,
		AckMs:            positive(s.AckMs),
		EndToEndMs:       positive(s.EndToEndMs),
		StartDelayMs:     positive(s.StartDelay),
		AlignmentMs:      positive(s.Alignment.Duration),
		SyncMs:           positive(s.Checkpoint.Sync),
		AsyncMs:          positive(s.Checkpoint.Async),
		StateSize:        positive(s.StateSize),
		CheckpointedSize: positive(orDefault(s.CheckpointedSize, s.StateSize)),
		ProcessedData:    positive(s.Alignment.Processed),
		PersistedData:    positive(s.Alignment.Persisted),
		Unaligned:        s.Unaligned,
		Aborted:          s.Aborted,
	}
}

// notAddressable is what Flink sends as external_path for a checkpoint kept in the JobManager's
// memory (no checkpoint directory configured): a placeholder, not a path.
const notAddressable = "<checkpoint-not-externally-addressable>"

// externalPath is the checkpoint's path, "" when Flink has none to give.
func externalPath(p string) string {
	if p == notAddressable {
		return ""
	}
	return p
}
