package app

import (
	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/source/jaeger"
	"checkpoint-explorer/backend/source/restclient"
	"checkpoint-explorer/backend/store"
	"checkpoint-explorer/testenv/flinkenv"
	"checkpoint-explorer/testenv/jaegerenv"
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestFlinkTracesInJaegerMatchREST runs the real chain: Flink 2.3 with its OpenTelemetry trace
// reporter at the per-subtask detail level → a real Jaeger (OTLP/gRPC in, memory storage) → the
// jaeger traces source. The app's REST collector stores the same job's checkpoints; every id
// both have must agree on status, trigger time and (completed) end-to-end duration, and every
// subtask's start delay, alignment, sync and async phases.
//
// On the same cluster, the app with the cluster's traces configured reads from Jaeger what REST no
// longer lists (checkTracesBackfill), and opens a job from traces alone.
func TestFlinkTracesInJaegerMatchREST(t *testing.T) {
	j, f := checkTracesMatchREST(t, flinkenv.DefaultVersion, "traces", true)
	t.Run("backfill", func(t *testing.T) { checkTracesBackfill(t, j, f, true) })
}

// TestFlink120TracesInJaegerMatchREST is the same on Flink 1.20.5, which ships no OpenTelemetry
// reporter: flink-metrics-otel 2.0.0 and its SDK (testenv/flink/otel-reporter-1.x) send its
// job-level spans (1.20 has no span-detail-level): status, trigger and durations are compared.
//
// Then the backfill on 1.20's job-level spans (checkTracesBackfill without per-subtask stats).
func TestFlink120TracesInJaegerMatchREST(t *testing.T) {
	j, f := checkTracesMatchREST(t, "1.20.5", "traces-120", false)
	t.Run("backfill", func(t *testing.T) { checkTracesBackfill(t, j, f, false) })
}

func checkTracesMatchREST(t *testing.T, version, cluster string, perSubtask bool) (*jaegerenv.Env, flinkenv.Env) {
	tr := trackOwnA
	if version != flinkenv.DefaultVersion {
		tr = trackOwnB
	}
	onTrack(t, tr)
	j := jaegerenv.Ensure(t)
	f := flinkenv.DedicatedTracedVersion(t, cluster, version, j.OTLPGRPCEndpoint, "flink-"+cluster)
	if f.TracesService == "" {
		t.Fatalf("the traced cluster reports no service name: %+v", f)
	}
	from := time.Now().Add(-time.Second)
	// Two subtasks per vertex, a visible sync phase, and every 5th checkpoint failed (declined in
	// its async part), so both statuses and non-zero phases are compared.
	jid := f.Submit(t, "--name", "ce-traces", "--parallelism", "2", "--interval-ms", "1000",
		"--slow-snapshot-ms", "150", "--fail-every", "5")
	a := newCollectingApp(t, f.RESTURL)

	const want = 15
	waitFor(t, 4*time.Minute, "15 final checkpoints stored from REST", func() bool {
		return len(finalCheckpoints(t, a, jid)) >= want
	})
	// Let the last ones' per-subtask details arrive, then stop collecting (minutes when the
	// machine is loaded many times over: each detail is a request in the budget's turn).
	waitFor(t, 3*time.Minute, "the stored checkpoints' details", func() bool {
		for _, c := range finalCheckpoints(t, a, jid) {
			if c.Status == model.StatusCompleted && len(c.Tasks) == 0 && c.DetailLoss == "" {
				return false
			}
		}
		return true
	})
	a.stopCollector()
	rest := map[int64]model.Checkpoint{}
	var maxID int64
	for _, c := range finalCheckpoints(t, a, jid) {
		rest[c.ID] = c
		maxID = max(maxID, c.ID)
	}
	to := time.Now()

	jc, err := jaeger.New(jaeger.Config{EngineConfig: restclient.EngineConfig{BaseURL: j.QueryURL, Cluster: "flink"}, Service: f.TracesService, PageSize: 10})
	if err != nil {
		t.Fatal(err)
	}
	// Flink's span processor exports in batches (every 5 s by default): wait until Jaeger has the
	// newest checkpoint REST stored.
	var res jaeger.Result
	deadline := time.Now().Add(90 * time.Second)
	for {
		res, err = jc.Checkpoints(context.Background(), jid, from, to)
		if err != nil {
			t.Fatal(err)
		}
		got := map[int64]bool{}
		for _, c := range res.Checkpoints {
			got[c.ID] = true
		}
		if got[maxID] || time.Now().After(deadline) {
			break
		}
		time.Sleep(2 * time.Second)
	}
	if !res.Complete() {
		t.Errorf("the range was not read whole: %v (requests %d)", res.Incomplete, res.Requests)
	}
	if res.Requests < 2 {
		t.Errorf("%d requests for %d checkpoints with PageSize 10: the window was never split", res.Requests, len(res.Checkpoints))
	}

	var matched, withSubtasks, subtasks, failed int
	for _, tc := range res.Checkpoints {
		rc, ok := rest[tc.ID]
		if !ok {
			continue
		}
		matched++
		if tc.JobID != jid || tc.Cluster != "flink" {
			t.Errorf("checkpoint %d: job %q cluster %q, want %s / flink", tc.ID, tc.JobID, tc.Cluster, jid)
		}
		if tc.Status != rc.Status {
			t.Errorf("checkpoint %d: status %s from traces, %s from REST", tc.ID, tc.Status, rc.Status)
			continue
		}
		if d := tc.TriggerMs - rc.TriggerMs; d < -1 || d > 1 {
			t.Errorf("checkpoint %d: trigger %d from traces, %d from REST", tc.ID, tc.TriggerMs, rc.TriggerMs)
		}
		if tc.Status == model.StatusFailed {
			// Flink's span ends at the latest acknowledgement; REST's failed end-to-end runs to
			// the failure, which the span does not carry.
			failed++
			if d := tc.LatestAckMs - rc.LatestAckMs; d < -1 || d > 1 {
				t.Errorf("failed checkpoint %d: latest ack %d from traces, %d from REST", tc.ID, tc.LatestAckMs, rc.LatestAckMs)
			}
			continue
		}
		if d := tc.EndToEndMs - rc.EndToEndMs; d < -1 || d > 1 {
			t.Errorf("checkpoint %d: end-to-end %d ms from traces, %d ms from REST", tc.ID, tc.EndToEndMs, rc.EndToEndMs)
		}
		if len(tc.Tasks) == 0 {
			continue
		}
		withSubtasks++
		restSub := map[string]model.SubtaskStats{}
		for _, task := range rc.Tasks {
			for _, s := range task.Subtasks {
				if s.Acknowledged() {
					restSub[task.VertexID+"/"+strconv.Itoa(s.Index)] = s
				}
			}
		}
		for _, task := range tc.Tasks {
			for _, s := range task.Subtasks {
				r, ok := restSub[task.VertexID+"/"+strconv.Itoa(s.Index)]
				if !ok {
					continue
				}
				subtasks++
				if s.StartDelayMs != r.StartDelayMs || s.AlignmentMs != r.AlignmentMs || s.SyncMs != r.SyncMs || s.AsyncMs != r.AsyncMs {
					t.Errorf("checkpoint %d vertex %s subtask %d: start delay/alignment/sync/async %d/%d/%d/%d ms from traces, %d/%d/%d/%d from REST",
						tc.ID, task.VertexID, s.Index, s.StartDelayMs, s.AlignmentMs, s.SyncMs, s.AsyncMs,
						r.StartDelayMs, r.AlignmentMs, r.SyncMs, r.AsyncMs)
				}
			}
		}
	}
	ids := make([]int64, 0, len(rest))
	for id := range rest {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, k int) bool { return ids[i] < ids[k] })
	t.Logf("Flink %s: REST stored %d final checkpoints (ids %v); traces gave %d in %d requests; %d matched by id (%d failed), %d with per-subtask spans, %d subtasks compared",
		f.Version, len(rest), ids, len(res.Checkpoints), res.Requests, matched, failed, withSubtasks, subtasks)
	if matched < want-3 {
		t.Errorf("only %d checkpoints in both, want at least %d", matched, want-3)
	}
	if failed == 0 || perSubtask && (withSubtasks == 0 || subtasks == 0) || !perSubtask && withSubtasks != 0 {
		t.Errorf("compared %d failed checkpoints, %d with subtasks, %d subtasks (per-subtask spans expected: %v)", failed, withSubtasks, subtasks, perSubtask)
	}
	return j, f
}

