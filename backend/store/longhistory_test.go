package store

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/model/modeltest"
)

// Checkpoints of two jobs and two pipelines interleave in trigger order; some
// have no tasks. A scan with tasks must give each checkpoint its own, whatever
// the filter, as loading each checkpoint's tasks by itself does.
func TestScanCheckpointsGivesEachItsOwnTasks(t *testing.T) {
	ctx := context.Background()
	s := openEmpty(t)
	err := s.Bulk(ctx, func(w Writer) error {
		for i := range 40 {
			for _, job := range []string{"a", "b"} {
				for pipeline := range 2 {
					c := modeltest.Checkpoint("c", job, int64(i+1), 1_000_000+int64(i/3)*1000, 1+i%3, 2+pipeline)
					c.Pipeline = pipeline
					for v := range c.Tasks {
						c.Tasks[v].VertexID = fmt.Sprintf("%s-p%d-%d-v%d", job, pipeline, i+1, v)
					}
					if i%5 == 4 {
						c.Tasks = nil // a checkpoint known without its tasks
					}
					if err := w.PutCheckpoint(&c); err != nil {
						return err
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	one := 1
	for _, q := range []Query{{}, {Cluster: "c"}, {Cluster: "c", JobID: "b"}, {Cluster: "c", JobID: "a", Pipeline: &one},
		{Cluster: "c", JobID: "a", FromMs: 1_004_000, ToMs: 1_009_000}} {
		n, withTasks := 0, 0
		err := s.ScanCheckpoints(ctx, q, true, func(c *model.Checkpoint) error {
			n++
			want, err := s.Checkpoint(ctx, c.Key())
			if err != nil {
				return err
			}
			if !reflect.DeepEqual(c.Tasks, want.Tasks) {
				t.Errorf("%+v: checkpoint %s/%d/%d got tasks %v, it has %v", q, c.JobID, c.Pipeline, c.ID, vertexIDs(c), vertexIDs(&want))
			}
			if len(c.Tasks) > 0 {
				withTasks++
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 || withTasks == 0 || withTasks == n {
			t.Errorf("%+v: %d checkpoints, %d with tasks: the case does not mix them", q, n, withTasks)
		}
	}
}

// openEmpty opens a new cache without limits, closed when t ends.
func openEmpty(t *testing.T) *Store {
	t.Helper()
	s, err := Open(context.Background(), t.TempDir()+"/cache.db", Retention{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func vertexIDs(c *model.Checkpoint) []string {
	var ids []string
	for _, t := range c.Tasks {
		ids = append(ids, t.VertexID)
	}
	return ids
}

// A subtask pack that does not decode is reported with its own checkpoint,
// not the one before it (the scan reads tasks ahead).
func TestScanCheckpointsNamesTheCheckpointOfADamagedPack(t *testing.T) {
	ctx := context.Background()
	s := openEmpty(t)
	fill(t, s, "c", "j", 0, 6, 1_000_000, 1000, 2, 2)
	var pk int64
	if err := s.w.QueryRowContext(ctx, `SELECT pk FROM checkpoints WHERE id = 6`).Scan(&pk); err != nil {
		t.Fatal(err)
	}
	if _, err := s.w.ExecContext(ctx, `UPDATE subtask_packs SET packed = x'ffff' WHERE id = ? << 16 | 1`, pk); err != nil {
		t.Fatal(err)
	}
	var seen []int64
	err := s.ScanCheckpoints(ctx, Query{Cluster: "c", JobID: "j"}, true, func(c *model.Checkpoint) error {
		seen = append(seen, c.ID)
		return nil
	})
	if err == nil {
		t.Fatal("a damaged pack read without error")
	}
	if want := "c/j/0/6"; !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not name checkpoint %s", err, want)
	}
	if !reflect.DeepEqual(seen, []int64{0, 2, 4}) {
		t.Errorf("checkpoints before the damaged one: %v, want [0 2 4]", seen)
	}
}

// CheckpointSpans holds, for every checkpoint, exactly the drawn fields of
// the full read.
func TestCheckpointSpansHoldWhatTheTimelineDraws(t *testing.T) {
	ctx := context.Background()
	s := openEmpty(t)
	err := s.Bulk(ctx, func(w Writer) error {
		for i := range 30 {
			c := modeltest.Checkpoint("c", "j", int64(i+1), 1_000_000+int64(i)*1000, 1, 1)
			switch i % 4 {
			case 1:
				c.Status, c.FailureMs, c.CompletionMs = model.StatusFailed, c.TriggerMs+900, 0
			case 2:
				c.Status, c.CompletionMs = model.StatusInProgress, 0
			case 3:
				c.Kind = model.KindSavepoint
			}
			c.EndToEndMs, c.CheckpointedSize = int64(100+i), int64(1000*i)
			if err := w.PutCheckpoint(&c); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	q := Query{Cluster: "c", JobID: "j", FromMs: 1_003_000, ToMs: 1_020_000}
	full, err := s.Checkpoints(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	spans, err := s.CheckpointSpans(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if len(spans) != len(full) || len(full) != 18 {
		t.Fatalf("%d spans, %d checkpoints; want 18 of each", len(spans), len(full))
	}
	for i := range full {
		if want := full[i].Span(); spans[i] != want {
			t.Errorf("span %d:\n got %+v\nwant %+v", i, spans[i], want)
		}
	}
	if _, err := s.CheckpointSpans(ctx, Query{Cluster: "c"}); err == nil {
		t.Error("spans of a whole cluster (no job) were read")
	}
	// The job index alone answers them: its table rows lie among every
	// other job's. It also orders a job's whole scans and their tasks
	// without a sort.
	q = Query{Cluster: "c", JobID: "j", FromMs: 1}
	where, args := q.where("cluster", "job_id", "pipeline", "trigger_ms")
	cwhere, _ := q.where("c.cluster", "c.job_id", "c.pipeline", "c.trigger_ms")
	for _, c := range []struct {
		name, sql, want string
	}{
		{"spans", `SELECT ` + sqlSpanCols + ` FROM checkpoints` + where + sqlCheckpointOrder, "COVERING INDEX checkpoints_by_job_trigger"},
		{"checkpoints", `SELECT ` + sqlCheckpointCols + ` FROM checkpoints` + where + sqlCheckpointOrder, "INDEX checkpoints_by_job_trigger"},
		{"tasks", sqlTaskScan(cwhere), "COVERING INDEX checkpoints_by_job_trigger"},
	} {
		plan := queryPlan(t, s, c.sql, args...)
		if !strings.Contains(plan[0], c.want) || strings.Contains(strings.Join(plan, "\n"), "TEMP B-TREE") {
			t.Errorf("%s: query plan %q, want the %s and no sort", c.name, plan, c.want)
		}
	}
}

func queryPlan(t *testing.T, s *Store, query string, args ...any) []string {
	t.Helper()
	rows, err := s.r.Query(`EXPLAIN QUERY PLAN `+query, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	if err := rows.Err(); err != nil || len(plan) == 0 {
		t.Fatalf("plan of %s: %v (%d lines)", query, err, len(plan))
	}
	return plan
}

// Query.Metric keeps the samples of the metrics it accepts.
func TestScanMetricSamplesKeepsTheMetricsAsked(t *testing.T) {
	ctx := context.Background()
	s := openEmpty(t)
	err := s.Bulk(ctx, func(w Writer) error {
		for i := range 10 {
			for _, m := range []string{model.MetricBusyMsPerSec, model.MetricBackPressuredMsPerSec, model.MetricIdleMsPerSec} {
				if err := w.PutMetricSample(model.MetricSample{Cluster: "c", JobID: "j", VertexID: "v", Subtask: -1,
					Metric: m, Agg: model.AggMax, TimeMs: int64(1000 + i), Value: float64(i)}); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	q := Query{Cluster: "c", JobID: "j", FromMs: 1002, Metric: func(m string) bool { return m != model.MetricIdleMsPerSec }}
	if err := s.ScanMetricSamples(ctx, q, func(m model.MetricSample) error {
		got[m.Metric]++
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	want := map[string]int{model.MetricBusyMsPerSec: 8, model.MetricBackPressuredMsPerSec: 8}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("samples per metric: %v, want %v", got, want)
	}
}

// job_counts, kept by triggers, always equals counting the checkpoints:
// after inserts, summaries sent again, retention by count, and the jobs list
// gives those counts and each job's trigger span.
func TestJobCountsFollowEveryWrite(t *testing.T) {
	ctx := context.Background()
	s := openEmpty(t)
	check := func(when string) {
		t.Helper()
		rows, err := s.r.QueryContext(ctx, `SELECT c.cluster, c.job_id, count(*), coalesce(j.checkpoints, -1), min(c.trigger_ms), max(c.trigger_ms)
			FROM checkpoints c LEFT JOIN job_counts j ON j.cluster = c.cluster AND j.job_id = c.job_id GROUP BY c.cluster, c.job_id`)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string][3]int64{}
		for rows.Next() {
			var cl, job string
			var n, kept, lo, hi int64
			if err := rows.Scan(&cl, &job, &n, &kept, &lo, &hi); err != nil {
				t.Fatal(err)
			}
			if n != kept {
				t.Errorf("%s: %s/%s has %d checkpoints, job_counts says %d", when, cl, job, n, kept)
			}
			want[cl+"/"+job] = [3]int64{n, lo, hi}
		}
		rows.Close()
		var stale int
		if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM job_counts j WHERE NOT EXISTS
			(SELECT 1 FROM checkpoints c WHERE c.cluster = j.cluster AND c.job_id = j.job_id)`).Scan(&stale); err != nil {
			t.Fatal(err)
		}
		if stale != 0 {
			t.Errorf("%s: %d job_counts rows for jobs without checkpoints", when, stale)
		}
		jobs, err := s.Jobs(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		for _, j := range jobs {
			w := want[j.Cluster+"/"+j.ID]
			if int64(j.Total) != w[0] || j.FirstTriggerMs != w[1] || j.LastTriggerMs != w[2] {
				t.Errorf("%s: Jobs says %s/%s has %d checkpoints over %d..%d; counting gives %d over %d..%d",
					when, j.Cluster, j.ID, j.Total, j.FirstTriggerMs, j.LastTriggerMs, w[0], w[1], w[2])
			}
		}
	}
	fill(t, s, "c", "a", 0, 30, 1_000_000, 1000, 1, 1)
	fill(t, s, "c", "b", 0, 12, 2_000_000, 1000, 1, 1)
	fill(t, s, "d", "a", 0, 5, 3_000_000, 1000, 1, 1)
	check("after inserts")
	fill(t, s, "c", "a", 20, 20, 1_000_000, 1000, 1, 1) // 10 sent again, 10 new
	check("after summaries sent again")
	s.SetRetention(Retention{MaxCheckpointsPerJob: 8})
	if _, err := s.ApplyRetention(ctx); err != nil {
		t.Fatal(err)
	}
	check("after retention by count")
	if err := s.DeleteCluster(ctx, "d"); err != nil {
		t.Fatal(err)
	}
	check("after a cluster was removed")
	var n int
	if err := s.r.QueryRowContext(ctx, `SELECT sum(checkpoints) FROM job_counts`).Scan(&n); err != nil || n != 8+8 {
		t.Errorf("job_counts sums to %d (%v), want 16", n, err)
	}
}
