package app

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"checkpoint-explorer/backend/export"
	"checkpoint-explorer/backend/interop"
)

// A job of the bundled knob recording exported as OTLP opens again like a
// capture, read-only, with the same checkpoints (those that ended); as CSV
// it has a row per checkpoint (or per subtask); as Perfetto a trace.
func TestExportFormatsAndOpenOTLP(t *testing.T) {
	a := newTestApp(t, Options{})
	const knobs = "sample: Flink 2.3 knob job"
	jobs, err := a.ListJobs(knobs)
	if err != nil || len(jobs) == 0 {
		t.Fatalf("knob sample: %v, %v", jobs, err)
	}
	job := jobs[0]
	dir := t.TempDir()
	exportAs := func(format string, per bool) (ExportResult, []byte) {
		t.Helper()
		p := filepath.Join(dir, job.ID+export.Ext(format))
		res, err := a.ExportCapture(ExportRequest{Cluster: knobs, Job: job.ID, Path: p, Format: format, PerSubtask: per})
		if err != nil {
			t.Fatalf("export %s: %v", format, err)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return res, b
	}
	res, otlp := exportAs(FormatOTLP, false)
	if res.Checkpoints == 0 || !bytes.Contains(otlp, []byte(interop.FlinkSpanScope)) {
		t.Fatalf("otlp export: %+v", res)
	}
	before, err := a.Checkpoints(knobs, job.ID, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	opened, err := a.OpenCapture(filepath.Join(dir, job.ID+".otlp.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(opened.Sources) != 1 || !strings.HasPrefix(opened.Sources[0], "capture: traces-") {
		t.Fatalf("opened %+v", opened)
	}
	after, err := a.Checkpoints(opened.Sources[0], job.ID, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	ended := 0
	for _, c := range before {
		if c.Status != "IN_PROGRESS" {
			ended++
		}
	}
	if len(after) != ended || ended == 0 {
		t.Fatalf("the spans opened as %d checkpoints; the job had %d that ended", len(after), ended)
	}
	_, rows := exportAs(FormatCSV, false)
	recs, err := csv.NewReader(bytes.NewReader(rows)).ReadAll()
	if err != nil || len(recs)-1 != len(before) || recs[0][3] != "checkpoint_id" {
		t.Fatalf("csv: %d rows (want %d), header %v, %v", len(recs)-1, len(before), recs[0], err)
	}
	if _, per := exportAs(FormatCSV, true); !bytes.HasPrefix(per, []byte(strings.Join(interop.SubtaskColumns, ",")+"\n")) {
		t.Fatalf("per-subtask csv starts %q", per[:min(80, len(per))])
	}
	_, trace := exportAs(FormatPerfetto, false)
	var doc struct {
		TraceEvents []json.RawMessage `json:"traceEvents"`
	}
	if err := json.Unmarshal(trace, &doc); err != nil || len(doc.TraceEvents) == 0 {
		t.Fatalf("perfetto: %d events, %v", len(doc.TraceEvents), err)
	}
	if _, err := a.ExportCapture(ExportRequest{Cluster: knobs, Job: job.ID, Path: filepath.Join(dir, "x"), Format: "svg"}); err == nil ||
		!strings.Contains(err.Error(), `export format "svg": choose capture, perfetto, otlp or csv`) {
		t.Fatalf("unknown format: %v", err)
	}
	// A JSON file without Flink's spans says so, and imports nothing.
	bad := filepath.Join(dir, "other.json")
	os.WriteFile(bad, []byte(`{"resourceSpans":[{"scopeSpans":[{"spans":[{"name":"GET /","startTimeUnixNano":"1","endTimeUnixNano":"2"}]}]}]}`), 0o600)
	if _, err := a.OpenCapture(bad); err == nil || !strings.Contains(err.Error(), "no Flink checkpoint span") {
		t.Fatalf("spans of another kind: %v", err)
	}
}