// newTracedApp is an app whose cluster "flink" has the Jaeger of j as its traces (the
// JobManager log off, so that only traces can add what REST no longer lists); collect starts
// polling.
func newTracedApp(t *testing.T, f flinkenv.Env, j *jaegerenv.Env, collect bool) *App {
	t.Helper()
	a := startTestApp(t, Options{DataDir: t.TempDir(), NoSample: true, JobsEvery: 2 * time.Second, NoCollect: !collect,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	in := ClusterInput{Name: "flink", Engine: model.EngineFlink, BaseURL: f.RESTURL,
		clusterSettings: clusterSettings{JobManagerLog: model.JobManagerLogOff, TracesURL: j.QueryURL, TracesService: f.TracesService}}
	res, err := a.TestConnection(in)
	if err != nil || !res.OK || !strings.Contains(res.Message, "Jaeger has spans of") {
		t.Fatalf("connection test with traces: %+v, %v", res, err)
	}
	wrong := in
	wrong.TracesService = "no-such-service"
	// It names the services Jaeger has: this one, unless other tests' services fill the ten it lists.
	if res, err := a.TestConnection(wrong); err != nil || res.OK || !strings.Contains(res.Message, `no spans of service "no-such-service"`) ||
		!strings.Contains(res.Message, f.TracesService) && !strings.Contains(res.Message, "…") {
		t.Errorf("connection test with a service Jaeger does not have: %+v, %v; want a failure naming %q", res, err, f.TracesService)
	}
	if err := a.SaveCluster(in); err != nil {
		t.Fatal(err)
	}
	return a
}

// cachedCheckpoints is the job's cached checkpoints by id (summaries), with their tasks when
// withTasks.
func cachedCheckpoints(t *testing.T, a *App, jid string, withTasks bool) map[int64]model.Checkpoint {
	t.Helper()
	out := map[int64]model.Checkpoint{}
	if err := a.store.ScanCheckpoints(context.Background(), store.Query{Cluster: "flink", JobID: jid}, withTasks, func(c *model.Checkpoint) error {
		out[c.ID] = *c
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// holes lists the ids missing between the lowest and the highest cached.
func holes(cps map[int64]model.Checkpoint) (lo, hi int64, missing []int64) {
	lo = -1
	for id := range cps {
		if lo < 0 || id < lo {
			lo = id
		}
		hi = max(hi, id)
	}
	for id := lo; id <= hi && lo >= 0; id++ {
		if _, ok := cps[id]; !ok {
			missing = append(missing, id)
		}
	}
	return lo, hi, missing
}

// checkTracesBackfill: a job checkpoints every 500 ms before the app connects, so REST lists
// only its last 10; the app with the cluster's traces stores every earlier one from Jaeger
// (source traces, per-subtask stats where the spans carry them: perSubtask), and after it was
// closed for a while, the ids it missed. A second app opens the job from traces alone, and
// `capture --traces-url` writes it. Flink 2.x's spans name the job; 1.20's carry only its id.
func checkTracesBackfill(t *testing.T, j *jaegerenv.Env, f flinkenv.Env, perSubtask bool) {
	from := time.Now().Add(-time.Second)
	jid := f.Submit(t, "--name", "ce-traces-bf", "--parallelism", "1", "--interval-ms", "500")
	jc, err := jaeger.New(jaeger.Config{EngineConfig: restclient.EngineConfig{BaseURL: j.QueryURL, Cluster: "flink"}, Service: f.TracesService})
	if err != nil {
		t.Fatal(err)
	}
	inJaeger := func() map[int64]model.Checkpoint {
		res, err := jc.Checkpoints(context.Background(), jid, from, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		out := map[int64]model.Checkpoint{}
		for _, c := range res.Checkpoints {
			out[c.ID] = c
		}
		return out
	}
	waitFor(t, 3*time.Minute, "30 of the job's checkpoints in Jaeger", func() bool { return len(inJaeger()) >= 30 })

	a := newTracedApp(t, f, j, true)
	// REST lists the last 10: the earlier ~20 come from traces, after the first poll.
	var state string
	waitFor(t, 2*time.Minute, "the checkpoints before REST's history read from traces", func() bool {
		cps := cachedCheckpoints(t, a, jid, false)
		lo, hi, missing := holes(cps)
		fromTraces := 0
		for _, c := range cps {
			if c.Source == model.OriginTraces {
				fromTraces++
			}
		}
		if s := fmt.Sprintf("cached %d–%d, missing %v, %d from traces", lo, hi, missing, fromTraces); s != state {
			state = s
			t.Log(s)
		}
		return lo >= 0 && lo <= 2 && len(missing) == 0 && fromTraces >= 15
	})
	spans := inJaeger()
	cps := cachedCheckpoints(t, a, jid, true)
	var fromTraces, withSubtasks, fromREST int
	for id, c := range cps {
		if c.Source != model.OriginTraces {
			fromREST++
			continue
		}
		fromTraces++
		s, ok := spans[id]
		if !ok {
			t.Errorf("checkpoint %d is marked as from traces but Jaeger has no span of it", id)
			continue
		}
		if c.Status != s.Status || c.TriggerMs != s.TriggerMs || c.EndToEndMs != s.EndToEndMs {
			t.Errorf("checkpoint %d: cached %s at %d for %d ms, the span says %s at %d for %d ms",
				id, c.Status, c.TriggerMs, c.EndToEndMs, s.Status, s.TriggerMs, s.EndToEndMs)
		}
		if c.Status == model.StatusCompleted && perSubtask {
			if len(c.Tasks) == 0 || len(c.Tasks[0].Subtasks) == 0 {
				t.Errorf("checkpoint %d from traces has no per-subtask stats although Flink %s sends them", id, f.Version)
			} else {
				withSubtasks++
			}
		}
	}
	if fromREST < 5 {
		t.Errorf("only %d checkpoints from REST", fromREST)
	}
	t.Logf("before the app connected: %d checkpoints from traces (%d with subtasks), %d from REST", fromTraces, withSubtasks, fromREST)

	// The app closes for ~15 checkpoints: REST's 10 no longer reach back to its last one.
	a.stopCollector()
	_, last, _ := holes(cachedCheckpoints(t, a, jid, false))
	waitFor(t, 3*time.Minute, "15 new checkpoints in Jaeger", func() bool {
		_, ok := inJaeger()[last+15]
		return ok
	})
	a.startCollector(context.Background())
	waitForState(t, 3*time.Minute, "the ids missed while closed read from traces", func() (bool, string) {
		cps := cachedCheckpoints(t, a, jid, false)
		_, hi, missing := holes(cps)
		return hi > last+15 && len(missing) == 0, fmt.Sprintf("newest %d (closed after %d), missing %v", hi, last, missing)
	})
	cps = cachedCheckpoints(t, a, jid, false)
	var gapFilled int
	for id := last + 1; id <= last+4; id++ {
		if cps[id].Source == model.OriginTraces {
			gapFilled++
		}
	}
	if gapFilled == 0 {
		t.Errorf("checkpoints %d–%d, missed while the app was closed, did not come from traces: %+v", last+1, last+4, cps[last+1])
	}

	// A job from traces alone, in an app that never polled the cluster.
	name := "ce-traces-bf"
	if !perSubtask {
		name = jid // 1.20's spans do not name the job
	}
	b := newTracedApp(t, f, j, false)
	jobs, err := b.TraceJobs("flink")
	if err != nil {
		t.Fatal(err)
	}
	var listed *TraceJob
	for i := range jobs {
		if jobs[i].ID == jid {
			listed = &jobs[i]
		}
	}
	if listed == nil || listed.Name != name || listed.Cached {
		t.Fatalf("TraceJobs: %+v; want job %s named %s, not cached", jobs, jid, name)
	}
	want := len(inJaeger())
	res, err := b.OpenTracesJob("flink", jid)
	if err != nil {
		t.Fatal(err)
	}
	if res.Added < want || res.IncompleteWindows != 0 {
		t.Errorf("OpenTracesJob: %+v; want at least %d added, all read", res, want)
	}
	views, err := b.ListJobs("flink")
	if err != nil {
		t.Fatal(err)
	}
	var seen bool
	for _, v := range views {
		if v.ID == jid {
			seen = true
			if v.Name != name || v.State != jaeger.UnknownState {
				t.Errorf("job opened from traces: %+v", v)
			}
		}
	}
	if !seen {
		t.Fatalf("the job opened from traces is not listed: %+v", views)
	}
	rows, err := b.Checkpoints("flink", jid, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) < want {
		t.Errorf("%d checkpoints listed for the job opened from traces, Jaeger had %d", len(rows), want)
	}
	if _, err := b.OpenTracesJob("flink", "0123456789abcdef0123456789abcdef"); err == nil || !IsBadRequest(err) {
		t.Errorf("opening a job the traces do not hold: %v, want a bad request naming it", err)
	}

	// capture --traces-url: the same job into a file, and the file opens.
	out := filepath.Join(t.TempDir(), "traces.ckpt.gz")
	rec, err := RecordTraces(context.Background(), TracesRecordOptions{
		Cluster: model.Cluster{Name: "from-traces", TracesURL: j.QueryURL, TracesService: f.TracesService}, JobID: jid, Since: time.Hour, Out: out})
	if err != nil {
		t.Fatal(err)
	}
	if rec.Checkpoints < want || rec.Job.Name != name || (len(rec.Job.Vertices) == 0) == perSubtask {
		t.Errorf("RecordTraces: %d checkpoints, job %+v; want at least %d, named %s, with vertices where the spans have tasks", rec.Checkpoints, rec.Job, want, name)
	}
	imp, err := b.OpenCapture(out)
	if err != nil {
		t.Fatal(err)
	}
	if imp.Checkpoints != int64(rec.Checkpoints) {
		t.Errorf("the capture from traces opened with %d checkpoints, %d written", imp.Checkpoints, rec.Checkpoints)
	}
	t.Logf("opened from traces: %d checkpoints in %d requests; capture of %d in %d requests", res.Added, res.Requests, rec.Checkpoints, rec.Requests)
}
