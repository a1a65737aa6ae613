package store

import (
	"context"
	"database/sql"
	"math"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/model/modeltest"
	"checkpoint-explorer/testenv/fuzzenv"
)

func randomSubtasks(r *rand.Rand, n int) []model.SubtaskStats {
	subs := make([]model.SubtaskStats, n)
	idx := r.IntN(3)
	for i := range subs {
		s := model.SubtaskStats{Index: idx, Status: model.SubtaskCompleted,
			AckMs: 1_700_000_000_000 + r.Int64N(100_000), EndToEndMs: r.Int64N(1 << 40), StartDelayMs: r.Int64N(100) - 50,
			AlignmentMs: r.Int64N(1 << 20), SyncMs: r.Int64N(1000), AsyncMs: r.Int64N(1 << 33),
			StateSize: r.Int64N(math.MaxInt64), CheckpointedSize: r.Int64N(1 << 50), ProcessedData: -r.Int64N(1 << 10),
			PersistedData: math.MinInt64 + r.Int64N(10), Unaligned: r.IntN(2) == 0, Aborted: r.IntN(3) == 0}
		switch r.IntN(4) {
		case 0:
			s = model.SubtaskStats{Index: idx, Status: model.SubtaskPendingOrFailed}
		case 1:
			s.Status = "some-future-status"
		}
		subs[i] = s
		idx += 1 + r.IntN(3)
	}
	return subs
}

// Packed subtask stats read back exactly, whatever the values (negative
// from clock skew, the extremes of int64, unknown statuses, flags).
func TestPackedSubtasksRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{0, 1, 2, 64, 500} {
		want := randomSubtasks(r, n)
		b := encodeSubtasks(nil, want)
		got, err := decodeSubtasks(nil, b, n)
		if err != nil {
			t.Fatalf("%d subtasks: %v", n, err)
		}
		if n == 0 {
			got = []model.SubtaskStats{}
			want = []model.SubtaskStats{}
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%d subtasks: round trip differs\n got %+v\nwant %+v", n, got, want)
		}
	}
	// A realistic vertex packs small: 64 completed subtasks in well under 64 rows' worth.
	c := modeltest.Checkpoint("c", "j", 7, 1_700_000_000_000, 1, 64)
	if b := encodeSubtasks(nil, c.Tasks[0].Subtasks); len(b) > 64*40 {
		t.Errorf("64 subtasks pack into %d bytes", len(b))
	}
}

// A damaged pack is an error naming what is wrong, never a panic or a
// silently different list.
func TestPackedSubtasksRefuseCorruption(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	good := encodeSubtasks(nil, randomSubtasks(r, 8))
	for name, tc := range map[string]struct {
		b    []byte
		want int
		says string
	}{
		"empty":          {nil, 8, "empty"},
		"newer version":  {append([]byte{9}, good[1:]...), 8, "unknown version 9"},
		"count mismatch": {good, 7, "the row says 7"},
		"truncated":      {good[:len(good)-3], 8, "corrupt"},
		"trailing bytes": {append(append([]byte{}, good...), 1, 2), 8, "left over"},
		"huge count":     {[]byte{1, 0xff, 0xff, 0xff, 0xff, 0x0f}, 1<<32 - 1, "holds"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := decodeSubtasks(nil, tc.b, tc.want)
			if err == nil || !strings.Contains(err.Error(), tc.says) {
				t.Errorf("err = %v, want one saying %q", err, tc.says)
			}
		})
	}
}

func FuzzDecodeSubtasks(f *testing.F) {
	r := rand.New(rand.NewPCG(9, 10))
	for _, n := range []int{0, 1, 5} {
		f.Add(encodeSubtasks(nil, randomSubtasks(r, n)), n)
	}
	f.Fuzz(func(t *testing.T, b []byte, n int) {
		fuzzenv.Count()
		subs, err := decodeSubtasks(nil, b, n)
		if err == nil && len(subs) != n {
			t.Fatalf("decoded %d subtasks, the row says %d", len(subs), n)
		}
		if err == nil {
			again, err := decodeSubtasks(nil, encodeSubtasks(nil, subs), n)
			if err != nil || !reflect.DeepEqual(again, subs) {
				t.Fatalf("re-encoded subtasks do not read back: %v", err)
			}
		}
	})
}

