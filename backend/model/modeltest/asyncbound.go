package modeltest

import (
	"fmt"

	"checkpoint-explorer/backend/model"
)

// VertexID is the id Checkpoint and AsyncBound give vertex v (from 0).
func VertexID(v int) string { return fmt.Sprintf("%032x", v+1) }

// AsyncBound builds the history of a job whose state grows on the heap until its
// checkpoints cannot keep up: n completed checkpoints (n ≥ 2) of one vertex with two
// subtasks, one every intervalMs from triggerMs, whose async phase takes 99 % of each
// (3 s and more), full (checkpointed size = state size) and growing evenly from 64 MiB to
// 1 GiB; then one that expired at timeoutMs, its last acknowledgement at 95 % of it.
func AsyncBound(cluster, job string, n int, triggerMs, intervalMs, timeoutMs int64) []model.Checkpoint {
	const subtasks = 2
	out := make([]model.Checkpoint, 0, n+1)
	for i := range n {
		trigger := triggerMs + int64(i)*intervalMs
		size := int64(64<<20) + (int64(1<<30)-64<<20)*int64(i)/int64(n-1)
		sub := model.SubtaskStats{Status: model.SubtaskCompleted, StartDelayMs: 5, SyncMs: 10, AsyncMs: 3000 + int64(i)*20,
			StateSize: size / subtasks, CheckpointedSize: size / subtasks}
		sub.EndToEndMs = sub.StartDelayMs + sub.SyncMs + sub.AsyncMs + 15
		sub.AckMs = trigger + sub.EndToEndMs
		c := model.Checkpoint{Cluster: cluster, JobID: job, ID: int64(i + 1), Kind: model.KindCheckpoint,
			Status: model.StatusCompleted, TriggerMs: trigger, NumSubtasks: subtasks, NumAcknowledged: subtasks,
			StateSize: size, CheckpointedSize: size, EndToEndMs: sub.EndToEndMs, LatestAckMs: sub.AckMs,
			CompletionMs: sub.AckMs}
		t := model.TaskStats{VertexID: VertexID(0), NumSubtasks: subtasks, NumAcknowledged: subtasks, StateSize: size,
			CheckpointedSize: size, EndToEndMs: sub.EndToEndMs, LatestAckMs: sub.AckMs}
		for s := range subtasks {
			sub.Index = s
			t.Subtasks = append(t.Subtasks, sub)
		}
		c.Tasks = []model.TaskStats{t}
		out = append(out, c)
	}
	trigger := triggerMs + int64(n)*intervalMs
	ack := timeoutMs * 95 / 100
	acked := model.SubtaskStats{Index: 0, Status: model.SubtaskCompleted, StartDelayMs: 5, SyncMs: 10, AsyncMs: ack - 30,
		EndToEndMs: ack, AckMs: trigger + ack}
	expired := model.Checkpoint{Cluster: cluster, JobID: job, ID: int64(n + 1), Kind: model.KindCheckpoint,
		Status: model.StatusFailed, TriggerMs: trigger, NumSubtasks: subtasks, NumAcknowledged: 1,
		EndToEndMs: timeoutMs, FailureMs: trigger + timeoutMs, LatestAckMs: trigger + ack,
		FailureMessage: "Checkpoint expired before completing.",
		Tasks: []model.TaskStats{{VertexID: VertexID(0), NumSubtasks: subtasks, NumAcknowledged: 1, EndToEndMs: ack,
			LatestAckMs: trigger + ack, Subtasks: []model.SubtaskStats{acked, {Index: 1, Status: model.SubtaskPendingOrFailed}}}}}
	return append(out, expired)
}
