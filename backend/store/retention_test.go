package store

import (
	"context"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/model/modeltest"
)

// fill writes n checkpoints of one job with detail, one ack sample and one
// metric sample per checkpoint, and a one-id gap before every checkpoint
// (ids are even, gaps odd), all in one Bulk.
func fill(t testing.TB, s *Store, cluster, job string, firstID, n int, baseMs, stepMs int64, vertices, subtasks int) {
	t.Helper()
	err := s.Bulk(context.Background(), func(w Writer) error {
		for i := range n {
			id := int64(2 * (firstID + i))
			trig := baseMs + int64(firstID+i)*stepMs
			c := modeltest.Checkpoint(cluster, job, id, trig, vertices, subtasks)
			if err := w.PutCheckpoint(&c); err != nil {
				return err
			}
			if err := w.PutAckSample(model.AckSample{Cluster: cluster, JobID: job, CheckpointID: id, TimeMs: trig + 1, Acknowledged: 1, Total: 2}); err != nil {
				return err
			}
			if err := w.PutMetricSample(model.MetricSample{Cluster: cluster, JobID: job, VertexID: "v", Subtask: -1,
				Metric: model.MetricBusyMsPerSec, Agg: model.AggMax, TimeMs: trig, Value: float64(i)}); err != nil {
				return err
			}
			if err := w.PutGap(model.Gap{Cluster: cluster, JobID: job, FromID: id - 1, ToID: id - 1, DetectedMs: trig}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// fileBytesAfterCheckpoint measures the files once the WAL is folded in.
func fileBytesAfterCheckpoint(t testing.TB, s *Store) int64 {
	t.Helper()
	if _, err := s.w.Exec("PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		t.Fatal(err)
	}
	n, err := s.fileBytes()
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// checkOnlyNewerData asserts that a job keeps nothing older than its oldest
// checkpoint: no acks or gaps at lower ids, no metric samples before it.
func checkOnlyNewerData(t *testing.T, s *Store, cluster, job string) {
	t.Helper()
	ctx := context.Background()
	q := Query{Cluster: cluster, JobID: job}
	cps, err := s.Checkpoints(ctx, q)
	if err != nil || len(cps) == 0 {
		t.Fatalf("checkpoints of %s: %d, %v", job, len(cps), err)
	}
	oldest := cps[0]
	acks, err := s.AckSamples(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if len(acks) != len(cps) || acks[0].CheckpointID != oldest.ID {
		t.Errorf("%s: %d ack samples for %d checkpoints, first for %d (oldest kept %d)", job, len(acks), len(cps), acks[0].CheckpointID, oldest.ID)
	}
	ms, err := s.MetricSamples(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != len(cps) || ms[0].TimeMs != oldest.TriggerMs {
		t.Errorf("%s: %d metric samples for %d checkpoints, first at %d (oldest trigger %d)", job, len(ms), len(cps), ms[0].TimeMs, oldest.TriggerMs)
	}
	var gaps int
	if err := s.r.QueryRow("SELECT count(*) FROM gaps WHERE cluster = ? AND job_id = ? AND to_id < ?", cluster, job, oldest.ID-1).Scan(&gaps); err != nil {
		t.Fatal(err)
	}
	if gaps != 0 {
		t.Errorf("%s: %d gaps below the oldest kept checkpoint", job, gaps)
	}
}

func TestRetentionByCount(t *testing.T) {
	ctx := context.Background()
	const limit = 500
	s := openTest(t, Retention{MaxCheckpointsPerJob: limit})
	var inserted int64
	for round := range 4 {
		fill(t, s, "c", "big", round*600, 600, 1_000_000, 1000, 2, 4)
		fill(t, s, "c", "small", round*100, 100, 1_000_000, 1000, 2, 4)
		inserted += 700
		res, err := s.ApplyRetention(ctx)
		if err != nil {
			t.Fatal(err)
		}
		jobs, err := s.Jobs(ctx, "c")
		if err != nil {
			t.Fatal(err)
		}
		for _, j := range jobs {
			if j.Total > limit {
				t.Errorf("round %d: job %s keeps %d checkpoints, limit %d", round, j.ID, j.Total, limit)
			}
		}
		// The newest survive.
		big, _ := s.Checkpoints(ctx, Query{Cluster: "c", JobID: "big"})
		if want := int64(2 * ((round+1)*600 - 1)); len(big) != limit || big[len(big)-1].ID != want || big[0].ID != want-2*(limit-1) {
			t.Errorf("round %d: big keeps ids %d..%d (%d); want the newest %d ending at %d", round, big[0].ID, big[len(big)-1].ID, len(big), limit, want)
		}
		if round == 0 && (res.Checkpoints != 100 || res.SubtaskRows != 800) {
			t.Errorf("round 0 pruned %+v, want 100 checkpoints, 800 subtask rows", res)
		}
		checkOnlyNewerData(t, s, "c", "big")
	}
	st, err := s.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	small, _ := s.Checkpoints(ctx, Query{Cluster: "c", JobID: "small"})
	if len(small) != 400 {
		t.Errorf("job under the limit lost checkpoints: %d of 400", len(small))
	}
	kept := st.Checkpoints
	if kept != limit+400 || st.PrunedTotal.Checkpoints != inserted-kept || st.PrunedTotal.SubtaskRows != 8*(inserted-kept) {
		t.Errorf("kept %d, pruned total %+v; inserted %d", kept, st.PrunedTotal, inserted)
	}
	if st.PrunedTotal.AckSamples != inserted-kept || st.PrunedTotal.MetricSamples != inserted-kept {
		t.Errorf("samples pruned %+v, want %d each", st.PrunedTotal, inserted-kept)
	}
	// Small job: all its samples stay (nothing of it was pruned).
	acks, _ := s.AckSamples(ctx, Query{Cluster: "c", JobID: "small"})
	if len(acks) != 400 {
		t.Errorf("small job kept %d ack samples, want 400", len(acks))
	}
}

func TestRetentionByAge(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	s := openTest(t, Retention{MaxAge: 72 * time.Hour})
	s.now = func() time.Time { return now }
	hour := time.Hour.Milliseconds()
	start := now.Add(-240 * time.Hour).UnixMilli()
	fill(t, s, "c", "j", 0, 240, start, hour, 2, 3) // hourly for 10 days
	// A job with samples only (its checkpoints were never seen).
	if err := s.PutMetricSamples(ctx, []model.MetricSample{
		{Cluster: "c", JobID: "m", VertexID: "v", Metric: "x", TimeMs: start},
		{Cluster: "c", JobID: "m", VertexID: "v", Metric: "x", TimeMs: now.UnixMilli()},
	}); err != nil {
		t.Fatal(err)
	}

	res, err := s.ApplyRetention(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cutoff := now.Add(-72 * time.Hour).UnixMilli()
	cps, err := s.Checkpoints(ctx, Query{Cluster: "c", JobID: "j"})
	if err != nil {
		t.Fatal(err)
	}
	if len(cps) != 72 || cps[0].TriggerMs < cutoff {
		t.Errorf("kept %d checkpoints, oldest at %d; want 72, none before %d", len(cps), cps[0].TriggerMs, cutoff)
	}
	if res.Checkpoints != 168 {
		t.Errorf("pruned %d checkpoints, want 168", res.Checkpoints)
	}
	checkOnlyNewerData(t, s, "c", "j")
	ms, _ := s.MetricSamples(ctx, Query{Cluster: "c", JobID: "m"})
	if len(ms) != 1 || ms[0].TimeMs < cutoff {
		t.Errorf("samples-only job keeps %+v; want only the recent sample", ms)
	}
	gaps, _ := s.Gaps(ctx, Query{Cluster: "c", JobID: "j", ToMs: cutoff - 1})
	if len(gaps) != 0 {
		t.Errorf("%d gaps detected before the age limit remain", len(gaps))
	}

	// A zero limit disables it.
	s.SetRetention(Retention{})
	now = now.Add(1000 * time.Hour)
	res, err = s.ApplyRetention(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.Checkpoints != 0 || res.MetricSamples != 0 {
		t.Errorf("with no limits, retention removed %+v", res)
	}
}

func TestRetentionBySizeTrimsDetailFirst(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, Retention{})
	fill(t, s, "c", "j", 0, 1500, 1_000_000, 1000, 4, 16)
	before, err := s.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Half the size: summaries fit easily, so only detail may go.
	limit := before.UsedBytes / 2
	s.SetRetention(Retention{MaxBytes: limit})
	res, err := s.ApplyRetention(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if size := fileBytesAfterCheckpoint(t, s); size > limit {
		t.Errorf("file is %d bytes after retention, cap %d", size, limit)
	}
	if res.Checkpoints != 0 || res.SubtaskRows == 0 || res.FreedBytes <= 0 {
		t.Errorf("pruned %+v; want only subtask rows, and bytes freed", res)
	}
	cps, err := s.Checkpoints(ctx, Query{})
	if err != nil {
		t.Fatal(err)
	}
	if len(cps) != 1500 {
		t.Fatalf("%d summaries left of 1500: summaries went before detail", len(cps))
	}
	// Every checkpoint without detail is older than every one with detail.
	var lastTrimmed, firstDetailed int64 = -1, -1
	for _, c := range cps {
		full, err := s.Checkpoint(ctx, c.Key())
		if err != nil {
			t.Fatal(err)
		}
		if len(full.Tasks) != 4 {
			t.Fatalf("checkpoint %d lost its per-vertex rows", c.ID)
		}
		if full.Tasks[0].Subtasks == nil {
			if full.DetailLoss != model.DetailTrimmed || c.DetailLoss != model.DetailTrimmed {
				t.Errorf("checkpoint %d trimmed says detail loss %q / %q, want %q", c.ID, full.DetailLoss, c.DetailLoss, model.DetailTrimmed)
			}
			if firstDetailed >= 0 {
				t.Fatalf("checkpoint %d (trigger %d) trimmed although older %d kept detail", c.ID, c.TriggerMs, firstDetailed)
			}
			lastTrimmed = c.TriggerMs
		} else {
			if full.DetailLoss != "" {
				t.Errorf("checkpoint %d with its detail says detail loss %q", c.ID, full.DetailLoss)
			}
			if firstDetailed < 0 {
				firstDetailed = c.TriggerMs
			}
		}
	}
	if lastTrimmed < 0 || firstDetailed < 0 {
		t.Fatalf("trimmed up to %d, detail from %d: expected both trimmed and detailed checkpoints", lastTrimmed, firstDetailed)
	}
	// Phase maxima survive the trim.
	pm, err := s.PhaseMaxima(ctx, Query{ToMs: lastTrimmed})
	if err != nil || len(pm) == 0 || pm[0].AsyncMs == nil {
		t.Errorf("phase maxima of trimmed checkpoints: %+v, %v", pm, err)
	}
	st, _ := s.Stats(ctx)
	if st.PrunedTotal.SubtaskRows != res.SubtaskRows || st.SubtaskRows != before.SubtaskRows-res.SubtaskRows {
		t.Errorf("stats %+v disagree with prune result %+v", st, res)
	}
}

func TestRetentionBySizeHoldsUnderManyInserts(t *testing.T) {
	ctx := context.Background()
	const limit = 1 << 20 // 1 MiB: far below what is inserted, so summaries go too
	s := openTest(t, Retention{MaxBytes: limit})
	var maxID int64
	for round := range 6 {
		fill(t, s, "c", "j", round*500, 500, 1_000_000, 1000, 4, 16)
		maxID = int64(2 * ((round+1)*500 - 1))
		if _, err := s.ApplyRetention(ctx); err != nil {
			t.Fatal(err)
		}
		if size := fileBytesAfterCheckpoint(t, s); size > limit {
			t.Fatalf("round %d: file is %d bytes, cap %d", round, size, limit)
		}
	}
	st, err := s.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.PrunedTotal.Checkpoints == 0 || st.SubtaskRows != 0 {
		t.Errorf("stats %+v: expected whole checkpoints pruned and no detail left", st)
	}
	cps, _ := s.Checkpoints(ctx, Query{})
	if len(cps) == 0 || cps[len(cps)-1].ID != maxID {
		t.Fatalf("newest checkpoint missing: kept %d", len(cps))
	}
	// Kept checkpoints are the newest, contiguous.
	for i := 1; i < len(cps); i++ {
		if cps[i].ID != cps[i-1].ID+2 {
			t.Fatalf("kept ids not contiguous at %d → %d", cps[i-1].ID, cps[i].ID)
		}
	}
	checkOnlyNewerData(t, s, "c", "j")
}

func TestReadersNotBlockedByRetention(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, Retention{})
	fill(t, s, "c", "j", 0, 2000, 1_000_000, 1000, 4, 16)
	oldest := model.Key{Cluster: "c", JobID: "j", ID: 0}
	s.SetRetention(Retention{MaxCheckpointsPerJob: 100})

	// Inside the first retention transaction, before it commits, reads must
	// complete: they see the snapshot before the delete.
	var chunks atomic.Int64
	s.hookInPruneTx = func() {
		if chunks.Add(1) != 1 {
			return
		}
		rctx, cancel := context.WithTimeout(ctx, 30*time.Second) // a blocked read fails here instead of hanging
		defer cancel()
		cps, err := s.Checkpoints(rctx, Query{Cluster: "c", JobID: "j"})
		if err != nil || len(cps) != 2000 {
			t.Errorf("read during prune: %d checkpoints, %v; want all 2000", len(cps), err)
		}
		c, err := s.Checkpoint(rctx, oldest)
		if err != nil || len(c.Tasks) != 4 || len(c.Tasks[0].Subtasks) != 16 {
			t.Errorf("detail read during prune: %v", err)
		}
		if _, err := s.Stats(rctx); err != nil {
			t.Errorf("stats during prune: %v", err)
		}
		if _, err := s.Jobs(rctx, ""); err != nil {
			t.Errorf("jobs during prune: %v", err)
		}
	}

	// Meanwhile another reader keeps scanning.
	done := make(chan struct{})
	var reads atomic.Int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-done:
				return
			default:
			}
			if _, err := s.Checkpoints(ctx, Query{Cluster: "c", JobID: "j", FromMs: 1_000_000}); err != nil {
				t.Errorf("concurrent read: %v", err)
				return
			}
			reads.Add(1)
		}
	}()
	res, err := s.ApplyRetention(ctx)
	close(done)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if res.Checkpoints != 1900 {
		t.Errorf("pruned %d checkpoints, want 1900", res.Checkpoints)
	}
	if n := chunks.Load(); n < 3 {
		t.Errorf("retention ran in %d transaction(s); want small chunks", n)
	}
	if _, err := s.Checkpoint(ctx, oldest); err == nil {
		t.Error("oldest checkpoint still there after retention")
	}
}

func TestStartRetentionRunsInBackground(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, t.TempDir()+"/bg.db", Retention{MaxCheckpointsPerJob: 10})
	if err != nil {
		t.Fatal(err)
	}
	fill(t, s, "c", "j", 0, 50, 1_000_000, 1000, 1, 2)
	s.StartRetention(ctx, 5*time.Millisecond)
	deadline := time.Now().Add(20 * time.Second)
	for {
		st, err := s.Stats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if st.Checkpoints == 10 && st.LastPruneMs != 0 {
			if st.LastPruneError != "" {
				t.Errorf("background retention error: %s", st.LastPruneError)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("background retention did not run: %+v", st)
		}
		time.Sleep(10 * time.Millisecond)
	}
	// Close stops the loop; it must not race with the closing database.
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(s.Path()); err != nil {
		t.Fatal(err)
	}
}

func TestDefaultRetentionMatchesDocs(t *testing.T) {
	// docs/retention.md promises these numbers.
	want := Retention{MaxCheckpointsPerJob: 5000, MaxAge: 30 * 24 * time.Hour, MaxBytes: 512 << 20}
	if got := DefaultRetention(); got != want {
		t.Errorf("DefaultRetention() = %+v, want %+v", got, want)
	}
}

// The first pass waits (10 s, or the interval if shorter): at start the app's
// first reads come first, and a command that sets new limits at once is not
// preceded by a pass under the old ones.
func TestStartRetentionWaitsBeforeTheFirstPass(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, t.TempDir()+"/wait.db", Retention{MaxCheckpointsPerJob: 10})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	fill(t, s, "c", "j", 0, 50, 1_000_000, 1000, 1, 1)
	s.StartRetention(ctx, time.Hour)
	time.Sleep(300 * time.Millisecond)
	st, err := s.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Checkpoints != 50 || st.LastPruneMs != 0 {
		t.Errorf("300 ms after start: %d checkpoints, last prune at %d; want 50 and no pass yet", st.Checkpoints, st.LastPruneMs)
	}
}
