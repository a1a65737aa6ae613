package store

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/model/modeltest"
)

func openTest(t testing.TB, r Retention) *Store {
	t.Helper()
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "cache.db"), r)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	})
	return s
}

func i64(v int64) *int64 { return &v }
func intp(v int) *int    { return &v }

// contentDigest hashes every row of every table, so two digests are equal
// exactly when the stored content is.
func contentDigest(t testing.TB, s *Store) string {
	t.Helper()
	ctx := context.Background()
	rows, err := s.r.QueryContext(ctx, `SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`)
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		tables = append(tables, n)
	}
	rows.Close()
	h := sha256.New()
	for _, tbl := range tables {
		fmt.Fprintf(h, "table %s\n", tbl)
		rows, err := s.r.QueryContext(ctx, "SELECT * FROM "+tbl)
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		for rows.Next() {
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(h, "%#v\n", vals)
		}
		rows.Close()
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}

func TestOpenCreatesDirectoriesAndSchema(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "a", "b", "cache.db")
	s, err := Open(ctx, path, DefaultRetention())
	if err != nil {
		t.Fatal(err)
	}
	var autoVacuum int
	var journal string
	if err := s.r.QueryRow("PRAGMA auto_vacuum").Scan(&autoVacuum); err != nil {
		t.Fatal(err)
	}
	if err := s.r.QueryRow("PRAGMA journal_mode").Scan(&journal); err != nil {
		t.Fatal(err)
	}
	if autoVacuum != 2 || journal != "wal" {
		t.Errorf("auto_vacuum = %d, journal_mode = %q; want 2 (incremental), wal", autoVacuum, journal)
	}
	if s.Path() != path {
		t.Errorf("Path() = %q, want %q", s.Path(), path)
	}
	if got := s.Retention(); got != DefaultRetention() {
		t.Errorf("Retention() = %+v", got)
	}
	if err := s.PutCluster(ctx, model.Cluster{Name: "c", Engine: model.EngineFlink, BaseURL: "http://127.0.0.1:8081"}); err != nil {
		t.Fatal(err)
	}
	s.Close()

	// Reopening neither re-applies migrations nor loses data.
	s, err = Open(ctx, path, DefaultRetention())
	if err != nil {
		t.Fatal(err)
	}
	var versions, latest int
	if err := s.r.QueryRow("SELECT count(*), max(version) FROM schema_version").Scan(&versions, &latest); err != nil {
		t.Fatal(err)
	}
	if versions != len(migrations) || latest != migrations[len(migrations)-1].version {
		t.Errorf("schema_version has %d rows, max %d; want %d rows", versions, latest, len(migrations))
	}
	cs, err := s.Clusters(ctx)
	if err != nil || len(cs) != 1 {
		t.Fatalf("clusters after reopen = %v, %v", cs, err)
	}
	// A database from a newer build is refused, not damaged.
	if _, err := s.w.Exec("INSERT INTO schema_version (version, name, applied_ms) VALUES (999, 'future', 0)"); err != nil {
		t.Fatal(err)
	}
	s.Close()
	_, err = Open(ctx, path, DefaultRetention())
	if err == nil || !strings.Contains(err.Error(), "newer") {
		t.Fatalf("open of a newer schema: err = %v, want a 'newer' error", err)
	}
}

func TestOpenRejectsBadRetention(t *testing.T) {
	for _, r := range []Retention{{MaxCheckpointsPerJob: -1}, {MaxAge: -1}, {MaxBytes: -1}} {
		_, err := Open(context.Background(), filepath.Join(t.TempDir(), "x.db"), r)
		if err == nil || !strings.Contains(err.Error(), "negative") {
			t.Errorf("Open with %+v: err = %v, want a 'negative' error", r, err)
		}
	}
}

func fullCheckpoint() model.Checkpoint {
	return model.Checkpoint{
		Cluster: "prod", JobID: "j1", ID: 42, Pipeline: 2, Kind: model.KindUnaligned, Status: model.StatusFailed,
		TriggerMs: 1_700_000_000_000, LatestAckMs: 1_700_000_000_900, FailureMs: 1_700_000_001_000,
		EndToEndMs: 900, FinalizeMs: i64(0), StateSize: 1 << 40, CheckpointedSize: 12345, ProcessedData: 7,
		PersistedData: 8, StateBlobs: i64(3), NumSubtasks: 5, NumAcknowledged: 3,
		FailureMessage: "Checkpoint expired before completing.\nline two ✓", ExternalPath: "s3://b/chk-42",
		Tasks: []model.TaskStats{
			// Out of vertex-id order on purpose: the put order must survive.
			{VertexID: "zz", LatestAckMs: 1_700_000_000_900, EndToEndMs: 900, StateSize: 10, CheckpointedSize: 11,
				ProcessedData: 12, PersistedData: 13, NumSubtasks: 3, NumAcknowledged: 2,
				Subtasks: []model.SubtaskStats{
					{Index: 0, Status: model.SubtaskCompleted, AckMs: 1_700_000_000_500, EndToEndMs: 500,
						StartDelayMs: 100, AlignmentMs: 50, SyncMs: 5, AsyncMs: 345, StateSize: 1, CheckpointedSize: 2,
						ProcessedData: 3, PersistedData: 4, Unaligned: true},
					{Index: 1, Status: model.SubtaskPendingOrFailed, Aborted: true},
					{Index: 7, Status: model.SubtaskCompleted, AckMs: 1_700_000_000_900, EndToEndMs: 900,
						StartDelayMs: -1, AlignmentMs: 700, SyncMs: 1, AsyncMs: 2},
				}},
			{VertexID: "aa", NumSubtasks: 2, Subtasks: []model.SubtaskStats{}}, // known to have none
			{VertexID: "mm", NumSubtasks: 2},                                   // subtasks never fetched
		},
	}
}

