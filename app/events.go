package app

import (
	"time"

	"checkpoint-explorer/backend/collect"
)

// The events the backend sends to the UI: one table, used by the Go emitters
// (each payload type names its event) and checked against the frontend's
// listeners and docs/api.md by events_test.go.

// Event is an event's payload; EventName is the name it is sent under.
type Event interface{ EventName() string }

// CheckpointsEvent: new checkpoints of a job are in the cache.
type CheckpointsEvent struct {
	Cluster string `json:"cluster"`
	Job     string `json:"job"`
}

// HealthEvent: a cluster's collection health changed.
type HealthEvent struct {
	Cluster   string              `json:"cluster"`
	State     collect.HealthState `json:"state"`
	LastError string              `json:"last_error"`
}

// SourcesEvent: the list of clusters and opened captures changed.
type SourcesEvent struct{}

// ImportProgressEvent: an import has read this much so far: records, and
// bytes of the file against its size (0 when unknown).
type ImportProgressEvent struct {
	File          string `json:"file"`
	Checkpoints   int64  `json:"checkpoints"`
	MetricSamples int64  `json:"metric_samples"`
	Bytes         int64  `json:"bytes"`
	Size          int64  `json:"size"`
}

// ExportProgressEvent: an export has written this many checkpoints so far.
type ExportProgressEvent struct {
	File        string `json:"file"`
	Checkpoints int64  `json:"checkpoints"`
}

// ImportErrorEvent: a capture opened outside a call (dropped on the window)
// could not be opened; a call's failure is its answer instead.
type ImportErrorEvent struct {
	File  string `json:"file"`
	Error string `json:"error"`
}

// ImportDoneEvent: a capture opened outside a call (dropped on the window)
// is open now as Sources; the window shows it as it shows one opened from the
// dialog.
type ImportDoneEvent struct {
	File        string   `json:"file"`
	Sources     []string `json:"sources"`
	Checkpoints int64    `json:"checkpoints"`
}

// OpenJobEvent asks the UI to open a job: the user clicked its alert's
// notification (docs/alerts.md).
type OpenJobEvent struct {
	Cluster string `json:"cluster"`
	JobID   string `json:"job_id"`
}

func (ImportDoneEvent) EventName() string { return "import-done" }
func (OpenJobEvent) EventName() string    { return "open-job" }

func (CheckpointsEvent) EventName() string    { return "checkpoints" }
func (HealthEvent) EventName() string         { return "health" }
func (SourcesEvent) EventName() string        { return "sources" }
func (ImportProgressEvent) EventName() string { return "import-progress" }
func (ImportErrorEvent) EventName() string    { return "import-error" }
func (ExportProgressEvent) EventName() string { return "export-progress" }

// Events is every event, once.
var Events = []Event{CheckpointsEvent{}, HealthEvent{}, SourcesEvent{}, ImportProgressEvent{}, ImportErrorEvent{}, ImportDoneEvent{}, ExportProgressEvent{}, OpenJobEvent{}}

// emit tells the doors of e; the fleet's answers learn of it first.
func (a *App) emit(e Event) {
	switch e := e.(type) {
	case CheckpointsEvent:
		a.fleet.Touched(e.Cluster, e.Job)
	case SourcesEvent:
		a.fleet.Reset()
	}
	a.events.emit(e.EventName(), e)
}

// progressEvery is how often long work (an import, an export) tells its
// progress; tests set 0 to see every step.
var progressEvery = 500 * time.Millisecond
