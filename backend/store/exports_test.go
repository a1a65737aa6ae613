package store

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/model/modeltest"
)

// spoolIDs reads the next batch of sp and returns the checkpoints and their ids.
func spoolIDs(t *testing.T, sp *ExportSpool, limit int) ([]model.Checkpoint, []int64) {
	t.Helper()
	cps, err := sp.Next(context.Background(), limit)
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]int64, len(cps))
	for i := range cps {
		ids[i] = cps[i].ID
	}
	return cps, ids
}

func keysOf(cps []model.Checkpoint) []model.Key {
	keys := make([]model.Key, len(cps))
	for i := range cps {
		keys[i] = cps[i].Key()
	}
	return keys
}

func mustPut(t *testing.T, s *Store, cps ...model.Checkpoint) {
	t.Helper()
	if err := s.PutCheckpoints(context.Background(), cps); err != nil {
		t.Fatal(err)
	}
}

// The spool gives each final checkpoint whole, oldest first, once it is ready (its details came
// or will not), until it is marked exported; not a capture's; a second spool (a restarted
// process) resumes from the marks; counts say stored vs exported.
func TestExportSpoolGivesReadyCheckpointsUntilMarked(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, Retention{})
	for _, c := range []model.Cluster{{Name: "fl", Engine: model.EngineFlink, BaseURL: "http://f"},
		{Name: "st", Engine: model.EngineSeaTunnel, BaseURL: "http://s"},
		{Name: "cap", Engine: model.EngineFlink, BaseURL: "file:x", ReadOnly: true}} {
		if err := s.PutCluster(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	cp := func(cluster string, id int64) model.Checkpoint {
		return modeltest.Checkpoint(cluster, "j", id, 1_000_000+id*1000, 2, 3)
	}
	// Batches follow the order of writing; a batch is in trigger order.
	mustPut(t, s, cp("fl", 3), cp("fl", 1), cp("fl", 2), cp("cap", 1))
	running := cp("fl", 4)
	running.Status, running.Tasks = model.StatusInProgress, nil
	summary := cp("fl", 5) // final, details still due
	summary.Tasks = nil
	seaTunnel := cp("st", 1) // SeaTunnel has no per-subtask stats: ready as it is
	seaTunnel.Tasks = nil
	mustPut(t, s, running, summary, seaTunnel)

	sp := s.ExportSpool("jaeger")
	got, ids := spoolIDs(t, sp, 2)
	if !slices.Equal(ids, []int64{1, 3}) {
		t.Fatalf("first batch %v, want 1, 3", ids)
	}
	want, err := s.Checkpoint(ctx, model.Key{Cluster: "fl", JobID: "j", ID: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got[0], want) {
		t.Errorf("spool's checkpoint differs from the stored one:\n%+v\n%+v", got[0], want)
	}
	if _, again := spoolIDs(t, sp, 2); !slices.Equal(again, ids) {
		t.Errorf("unmarked batch came back as %v, want %v", again, ids)
	}
	if n, err := s.MarkExported(ctx, "jaeger", keysOf(got)); err != nil || n != 2 {
		t.Fatalf("mark: %d, %v", n, err)
	}
	if n, err := s.MarkExported(ctx, "jaeger", keysOf(got)); err != nil || n != 0 {
		t.Errorf("marking again: %d, %v; want 0 new", n, err)
	}
	rest, ids := spoolIDs(t, sp, 10)
	if !slices.Equal(ids, []int64{1, 2}) || rest[0].Cluster != "st" {
		t.Fatalf("second batch %v (%s first), want SeaTunnel's 1 then Flink's 2", ids, rest[0].Cluster)
	}
	if _, err := s.MarkExported(ctx, "jaeger", keysOf(rest)); err != nil {
		t.Fatal(err)
	}
	if _, ids := spoolIDs(t, sp, 10); len(ids) != 0 {
		t.Errorf("nothing ready, yet the spool gave %v", ids)
	}

	// The running one ends; the summary's details are marked missed: both become ready.
	done := cp("fl", 4)
	mustPut(t, s, done)
	if _, err := s.MarkDetailsMissed(ctx, "fl", "j", 0, 6); err != nil {
		t.Fatal(err)
	}
	if _, ids := spoolIDs(t, sp, 10); !slices.Equal(ids, []int64{4, 5}) {
		t.Errorf("after the ends: %v, want 4, 5", ids)
	}
	mustPut(t, s, cp("fl", 6))
	// A new spool (the collector restarted) gives what was not marked, nothing else.
	if _, ids := spoolIDs(t, s.ExportSpool("jaeger"), 10); !slices.Equal(ids, []int64{4, 5, 6}) {
		t.Errorf("a new spool gives %v, want 4, 5, 6", ids)
	}
	// Another target has everything still to send.
	if _, ids := spoolIDs(t, s.ExportSpool("otel"), 100); len(ids) != 7 {
		t.Errorf("a second target's spool gives %v, want the 7 final checkpoints of fl and st", ids)
	}

	jobs, total, err := s.ExportCounts(ctx, "jaeger", Query{})
	if err != nil {
		t.Fatal(err)
	}
	for _, sp := range []*ExportSpool{sp, s.ExportSpool("jaeger")} { // one that has looked at all, one that has not
		if n, err := sp.Pending(ctx); err != nil || n != total.Pending {
			t.Errorf("the spool counts %d pending (%v), the counts %d", n, err, total.Pending)
		}
	}
	wantJobs := []ExportCount{{Cluster: "fl", JobID: "j", Final: 6, Exported: 3, Pending: 3}, {Cluster: "st", JobID: "j", Final: 1, Exported: 1}}
	if !reflect.DeepEqual(jobs, wantJobs) || total != (ExportCount{Final: 7, Exported: 4, Pending: 3}) {
		t.Errorf("counts %+v total %+v, want %+v", jobs, total, wantJobs)
	}
	if one, _, err := s.ExportCounts(ctx, "jaeger", Query{Cluster: "st", JobID: "j"}); err != nil || len(one) != 1 || one[0] != wantJobs[1] {
		t.Errorf("one job's counts %+v, %v", one, err)
	}
}

// A checkpoint the target refused for good leaves its spool as one exported does, and is counted
// apart: not pending, not exported, not a drop when retention removes it; another target still
// has it to send.
func TestRefusedCheckpointsLeaveTheSpool(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, Retention{MaxCheckpointsPerJob: 3})
	fill(t, s, "c", "j", 0, 4, 1_000_000, 1000, 1, 2) // ids 0, 2, 4, 6
	sp := s.ExportSpool("t")
	got, _ := spoolIDs(t, sp, 10)
	if n, err := s.MarkRefused(ctx, "t", keysOf(got[:1])); err != nil || n != 1 {
		t.Fatalf("mark refused: %d, %v", n, err)
	}
	if n, err := s.MarkExported(ctx, "t", keysOf(got[:2])); err != nil || n != 1 {
		t.Fatalf("mark exported after the refusal: %d new, %v; want only 2's", n, err)
	}
	for _, c := range []struct {
		sp   *ExportSpool
		want []int64
	}{{sp, []int64{4, 6}}, {s.ExportSpool("t"), []int64{4, 6}}, {s.ExportSpool("other"), []int64{0, 2, 4, 6}}} {
		if _, ids := spoolIDs(t, c.sp, 10); !slices.Equal(ids, c.want) {
			t.Errorf("the spool of %s gives %v, want %v (to t: 0 refused, 2 sent)", c.sp.target, ids, c.want)
		}
	}
	want := ExportCount{Final: 4, Exported: 1, Refused: 1, Pending: 2}
	if _, total, err := s.ExportCounts(ctx, "t", Query{}); err != nil || total != want {
		t.Errorf("counts %+v (%v), want %+v", total, err, want)
	}
	if n, err := sp.Pending(ctx); err != nil || n != 2 {
		t.Errorf("the spool counts %d pending (%v), want 2", n, err)
	}
	var dropped []model.Key
	defer s.OnExportDrop("t", func(keys []model.Key) { dropped = append(dropped, keys...) })()
	if _, err := s.ApplyRetention(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Checkpoint(ctx, got[0].Key()); !errors.Is(err, ErrNotFound) || len(dropped) != 0 {
		t.Errorf("retention removing the refused checkpoint (%v) told it as a drop: %v", err, dropped)
	}
}

// A cache of schema 9 opens with its marks as they were, each an export; refusals can be marked
// after.
func TestMigrationKeepsExportMarks(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "cache.db")
	saved := migrations
	migrations = migrations[:9]
	old, err := Open(ctx, path, Retention{})
	migrations = saved
	if err != nil {
		t.Fatal(err)
	}
	fill(t, old, "c", "j", 0, 3, 1_000_000, 1000, 1, 2) // ids 0, 2, 4
	if _, err := old.w.ExecContext(ctx, `INSERT INTO exports (target, cluster, job_id, pipeline, checkpoint_id, exported_ms)
		VALUES ('t', 'c', 'j', 0, 0, 1), ('t', 'c', 'j', 0, 2, 1)`); err != nil {
		t.Fatal(err)
	}
	if err := old.Close(); err != nil {
		t.Fatal(err)
	}
	s, err := Open(ctx, path, Retention{})
	if err != nil {
		t.Fatalf("open a schema 9 cache: %v", err)
	}
	defer s.Close()
	if _, total, err := s.ExportCounts(ctx, "t", Query{}); err != nil || total != (ExportCount{Final: 3, Exported: 2, Pending: 1}) {
		t.Errorf("counts after the migration %+v (%v), want 2 of 3 exported", total, err)
	}
	if n, err := s.MarkRefused(ctx, "t", []model.Key{{Cluster: "c", JobID: "j", ID: 4}}); err != nil || n != 1 {
		t.Fatalf("mark refused: %d, %v", n, err)
	}
	if _, total, err := s.ExportCounts(ctx, "t", Query{}); err != nil || total != (ExportCount{Final: 3, Exported: 2, Refused: 1}) {
		t.Errorf("counts after a refusal %+v (%v), want 2 exported, 1 refused", total, err)
	}
}

// A batch holds whole checkpoints up to the subtask bound, at least one.
func TestExportSpoolBoundsABatchBySubtasks(t *testing.T) {
	s := openTest(t, Retention{})
	fill(t, s, "c", "wide", 0, 3, 1_000_000, 1000, 10, spoolMaxSubtasks/10)
	if _, ids := spoolIDs(t, s.ExportSpool("t"), 10); len(ids) != 1 {
		t.Errorf("batch of %d checkpoints of %d subtasks each, want 1", len(ids), spoolMaxSubtasks)
	}
}

// Deleting the newest rows (a cluster) lets SQLite reuse their rowids: the spool notices and
// finds the checkpoints written since, under reused rowids too.
func TestExportSpoolFindsCheckpointsUnderReusedRowids(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, Retention{})
	fill(t, s, "a", "j", 0, 3, 1_000_000, 1000, 1, 1)
	fill(t, s, "b", "j", 0, 3, 1_000_000, 1000, 1, 1)
	sp := s.ExportSpool("t")
	got, _ := spoolIDs(t, sp, 10)
	if len(got) != 6 {
		t.Fatalf("spool gave %d, want 6", len(got))
	}
	if _, err := s.MarkExported(ctx, "t", keysOf(got)); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteCluster(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	fill(t, s, "a", "j", 10, 2, 1_000_000, 1000, 1, 1)
	if _, ids := spoolIDs(t, sp, 10); !slices.Equal(ids, []int64{20, 22}) {
		t.Errorf("after the newest rows went and new ones came: %v, want 20, 22", ids)
	}
}

// Retention removing checkpoints not yet sent tells their keys (drops) to the target's watcher,
// not those sent, and takes the exports rows of what it removes along; so does a cluster's
// deletion, which is no drop.
func TestRetentionTellsUnsentCheckpointsItDrops(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, Retention{MaxCheckpointsPerJob: 4})
	fill(t, s, "c", "j", 0, 6, 1_000_000, 1000, 1, 2) // ids 0, 2, …, 10
	sent := []model.Key{{Cluster: "c", JobID: "j", ID: 0}, {Cluster: "c", JobID: "j", ID: 6}}
	if _, err := s.MarkExported(ctx, "t", sent); err != nil {
		t.Fatal(err)
	}
	if _, err := s.MarkExported(ctx, "other", sent[:1]); err != nil {
		t.Fatal(err)
	}
	var dropped []model.Key
	stop := s.OnExportDrop("t", func(keys []model.Key) { dropped = append(dropped, keys...) })
	defer stop()
	if _, err := s.ApplyRetention(ctx); err != nil {
		t.Fatal(err)
	}
	if want := []model.Key{{Cluster: "c", JobID: "j", ID: 2}}; !reflect.DeepEqual(dropped, want) {
		t.Errorf("drops %v, want %v (0 was sent, 4 and up are kept)", dropped, want)
	}
	exportRows := func() int {
		var n int
		if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM exports`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := exportRows(); n != 1 {
		t.Errorf("%d exports rows after retention, want 1 (6's to t; 0's went with it, to both targets)", n)
	}
	if err := s.DeleteCluster(ctx, "c"); err != nil {
		t.Fatal(err)
	}
	if n := exportRows(); n != 0 || len(dropped) != 1 {
		t.Errorf("after deleting the cluster: %d exports rows, drops %v", n, dropped)
	}
}

// The spool's queries and the counts go through indexes: none reads every checkpoint's row or
// every exports row.
func TestExportQueriesUseIndexes(t *testing.T) {
	s := openTest(t, Retention{})
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{spoolRowCols + `WHERE pk > ? ORDER BY pk LIMIT ?`, []any{"t", 0, 10}},
		{spoolRowCols + `WHERE pk IN (SELECT value FROM json_each(?)) ORDER BY pk`, []any{"t", "[1]"}},
		{`SELECT count(*) FROM checkpoints WHERE (pk IN (SELECT value FROM json_each(?)) OR pk > ?) AND ` + sqlExportable +
			` AND NOT ` + sqlExported, []any{"[1]", 5, "t"}},
		{sqlCountFinal + ` WHERE ` + sqlExportable + ` GROUP BY cluster, job_id`, nil},
		{sqlCountExports + ` WHERE target = ? GROUP BY cluster, job_id`, []any{"t"}},
		{`DELETE FROM exports WHERE (target, cluster, job_id, pipeline, checkpoint_id) IN
			(SELECT t.target, c.cluster, c.job_id, c.pipeline, c.id FROM (` + sqlExportTargets + `) t
			CROSS JOIN checkpoints c WHERE c.pk IN (SELECT value FROM json_each(?)))`, []any{"[1]"}},
	} {
		plan := queryPlan(t, s, q.sql, q.args...)
		for _, step := range plan {
			if step == "SCAN checkpoints" || step == "SCAN c" || strings.HasPrefix(step, "SCAN exports") || step == "SCAN e" {
				t.Errorf("%s\nreads a whole table: %q", q.sql, plan)
			}
		}
	}
}
