package app

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"checkpoint-explorer/backend/analyze"
	"checkpoint-explorer/backend/model"
)

func TestExploreMethodsOnSeededJob(t *testing.T) {
	a := newTestApp(t, Options{NoSample: true})
	seedJob(t, a)

	v, err := a.CheckpointView("prod", "job1", 0, 12)
	if err != nil {
		t.Fatal(err)
	}
	if v.Checkpoint.ID != 12 || v.Analysis.ID != 12 || len(v.Subtasks) != 4 || v.Analysis.Bottleneck == nil {
		t.Fatalf("view of 12: id %d/%d, %d subtask rows, bottleneck %+v", v.Checkpoint.ID, v.Analysis.ID, len(v.Subtasks), v.Analysis.Bottleneck)
	}
	// Async (30 ms) is the largest phase on every subtask of the seeded job.
	if v.Analysis.Bottleneck.Phase != analyze.PhaseAsync {
		t.Errorf("bottleneck %+v, want async", v.Analysis.Bottleneck)
	}
	if v.AckProgress == nil || v.AckProgress.P100Ms == nil {
		t.Errorf("ack progress %+v", v.AckProgress)
	}
	if _, err := a.CheckpointView("prod", "job1", 0, 999); err == nil || !IsBadRequest(err) {
		t.Errorf("missing checkpoint: %v", err)
	}

	for _, kind := range []HeatmapKind{HeatmapPhase, HeatmapFailure, HeatmapVertex} {
		h, err := a.Heatmap(HeatmapRequest{Cluster: "prod", Job: "job1", Kind: kind, Phase: analyze.PhaseAsync, Buckets: 10})
		if err != nil {
			t.Fatalf("%s heatmap: %v", kind, err)
		}
		switch {
		case kind == "phase" && (h.Phase == nil || len(h.Phase.Rows) == 0):
			t.Errorf("phase heatmap empty: %+v", h)
		case kind == "failure" && (h.Failure == nil || len(h.Failure.Rows) != 1 || h.Failure.Rows[0].Total != 1):
			t.Errorf("failure heatmap %+v, want the one expired checkpoint", h.Failure)
		case kind == "vertex" && (h.Vertex == nil || len(h.Vertex.Rows) != 2):
			t.Errorf("vertex heatmap %+v, want 2 vertices", h.Vertex)
		}
	}
	if _, err := a.Heatmap(HeatmapRequest{Cluster: "prod", Job: "job1", Kind: "pie"}); err == nil || !strings.Contains(err.Error(), "choose phase, failure or vertex") {
		t.Errorf("bad kind: %v", err)
	}

	c, err := a.DefaultCompare("prod", "job1", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if c.B.ID != 7 || c.Reason == "" {
		t.Errorf("default compare picks %d (%q), want the failed checkpoint 7", c.B.ID, c.Reason)
	}
	// Checkpoint 15's details were missed: both views say so, with no bottleneck.
	lost, err := a.CheckpointView("prod", "job1", 0, 15)
	if err != nil {
		t.Fatal(err)
	}
	if lost.Checkpoint.DetailLoss != model.DetailMissed || lost.Analysis.Bottleneck != nil || len(lost.Subtasks) != 0 {
		t.Errorf("view of 15: detail loss %q, bottleneck %+v, %d subtask rows", lost.Checkpoint.DetailLoss, lost.Analysis.Bottleneck, len(lost.Subtasks))
	}
	if lc, err := a.Compare("prod", "job1", 0, 3, 0, 15); err != nil || lc.B.DetailLoss != model.DetailMissed || lc.A.DetailLoss != "" {
		t.Errorf("compare 3 with 15: %+v / %+v (%v)", lc.A, lc.B, err)
	}
	c, err = a.Compare("prod", "job1", 0, 3, 0, 20)
	if err != nil {
		t.Fatal(err)
	}
	if c.EndToEnd.Diff == nil || *c.EndToEnd.Diff != 17 {
		t.Errorf("end-to-end delta %+v, want 17 ms (60 − 43)", c.EndToEnd)
	}

	lv, err := a.Log(50)
	if err != nil {
		t.Fatal(err)
	}
	joined := strings.Join(lv.Lines, "\n")
	if !strings.Contains(joined, "cluster saved") || strings.Contains(joined, secretPassword) {
		t.Errorf("log tail %q: want the save logged, without the password", joined)
	}
}

// savePicker stands in for the OS's save dialog: it answers a fixed path.
type savePicker struct{ path string }

func (s savePicker) OpenFile(string, []string) (string, error) { return "", nil }
func (s savePicker) SaveFile(string, string) (string, error)   { return s.path, nil }

func TestSaveFileWritesWhereTheDialogSays(t *testing.T) {
	a := newTestApp(t, Options{NoSample: true})
	if _, err := a.SaveFile("x.png", "aGk="); err == nil || !IsBadRequest(err) {
		t.Errorf("without a dialog (browser): %v", err)
	}
	dst := filepath.Join(t.TempDir(), "view.png")
	a.dialogs = savePicker{path: dst}
	p, err := a.SaveFile("view.png", base64.StdEncoding.EncodeToString([]byte("\x89PNG…")))
	if err != nil || p != dst {
		t.Fatalf("SaveFile = %q, %v", p, err)
	}
	if b, _ := os.ReadFile(dst); string(b) != "\x89PNG…" {
		t.Errorf("wrote %q", b)
	}
	if _, err := a.SaveFile("bad.png", "not base64!"); err == nil || !strings.Contains(err.Error(), "not base64") {
		t.Errorf("bad data: %v", err)
	}
	a.dialogs = savePicker{path: ""}
	if p, err := a.SaveFile("view.png", "aGk="); p != "" || err != nil {
		t.Errorf("cancelled: %q, %v", p, err)
	}
}

// The checkpoint view shows the advice items whose evidence cites it, in the
// analysis's order, and none when no item does.
func TestAdviceCitingKeepsTheItemsThatCiteTheCheckpoint(t *testing.T) {
	items := []analyze.Advice{
		{Code: analyze.AdviceTimeout, Severity: analyze.SeverityCritical, Evidence: analyze.AdviceEvidence{CheckpointIDs: []int64{7, 12}}},
		{Code: analyze.AdviceUnaligned, Severity: analyze.SeverityWarning, Evidence: analyze.AdviceEvidence{CheckpointIDs: []int64{3}}},
		{Code: analyze.AdviceInterval, Severity: analyze.SeverityInfo, Evidence: analyze.AdviceEvidence{CheckpointIDs: []int64{12}}},
		{Code: analyze.AdviceSync, Severity: analyze.SeverityInfo},
	}
	got := adviceCiting(items, 12)
	if len(got) != 2 || got[0].Code != analyze.AdviceTimeout || got[1].Code != analyze.AdviceInterval {
		t.Errorf("advice citing 12: %+v, want timeout_vs_p99 then interval_back_to_back", got)
	}
	if got := adviceCiting(items, 99); len(got) != 0 {
		t.Errorf("advice citing 99: %+v, want none", got)
	}
	if got := adviceCiting(nil, 12); len(got) != 0 {
		t.Errorf("no advice: %+v", got)
	}
}

// CheckpointView answers its advice under "advice" (the contract's name).
func TestCheckpointViewAnswersAdvice(t *testing.T) {
	b, err := json.Marshal(CheckpointView{Advice: []analyze.Advice{{Code: analyze.AdviceTimeout, Evidence: analyze.AdviceEvidence{CheckpointIDs: []int64{12}}}}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"advice":[{"code":"timeout_vs_p99"`) {
		t.Errorf("CheckpointView JSON %s has no advice", b)
	}
}

// A checkpoint stored in progress that a later completed one ended (Flink
// aborts pending checkpoints then) says so in every view of it: the
// checkpoint's, the timeline's bar, the job list's counts, the report's
// summary. The newest one in progress is still running.
func TestEndedUnseenInTheViews(t *testing.T) {
	a := newTestApp(t, Options{NoSample: true})
	seedJob(t, a)
	ctx := context.Background()
	base := time.Now().Add(-30 * time.Minute).UnixMilli()
	running := func(id int64, trigger int64) model.Checkpoint {
		return model.Checkpoint{Cluster: "prod", JobID: "job1", ID: id, Kind: model.KindCheckpoint, Status: model.StatusInProgress,
			TriggerMs: trigger, LatestAckMs: trigger + 5, NumSubtasks: 4, NumAcknowledged: 1}
	}
	done := model.Checkpoint{Cluster: "prod", JobID: "job1", ID: 25, Kind: model.KindCheckpoint, Status: model.StatusCompleted,
		TriggerMs: base + 2000, EndToEndMs: 50, LatestAckMs: base + 2050, CompletionMs: base + 2050, NumSubtasks: 4, NumAcknowledged: 4}
	if err := a.store.PutCheckpoints(ctx, []model.Checkpoint{running(24, base+1000), done, running(26, base+3000)}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		id   int64
		want bool
	}{{24, true}, {26, false}} {
		v, err := a.CheckpointView("prod", "job1", 0, tc.id)
		if err != nil {
			t.Fatal(err)
		}
		if v.Analysis.EndedUnseen != tc.want || v.Analysis.Status != model.StatusInProgress {
			t.Errorf("view of %d: ended unseen %v (status %s), want %v and in progress", tc.id, v.Analysis.EndedUnseen, v.Analysis.Status, tc.want)
		}
	}
	tl, err := a.Timeline(TimelineRequest{Cluster: "prod", Job: "job1", WidthPx: 4000})
	if err != nil {
		t.Fatal(err)
	}
	unseen := map[int64]int{}
	for _, b := range tl.Bars {
		if b.FirstID == b.LastID {
			unseen[b.FirstID] = b.EndedUnseen
		}
	}
	if unseen[24] != 1 || unseen[26] != 0 {
		t.Errorf("timeline bars ended unseen %v, want 1 for 24 and 0 for 26", unseen)
	}
	rows, err := a.Checkpoints("prod", "job1", base+500, base+1500) // 24 alone: 25 completed outside the range
	if err != nil || len(rows) != 1 || rows[0].ID != 24 || !rows[0].EndedUnseen {
		t.Errorf("checkpoint rows %+v (%v): want 24, ended unseen", rows, err)
	}
	rows, err = a.Checkpoints("prod", "job1", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if r.EndedUnseen != (r.ID == 24) {
			t.Errorf("checkpoint row %d: ended unseen %v", r.ID, r.EndedUnseen)
		}
	}
	jobs, err := a.ListJobs("prod")
	if err != nil || len(jobs) != 1 {
		t.Fatalf("jobs %+v, %v", jobs, err)
	}
	if jobs[0].EndedUnseen != 1 || jobs[0].InProgress != 1 {
		t.Errorf("job list: %d ended unseen, %d in progress; want 1 and 1", jobs[0].EndedUnseen, jobs[0].InProgress)
	}
	r, err := a.Report("prod", "job1", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if r.Summary.EndedUnseen != 1 || r.Summary.InProgress != 1 {
		t.Errorf("report summary: %d ended unseen, %d in progress; want 1 and 1", r.Summary.EndedUnseen, r.Summary.InProgress)
	}
	for _, ca := range r.Checkpoints {
		if ca.EndedUnseen != (ca.ID == 24) {
			t.Errorf("report: checkpoint %d ended unseen %v", ca.ID, ca.EndedUnseen)
		}
	}
}
