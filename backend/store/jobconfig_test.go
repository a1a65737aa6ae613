package store

import (
	"context"
	"strings"
	"testing"

	"checkpoint-explorer/backend/model"
)

func knobConfig(cluster, job string, seenMs, intervalMs int64, unaligned bool) model.JobConfig {
	return model.JobConfig{Cluster: cluster, JobID: job, SeenMs: seenMs, Mode: "exactly_once",
		IntervalMs: i64(intervalMs), TimeoutMs: i64(600000), Unaligned: &unaligned, StateBackend: "rocksdb",
		Keys: map[string]string{"execution.checkpointing.externalized-checkpoint-retention": "RETAIN_ON_CANCELLATION"}}
}

func TestJobConfigHistory(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, DefaultRetention())
	if _, ok, err := s.LatestJobConfig(ctx, "c", "j"); ok || err != nil {
		t.Fatalf("latest of a job without configs: %v %v, want none", ok, err)
	}
	// The same settings read again (later) keep one entry, the first sighting.
	for _, seen := range []int64{1000, 2000, 3000} {
		if err := s.PutJobConfig(ctx, knobConfig("c", "j", seen, 1000, false)); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.JobConfigs(ctx, "c", "j")
	if err != nil || len(got) != 1 || got[0].SeenMs != 1000 {
		t.Fatalf("history after the same settings thrice: %+v (%v), want one entry seen at 1000", got, err)
	}
	// A resubmission with other settings: a second entry, newest last.
	if err := s.PutJobConfig(ctx, knobConfig("c", "j", 4000, 1000, true)); err != nil {
		t.Fatal(err)
	}
	if err := s.PutJobConfig(ctx, knobConfig("c", "j", 5000, 1000, true)); err != nil {
		t.Fatal(err)
	}
	got, err = s.JobConfigs(ctx, "c", "j")
	if err != nil || len(got) != 2 || got[0].SeenMs != 1000 || got[1].SeenMs != 4000 || !*got[1].Unaligned || *got[0].Unaligned {
		t.Fatalf("history after a change: %+v (%v), want aligned@1000 then unaligned@4000", got, err)
	}
	latest, ok, err := s.LatestJobConfig(ctx, "c", "j")
	if err != nil || !ok || latest.SeenMs != 4000 || !latest.SameSettings(knobConfig("c", "j", 0, 1000, true)) {
		t.Errorf("latest = %+v (%v %v), want the unaligned one", latest, ok, err)
	}
	// A key's value changing is a change too; a key less as well.
	changed := knobConfig("c", "j", 6000, 1000, true)
	changed.Keys["execution.checkpointing.externalized-checkpoint-retention"] = "DELETE_ON_CANCELLATION"
	if err := s.PutJobConfig(ctx, changed); err != nil {
		t.Fatal(err)
	}
	if got, _ = s.JobConfigs(ctx, "c", "j"); len(got) != 3 {
		t.Errorf("a changed key: %d entries, want 3", len(got))
	}
	// Another job of the cluster is its own history.
	if err := s.PutJobConfig(ctx, knobConfig("c", "other", 1000, 1000, false)); err != nil {
		t.Fatal(err)
	}
	if got, _ = s.JobConfigs(ctx, "c", "other"); len(got) != 1 {
		t.Errorf("other job: %d entries, want 1", len(got))
	}
	// Removing the cluster removes its configurations.
	if err := s.PutCluster(ctx, model.Cluster{Name: "c", Engine: model.EngineFlink}); err != nil {
		t.Fatal(err)
	}
	if err := s.PutJobConfig(ctx, knobConfig("keep", "j", 1000, 1000, false)); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteCluster(ctx, "c"); err != nil {
		t.Fatal(err)
	}
	for _, job := range []string{"j", "other"} {
		if got, err := s.JobConfigs(ctx, "c", job); err != nil || len(got) != 0 {
			t.Errorf("job %s after its cluster was deleted: %+v (%v), want none", job, got, err)
		}
	}
	if got, _ := s.JobConfigs(ctx, "keep", "j"); len(got) != 1 {
		t.Errorf("another cluster's configuration was removed too")
	}
}

func TestJobConfigHistoryIsBounded(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, DefaultRetention())
	for i := int64(1); i <= MaxJobConfigs+10; i++ {
		if err := s.PutJobConfig(ctx, knobConfig("c", "j", i, i, false)); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.JobConfigs(ctx, "c", "j")
	if err != nil || len(got) != MaxJobConfigs || got[0].SeenMs != 11 || got[len(got)-1].SeenMs != MaxJobConfigs+10 {
		t.Fatalf("%d entries from %d to %d (%v), want the newest %d", len(got), got[0].SeenMs, got[len(got)-1].SeenMs, err, MaxJobConfigs)
	}
}

func TestJobConfigRejectsBadInput(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, DefaultRetention())
	for _, c := range []model.JobConfig{{JobID: "j"}, {Cluster: "c"}, {Cluster: "c", JobID: "j", SeenMs: -1}} {
		err := s.PutJobConfig(ctx, c)
		if err == nil || !strings.Contains(err.Error(), "configuration of") {
			t.Errorf("PutJobConfig(%+v) = %v, want an error naming the configuration", c, err)
		}
	}
}

func TestJobConfigInBulk(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, DefaultRetention())
	err := s.Bulk(ctx, func(w Writer) error {
		for _, c := range []model.JobConfig{knobConfig("c", "j", 1, 1000, false), knobConfig("c", "j", 2, 1000, false),
			knobConfig("c", "j", 3, 2000, false)} {
			if err := w.PutJobConfig(c); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := s.JobConfigs(ctx, "c", "j"); len(got) != 2 || got[1].SeenMs != 3 {
		t.Errorf("bulk history = %+v, want entries seen at 1 and 3", got)
	}
}

func TestJobConfigFromACaptureFindsItsPlaceInTheHistory(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, DefaultRetention())
	a, b := knobConfig("c", "j", 1000, 1000, false), knobConfig("c", "j", 2000, 1000, true)
	// The cache saw only b, later than the capture did.
	if err := s.PutJobConfig(ctx, knobConfig("c", "j", 3000, 1000, true)); err != nil {
		t.Fatal(err)
	}
	for round := 0; round < 2; round++ { // the capture's history, imported twice
		for _, c := range []model.JobConfig{a, b} {
			if err := s.PutJobConfig(ctx, c); err != nil {
				t.Fatal(err)
			}
		}
	}
	got, err := s.JobConfigs(ctx, "c", "j")
	if err != nil || len(got) != 2 || got[0].SeenMs != 1000 || *got[0].Unaligned || got[1].SeenMs != 2000 || !*got[1].Unaligned {
		t.Fatalf("history %+v (%v), want aligned@1000 then unaligned first seen @2000", got, err)
	}
}