func TestCheckpointRoundTripIsExact(t *testing.T) {
	summaryOnly := fullCheckpoint()
	summaryOnly.ID, summaryOnly.Tasks, summaryOnly.FinalizeMs, summaryOnly.StateBlobs = 43, nil, nil, nil
	emptyTasks := fullCheckpoint()
	emptyTasks.ID, emptyTasks.Tasks = 44, []model.TaskStats{}
	zeroes := model.Checkpoint{Cluster: "prod", JobID: "j1", ID: 0}

	tests := []struct {
		name string
		cp   model.Checkpoint
	}{
		{"full detail, odd vertex order, nil and empty subtasks", fullCheckpoint()},
		{"summary only, nil pointers", summaryOnly},
		{"empty but non-nil tasks", emptyTasks},
		{"all zero", zeroes},
	}
	ctx := context.Background()
	s := openTest(t, DefaultRetention())
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := s.PutCheckpoints(ctx, []model.Checkpoint{tt.cp}); err != nil {
				t.Fatal(err)
			}
			got, err := s.Checkpoint(ctx, tt.cp.Key())
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.cp) {
				t.Errorf("round trip differs:\n got %#v\nwant %#v", got, tt.cp)
			}
		})
	}
	// Summaries come without Tasks, but otherwise equal.
	list, err := s.Checkpoints(ctx, Query{Cluster: "prod", JobID: "j1", Pipeline: intp(2)})
	if err != nil {
		t.Fatal(err)
	}
	want := fullCheckpoint()
	want.Tasks = nil
	if len(list) != 3 || !reflect.DeepEqual(list[0], want) {
		t.Errorf("Checkpoints()[0] = %#v (of %d), want %#v", list[0], len(list), want)
	}
	if _, err := s.Checkpoint(ctx, model.Key{Cluster: "prod", JobID: "j1", ID: 999}); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing checkpoint: err = %v, want ErrNotFound", err)
	}
}

func TestCheckpointPhaseMaxima(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, DefaultRetention())
	cp := fullCheckpoint()
	noDetail := fullCheckpoint()
	noDetail.ID, noDetail.Tasks = 50, nil
	if err := s.PutCheckpoints(ctx, []model.Checkpoint{cp, noDetail}); err != nil {
		t.Fatal(err)
	}
	got, err := s.PhaseMaxima(ctx, Query{Cluster: "prod"})
	if err != nil {
		t.Fatal(err)
	}
	want := []PhaseMaxima{
		{Key: cp.Key(), TriggerMs: cp.TriggerMs, StartDelayMs: i64(100), AlignmentMs: i64(700), SyncMs: i64(5), AsyncMs: i64(345)},
		{Key: noDetail.Key(), TriggerMs: cp.TriggerMs},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("PhaseMaxima = %+v, want %+v", got, want)
	}
}

