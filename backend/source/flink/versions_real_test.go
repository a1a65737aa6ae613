package flink_test

// The version matrix on real clusters: one small cluster per version of testenv/flink/versions.txt
// (1.19 to 2.3), started side by side (flinkenv.StartMatrix), each running two knob jobs: A with
// checkpoints every second and every third one declined, B with a saturated "Slow Map" that
// backpressures its source. Everything the client decodes is compared with Flink's own JSON
// fetched in the test (the checks of versions_test.go), so a version whose answers the client
// misreads fails its subtest. Each cluster sends its checkpoint spans to the shared Jaeger, and
// job A's are checked against REST in the traces step (versions_traces_real_test.go).
// Skipped only with CE_SKIP_REAL=1; FLINK_MATRIX=1.19.3,2.3.0 narrows the versions.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/source/flink"
	"checkpoint-explorer/testenv/flinkenv"
	"checkpoint-explorer/testenv/jaegerenv"
)

func TestVersionSmoke(t *testing.T) {
	versions, err := flinkenv.MatrixVersions()
	if err != nil {
		t.Fatal(err)
	}
	j := jaegerenv.Ensure(t)
	start := time.Now()
	clusters := flinkenv.StartMatrix(t, versions, j.OTLPGRPCEndpoint)
	t.Logf("%d clusters side by side in %v", len(versions), time.Since(start).Round(100*time.Millisecond))
	for _, v := range versions {
		c := clusters[v]
		t.Run(v, func(t *testing.T) {
			t.Parallel()
			if c.Err != nil {
				t.Fatal(c.Err)
			}
			t0 := time.Now()
			smokeVersion(t, c.Env, v, j.QueryURL)
			t.Logf("Flink %s: started in %v (by this test: %v), checked in %v", v, c.StartTime.Round(100*time.Millisecond),
				c.Started, time.Since(t0).Round(100*time.Millisecond))
		})
	}
}

// rawGet fetches Flink's own answer, bypassing the client.
func rawGet(t *testing.T, ctx context.Context, base, path string) ([]byte, int) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return b, resp.StatusCode
}

func rawOK(t *testing.T, ctx context.Context, base, path string) []byte {
	t.Helper()
	b, code := rawGet(t, ctx, base, path)
	if code != http.StatusOK {
		t.Fatalf("GET %s: HTTP %d: %.300s", path, code, b)
	}
	return b
}

