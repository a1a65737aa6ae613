package store

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/model/modeltest"
)

// diskFullBatch is a batch big enough that a full cache cannot take it.
func diskFullBatch(from int64) []model.Checkpoint {
	cps := make([]model.Checkpoint, 20)
	for i := range cps {
		id := from + int64(i)
		cps[i] = modeltest.Checkpoint("c", "j", id, 1_000_000+id*1000, 4, 64)
	}
	return cps
}

func integrity(t *testing.T, s *Store) {
	t.Helper()
	var res string
	if err := s.r.QueryRowContext(context.Background(), "PRAGMA integrity_check").Scan(&res); err != nil {
		t.Fatal(err)
	}
	if res != "ok" {
		t.Fatalf("integrity_check: %s", res)
	}
}

func countCheckpoints(t *testing.T, s *Store) int64 {
	t.Helper()
	st, err := s.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return st.Checkpoints
}

// A full disk (simulated with max_page_count) fails a write whole, with
// ErrDiskFull and a message naming the cache; the same write succeeds once
// there is room again, whether the cap is raised or retention frees pages.
func TestFullDiskFailsWritesWholeAndRecovers(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "cache.db")
	s, err := Open(ctx, path, Retention{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.PutCheckpoints(ctx, diskFullBatch(1)); err != nil {
		t.Fatal(err)
	}
	pages, err := s.SetMaxPageCount(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	before := countCheckpoints(t, s)

	next := diskFullBatch(100)
	err = s.PutCheckpoints(ctx, next)
	if !errors.Is(err, ErrDiskFull) {
		t.Fatalf("write to a full cache (%d pages): %v, want ErrDiskFull", pages, err)
	}
	msg := err.Error()
	for _, want := range []string{"the cache's disk is full", s.Path(), "put checkpoints"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q lacks %q", msg, want)
		}
	}
	if strings.Contains(msg, "rollback") {
		t.Errorf("error %q reports a rollback failure: SQLite rolled back itself", msg)
	}
	t.Logf("full at %d pages: %v", pages, err)
	// Nothing of the batch is stored, and the file is sound.
	if got := countCheckpoints(t, s); got != before {
		t.Errorf("%d checkpoints after the failed batch, want %d (half-written)", got, before)
	}
	integrity(t, s)
	// Other writes say the same.
	gaps := []model.Gap{}
	for i := int64(0); i < 2000; i++ {
		gaps = append(gaps, model.Gap{Cluster: "c", JobID: "j", FromID: 10_000 + 2*i, ToID: 10_000 + 2*i, Reason: strings.Repeat("x", 200)})
	}
	if err := s.PutGaps(ctx, gaps); !errors.Is(err, ErrDiskFull) {
		t.Errorf("gaps on a full cache: %v, want ErrDiskFull", err)
	}
	// Reads go on.
	if _, err := s.Checkpoints(ctx, Query{Cluster: "c", JobID: "j"}); err != nil {
		t.Errorf("read from a full cache: %v", err)
	}

	// Room again: the same write goes through.
	if _, err := s.SetMaxPageCount(ctx, 1<<30); err != nil {
		t.Fatal(err)
	}
	if err := s.PutCheckpoints(ctx, next); err != nil {
		t.Fatalf("write after room came back: %v", err)
	}
	integrity(t, s)

	// Full again; retention frees pages inside the file, and writes resume
	// without raising the cap.
	if _, err := s.SetMaxPageCount(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if err := s.PutCheckpoints(ctx, diskFullBatch(200)); !errors.Is(err, ErrDiskFull) {
		t.Fatalf("write to a full cache: %v, want ErrDiskFull", err)
	}
	s.SetRetention(Retention{MaxCheckpointsPerJob: 5})
	res, err := s.ApplyRetention(ctx)
	if err != nil {
		t.Fatalf("retention on a full cache: %v", err)
	}
	if err := s.PutCheckpoints(ctx, diskFullBatch(200)); err != nil {
		t.Fatalf("write after retention removed %d checkpoints: %v", res.Checkpoints, err)
	}
	integrity(t, s)
	t.Logf("retention removed %d checkpoints on the full cache; the next batch fit", res.Checkpoints)
}