func TestCheckpointUpsert(t *testing.T) {
	base := func(status model.Status, e2e int64, withTasks bool) model.Checkpoint {
		c := modeltest.Checkpoint("c", "j", 7, 1000, 2, 3)
		c.Status, c.EndToEndMs = status, e2e
		if !withTasks {
			c.Tasks = nil
		}
		return c
	}
	missed := func(status model.Status) model.Checkpoint {
		c := base(status, 10, false)
		c.DetailLoss = model.DetailMissed
		return c
	}
	tests := []struct {
		name        string
		puts        []model.Checkpoint
		wantStatus  model.Status
		wantE2E     int64
		wantSubRows int
		wantLoss    model.DetailLoss
	}{
		{"same twice is stored once", []model.Checkpoint{base(model.StatusCompleted, 10, true), base(model.StatusCompleted, 10, true)},
			model.StatusCompleted, 10, 6, ""},
		{"in progress then completed: completed wins", []model.Checkpoint{base(model.StatusInProgress, 5, false), base(model.StatusCompleted, 10, true)},
			model.StatusCompleted, 10, 6, ""},
		{"completed then in progress: stays completed", []model.Checkpoint{base(model.StatusCompleted, 10, true), base(model.StatusInProgress, 99, false)},
			model.StatusCompleted, 10, 6, ""},
		{"failed then in progress with tasks: stays failed", []model.Checkpoint{base(model.StatusFailed, 10, false), base(model.StatusInProgress, 99, true)},
			model.StatusFailed, 10, 0, ""},
		{"summary-only update keeps subtasks", []model.Checkpoint{base(model.StatusCompleted, 10, true), base(model.StatusFailed, 20, false)},
			model.StatusFailed, 20, 6, ""},
		{"newer detail replaces older detail", []model.Checkpoint{base(model.StatusInProgress, 5, true), func() model.Checkpoint {
			c := base(model.StatusCompleted, 10, true)
			c.Tasks = c.Tasks[:1]
			return c
		}()}, model.StatusCompleted, 10, 3, ""},
		{"summary, then its details missed", []model.Checkpoint{base(model.StatusCompleted, 10, false), missed(model.StatusCompleted)},
			model.StatusCompleted, 10, 0, model.DetailMissed},
		{"missed inserted as such", []model.Checkpoint{missed(model.StatusFailed)}, model.StatusFailed, 10, 0, model.DetailMissed},
		{"details after all clear the mark", []model.Checkpoint{missed(model.StatusCompleted), base(model.StatusCompleted, 10, true)},
			model.StatusCompleted, 10, 6, ""},
		{"a plain summary keeps the mark", []model.Checkpoint{missed(model.StatusCompleted), base(model.StatusCompleted, 10, false)},
			model.StatusCompleted, 10, 0, model.DetailMissed},
		{"a mark on a checkpoint with details is ignored", []model.Checkpoint{func() model.Checkpoint {
			c := base(model.StatusCompleted, 10, true)
			c.DetailLoss = model.DetailMissed
			return c
		}()}, model.StatusCompleted, 10, 6, ""},
	}
	ctx := context.Background()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := openTest(t, DefaultRetention())
			for _, c := range tt.puts {
				if err := s.PutCheckpoints(ctx, []model.Checkpoint{c}); err != nil {
					t.Fatal(err)
				}
			}
			st, err := s.Stats(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if st.Checkpoints != 1 {
				t.Fatalf("%d checkpoint rows, want 1", st.Checkpoints)
			}
			got, err := s.Checkpoint(ctx, model.Key{Cluster: "c", JobID: "j", ID: 7})
			if err != nil {
				t.Fatal(err)
			}
			subs := 0
			for _, tk := range got.Tasks {
				subs += len(tk.Subtasks)
			}
			if got.Status != tt.wantStatus || got.EndToEndMs != tt.wantE2E || subs != tt.wantSubRows || got.DetailLoss != tt.wantLoss {
				t.Errorf("got status %s e2e %d subtasks %d detail loss %q; want %s %d %d %q", got.Status, got.EndToEndMs, subs,
					got.DetailLoss, tt.wantStatus, tt.wantE2E, tt.wantSubRows, tt.wantLoss)
			}
			var raw int
			if err := s.r.QueryRow("SELECT coalesce(sum(max(subtask_rows, 0)), 0) FROM task_stats").Scan(&raw); err != nil {
				t.Fatal(err)
			}
			if raw != tt.wantSubRows || st.SubtaskRows != int64(raw) {
				t.Errorf("task_stats hold %d packed subtasks, stats say %d; want %d", raw, st.SubtaskRows, tt.wantSubRows)
			}
		})
	}
}

func TestPutCheckpointsRejectsBadInputAndKeepsStore(t *testing.T) {
	ctx := context.Background()
	good := modeltest.Checkpoint("c", "j", 1, 1000, 1, 2)
	dupVertex := modeltest.Checkpoint("c", "j", 2, 2000, 2, 2)
	dupVertex.Tasks[1].VertexID = dupVertex.Tasks[0].VertexID
	dupSub := modeltest.Checkpoint("c", "j", 3, 3000, 1, 3)
	dupSub.Tasks[0].Subtasks[2].Index = 0
	tests := []struct {
		name string
		bad  model.Checkpoint
		want string
	}{
		{"no cluster", model.Checkpoint{JobID: "j", ID: 1}, "empty cluster"},
		{"no job", model.Checkpoint{Cluster: "c", ID: 1}, "empty job id"},
		{"negative id", model.Checkpoint{Cluster: "c", JobID: "j", ID: -4}, "negative id"},
		{"duplicate vertex", dupVertex, "listed twice"},
		{"duplicate subtask", dupSub, "subtask 0 listed twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := openTest(t, DefaultRetention())
			if err := s.PutCheckpoints(ctx, []model.Checkpoint{good}); err != nil {
				t.Fatal(err)
			}
			before := contentDigest(t, s)
			next := good
			next.ID = 10
			err := s.PutCheckpoints(ctx, []model.Checkpoint{next, tt.bad})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to mention %q", err, tt.want)
			}
			if after := contentDigest(t, s); after != before {
				t.Error("a rejected batch changed the store")
			}
		})
	}
}

func TestUnsortedSubtasksAreStoredByIndex(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, DefaultRetention())
	c := modeltest.Checkpoint("c", "j", 1, 1000, 1, 4)
	want := c
	want.Tasks = []model.TaskStats{c.Tasks[0]}
	want.Tasks[0].Subtasks = append([]model.SubtaskStats(nil), c.Tasks[0].Subtasks...)
	subs := c.Tasks[0].Subtasks
	subs[0], subs[3] = subs[3], subs[0]
	shuffled := append([]model.SubtaskStats(nil), subs...)
	if err := s.PutCheckpoints(ctx, []model.Checkpoint{c}); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(c.Tasks[0].Subtasks, shuffled) {
		t.Error("PutCheckpoints reordered the caller's slice")
	}
	got, err := s.Checkpoint(ctx, c.Key())
	if err != nil {
		t.Fatal(err)
	}
	for i, st := range got.Tasks[0].Subtasks {
		if st.Index != i {
			t.Fatalf("subtask %d has index %d: not ordered by index", i, st.Index)
		}
	}
}

