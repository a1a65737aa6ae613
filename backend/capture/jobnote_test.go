package capture

import (
	"bytes"
	"context"
	"reflect"
	"strings"
	"testing"

	"checkpoint-explorer/backend/model"
)

func testNotes() []model.Change {
	const job = "469237c073b0c1ea872fc0403694fc68"
	return []model.Change{
		{Kind: model.ChangeNote, TimeMs: 1779924600000, Source: model.ChangeFromUser, Cluster: "prod-flink", JobID: job,
			Detail: model.ChangeDetail{Text: "deployed v42 — 发布"}},
		{Kind: model.ChangeNote, TimeMs: 1779924700000, Source: model.ChangeFromUser, Cluster: "prod-flink", JobID: job,
			Detail: model.ChangeDetail{Text: "raised the sink's batch size\nsecond line"}},
	}
}

// A job's notes go into a capture as job_note records after its job record
// and read back the same; the end record counts them.
func TestJobNoteRoundTrip(t *testing.T) {
	notes, sum, file := writeRead(t, testNotes(), (*Writer).JobNote, func(v *Visitor) *func(model.Change) error { return &v.JobNote })
	if sum.JobNotes != 2 || sum.Skipped != 0 || sum.Records() != 5 {
		t.Errorf("summary = %+v, want 2 notes of 5 records", sum)
	}
	if !reflect.DeepEqual(notes, testNotes()) {
		t.Errorf("read\n%+v\nwant\n%+v", notes, testNotes())
	}
	if !strings.Contains(file, `{"type":"job_note","kind":"note","time_ms":1779924600000`) {
		t.Errorf("no job_note line in the file")
	}
}

// A note that is not one (another kind, no text, no job) is neither written
// nor read.
func TestJobNoteBadRecordsAreRefused(t *testing.T) {
	w, _ := newTestWriter(t, testHeader())
	bad := testNotes()[0]
	bad.Kind = model.ChangeRestart
	if err := w.JobNote(bad); err == nil || !strings.Contains(err.Error(), "job_note") {
		t.Errorf("writing a restart as a note: %v, want a refusal", err)
	}
	wantRefused(t, "1.4", []refusal{
		{`{"type":"job_note","kind":"note","time_ms":5,"job_id":"j","detail":{"text":"x"}}`, "empty cluster"},
		{`{"type":"job_note","kind":"note","time_ms":5,"cluster":"c","job_id":"j","detail":{}}`, "without text"},
		{`{"type":"job_note","kind":"config","time_ms":5,"cluster":"c","job_id":"j","detail":{"text":"x"}}`, "kind"},
		{`{"type":"job_note","kind":"note","time_ms":0,"cluster":"c","job_id":"j","detail":{"text":"x"}}`, "no time"},
	})
}

// A file of a later 1.x beside its notes still opens: a record type this
// version does not know is skipped and counted, as before.
func TestJobNoteBesideUnknownRecords(t *testing.T) {
	data := lines(
		`{"type":"header","format":"checkpoint-explorer-capture","version":"1.9","recorded_by":"x","recorded_at":"2026-01-01T00:00:00Z","app_version":"0.1"}`,
		`{"type":"job_note","kind":"note","time_ms":5,"source":"user","cluster":"c","job_id":"j","detail":{"text":"x"}}`,
		`{"type":"job_marker","time_ms":6,"cluster":"c","job_id":"j"}`,
		`{"type":"end","records":2}`)
	n := 0
	sum, err := Read(context.Background(), bytes.NewReader(data), Limits{}, Visitor{JobNote: func(model.Change) error { n++; return nil }})
	if err != nil || n != 1 || sum.JobNotes != 1 || sum.Skipped != 1 {
		t.Errorf("read %d notes, summary %+v (%v); want the note and one skipped record", n, sum, err)
	}
}

// A job's restore counts go into a capture as restore_count records and read
// back the same; one without a time or with a negative count is refused.
func TestRestoreCountRoundTrip(t *testing.T) {
	want := []model.RestoreCount{
		{Cluster: "prod-flink", JobID: "469237c073b0c1ea872fc0403694fc68", AtMs: 1779924600000},
		{Cluster: "prod-flink", JobID: "469237c073b0c1ea872fc0403694fc68", AtMs: 1779924610000, Restored: 1, LastRestoreMs: 1779924605000},
	}
	got, sum, file := writeRead(t, want, (*Writer).RestoreCount, func(v *Visitor) *func(model.RestoreCount) error { return &v.RestoreCount })
	if sum.RestoreCounts != 2 || sum.Skipped != 0 || sum.Records() != 5 {
		t.Errorf("summary = %+v, want 2 restore counts of 5 records", sum)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("read\n%+v\nwant\n%+v", got, want)
	}
	if !strings.Contains(file, `{"type":"restore_count","cluster":"prod-flink","job_id":"469237c073b0c1ea872fc0403694fc68","at_ms":1779924610000,"restored":1,"last_restore_ms":1779924605000}`) {
		t.Errorf("no restore_count line in the file:\n%s", file)
	}
	wantRefused(t, "1.5", []refusal{
		{`{"type":"restore_count","job_id":"j","at_ms":5,"restored":1}`, "empty cluster"},
		{`{"type":"restore_count","cluster":"c","job_id":"j","at_ms":0,"restored":1}`, "at_ms 0"},
		{`{"type":"restore_count","cluster":"c","job_id":"j","at_ms":5,"restored":-1}`, "restored -1"},
	})
}
