package app

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"checkpoint-explorer/backend/analyze"
	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/store"
)

// changeCheckpoint is a completed checkpoint of job on "prod" lasting e2e ms, alignPct percent
// of it in the Map's alignment (behind the Source), the rest mostly async.
func changeCheckpoint(job string, id, trigger, e2e, alignPct int64) model.Checkpoint {
	c := model.Checkpoint{Cluster: "prod", JobID: job, ID: id, Kind: model.KindCheckpoint, Status: model.StatusCompleted,
		TriggerMs: trigger, EndToEndMs: e2e, LatestAckMs: trigger + e2e, CompletionMs: trigger + e2e, StateSize: 4000,
		CheckpointedSize: 4000, NumSubtasks: 4, NumAcknowledged: 4}
	for _, v := range []struct {
		id         string
		e2e, align int64
	}{{"v1", 20, 0}, {"v2", e2e, e2e * alignPct / 100}} {
		ts := model.TaskStats{VertexID: v.id, LatestAckMs: trigger + v.e2e, EndToEndMs: v.e2e, NumSubtasks: 2, NumAcknowledged: 2}
		for s := range 2 {
			ts.Subtasks = append(ts.Subtasks, model.SubtaskStats{Index: s, Status: model.SubtaskCompleted, AckMs: trigger + v.e2e,
				EndToEndMs: v.e2e, StartDelayMs: 1, AlignmentMs: v.align, SyncMs: 1, AsyncMs: v.e2e - v.align - 2})
		}
		c.Tasks = append(c.Tasks, ts)
	}
	return c
}

func knobJob(id string, startMs int64) model.Job {
	return model.Job{Cluster: "prod", ID: id, Name: "Orders", Engine: model.EngineFlink, State: "RUNNING", StartMs: startMs,
		UpdatedMs: startMs, Vertices: []model.Vertex{{ID: "v1", Name: "Source", Parallelism: 2}, {ID: "v2", Name: "Map", Parallelism: 2}},
		Edges: []model.Edge{{Source: "v1", Target: "v2", ShipStrategy: "HASH"}}}
}

func knobConfig(job string, seenMs, intervalMs int64, unaligned bool) model.JobConfig {
	return model.JobConfig{Cluster: "prod", JobID: job, SeenMs: seenMs, Mode: "exactly_once", IntervalMs: &intervalMs, Unaligned: &unaligned}
}

const unalignedKey = "execution.checkpointing.unaligned.enabled"