func TestClustersStoreNoSecrets(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, DefaultRetention())
	c := model.Cluster{Name: "prod", Engine: model.EngineSeaTunnel, BaseURL: "http://127.0.0.1:5801",
		PrometheusURL: "http://127.0.0.1:9090", CAFile: "/etc/ca.pem", InsecureSkipVerify: true,
		Auth: model.Auth{Kind: model.AuthBasic, Username: "admin", Password: "hunter2-secret"}}
	if err := s.PutCluster(ctx, c); err != nil {
		t.Fatal(err)
	}
	if err := s.PutCluster(ctx, model.Cluster{Name: "cap", Engine: model.EngineFlink, ReadOnly: true}); err != nil {
		t.Fatal(err)
	}
	if err := s.PutCluster(ctx, model.Cluster{Name: "bad", Engine: "kafka"}); err == nil || !strings.Contains(err.Error(), "unknown engine") {
		t.Errorf("bad engine: err = %v", err)
	}
	got, err := s.Clusters(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []model.Cluster{model.Cluster{Name: "cap", Engine: model.EngineFlink, ReadOnly: true}.Public(), c.Public()}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Clusters() = %+v, want %+v", got, want)
	}
	if _, err := s.w.Exec("PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{s.Path(), s.Path() + "-wal"} {
		b, err := os.ReadFile(p)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte("hunter2-secret")) || bytes.Contains(b, []byte("admin")) {
			t.Errorf("%s contains a credential", p)
		}
	}
}

func TestJobsAndSummaries(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, DefaultRetention())
	job := model.Job{Cluster: "c", ID: "j1", Name: "orders", Engine: model.EngineFlink, State: "RUNNING", StartMs: 5,
		Vertices: []model.Vertex{{ID: "v1", Name: "Source", Parallelism: 4}, {ID: "v2", Name: "Sink", Parallelism: 2, Pipeline: 1}},
		Edges:    []model.Edge{{Source: "v1", Target: "v2", ShipStrategy: "HASH"}}, UpdatedMs: 9}
	if err := s.PutJob(ctx, job); err != nil {
		t.Fatal(err)
	}
	got, err := s.Job(ctx, "c", "j1")
	if err != nil || !reflect.DeepEqual(got, job) {
		t.Fatalf("Job() = %+v, %v; want %+v", got, err, job)
	}
	// A state-only update keeps the graph.
	update := model.Job{Cluster: "c", ID: "j1", Name: "orders", Engine: model.EngineFlink, State: "FINISHED", StartMs: 5, EndMs: 50, UpdatedMs: 60}
	if err := s.PutJob(ctx, update); err != nil {
		t.Fatal(err)
	}
	want := update
	want.Vertices, want.Edges = job.Vertices, job.Edges
	if got, _ := s.Job(ctx, "c", "j1"); !reflect.DeepEqual(got, want) {
		t.Errorf("after state update Job() = %+v, want %+v", got, want)
	}
	if _, err := s.Job(ctx, "c", "nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing job: err = %v, want ErrNotFound", err)
	}
	if err := s.PutJob(ctx, model.Job{Cluster: "c"}); err == nil {
		t.Error("job without id accepted")
	}

	var cps []model.Checkpoint
	// 2 is in progress with a completed one (3) after it in its pipeline; 5 is the newest; pipeline
	// 1's has none after it.
	for i, st := range []model.Status{model.StatusCompleted, model.StatusInProgress, model.StatusCompleted, model.StatusFailed, model.StatusInProgress} {
		cps = append(cps, model.Checkpoint{Cluster: "c", JobID: "j1", ID: int64(i + 1), Status: st, TriggerMs: int64(100 * (i + 1))})
	}
	cps = append(cps, model.Checkpoint{Cluster: "c", JobID: "j1", Pipeline: 1, ID: 1, Status: model.StatusInProgress, TriggerMs: 150})
	cps = append(cps, model.Checkpoint{Cluster: "c", JobID: "orphan", ID: 1, Status: model.StatusCompleted, TriggerMs: 7},
		model.Checkpoint{Cluster: "d", JobID: "other", ID: 1, Status: model.StatusCompleted, TriggerMs: 7})
	if err := s.PutCheckpoints(ctx, cps); err != nil {
		t.Fatal(err)
	}
	if err := s.PutGaps(ctx, []model.Gap{{Cluster: "c", JobID: "j1", FromID: 6, ToID: 10, DetectedMs: 1}}); err != nil {
		t.Fatal(err)
	}
	jobs, err := s.Jobs(ctx, "c")
	if err != nil {
		t.Fatal(err)
	}
	wantJobs := []JobSummary{
		{Job: want, Total: 6, Completed: 2, Failed: 1, InProgress: 3, InProgressBeforeCompleted: 1, Gaps: 5, FirstTriggerMs: 100, LastTriggerMs: 500},
		{Job: model.Job{Cluster: "c", ID: "orphan"}, Total: 1, Completed: 1, FirstTriggerMs: 7, LastTriggerMs: 7},
	}
	if !reflect.DeepEqual(jobs, wantJobs) {
		t.Errorf("Jobs(c) = %+v\nwant %+v", jobs, wantJobs)
	}
	all, err := s.Jobs(ctx, "")
	if err != nil || len(all) != 3 {
		t.Errorf("Jobs(\"\") = %d jobs, %v; want 3", len(all), err)
	}
}

