package app

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"checkpoint-explorer/backend/capture"
	"checkpoint-explorer/backend/model"
)

// testReconciliation is what a collector would keep for seedJob's job after
// a poll: ids 1..23 of which 20 stored and 21..23 a gap, and the engine's
// counters saying 25 were triggered over the span, 2 of them before an id.
func testReconciliation(cluster string) model.Reconciliation {
	return model.Reconciliation{
		Cluster: cluster, JobID: "job1", AtMs: time.Now().UnixMilli(), Polls: 40, FailedPolls: 3,
		FirstID: 1, LatestID: 23, IDs: 23, Stored: 20, Gaps: 3, Unaccounted: 0,
		EngineCounted: 25, WithoutID: 2,
		Engine: &model.EngineCounts{Triggered: 25, Completed: 21, Failed: 4},
	}
}

func TestJobReconciliationReturnsWhatTheStoreHolds(t *testing.T) {
	a := newTestApp(t, Options{NoSample: true})
	seedJob(t, a)
	ctx := context.Background()

	// None kept yet: nil, not an empty record.
	got, err := a.JobReconciliation("prod", "job1")
	if err != nil || got != nil {
		t.Fatalf("before any poll: %+v, %v; want nil, nil", got, err)
	}

	want := testReconciliation("prod")
	if err := a.store.PutReconciliation(ctx, want); err != nil {
		t.Fatal(err)
	}
	got, err = a.JobReconciliation("prod", "job1")
	if err != nil {
		t.Fatal(err)
	}
	if got == nil || !reflect.DeepEqual(got.Reconciliation, want) || got.Missed != 3 {
		t.Fatalf("got %+v, want %+v with missed 3", got, want)
	}

	// A later poll replaces it; one unaccounted id counts as missed too.
	later := want
	later.AtMs, later.LatestID, later.IDs, later.Unaccounted = want.AtMs+1000, 24, 24, 1
	if err := a.store.PutReconciliation(ctx, later); err != nil {
		t.Fatal(err)
	}
	if got, err = a.JobReconciliation("prod", "job1"); err != nil || got == nil || got.LatestID != 24 || got.Missed != 4 {
		t.Fatalf("after a later poll: %+v, %v", got, err)
	}

	// Another job, or another cluster's job of the same id, has none.
	for _, k := range [][2]string{{"prod", "job2"}, {"other", "job1"}} {
		if got, err := a.JobReconciliation(k[0], k[1]); err != nil || got != nil {
			t.Errorf("%s/%s: %+v, %v; want nil, nil", k[0], k[1], got, err)
		}
	}
	if _, err := a.JobReconciliation("", "job1"); !IsBadRequest(err) {
		t.Errorf("without a cluster: %v, want a bad request", err)
	}
}

// The JSON the UI reads: the model's fields flat, with missed beside them,
// and null when there is none.
func TestJobReconciliationJSONShape(t *testing.T) {
	a := newTestApp(t, Options{NoSample: true})
	seedJob(t, a)
	if err := a.store.PutReconciliation(context.Background(), testReconciliation("prod")); err != nil {
		t.Fatal(err)
	}
	got, err := a.JobReconciliation("prod", "job1")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(got)
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]float64{"engine_counted": 25, "stored": 20, "gaps": 3, "unaccounted": 0, "without_id": 2,
		"missed": 3, "first_id": 1, "latest_id": 23, "ids": 23, "polls": 40, "failed_polls": 3} {
		if m[k] != v {
			t.Errorf("%s = %v, want %v (%s)", k, m[k], v, b)
		}
	}
	if e, _ := m["engine"].(map[string]any); e == nil || e["triggered"] != 25.0 {
		t.Errorf("engine counters: %s", b)
	}
	none, _ := a.JobReconciliation("prod", "nope")
	if b, _ := json.Marshal(none); string(b) != "null" {
		t.Errorf("no reconciliation marshals as %s, want null", b)
	}
}