// consistent runs call between two raw fetches of path until both are equal (Flink refreshes
// checkpoint statistics every few seconds and metrics every 10 s) and returns that answer, which
// is then what call read.
func consistent(t *testing.T, ctx context.Context, base, path string, call func()) []byte {
	t.Helper()
	for i := 0; ; i++ {
		before := rawOK(t, ctx, base, path)
		call()
		after := rawOK(t, ctx, base, path)
		if bytes.Equal(before, after) {
			return after
		}
		if i == 20 {
			t.Fatalf("GET %s never answered the same twice in a row", path)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func smokeVersion(t *testing.T, env flinkenv.Env, version, jaegerURL string) {
	c := newClient(t, flink.Config{BaseURL: env.RESTURL, Cluster: "smoke"})
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	base := env.RESTURL
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}

	jobA := env.Submit(t, "--name", "smoke A "+version, "--parallelism", "2", "--rate", "200", "--interval-ms", "1000",
		"--fail-every", "3", "--slow-snapshot-ms", "100", "--state-bytes-per-record", "64")
	jobB := env.Submit(t, "--name", "smoke B "+version, "--rate", "0", "--sleep-ms", "1", "--interval-ms", "2000")

	v, err := c.Version(ctx)
	if err != nil || v != version {
		t.Errorf("Version = %q, %v; want %q", v, err, version)
	}
	o, err := c.Overview(ctx)
	must(err)
	checkOverview(t, rawOK(t, ctx, base, "/overview"), o)
	jobs, err := c.Jobs(ctx)
	must(err)
	checkJobs(t, rawOK(t, ctx, base, "/jobs/overview"), jobs, "smoke")

	job, err := c.Job(ctx, jobA)
	must(err)
	checkJobGraph(t, rawOK(t, ctx, base, "/jobs/"+jobA), job, 2)
	vid := map[string]string{}
	for _, vx := range job.Vertices {
		vid[vx.Name] = vx.ID
	}

	cc, err := c.CheckpointConfig(ctx, jobA)
	must(err)
	checkCheckpointConfig(t, rawOK(t, ctx, base, "/jobs/"+jobA+"/checkpoints/config"), cc)
	if cc.IntervalMs != 1000 || cc.TimeoutMs != 600000 || cc.Mode != "exactly_once" || !cc.Externalized ||
		cc.StateBackend != "HashMapStateBackend" || cc.Storage != "FileSystemCheckpointStorage" {
		t.Errorf("checkpoint config %+v, want the knob job's: 1000 ms, exactly once, retained, on the file system", cc)
	}
	exec, err := c.ExecutionConfig(ctx, jobA)
	must(err)
	checkExecutionConfig(t, rawOK(t, ctx, base, "/jobs/"+jobA+"/config"), exec)
	for _, jid := range []string{"", jobA} {
		kv, err := c.JobManagerConfig(ctx, jid)
		must(err)
		path := "/jobmanager/config"
		if jid != "" {
			path = "/jobs/" + jid + "/jobmanager/config"
		}
		checkKeyValues(t, rawOK(t, ctx, base, path), kv)
	}

	// Checkpoints: wait for both kinds in the history, then compare with Flink's very answer.
	var list flink.CheckpointList
	waitFor(t, ctx, 150*time.Second, "8 checkpoints of job A, completed and failed", func() (bool, string) {
		l, err := c.Checkpoints(ctx, jobA)
		must(err)
		return len(l.History) > 0 && l.History[0].ID >= 8 && l.LatestCompletedID > 0 && l.LatestFailedID > 0, fmt.Sprintf("%+v", l.Counts)
	})
	var completed, failed int64
	for try := 0; ; try++ {
		raw := consistent(t, ctx, base, "/jobs/"+jobA+"/checkpoints", func() {
			var err error
			list, err = c.Checkpoints(ctx, jobA)
			must(err)
		})
		checkCheckpointList(t, raw, list, jobA, "smoke")
		checkKnobHistory(t, list, 2)
		completed, failed = newest(list, model.StatusCompleted), newest(list, model.StatusFailed)
		ok := true
		for _, x := range []struct {
			cid  int64
			want model.Status
		}{{completed, model.StatusCompleted}, {failed, model.StatusFailed}} {
			d, err := c.CheckpointDetail(ctx, jobA, x.cid)
			if errors.Is(err, flink.ErrNotFound) && try < 5 {
				ok = false // left the history since the list's snapshot (seen on 1.19 under load)
				break
			}
			must(err)
			checkCheckpointDetail(t, rawOK(t, ctx, base, fmt.Sprintf("/jobs/%s/checkpoints/details/%d", jobA, x.cid)), d, jobA, "smoke")
			if d.Status != x.want || len(d.Tasks) != len(knobVertices) || d.NumSubtasks != 12 {
				t.Errorf("checkpoint %d details: %+v, want %s with %d tasks", x.cid, d, x.want, len(knobVertices))
			}
		}
		if ok {
			break
		}
	}
	for _, kv := range knobVertices {
		ts, err := c.SubtaskStats(ctx, jobA, completed, vid[kv.name])
		must(err)
		checkSubtasks(t, rawOK(t, ctx, base, fmt.Sprintf("/jobs/%s/checkpoints/details/%d/subtasks/%s", jobA, completed, vid[kv.name])), ts, vid[kv.name])
		if len(ts.Subtasks) != 2 {
			t.Errorf("%s in checkpoint %d: %d subtasks, want 2", kv.name, completed, len(ts.Subtasks))
		}
		for _, s := range ts.Subtasks {
			if !s.Acknowledged() || s.AckMs < list.History[0].TriggerMs-600_000 {
				t.Errorf("%s subtask %d of completed checkpoint %d: %+v", kv.name, s.Index, completed, s)
			}
			if kv.name == "Slow Snapshot" && s.SyncMs < 80 {
				t.Errorf("Slow Snapshot subtask %d sync %d ms, want >= 80 (--slow-snapshot-ms 100)", s.Index, s.SyncMs)
			}
		}
	}
	thrower := vid["Snapshot Thrower"]
	ts, err := c.SubtaskStats(ctx, jobA, failed, thrower)
	must(err)
	checkSubtasks(t, rawOK(t, ctx, base, fmt.Sprintf("/jobs/%s/checkpoints/details/%d/subtasks/%s", jobA, failed, thrower)), ts, thrower)

	// Backpressure on B's source, by metric and by the web UI's endpoint.
	jb, err := c.Job(ctx, jobB)
	must(err)
	src := jb.Vertices[0].ID
	names := []string{model.MetricBackPressuredMsPerSec, model.MetricBusyMsPerSec, model.MetricIdleMsPerSec}
	waitFor(t, ctx, 120*time.Second, "job B's source backpressured", func() (bool, string) {
		s, err := c.VertexMetrics(ctx, jobB, src, names, 0)
		must(err)
		return maxOf(s, model.MetricBackPressuredMsPerSec) > 500, fmt.Sprintf("%+v", s)
	})
	metricsPath := "/jobs/" + jobB + "/vertices/" + src + "/subtasks/metrics"
	mn, err := c.VertexMetricNames(ctx, jobB, src)
	must(err)
	checkMetricNames(t, rawOK(t, ctx, base, metricsPath), mn)
	var samples []model.MetricSample
	raw := consistent(t, ctx, base, metricsPath+"?get="+url.QueryEscape(strings.Join(names, ","))+"&agg=max,avg", func() {
		samples, err = c.VertexMetrics(ctx, jobB, src, names, 0)
		must(err)
	})
	checkMetrics(t, raw, samples)
	var bp flink.BackpressureInfo
	raw = consistent(t, ctx, base, "/jobs/"+jobB+"/vertices/"+src+"/backpressure", func() {
		bp, err = c.Backpressure(ctx, jobB, src)
		must(err)
	})
	checkBackpressure(t, raw, bp)
	if bp.Level != "high" {
		t.Errorf("backpressure of B's source %+v, want high", bp)
	}

	// The JobManager log: listed, and its checkpoints of A are those REST reported.
	var files []flink.LogFile
	raw = consistent(t, ctx, base, "/jobmanager/logs", func() {
		files, err = c.LogFiles(ctx)
		must(err)
	})
	checkLogFiles(t, raw, files)
	h, err := c.JobManagerLog(ctx, 64<<20)
	must(err)
	checkLogAgainstREST(t, h, list, jobA, thrower)

	t.Run("traces", func(t *testing.T) { smokeTraces(t, c, env, jaegerURL, jobA, version) })
}

// newest is the id of the newest history entry with status st.
func newest(l flink.CheckpointList, st model.Status) int64 {
	for _, cp := range l.History {
		if cp.Status == st {
			return cp.ID
		}
	}
	return 0
}