func TestQueryFilters(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, DefaultRetention())
	var cps []model.Checkpoint
	for p := range 2 {
		for i := 1; i <= 5; i++ {
			cps = append(cps, model.Checkpoint{Cluster: "c", JobID: "j", Pipeline: p, ID: int64(i), TriggerMs: int64(i * 1000),
				Status: model.StatusCompleted})
		}
	}
	cps = append(cps, model.Checkpoint{Cluster: "c", JobID: "k", ID: 1, TriggerMs: 2500})
	if err := s.PutCheckpoints(ctx, cps); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		q    Query
		want []string // pipeline/id
	}{
		{"range inclusive, ordered by trigger then id", Query{Cluster: "c", JobID: "j", FromMs: 2000, ToMs: 3000},
			[]string{"j/0/2", "j/1/2", "j/0/3", "j/1/3"}},
		{"pipeline", Query{Cluster: "c", JobID: "j", Pipeline: intp(1), ToMs: 2000}, []string{"j/1/1", "j/1/2"}},
		{"open end", Query{Cluster: "c", JobID: "j", FromMs: 5000}, []string{"j/0/5", "j/1/5"}},
		{"all jobs", Query{Cluster: "c", FromMs: 2500, ToMs: 2500}, []string{"k/0/1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.Checkpoints(ctx, tt.q)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, c := range got {
				ids = append(ids, fmt.Sprintf("%s/%d/%d", c.JobID, c.Pipeline, c.ID))
			}
			if !reflect.DeepEqual(ids, tt.want) {
				t.Errorf("got %v, want %v", ids, tt.want)
			}
		})
	}
	id, ok, err := s.LatestCheckpointID(ctx, "c", "j", 1)
	if err != nil || !ok || id != 5 {
		t.Errorf("LatestCheckpointID = %d, %v, %v; want 5, true", id, ok, err)
	}
	if _, ok, err := s.LatestCheckpointID(ctx, "c", "j", 7); err != nil || ok {
		t.Errorf("LatestCheckpointID of an empty pipeline: ok = %v, err = %v", ok, err)
	}
}

func TestSamplesAreIdempotent(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, DefaultRetention())
	acks := []model.AckSample{
		{Cluster: "c", JobID: "j", CheckpointID: 2, TimeMs: 200, Acknowledged: 1, Total: 4},
		{Cluster: "c", JobID: "j", CheckpointID: 1, TimeMs: 150, Acknowledged: 4, Total: 4},
		{Cluster: "c", JobID: "j", CheckpointID: 2, TimeMs: 300, Acknowledged: 3, Total: 4},
	}
	if err := s.PutAckSamples(ctx, acks); err != nil {
		t.Fatal(err)
	}
	again := acks[2]
	again.Acknowledged = 4
	if err := s.PutAckSamples(ctx, []model.AckSample{again, acks[0]}); err != nil {
		t.Fatal(err)
	}
	got, err := s.AckSamples(ctx, Query{Cluster: "c", JobID: "j", FromMs: 160})
	if err != nil {
		t.Fatal(err)
	}
	if want := []model.AckSample{acks[0], again}; !reflect.DeepEqual(got, want) {
		t.Errorf("AckSamples = %+v, want %+v", got, want)
	}

	ms := []model.MetricSample{
		{Cluster: "c", JobID: "j", VertexID: "v", Subtask: -1, Metric: model.MetricBackPressuredMsPerSec, Agg: model.AggMax, TimeMs: 100, Value: 250, Source: "rest"},
		{Cluster: "c", JobID: "j", VertexID: "v", Subtask: -1, Metric: model.MetricBackPressuredMsPerSec, Agg: model.AggMax, TimeMs: 200, Value: math.NaN(), Source: "rest"},
		{Cluster: "c", JobID: "j", VertexID: "v", Target: "w", Subtask: 3, Metric: model.MetricBPRatio, TimeMs: 100, Value: math.Inf(1), Source: "prometheus"},
	}
	if err := s.PutMetricSamples(ctx, ms); err != nil {
		t.Fatal(err)
	}
	replaced := ms[0]
	replaced.Value, replaced.Source = 300, "prometheus"
	if err := s.PutMetricSamples(ctx, []model.MetricSample{replaced}); err != nil {
		t.Fatal(err)
	}
	gotM, err := s.MetricSamples(ctx, Query{Cluster: "c", JobID: "j"})
	if err != nil {
		t.Fatal(err)
	}
	if len(gotM) != 3 {
		t.Fatalf("got %d metric samples, want 3: %+v", len(gotM), gotM)
	}
	// Ordered by series then time: the edge series ("v"→"w") sorts after "v"→"".
	if !reflect.DeepEqual(gotM[0], replaced) || !math.IsNaN(gotM[1].Value) || gotM[1].TimeMs != 200 || !reflect.DeepEqual(gotM[2], ms[2]) {
		t.Errorf("MetricSamples = %+v", gotM)
	}
	inRange, err := s.MetricSamples(ctx, Query{Cluster: "c", JobID: "j", FromMs: 150, ToMs: 250})
	if err != nil || len(inRange) != 1 || inRange[0].TimeMs != 200 {
		t.Errorf("ranged MetricSamples = %+v, %v", inRange, err)
	}
	if err := s.PutMetricSamples(ctx, []model.MetricSample{{Cluster: "c", JobID: "j", VertexID: "v", Metric: "m", Subtask: -2}}); err == nil {
		t.Error("subtask -2 accepted")
	}
}