func TestImportedCaptureBringsItsReconciliation(t *testing.T) {
	path := filepath.Join(t.TempDir(), "recon.ckpt.gz")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := capture.NewWriter(f, capture.Header{RecordedBy: "test"})
	if err != nil {
		t.Fatal(err)
	}
	base := time.Now().Add(-time.Hour).UnixMilli()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(w.Cluster(model.Cluster{Name: "lab", Engine: model.EngineFlink, BaseURL: "http://jm:8081"}))
	must(w.Job(model.Job{Cluster: "lab", ID: "job1", Name: "Orders", Engine: model.EngineFlink, State: "RUNNING"}))
	for i := int64(1); i <= 20; i++ {
		must(w.Checkpoint(&model.Checkpoint{Cluster: "lab", JobID: "job1", ID: i, Kind: model.KindCheckpoint,
			Status: model.StatusCompleted, TriggerMs: base + i*1000, CompletionMs: base + i*1000 + 50, EndToEndMs: 50}))
	}
	must(w.Gap(model.Gap{Cluster: "lab", JobID: "job1", FromID: 21, ToID: 23, DetectedMs: base + 30_000}))
	want := testReconciliation("lab")
	must(w.Reconciliation(want))
	must(w.Close())
	must(f.Close())

	a := newTestApp(t, Options{NoSample: true})
	imp, err := a.OpenCapture(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(imp.Sources) != 1 || imp.Sources[0] != "capture: lab" {
		t.Fatalf("import result %+v", imp)
	}
	got, err := a.JobReconciliation("capture: lab", "job1")
	if err != nil {
		t.Fatal(err)
	}
	want.Cluster = "capture: lab"
	if got == nil || !reflect.DeepEqual(got.Reconciliation, want) || got.Missed != 3 {
		t.Fatalf("imported reconciliation %+v, want %+v", got, want)
	}
	// It is kept under the capture's name only.
	if got, _ := a.JobReconciliation("lab", "job1"); got != nil {
		t.Errorf("also kept under the recorded cluster name: %+v", got)
	}
	// A whole export carries it on; an export of a time range does not.
	for _, tc := range []struct {
		fromMs int64
		keeps  bool
	}{{0, true}, {base + 5_000, false}} {
		out := filepath.Join(t.TempDir(), "again.ckpt.gz")
		if _, err := a.ExportCapture(ExportRequest{Cluster: "capture: lab", Job: "job1", FromMs: tc.fromMs, Path: out}); err != nil {
			t.Fatal(err)
		}
		b := newTestApp(t, Options{NoSample: true})
		if _, err := b.OpenCapture(out); err != nil {
			t.Fatal(err)
		}
		again, err := b.JobReconciliation("capture: lab", "job1") // a capture name is kept as it is
		if err != nil {
			t.Fatal(err)
		}
		if (again != nil) != tc.keeps {
			t.Errorf("export from %d: reconciliation %+v, want kept %v", tc.fromMs, again, tc.keeps)
		}
		if again != nil && (again.Stored != want.Stored || again.Gaps != want.Gaps) {
			t.Errorf("re-imported reconciliation %+v, want %+v", again, want)
		}
	}
}

// A source that is not polled lists no problems and nothing missed; the
// facade is reachable by name from serve (reflection) like every method.
func TestSourcesWithoutCollectorListNoProblems(t *testing.T) {
	a := newTestApp(t, Options{NoSample: true})
	seedJob(t, a)
	list, err := a.ListClusters()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range list {
		if len(s.Health.Problems) != 0 || s.Health.Missed != 0 {
			t.Errorf("%s: problems %v, missed %d without a collector", s.Name, s.Health.Problems, s.Health.Missed)
		}
		b, _ := json.Marshal(s)
		if strings.Contains(string(b), `"problems"`) || strings.Contains(string(b), `"missed"`) {
			t.Errorf("%s: empty problems or missed marshalled: %s", s.Name, b)
		}
	}
	if _, ok := reflect.TypeFor[*App]().MethodByName("JobReconciliation"); !ok {
		t.Error("JobReconciliation is not a method the doors expose")
	}
}
