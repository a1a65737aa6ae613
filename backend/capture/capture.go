// Package capture reads and writes capture files: what an operator records
// from a live job so that a colleague can open it offline.
//
// A capture is gzip-compressed JSON Lines: a header record on line 1, one
// typed record per line after it, and an end record that counts them so a cut
// file is recognised as truncated. Both directions stream with bounded memory;
// the reader enforces limits on line length, nesting depth, string length and
// per-checkpoint task counts so a hostile file cannot exhaust memory.
//
// The reader also understands one foreign format, the Flink checkpoint
// metrics artifact bundled as the first-run sample (see sample.go), and
// presents it through the same Visitor. docs/capture-format.md is the
// specification.
package capture

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Format is the value of the header's "format" field.
const Format = "checkpoint-explorer-capture"

// Version is the format version this package writes. Readers accept any 1.x:
// minor versions only add fields or record types, which older readers skip.
const Version = "1.5"

// supportedMajor is the major version this package reads.
const supportedMajor = 1

// Record types, the value of every line's "type" field.
const (
	TypeHeader       = "header"
	TypeCluster      = "cluster"
	TypeJob          = "job"
	TypeCheckpoint   = "checkpoint"
	TypeAckSample    = "ack_sample"
	TypeMetricSample = "metric_sample"
	TypeGap          = "gap"
	// TypeReconciliation (1.1): a job's reconciliation of the engine's ids
	// and counters with what was recorded, written before the end record.
	TypeReconciliation = "reconciliation"
	// TypeJobConfig (1.3): what the engine said of a job's checkpointing and
	// state configuration (model.JobConfig), one record per history entry,
	// oldest first, after the job's record.
	TypeJobConfig = "job_config"
	// TypeJobNote (1.4): a note the user wrote on a job's timeline (a
	// model.Change of kind note), after the job's record.
	TypeJobNote = "job_note"
	// TypeRestoreCount (1.5): the engine's restore count of a job as a poll
	// saw it (model.RestoreCount), each that differs from the one before,
	// oldest first, after the job's record.
	TypeRestoreCount = "restore_count"
	TypeEnd          = "end"
)

// SourceCapture is the MetricSample.Source of values converted from a foreign file.
const SourceCapture = "capture"

// Header is line 1 of a capture.
type Header struct {
	Format     string    `json:"format"`
	Version    string    `json:"version"`
	RecordedBy string    `json:"recorded_by"`
	RecordedAt time.Time `json:"recorded_at"`
	AppVersion string    `json:"app_version"`
	Host       string    `json:"host,omitempty"`
	Note       string    `json:"note,omitempty"`
	// Source is set when the capture was converted from another format.
	Source *Origin `json:"source,omitempty"`
}

// Origin describes the file a capture was converted from.
type Origin struct {
	// Format names the foreign format, e.g. SampleFormat.
	Format string `json:"format"`
	// Name is the base name of the converted file, when known.
	Name string `json:"name,omitempty"`
	// RunID and Revision identify the run that produced the foreign file.
	RunID    string `json:"run_id,omitempty"`
	Revision string `json:"revision,omitempty"`
}

// Limits bound what the reader accepts. A zero or negative field means the default.
type Limits struct {
	// MaxLineBytes caps one line (one record), newline excluded.
	MaxLineBytes int
	// MaxDepth caps JSON nesting ({ and [) in one record.
	MaxDepth int
	// MaxStringBytes caps any one JSON string: names, messages, paths.
	MaxStringBytes int
	// MaxSubtasks caps the subtasks of one checkpoint, summed over its tasks,
	// and the edges of one job.
	MaxSubtasks int
	// MaxTasks caps the tasks (vertices) of one checkpoint and the vertices of one job.
	MaxTasks int
}

// DefaultLimits are generous for real jobs (a checkpoint of 100,000 subtasks
// is about 30 MiB of JSON) and small enough for a desktop.
func DefaultLimits() Limits {
	return Limits{
		MaxLineBytes:   64 << 20,
		MaxDepth:       32,
		MaxStringBytes: 1 << 20,
		MaxSubtasks:    100_000,
		MaxTasks:       10_000,
	}
}

func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	for _, f := range []struct{ v, d *int }{{&l.MaxLineBytes, &d.MaxLineBytes}, {&l.MaxDepth, &d.MaxDepth},
		{&l.MaxStringBytes, &d.MaxStringBytes}, {&l.MaxSubtasks, &d.MaxSubtasks}, {&l.MaxTasks, &d.MaxTasks}} {
		if *f.v <= 0 {
			*f.v = *f.d
		}
	}
	return l
}

// parseVersion checks that v is "major.minor" and returns the major version.
func parseVersion(v string) (int, error) {
	maj, min, ok := strings.Cut(v, ".")
	if !ok {
		return 0, fmt.Errorf("capture: malformed version %q (want major.minor, e.g. %q)", v, Version)
	}
	major, err := strconv.Atoi(maj)
	if err != nil || major < 0 {
		return 0, fmt.Errorf("capture: malformed version %q (want major.minor, e.g. %q)", v, Version)
	}
	if n, err := strconv.Atoi(min); err != nil || n < 0 {
		return 0, fmt.Errorf("capture: malformed version %q (want major.minor, e.g. %q)", v, Version)
	}
	return major, nil
}

// checkHeader refuses files that are not ours or of another major version.
func checkHeader(h Header) error {
	if h.Format != Format {
		return fmt.Errorf("capture: not a capture file: format is %q, want %q", h.Format, Format)
	}
	major, err := parseVersion(h.Version)
	if err != nil {
		return err
	}
	if major != supportedMajor {
		return fmt.Errorf("capture: version %s is not supported (this app reads %d.x)", h.Version, supportedMajor)
	}
	return nil
}