func TestGapsNeverHideStoredCheckpoints(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, DefaultRetention())
	gaps := []model.Gap{
		{Cluster: "c", JobID: "j", FromID: 10, ToID: 20, DetectedMs: 500, Reason: "evicted"},
		{Cluster: "c", JobID: "j", FromID: 15, ToID: 25, DetectedMs: 400, Reason: "evicted"}, // overlaps
		{Cluster: "c", JobID: "j", Pipeline: 1, FromID: 3, ToID: 3, DetectedMs: 600},
	}
	if err := s.PutGaps(ctx, append(gaps, gaps[0])); err != nil {
		t.Fatal(err)
	}
	if err := s.PutGaps(ctx, []model.Gap{{Cluster: "c", JobID: "j", FromID: 5, ToID: 4}}); err == nil {
		t.Error("inverted gap accepted")
	}
	// Checkpoints 12 and 25 turn up later (e.g. from a capture).
	if err := s.PutCheckpoints(ctx, []model.Checkpoint{{Cluster: "c", JobID: "j", ID: 12}, {Cluster: "c", JobID: "j", ID: 25}}); err != nil {
		t.Fatal(err)
	}
	got, err := s.Gaps(ctx, Query{Cluster: "c", JobID: "j"})
	if err != nil {
		t.Fatal(err)
	}
	want := []model.Gap{
		{Cluster: "c", JobID: "j", FromID: 10, ToID: 11, DetectedMs: 400, Reason: "evicted"},
		{Cluster: "c", JobID: "j", FromID: 13, ToID: 24, DetectedMs: 400, Reason: "evicted"},
		{Cluster: "c", JobID: "j", Pipeline: 1, FromID: 3, ToID: 3, DetectedMs: 600},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Gaps = %+v\nwant %+v", got, want)
	}
	// Stored checkpoints are all still listed.
	cps, err := s.Checkpoints(ctx, Query{Cluster: "c", JobID: "j"})
	if err != nil || len(cps) != 2 {
		t.Errorf("Checkpoints = %d, %v; want 2", len(cps), err)
	}
}

func TestScanCheckpointsStreamsWithDetail(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, DefaultRetention())
	var cps []model.Checkpoint
	for i := 1; i <= 60; i++ {
		c := modeltest.Checkpoint("c", "j", int64(i), int64(1000*i), 1+i%3, 1+i%5)
		if i%4 == 0 {
			c.Tasks = nil
		}
		cps = append(cps, c)
	}
	if err := s.PutCheckpoints(ctx, cps); err != nil {
		t.Fatal(err)
	}
	n := 0
	err := s.ScanCheckpoints(ctx, Query{Cluster: "c", JobID: "j"}, true, func(c *model.Checkpoint) error {
		if !reflect.DeepEqual(*c, cps[n]) {
			t.Errorf("checkpoint %d differs from what was put", c.ID)
		}
		n++
		return nil
	})
	if err != nil || n != len(cps) {
		t.Fatalf("scanned %d of %d, err %v", n, len(cps), err)
	}
	stop := errors.New("enough")
	n = 0
	err = s.ScanCheckpoints(ctx, Query{}, false, func(c *model.Checkpoint) error {
		n++
		if c.Tasks != nil {
			t.Error("withTasks=false returned tasks")
		}
		if n == 5 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || n != 5 {
		t.Errorf("callback error: n = %d, err = %v", n, err)
	}
}

func TestDeleteClusterRemovesEverythingOfIt(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, DefaultRetention())
	fill := func(cluster string) {
		if err := s.PutCluster(ctx, model.Cluster{Name: cluster, Engine: model.EngineFlink}); err != nil {
			t.Fatal(err)
		}
		if err := s.PutJob(ctx, model.Job{Cluster: cluster, ID: "j"}); err != nil {
			t.Fatal(err)
		}
		var cps []model.Checkpoint
		for i := 1; i <= 700; i++ { // more than one chunk
			cps = append(cps, modeltest.Checkpoint(cluster, "j", int64(i), int64(i), 1, 2))
		}
		if err := s.PutCheckpoints(ctx, cps); err != nil {
			t.Fatal(err)
		}
		if err := s.PutAckSamples(ctx, []model.AckSample{{Cluster: cluster, JobID: "j", CheckpointID: 1, TimeMs: 1}}); err != nil {
			t.Fatal(err)
		}
		if err := s.PutMetricSamples(ctx, []model.MetricSample{{Cluster: cluster, JobID: "j", VertexID: "v", Metric: "m", TimeMs: 1}}); err != nil {
			t.Fatal(err)
		}
		if err := s.PutGaps(ctx, []model.Gap{{Cluster: cluster, JobID: "j", FromID: 800, ToID: 900}}); err != nil {
			t.Fatal(err)
		}
	}
	fill("keep")
	fill("drop")
	if err := s.DeleteCluster(ctx, "drop"); err != nil {
		t.Fatal(err)
	}
	var series int
	if err := s.r.QueryRow("SELECT count(*) FROM metric_series WHERE cluster = 'drop'").Scan(&series); err != nil {
		t.Fatal(err)
	}
	if series != 0 {
		t.Errorf("%d series of the deleted cluster remain", series)
	}
	// Only the other cluster remains; the pk sequence may differ, so compare through the API.
	st, err := s.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Checkpoints != 700 || st.SubtaskRows != 1400 || st.AckSamples != 1 || st.MetricSamples != 1 || st.Gaps != 1 || st.Jobs != 1 {
		t.Errorf("after delete: %+v", st)
	}
	if cs, _ := s.Clusters(ctx); len(cs) != 1 || cs[0].Name != "keep" {
		t.Errorf("clusters after delete: %+v", cs)
	}
	if st.PrunedTotal != (PruneResult{}) {
		t.Errorf("deleting a cluster counted as retention: %+v", st.PrunedTotal)
	}
}

