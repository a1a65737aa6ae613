package interop

import (
	"encoding/csv"
	"io"
	"strconv"

	"checkpoint-explorer/backend/model"
)

// CheckpointColumns are the columns of the one-row-per-checkpoint CSV
// (docs/interop.md).
var CheckpointColumns = []string{"cluster", "job_id", "pipeline", "checkpoint_id", "kind", "status", "trigger_ms", "end_ms",
	"end_to_end_ms", "finalize_ms", "state_size", "checkpointed_size", "processed_data", "persisted_data", "num_subtasks",
	"num_acknowledged", "failure_message"}

// SubtaskColumns are the columns of the one-row-per-subtask CSV
// (--per-subtask): each subtask's phases in one checkpoint.
var SubtaskColumns = []string{"cluster", "job_id", "pipeline", "checkpoint_id", "vertex_id", "subtask", "status", "ack_ms",
	"end_to_end_ms", "start_delay_ms", "alignment_ms", "sync_ms", "async_ms", "state_size", "checkpointed_size",
	"processed_data", "persisted_data", "unaligned"}

// CSVWriter writes checkpoints as CSV, a row per checkpoint or, per
// subtask, a row per subtask of each.
type CSVWriter struct {
	w          *csv.Writer
	perSubtask bool
	header     bool
}

// NewCSVWriter writes to w; perSubtask chooses the per-subtask rows.
func NewCSVWriter(w io.Writer, perSubtask bool) *CSVWriter {
	return &CSVWriter{w: csv.NewWriter(w), perSubtask: perSubtask}
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

// Add writes c's row(s).
func (w *CSVWriter) Add(c *model.Checkpoint) error {
	if err := w.writeHeader(); err != nil {
		return err
	}
	kind := string(c.Kind)
	if kind == "" {
		kind = string(model.KindCheckpoint)
	}
	if !w.perSubtask {
		fin := ""
		if c.FinalizeMs != nil {
			fin = itoa(*c.FinalizeMs)
		}
		return w.w.Write([]string{c.Cluster, c.JobID, strconv.Itoa(c.Pipeline), itoa(c.ID), kind, string(c.Status),
			itoa(c.TriggerMs), itoa(c.EndMs()), itoa(c.EndToEndMs), fin, itoa(c.StateSize), itoa(c.CheckpointedSize),
			itoa(c.ProcessedData), itoa(c.PersistedData), strconv.Itoa(c.NumSubtasks), strconv.Itoa(c.NumAcknowledged),
			c.FailureMessage})
	}
	for _, t := range c.Tasks {
		for _, s := range t.Subtasks {
			if err := w.w.Write([]string{c.Cluster, c.JobID, strconv.Itoa(c.Pipeline), itoa(c.ID), t.VertexID,
				strconv.Itoa(s.Index), s.Status, itoa(s.AckMs), itoa(s.EndToEndMs), itoa(s.StartDelayMs), itoa(s.AlignmentMs),
				itoa(s.SyncMs), itoa(s.AsyncMs), itoa(s.StateSize), itoa(s.CheckpointedSize), itoa(s.ProcessedData),
				itoa(s.PersistedData), strconv.FormatBool(s.Unaligned)}); err != nil {
				return err
			}
		}
	}
	return nil
}

// writeHeader writes the column names, before the first row.
func (w *CSVWriter) writeHeader() error {
	if w.header {
		return nil
	}
	w.header = true
	cols := CheckpointColumns
	if w.perSubtask {
		cols = SubtaskColumns
	}
	return w.w.Write(cols)
}

// Close flushes what was written; the header is written even for no rows.
func (w *CSVWriter) Close() error {
	if err := w.writeHeader(); err != nil {
		return err
	}
	w.w.Flush()
	return w.w.Error()
}