// seedChange stores job j of "prod", one checkpoint every 10 s from an hour ago: 20 ordinary
// ones (100 ms), then from t0 on, once its interval was raised, 17 of ~1 s spent in
// alignment, two ordinary ones among them (26 and 32), then from t on, once unaligned
// checkpoints were turned on, 20 of ~300 ms. It returns t0 and t.
func seedChange(t *testing.T, a *App) (t0, t1 int64) {
	t.Helper()
	ctx := context.Background()
	base := time.Now().Add(-time.Hour).UnixMilli()
	at := func(id int64) int64 { return base + id*10_000 }
	t0, t1 = at(21), at(38)
	if err := a.store.PutCluster(ctx, model.Cluster{Name: "prod", Engine: model.EngineFlink}); err != nil {
		t.Fatal(err)
	}
	if err := a.store.PutJob(ctx, knobJob("j", base)); err != nil {
		t.Fatal(err)
	}
	for _, c := range []model.JobConfig{knobConfig("j", base, 5000, false), knobConfig("j", t0, 10000, false), knobConfig("j", t1, 10000, true)} {
		if err := a.store.PutJobConfig(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	var cps []model.Checkpoint
	for id := int64(1); id <= 57; id++ {
		switch {
		case id < 21 || id == 26 || id == 32:
			cps = append(cps, changeCheckpoint("j", id, at(id), 100+id%7, 2))
		case id < 38:
			cps = append(cps, changeCheckpoint("j", id, at(id), 1000+5*id, 75))
		default:
			cps = append(cps, changeCheckpoint("j", id, at(id), 280+2*(id-38), 3))
		}
	}
	if err := a.store.PutCheckpoints(ctx, cps); err != nil {
		t.Fatal(err)
	}
	return t0, t1
}

// The report lists each configuration change with its keys old → new and the before/after at
// its moment, which measures the slow stretch against the fast one: the p90 fell with an
// interval that excludes zero, said in a sentence. The slow stretch is one episode (its two
// ordinary checkpoints do not split it), ended by the change. In the JSON each change is
// {kind, time_ms, detail, effect: {end_to_end_p50_ms, end_to_end_p90_ms: {before, after,
// change, low, high}, finding}} (issue #32's contract); too few checkpoints give nulls.
func TestReportMeasuresAConfigurationChange(t *testing.T) {
	a := newTestApp(t, Options{NoSample: true})
	t0, t1 := seedChange(t, a)
	r, err := a.Report("prod", "j", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Changes) != 2 || r.Changes[0].TimeMs != t0 || r.Changes[1].TimeMs != t1 {
		t.Fatalf("changes %+v, want the interval's at %d and unaligned's at %d", r.Changes, t0, t1)
	}
	c := r.Changes[1]
	if c.Kind != model.ChangeConfig || len(c.Detail.Keys) != 1 || c.Detail.Keys[0] != (model.ConfigKeyChange{Key: unalignedKey, Old: "false", New: "true"}) {
		t.Errorf("change at %d: %+v, want %s false → true", t1, c, unalignedKey)
	}
	t.Logf("changes[1]: %s", mustJSON(t, c))
	p90 := c.Effect.EndToEndP90
	if p90.Before == nil || p90.After == nil || *p90.Before < 1000 || *p90.After > 320 || *p90.Change > -0.6 || *p90.High >= 0 {
		t.Errorf("p90 %s, want ~1.2 s → ~0.3 s, its interval below zero", mustJSON(t, p90))
	}
	for _, want := range []string{"after " + unalignedKey + " went false → true", "end-to-end p90 fell from 1.2 s to 314 ms",
		"alignment's share of the critical path fell"} {
		if !strings.Contains(c.Effect.Finding, want) {
			t.Errorf("finding %q lacks %q", c.Effect.Finding, want)
		}
	}
	if e := r.Changes[0].Effect; e.Before.Completed != 20 || e.After.Completed != 17 || e.After.Bound != analyze.BoundChange {
		t.Errorf("the interval's change: before %d, after %d (bound %q); want 20 and 17, cut by the next change",
			e.Before.Completed, e.After.Completed, e.After.Bound)
	}

	if len(r.Episodes) != 1 {
		t.Fatalf("episodes %s, want one", mustJSON(t, r.Episodes))
	}
	ep := r.Episodes[0]
	if ep.FirstID != 21 || ep.LastID != 37 || ep.Slow != 15 || ep.Ordinary != 2 || ep.Open || ep.EndedBy == nil || ep.EndedBy.TimeMs != t1 {
		t.Errorf("episode %s, want 21–37 with 15 slow and 2 ordinary, ended by the change at %d", mustJSON(t, ep), t1)
	}
	if ep.Cause == nil || ep.Cause.Phase != analyze.PhaseAlignment || ep.Cause.VertexName != "Map" {
		t.Errorf("episode's cause %+v, want alignment at Map", ep.Cause)
	}

	var doc struct {
		Changes []map[string]any `json:"changes"`
	}
	if err := json.Unmarshal([]byte(mustJSON(t, r)), &doc); err != nil {
		t.Fatal(err)
	}
	got := doc.Changes[1]
	keys := got["detail"].(map[string]any)["keys"].([]any)[0].(map[string]any)
	effect := got["effect"].(map[string]any)
	if got["kind"] != "config" || got["time_ms"] != float64(t1) || keys["key"] != unalignedKey || keys["old"] != "false" ||
		keys["new"] != "true" || effect["finding"] != c.Effect.Finding {
		t.Errorf("changes[1] in JSON: %v", got)
	}
	for _, stat := range []string{"end_to_end_p50_ms", "end_to_end_p90_ms"} {
		s, _ := effect[stat].(map[string]any)
		for _, f := range []string{"before", "after", "change", "low", "high"} {
			if _, ok := s[f].(float64); !ok {
				t.Errorf("changes[1].effect.%s.%s = %v, want a number", stat, f, s[f])
			}
		}
	}

	// A window of 15 s holds a checkpoint or two a side: too few, every figure null.
	few, err := a.BeforeAfter("prod", "j", t1, 15_000)
	if err != nil {
		t.Fatal(err)
	}
	fewJSON := mustJSON(t, few.EndToEndP50)
	if fewJSON != `{"before":null,"after":null,"change":null,"low":null,"high":null}` || !strings.Contains(few.Finding, "too few checkpoints") {
		t.Errorf("a 15 s window: p50 %s, finding %q; want nulls and too few checkpoints", fewJSON, few.Finding)
	}
	if _, err := a.BeforeAfter("prod", "j", 0, 0); !IsBadRequest(err) {
		t.Errorf("BeforeAfter at 0: %v, want a bad request", err)
	}
}

// A resubmission of the job (another id, the same name) after the first run ended with a
// savepoint: the second run's report links the runs, marks the resubmission and the
// configuration the new run started with, and measures them against the first run's
// checkpoints.
func TestReportLinksAResubmittedRun(t *testing.T) {
	a := newTestApp(t, Options{NoSample: true})
	ctx := context.Background()
	base := time.Now().Add(-time.Hour).UnixMilli()
	first, second := knobJob("run1", base), knobJob("run2", base+400_000)
	first.State, first.EndMs = "FINISHED", base+300_000
	var cps []model.Checkpoint
	for i := int64(1); i <= 20; i++ {
		cps = append(cps, changeCheckpoint("run1", i, base+i*10_000, 1000+10*i, 75), changeCheckpoint("run2", i, second.StartMs+i*10_000, 300+i, 3))
	}
	sp := changeCheckpoint("run1", 21, base+250_000, 500, 0)
	sp.Kind, sp.ExternalPath = model.KindSavepoint, "file:/savepoints/savepoint-1"
	cps = append(cps, sp)
	for _, put := range []func() error{
		func() error { return a.store.PutCluster(ctx, model.Cluster{Name: "prod", Engine: model.EngineFlink}) },
		func() error { return a.store.PutJob(ctx, first) },
		func() error { return a.store.PutJob(ctx, second) },
		func() error { return a.store.PutJobConfig(ctx, knobConfig("run1", base, 5000, false)) },
		func() error { return a.store.PutJobConfig(ctx, knobConfig("run2", second.StartMs+1000, 5000, true)) },
		func() error { return a.store.PutCheckpoints(ctx, cps) },
	} {
		if err := put(); err != nil {
			t.Fatal(err)
		}
	}
	r, err := a.Report("prod", "run2", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Changes) != 2 || r.Changes[0].Kind != model.ChangeResubmit || r.Changes[1].Kind != model.ChangeConfig {
		t.Fatalf("changes %s, want the resubmission and the configuration at the second run's start", mustJSON(t, r.Changes))
	}
	if d := r.Changes[0].Detail; d.PreviousJobID != "run1" || d.Savepoint != "file:/savepoints/savepoint-1" || r.Changes[0].TimeMs != second.StartMs {
		t.Errorf("resubmission %+v, want from run1's savepoint at %d", r.Changes[0], second.StartMs)
	}
	e := r.Changes[1].Effect
	if e.Before.Completed != 20 || e.After.Completed != 20 || e.EndToEndP90.High == nil || *e.EndToEndP90.High >= 0 ||
		!strings.Contains(e.Finding, unalignedKey+" went false → true") {
		t.Errorf("effect %s, want run1's 20 against run2's 20, p90 fell", mustJSON(t, e))
	}
	// The first run's report has none of the second run's changes.
	r1, err := a.Report("prod", "run1", 0, 0)
	if err != nil || len(r1.Changes) != 0 {
		t.Errorf("run1's changes %s (%v), want none", mustJSON(t, r1.Changes), err)
	}
}

// A rescale seen in the checkpoints (the Map's subtasks 2 → 4), which the report keeps without
// their tasks, and one the job's vertices show after its newest checkpoint (4 → 8).
func TestReportMarksRescales(t *testing.T) {
	a := newTestApp(t, Options{NoSample: true})
	ctx := context.Background()
	base := time.Now().Add(-time.Hour).UnixMilli()
	job := knobJob("j", base)
	job.Vertices[1].Parallelism, job.UpdatedMs = 8, base+400_000
	var cps []model.Checkpoint
	for id := int64(1); id <= 30; id++ {
		c := changeCheckpoint("j", id, base+id*10_000, 100+id%5, 2)
		if id > 10 {
			m := &c.Tasks[1]
			m.Subtasks = append(m.Subtasks, m.Subtasks[0], m.Subtasks[1])
			m.Subtasks[2].Index, m.Subtasks[3].Index, m.NumSubtasks, m.NumAcknowledged = 2, 3, 4, 4
		}
		cps = append(cps, c)
	}
	if err := a.store.PutJob(ctx, job); err != nil {
		t.Fatal(err)
	}
	if err := a.store.PutCheckpoints(ctx, cps); err != nil {
		t.Fatal(err)
	}
	r, err := a.Report("prod", "j", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []model.ChangeDetail{{VertexID: "v2", VertexName: "Map", From: 2, To: 4}, {VertexID: "v2", VertexName: "Map", From: 4, To: 8}}
	if len(r.Changes) != 2 || !reflect.DeepEqual(r.Changes[0].Detail, want[0]) || r.Changes[0].TimeMs != base+110_000 ||
		!reflect.DeepEqual(r.Changes[1].Detail, want[1]) || r.Changes[1].TimeMs != job.UpdatedMs || r.Changes[1].Source != model.ChangeFromJobGraph {
		t.Errorf("changes %s, want the Map rescaled 2 → 4 at checkpoint 11 and 4 → 8 by the job's vertices", mustJSON(t, r.Changes))
	}
	if !strings.Contains(r.Changes[0].Effect.Finding, "after Map was rescaled from 2 to 4 parallel subtasks") {
		t.Errorf("finding %q", r.Changes[0].Effect.Finding)
	}
}

// A note the user adds is a change of the job's (validated with clear errors), goes into an
// exported capture, and comes back with it; it can be deleted.
func TestNotesAreChangesKeptInCaptures(t *testing.T) {
	a := newTestApp(t, Options{NoSample: true})
	_, t1 := seedChange(t, a)
	for _, tc := range []struct {
		cluster, job string
		at           int64
		text, want   string
	}{
		{"prod", "j", t1, "  ", "needs some text"},
		{"prod", "j", 0, "x", "epoch millisecond"},
		{"prod", "j", -5, "x", "epoch millisecond"},
		{"prod", "nope", t1, "x", "not in the cache"},
		{"", "j", t1, "x", "cluster and job are required"},
		{"prod", "j", t1, strings.Repeat("長", store.MaxNoteRunes+1), "at most"},
	} {
		if _, err := a.AddNote(tc.cluster, tc.job, tc.at, tc.text); !IsBadRequest(err) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("AddNote(%q, %q, %d, %.10q) = %v, want a bad request saying %q", tc.cluster, tc.job, tc.at, tc.text, err, tc.want)
		}
	}
	n, err := a.AddNote("prod", "j", t1+5000, " deployed v42 ")
	if err != nil || n.Detail.Text != "deployed v42" || n.Kind != model.ChangeNote {
		t.Fatalf("AddNote = %+v, %v", n, err)
	}
	notes := func(a *App, cluster string) []analyze.ChangeEffect {
		t.Helper()
		cs, err := a.Changes(cluster, "j")
		if err != nil {
			t.Fatal(err)
		}
		var out []analyze.ChangeEffect
		for _, c := range cs {
			if c.Kind == model.ChangeNote {
				out = append(out, c)
			}
		}
		return out
	}
	if got := notes(a, "prod"); len(got) != 1 || got[0].Detail.Text != "deployed v42" || got[0].TimeMs != t1+5000 || got[0].Effect.Finding == "" {
		t.Fatalf("notes among the changes: %s", mustJSON(t, got))
	}

	b, _ := reimported(t, a, ExportRequest{Cluster: "prod", Job: "j"})
	if got := notes(b, "capture: prod"); len(got) != 1 || got[0].Detail.Text != "deployed v42" || got[0].Cluster != "capture: prod" {
		t.Errorf("the imported capture's notes: %s", mustJSON(t, got))
	}

	if err := a.DeleteNote("prod", "j", t1+5000, "not this one"); !IsBadRequest(err) {
		t.Errorf("deleting a note that is not there: %v, want a bad request", err)
	}
	if err := a.DeleteNote("prod", "j", t1+5000, "deployed v42"); err != nil {
		t.Fatal(err)
	}
	if got := notes(a, "prod"); len(got) != 0 {
		t.Errorf("after the delete: %s", mustJSON(t, got))
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A run split from the earlier runs of its name is a row of its own in the
// fleet, and its changes no longer count the earlier run's resubmission; a
// job the cache does not hold is a bad request.
func TestSplitRun(t *testing.T) {
	a := newTestApp(t, Options{NoSample: true})
	ctx := context.Background()
	first, second := knobJob("run1", 1_000_000), knobJob("run2", 2_000_000)
	first.State, first.EndMs = "CANCELED", 1_900_000
	for _, j := range []model.Job{first, second} {
		if err := a.store.PutJob(ctx, j); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.store.PutCheckpoints(ctx, []model.Checkpoint{changeCheckpoint("run1", 1, 1_100_000, 100, 10), changeCheckpoint("run2", 1, 2_100_000, 100, 10)}); err != nil {
		t.Fatal(err)
	}
	if err := a.SaveCluster(ClusterInput{Name: "prod", Engine: model.EngineFlink, BaseURL: "http://127.0.0.1:1"}); err != nil {
		t.Fatal(err)
	}
	rows := func() map[string]string {
		t.Helper()
		f, err := a.Fleet(FleetRequest{WindowMs: 100 * 365 * 24 * 3600 * 1000})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, r := range f.Jobs {
			out[r.JobID] = fmt.Sprintf("%d runs, split %q", len(r.Runs), r.SplitJobID)
		}
		return out
	}
	resubmits := func() int {
		t.Helper()
		cs, err := a.Changes("prod", "run2")
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, c := range cs {
			if c.Kind == model.ChangeResubmit {
				n++
			}
		}
		return n
	}
	// The job's view lists the runs the fleet's row has, whichever run it shows.
	jobRuns := func(job string) []analyze.FleetRun {
		t.Helper()
		runs, err := a.JobRuns("prod", job)
		if err != nil {
			t.Fatal(err)
		}
		return runs
	}
	run1 := analyze.FleetRun{JobID: "run1", StartMs: 1_000_000, EndMs: 1_900_000, State: "CANCELED"}
	run2 := analyze.FleetRun{JobID: "run2", StartMs: 2_000_000, State: "RUNNING"}
	if got, want := rows(), map[string]string{"run2": `2 runs, split ""`}; !reflect.DeepEqual(got, want) {
		t.Fatalf("before the split: %v, want %v", got, want)
	}
	for _, job := range []string{"run1", "run2"} {
		if got := jobRuns(job); !reflect.DeepEqual(got, []analyze.FleetRun{run1, run2}) {
			t.Errorf("before the split, the runs of %s: %+v, want both", job, got)
		}
	}
	if n := resubmits(); n != 1 {
		t.Fatalf("before the split: %d resubmissions, want 1", n)
	}
	if err := a.SplitRun("prod", "run2", true); err != nil {
		t.Fatal(err)
	}
	if got, want := rows(), map[string]string{"run1": `0 runs, split ""`, "run2": `0 runs, split "run2"`}; !reflect.DeepEqual(got, want) {
		t.Errorf("after the split: %v, want %v", got, want)
	}
	if n := resubmits(); n != 0 {
		t.Errorf("after the split: %d resubmissions, want none", n)
	}
	if got := jobRuns("run2"); !reflect.DeepEqual(got, []analyze.FleetRun{run2}) {
		t.Errorf("after the split, the runs of run2: %+v, want itself alone", got)
	}
	if err := a.SplitRun("prod", "nope", true); !IsBadRequest(err) || !strings.Contains(err.Error(), "nope") {
		t.Errorf("splitting a job the cache does not hold: %v, want a bad request naming it", err)
	}
	if _, err := a.JobRuns("prod", "nope"); !IsBadRequest(err) || !strings.Contains(err.Error(), "nope") {
		t.Errorf("the runs of a job the cache does not hold: %v, want a bad request naming it", err)
	}
}