func TestBulkRollbackLeavesStoreIdentical(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, DefaultRetention())
	if err := s.Bulk(ctx, func(w Writer) error {
		if err := w.PutCluster(model.Cluster{Name: "c", Engine: model.EngineFlink}); err != nil {
			return err
		}
		for i := 1; i <= 50; i++ {
			c := modeltest.Checkpoint("c", "j", int64(i), int64(i*1000), 2, 4)
			if err := w.PutCheckpoint(&c); err != nil {
				return err
			}
		}
		return w.PutGap(model.Gap{Cluster: "c", JobID: "j", FromID: 60, ToID: 70})
	}); err != nil {
		t.Fatal(err)
	}
	before := contentDigest(t, s)
	statsBefore, err := s.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}

	boom := errors.New("capture truncated")
	err = s.Bulk(ctx, func(w Writer) error {
		if err := w.PutCluster(model.Cluster{Name: "c", Engine: model.EngineSeaTunnel, BaseURL: "changed"}); err != nil {
			return err
		}
		if err := w.PutJob(model.Job{Cluster: "c", ID: "j", Name: "new"}); err != nil {
			return err
		}
		for i := 1; i <= 2000; i++ { // overwrite existing ones and add many more
			c := modeltest.Checkpoint("c", "j", int64(i), int64(i*1000), 3, 8)
			c.Status = model.StatusFailed
			if err := w.PutCheckpoint(&c); err != nil {
				return err
			}
			if err := w.PutAckSample(model.AckSample{Cluster: "c", JobID: "j", CheckpointID: int64(i), TimeMs: int64(i)}); err != nil {
				return err
			}
			if err := w.PutMetricSample(model.MetricSample{Cluster: "c", JobID: "j", VertexID: "v", Metric: "m", TimeMs: int64(i), Value: 1}); err != nil {
				return err
			}
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Bulk err = %v, want it to wrap %v", err, boom)
	}
	if after := contentDigest(t, s); after != before {
		t.Error("content changed after a rolled-back Bulk")
	}
	statsAfter, err := s.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	statsBefore.FileBytes, statsAfter.FileBytes = 0, 0
	statsBefore.UsedBytes, statsAfter.UsedBytes = 0, 0
	if !reflect.DeepEqual(statsBefore, statsAfter) {
		t.Errorf("stats changed: %+v → %+v", statsBefore, statsAfter)
	}

	// A cancelled context rolls back as well.
	cctx, cancel := context.WithCancel(ctx)
	err = s.Bulk(cctx, func(w Writer) error {
		for i := 100; i < 5000; i++ {
			if i == 200 {
				cancel()
			}
			if err := w.PutAckSample(model.AckSample{Cluster: "c", JobID: "j", CheckpointID: int64(i), TimeMs: 1}); err != nil {
				return err
			}
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled Bulk err = %v", err)
	}
	if after := contentDigest(t, s); after != before {
		t.Error("content changed after a cancelled Bulk")
	}
}

// The read pool must refuse writes: a bug that writes through it would
// bypass the single-writer design.
func TestReaderPoolIsReadOnly(t *testing.T) {
	s := openTest(t, DefaultRetention())
	_, err := s.r.Exec("DELETE FROM checkpoints")
	if err == nil {
		t.Fatal("write through the reader pool succeeded")
	}
}

func TestMarkDetailsMissedMarksOnlyFinalSummariesBelowTheHistory(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, DefaultRetention())
	mk := func(id int64, status model.Status, withTasks bool, loss model.DetailLoss) model.Checkpoint {
		c := modeltest.Checkpoint("c", "j", id, 1000*id, 2, 3)
		c.Status, c.DetailLoss = status, loss
		if !withTasks {
			c.Tasks = nil
		}
		return c
	}
	cps := []model.Checkpoint{
		mk(1, model.StatusCompleted, false, ""),                 // waited for details when the app stopped: marked
		mk(2, model.StatusFailed, false, ""),                    // the same, failed: marked
		mk(3, model.StatusCompleted, true, ""),                  // has its details: untouched
		mk(4, model.StatusInProgress, false, ""),                // never seen final: untouched
		mk(5, model.StatusCompleted, false, model.DetailMissed), // already marked: not counted again
		mk(8, model.StatusCompleted, false, ""),                 // still in the engine's history: untouched
	}
	if err := s.PutCheckpoints(ctx, cps); err != nil {
		t.Fatal(err)
	}
	n, err := s.MarkDetailsMissed(ctx, "c", "j", 0, 8)
	if err != nil || n != 2 {
		t.Fatalf("MarkDetailsMissed = %d, %v; want 2", n, err)
	}
	want := map[int64]model.DetailLoss{1: model.DetailMissed, 2: model.DetailMissed, 3: "", 4: "", 5: model.DetailMissed, 8: ""}
	for id, loss := range want {
		got, err := s.Checkpoint(ctx, model.Key{Cluster: "c", JobID: "j", ID: id})
		if err != nil {
			t.Fatal(err)
		}
		if got.DetailLoss != loss {
			t.Errorf("checkpoint %d: detail loss %q, want %q", id, got.DetailLoss, loss)
		}
	}
	if n, err := s.MarkDetailsMissed(ctx, "other", "j", 0, 8); err != nil || n != 0 {
		t.Errorf("another cluster: %d, %v", n, err)
	}
}

// A scan that refills the checkpoints it handed out gives what a scan of
// new ones gives: nothing of a checkpoint read before shows through (its
// finalize time, its tasks, their subtasks), shorter and longer lists alike.
func TestScanCheckpointsIntoReusesWithoutLeftovers(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, DefaultRetention())
	full := fullCheckpoint()
	summary := fullCheckpoint()
	summary.ID, summary.TriggerMs, summary.Tasks, summary.FinalizeMs, summary.StateBlobs = 50, full.TriggerMs+1, nil, nil, nil
	fewer := fullCheckpoint()
	fewer.ID, fewer.TriggerMs, fewer.Tasks = 51, full.TriggerMs+2, fewer.Tasks[:1]
	fewer.Tasks[0].Subtasks = fewer.Tasks[0].Subtasks[:1]
	empty := fullCheckpoint()
	empty.ID, empty.TriggerMs, empty.Tasks = 52, full.TriggerMs+3, []model.TaskStats{}
	again := fullCheckpoint()
	again.ID, again.TriggerMs = 53, full.TriggerMs+4
	if err := s.PutCheckpoints(ctx, []model.Checkpoint{full, summary, fewer, empty, again}); err != nil {
		t.Fatal(err)
	}
	q := Query{Cluster: full.Cluster, JobID: full.JobID, Pipeline: intp(full.Pipeline)}
	var want []model.Checkpoint
	if err := s.ScanCheckpoints(ctx, q, true, func(c *model.Checkpoint) error { want = append(want, *c); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(want) != 5 {
		t.Fatalf("scanned %d checkpoints, want 5", len(want))
	}
	var one *model.Checkpoint // the same checkpoint, filled again every time
	k := 0
	err := s.ScanCheckpointsInto(ctx, q, true, func() *model.Checkpoint { return one }, func(c *model.Checkpoint) error {
		if one != nil && c != one {
			t.Errorf("checkpoint %d: a new checkpoint, not the one handed back", k)
		}
		one = c
		if !reflect.DeepEqual(*c, want[k]) {
			t.Errorf("checkpoint %d refilled:\n got %#v\nwant %#v", k, *c, want[k])
		}
		k++
		return nil
	})
	if err != nil || k != 5 {
		t.Fatalf("refilling scan: %d checkpoints, %v", k, err)
	}
}

// A column holding a value of the wrong type (a damaged cache) is an error
// naming it, not a zero.
func TestScanNamesAColumnOfTheWrongType(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, DefaultRetention())
	c := fullCheckpoint()
	if err := s.PutCheckpoints(ctx, []model.Checkpoint{c}); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ update, want string }{
		{`UPDATE checkpoints SET state_size = 'big'`, "column state_size is string, not an integer"},
		{`UPDATE task_stats SET end_to_end_ms = x'00'`, "column t.end_to_end_ms is []uint8, not an integer"},
	} {
		if _, err := s.w.ExecContext(ctx, tt.update); err != nil {
			t.Fatal(err)
		}
		err := s.ScanCheckpoints(ctx, Query{}, true, func(*model.Checkpoint) error { return nil })
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("after %s: %v, want an error with %q", tt.update, err, tt.want)
		}
		if _, err := s.w.ExecContext(ctx, `UPDATE checkpoints SET state_size = 1`); err != nil {
			t.Fatal(err)
		}
	}
}

