// Package modeltest makes model values for tests, benchmarks and the soak's
// generated histories; nothing in the product imports it.
package modeltest

import (
	"fmt"

	"checkpoint-explorer/backend/model"
)

// sums are what a task adds up over its subtasks, and a checkpoint over its
// tasks: the sizes, and the latest end-to-end time.
type sums struct{ state, checkpointed, processed, persisted, endToEnd int64 }

func (s *sums) add(part sums) {
	s.state += part.state
	s.checkpointed += part.checkpointed
	s.processed += part.processed
	s.persisted += part.persisted
	s.endToEnd = max(s.endToEnd, part.endToEnd)
}

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
	var cs sums
	for v := range c.Tasks {
		t := &c.Tasks[v]
		t.VertexID = VertexID(v)
		t.NumSubtasks, t.NumAcknowledged = subtasks, subtasks
		t.Subtasks = make([]model.SubtaskStats, subtasks)
		var ts sums
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
			ts.add(sums{sub.StateSize, sub.CheckpointedSize, sub.ProcessedData, sub.PersistedData, sub.EndToEndMs})
		}
		t.StateSize, t.CheckpointedSize, t.ProcessedData, t.PersistedData, t.EndToEndMs = ts.state, ts.checkpointed, ts.processed, ts.persisted, ts.endToEnd
		t.LatestAckMs = triggerMs + t.EndToEndMs
		cs.add(ts)
	}
	c.StateSize, c.CheckpointedSize, c.ProcessedData, c.PersistedData, c.EndToEndMs = cs.state, cs.checkpointed, cs.processed, cs.persisted, cs.endToEnd
	c.LatestAckMs = triggerMs + c.EndToEndMs
	c.CompletionMs = c.LatestAckMs + finalize
	return c
}
