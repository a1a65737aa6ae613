package app

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"

	"checkpoint-explorer/backend/model"
)

func TestJobConfigSurvivesExportAndImport(t *testing.T) {
	a := newTestApp(t, Options{NoSample: true})
	seedJob(t, a)
	ctx := context.Background()
	if got, err := a.JobConfig("prod", "job1"); got != nil || err != nil {
		t.Fatalf("JobConfig before any was read: %+v %v, want nil", got, err)
	}
	iv, off, on := int64(1000), false, true
	first := model.JobConfig{Cluster: "prod", JobID: "job1", SeenMs: 1000, Mode: "exactly_once", IntervalMs: &iv,
		Unaligned: &off, StateBackend: "hashmap", Keys: map[string]string{"execution-config.job-parallelism": "2"}}
	second := first
	second.SeenMs, second.Unaligned, second.StateBackend = 2000, &on, "rocksdb"
	for _, c := range []model.JobConfig{first, second} {
		if err := a.store.PutJobConfig(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	got, err := a.JobConfig("prod", "job1")
	if err != nil || got == nil || !got.SameSettings(second) || got.SeenMs != 2000 {
		t.Fatalf("JobConfig = %+v (%v), want the newest", got, err)
	}
	if _, err := a.JobConfig("", "job1"); !IsBadRequest(err) {
		t.Errorf("JobConfig without a cluster: %v, want a bad request", err)
	}

	out := filepath.Join(t.TempDir(), "prod.ckpt.gz")
	if _, err := a.ExportCapture(ExportRequest{Cluster: "prod", Job: "job1", Path: out}); err != nil {
		t.Fatal(err)
	}
	b := newTestApp(t, Options{NoSample: true})
	if _, err := b.OpenCapture(out); err != nil {
		t.Fatal(err)
	}
	hist, err := b.store.JobConfigs(ctx, "capture: prod", "job1")
	if err != nil {
		t.Fatal(err)
	}
	first.Cluster, second.Cluster = "capture: prod", "capture: prod"
	if !reflect.DeepEqual(hist, []model.JobConfig{first, second}) {
		t.Errorf("imported history\n%+v\nwant\n%+v", hist, []model.JobConfig{first, second})
	}
	// Opening the file again adds nothing.
	if _, err := b.OpenCapture(out); err != nil {
		t.Fatal(err)
	}
	if hist, _ := b.store.JobConfigs(ctx, "capture: prod", "job1"); len(hist) != 2 {
		t.Errorf("after a second import: %d entries, want 2", len(hist))
	}
}