// The newest completed checkpoints in a range, oldest first: failed ones,
// savepoints, other jobs' and those outside the range are left out.
func TestNewestCompleted(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, DefaultRetention())
	var cps []model.Checkpoint
	for i := int64(1); i <= 8; i++ {
		c := model.Checkpoint{Cluster: "c", JobID: "j", ID: i, TriggerMs: i * 1000, Status: model.StatusCompleted, EndToEndMs: i}
		switch i {
		case 6:
			c.Status = model.StatusFailed
		case 5:
			c.Kind = model.KindSavepoint
		}
		cps = append(cps, c)
	}
	cps = append(cps, model.Checkpoint{Cluster: "c", JobID: "k", ID: 7, TriggerMs: 7000, Status: model.StatusCompleted})
	if err := s.PutCheckpoints(ctx, cps); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		q    Query
		n    int
		want []int64
	}{
		{"the newest 3 to 7 s", Query{Cluster: "c", JobID: "j", FromMs: 1000, ToMs: 7000}, 3, []int64{3, 4, 7}},
		{"fewer than asked", Query{Cluster: "c", JobID: "j", FromMs: 1000, ToMs: 2000}, 3, []int64{1, 2}},
		{"none", Query{Cluster: "c", JobID: "j", FromMs: 9000, ToMs: 10_000}, 3, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.NewestCompleted(ctx, tc.q, tc.n)
			if err != nil {
				t.Fatal(err)
			}
			var ids []int64
			for _, c := range got {
				ids = append(ids, c.ID)
				if c.EndToEndMs != c.ID {
					t.Errorf("checkpoint %d took %d ms, want %d", c.ID, c.EndToEndMs, c.ID)
				}
			}
			if !reflect.DeepEqual(ids, tc.want) {
				t.Errorf("ids %v, want %v", ids, tc.want)
			}
		})
	}
	if _, err := s.NewestCompleted(ctx, Query{Cluster: "c"}, 3); err == nil {
		t.Error("no error without a job")
	}
}
