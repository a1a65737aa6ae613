// Package modeltest makes model values for tests, benchmarks and the soak's
// generated histories; nothing in the product imports it.
package modeltest

import (
	"fmt"

	"checkpoint-explorer/backend/model"
)

// Checkpoint builds a plausible completed checkpoint with the given shape
// and values derived from id.
func Checkpoint(cluster, job string, id, triggerMs int64, vertices, subtasks int) model.Checkpoint {
	finalize := id % 7
	c := model.Checkpoint{
		Cluster: cluster, JobID: job, ID: id, Kind: model.KindCheckpoint, Status: model.StatusCompleted,
		TriggerMs: triggerMs, NumSubtasks: vertices * subtasks, NumAcknowledged: vertices * subtasks,
		FinalizeMs: &finalize, ExternalPath: fmt.Sprintf("file:/checkpoints/%s/chk-%d", job, id),
	}
	c.Tasks = make([]model.TaskStats, vertices)
	for v := range c.Tasks {
		t := &c.Tasks[v]
		t.VertexID = fmt.Sprintf("%032x", v+1)
		t.NumSubtasks, t.NumAcknowledged = subtasks, subtasks
		t.Subtasks = make([]model.SubtaskStats, subtasks)
		for i := range t.Subtasks {
			k := id*7919 + int64(v*131+i*17)
			sub := model.SubtaskStats{
				Index: i, Status: model.SubtaskCompleted,
				StartDelayMs: k % 97, AlignmentMs: k % 53, SyncMs: 1 + k%11, AsyncMs: 20 + k%301,
				StateSize: 1<<20 + k%4096, CheckpointedSize: 1<<18 + k%1024,
				ProcessedData: k % 65536, PersistedData: k % 512, Unaligned: k%5 == 0,
			}
			sub.EndToEndMs = sub.StartDelayMs + sub.AlignmentMs + sub.SyncMs + sub.AsyncMs
			sub.AckMs = triggerMs + sub.EndToEndMs
			t.Subtasks[i] = sub
			t.StateSize += sub.StateSize
			t.CheckpointedSize += sub.CheckpointedSize
			t.ProcessedData += sub.ProcessedData
			t.PersistedData += sub.PersistedData
			t.EndToEndMs = max(t.EndToEndMs, sub.EndToEndMs)
		}
		t.LatestAckMs = triggerMs + t.EndToEndMs
		c.StateSize += t.StateSize
		c.CheckpointedSize += t.CheckpointedSize
		c.ProcessedData += t.ProcessedData
		c.PersistedData += t.PersistedData
		c.EndToEndMs = max(c.EndToEndMs, t.EndToEndMs)
	}
	c.LatestAckMs = triggerMs + c.EndToEndMs
	c.CompletionMs = c.LatestAckMs + finalize
	return c
}
