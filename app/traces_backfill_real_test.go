package app

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/source/jaeger"
	"checkpoint-explorer/backend/store"
	"checkpoint-explorer/testenv/flinkenv"
	"checkpoint-explorer/testenv/jaegerenv"
)

// newTracedApp is an app whose cluster "flink" has the Jaeger of j as its traces (the
// JobManager log off, so that only traces can add what REST no longer lists); collect starts
// polling.
func newTracedApp(t *testing.T, f flinkenv.Env, j *jaegerenv.Env, collect bool) *App {
	t.Helper()
	a := startTestApp(t, Options{DataDir: t.TempDir(), NoSample: true, JobsEvery: 2 * time.Second, NoCollect: !collect,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	in := ClusterInput{Name: "flink", Engine: model.EngineFlink, BaseURL: f.RESTURL, JobManagerLog: model.JobManagerLogOff,
		TracesURL: j.QueryURL, TracesService: f.TracesService}
	res, err := a.TestConnection(in)
	if err != nil || !res.OK || !strings.Contains(res.Message, "Jaeger has spans of") {
		t.Fatalf("connection test with traces: %+v, %v", res, err)
	}
	wrong := in
	wrong.TracesService = "no-such-service"
	if res, err := a.TestConnection(wrong); err != nil || res.OK || !strings.Contains(res.Message, f.TracesService) {
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
	jc, err := jaeger.New(jaeger.Config{BaseURL: j.QueryURL, Service: f.TracesService, Cluster: "flink"})
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
	waitFor(t, time.Minute, "15 new checkpoints in Jaeger", func() bool {
		_, ok := inJaeger()[last+15]
		return ok
	})
	a.startCollector(context.Background())
	waitFor(t, 2*time.Minute, "the ids missed while closed read from traces", func() bool {
		cps := cachedCheckpoints(t, a, jid, false)
		_, hi, missing := holes(cps)
		return hi > last+15 && len(missing) == 0
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