// A cache written by the v1 schema (one row per subtask) opens with every
// subtask stat intact, packed, and the old table gone.
func TestMigrationPacksV1SubtaskRows(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "cache.db")
	oldDB, err := sql.Open("sqlite3", "file:"+path+"?_auto_vacuum=incremental&_journal_mode=WAL&_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	oldDB.SetMaxOpenConns(1)
	saved := migrations
	migrations = migrations[:1]
	err = migrate(ctx, oldDB, nil)
	migrations = saved
	if err != nil {
		t.Fatal(err)
	}
	cps := []model.Checkpoint{
		modeltest.Checkpoint("c", "j", 1, 1_700_000_000_000, 3, 5),
		modeltest.Checkpoint("c", "j", 2, 1_700_000_010_000, 2, 4),
		modeltest.Checkpoint("c", "j", 3, 1_700_000_020_000, 2, 3),
	}
	cps[1].Tasks[1].Subtasks = []model.SubtaskStats{} // an empty list, not an absent one
	cps[2].Tasks[0].Subtasks = nil                    // absent (trimmed)
	cps[2].Tasks[1].Subtasks[1] = model.SubtaskStats{Index: 1, Status: model.SubtaskPendingOrFailed}
	// What the v1 writer did: a checkpoint row, task rows, one row per subtask.
	tx, err := oldDB.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range cps {
		c := &cps[i]
		taskRows, subRows, mx := detailCounts(c)
		res, err := tx.Exec(sqlInsertCheckpointV1, c.Cluster, c.JobID, c.Pipeline, c.ID, string(c.Kind),
			string(c.Status), c.TriggerMs, c.LatestAckMs, c.CompletionMs, c.FailureMs, c.EndToEndMs,
			nullable(c.FinalizeMs), c.StateSize, c.CheckpointedSize, c.ProcessedData, c.PersistedData,
			nullable(c.StateBlobs), c.NumSubtasks, c.NumAcknowledged, c.FailureMessage, c.ExternalPath,
			1, taskRows, subRows, mx.get(0), mx.get(1), mx.get(2), mx.get(3), lossNone)
		if err != nil {
			t.Fatal(err)
		}
		pk, _ := res.LastInsertId()
		for ord, tk := range c.Tasks {
			rows := len(tk.Subtasks)
			if tk.Subtasks == nil {
				rows = -1
			}
			if _, err := tx.Exec(sqlInsertTask, pk, ord, tk.VertexID, tk.LatestAckMs, tk.EndToEndMs, tk.StateSize,
				tk.CheckpointedSize, tk.ProcessedData, tk.PersistedData, tk.NumSubtasks, tk.NumAcknowledged, rows); err != nil {
				t.Fatal(err)
			}
			for _, st := range tk.Subtasks {
				var flags int64
				if st.Unaligned {
					flags |= 1
				}
				if st.Aborted {
					flags |= 2
				}
				if _, err := tx.Exec(`INSERT INTO subtask_stats (ckpt, ord, idx, status, ack_ms, end_to_end_ms, start_delay_ms,
					alignment_ms, sync_ms, async_ms, state_size, checkpointed_size, processed_data, persisted_data, flags)
					VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, pk, ord, st.Index, st.Status, st.AckMs, st.EndToEndMs,
					st.StartDelayMs, st.AlignmentMs, st.SyncMs, st.AsyncMs, st.StateSize, st.CheckpointedSize,
					st.ProcessedData, st.PersistedData, flags); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := oldDB.Close(); err != nil {
		t.Fatal(err)
	}

	var events []MigrationEvent
	s, err := Open(ctx, path, Retention{}, OnMigration(func(e MigrationEvent) { events = append(events, e) }))
	if err != nil {
		t.Fatalf("open a v1 cache: %v", err)
	}
	defer s.Close()
	// Each step that rewrites every checkpoint is announced before it runs
	// and when it is done: the packing (2) and the job index (8).
	if len(events) != 4 || events[0].Version != 2 || events[0].Done || !events[1].Done || events[1].Took <= 0 ||
		events[2].Version != 8 || events[2].Done || !events[3].Done || events[3].Version != 8 {
		t.Errorf("migration events %+v, want steps 2 and 8 each announced then done", events)
	}
	for i := range cps {
		got, err := s.Checkpoint(ctx, cps[i].Key())
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, cps[i]) {
			t.Errorf("checkpoint %d after migration:\n got %+v\nwant %+v", cps[i].ID, got, cps[i])
		}
	}
	var tables int
	if err := s.r.QueryRow(`SELECT count(*) FROM sqlite_master WHERE name = 'subtask_stats'`).Scan(&tables); err != nil || tables != 0 {
		t.Errorf("the v1 subtask table is still there (%d, %v)", tables, err)
	}
	if v, err := schemaVersion(ctx, s.w); err != nil || v != migrations[len(migrations)-1].version {
		t.Errorf("schema version %d (%v), want %d", v, err, migrations[len(migrations)-1].version)
	}

	// A new cache and an up-to-date one open without any event.
	for _, p := range []string{filepath.Join(t.TempDir(), "new.db"), path} {
		events = nil
		if p == path {
			s.Close()
		}
		s2, err := Open(ctx, p, Retention{}, OnMigration(func(e MigrationEvent) { events = append(events, e) }))
		if err != nil {
			t.Fatal(err)
		}
		s2.Close()
		if len(events) != 0 {
			t.Errorf("opening %s told of migrations %+v", p, events)
		}
	}
}

// A pack damaged on disk fails the read of its checkpoint with an error
// naming it; the rest of the cache still reads.
func TestDamagedPackNamesItsCheckpoint(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, Retention{})
	fill(t, s, "c", "j", 0, 3, 1_000_000, 1000, 2, 4)
	if _, err := s.w.Exec(`UPDATE subtask_packs SET packed = x'0107' WHERE rowid = (SELECT min(rowid) FROM subtask_packs)`); err != nil {
		t.Fatal(err)
	}
	err := s.ScanCheckpoints(ctx, Query{Cluster: "c", JobID: "j"}, true, func(*model.Checkpoint) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "c/j/0/0") || !strings.Contains(err.Error(), "corrupt") {
		t.Errorf("scan of a damaged pack: %v", err)
	}
	n := 0
	if err := s.ScanCheckpoints(ctx, Query{Cluster: "c", JobID: "j"}, false, func(*model.Checkpoint) error { n++; return nil }); err != nil || n != 3 {
		t.Errorf("summaries: %d, %v", n, err)
	}
}

// BenchmarkDecodeSubtasks64 unpacks one realistic vertex of 64 subtasks.
func BenchmarkDecodeSubtasks64(b *testing.B) {
	c := modeltest.Checkpoint("c", "j", 7, 1_700_000_000_000, 1, 64)
	packed := encodeSubtasks(nil, c.Tasks[0].Subtasks)
	dst := make([]model.SubtaskStats, 0, 64)
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if dst, err = decodeSubtasks(dst[:0], packed, 64); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*64), "ns/subtask")
}

// sqlInsertCheckpointV1 is how the v1 schema's writer inserted a checkpoint.
const sqlInsertCheckpointV1 = `INSERT INTO checkpoints (
	cluster, job_id, pipeline, id, kind, status, trigger_ms, latest_ack_ms, completion_ms, failure_ms,
	end_to_end_ms, finalize_ms, state_size, checkpointed_size, processed_data, persisted_data, state_blobs,
	num_subtasks, num_acknowledged, failure_message, external_path, has_tasks, task_rows, subtask_rows,
	max_start_delay_ms, max_alignment_ms, max_sync_ms, max_async_ms, detail_trimmed)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
