package app

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"checkpoint-explorer/backend/capture"
	"checkpoint-explorer/backend/model"
)

func TestRecordWritesACompleteCaptureEvenWhenStoppedEarly(t *testing.T) {
	env := flinkOn(t, trackFlinkB)
	jid := env.Submit(t, "--name", "ce-record", "--interval-ms", "1000", "--rate", "100", "--fail-every", "4")
	out := filepath.Join(t.TempDir(), "rec.ckpt.gz")
	ctx, cancel := context.WithCancel(context.Background())
	var ticks int
	var res RecordProgress
	var err error
	done := make(chan struct{})
	go func() {
		defer close(done)
		res, err = Record(ctx, RecordOptions{
			Cluster: model.Cluster{Name: "lab", Engine: model.EngineFlink, BaseURL: env.RESTURL,
				Auth: model.Auth{Kind: model.AuthBearer, Token: secretToken}},
			JobID: jid, Duration: 10 * time.Minute, Out: out, Every: 200 * time.Millisecond, JobsEvery: time.Second,
			Progress: func(p RecordProgress) {
				ticks++
				if p.Checkpoints >= 8 {
					cancel() // as Ctrl-C would
				}
			},
		})
	}()
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		cancel()
		<-done
		t.Fatal("recording did not reach 8 checkpoints in 2 minutes")
	}
	if err != nil {
		t.Fatal(err)
	}
	if res.Checkpoints < 8 || res.Requests == 0 || ticks == 0 {
		t.Fatalf("result %+v after %d progress reports", res, ticks)
	}
	var cps, failed, withTasks int
	sum, err := capture.ReadFile(context.Background(), out, capture.DefaultLimits(), capture.Visitor{
		Cluster: func(c model.Cluster) error {
			if c.Auth.Token != "" || c.Name != "lab" {
				t.Errorf("cluster in the capture: %+v", c)
			}
			return nil
		},
		Checkpoint: func(c *model.Checkpoint) error {
			cps++
			if c.JobID != jid || !c.Status.Final() {
				t.Errorf("checkpoint %d of %s in status %s", c.ID, c.JobID, c.Status)
			}
			if c.Status == model.StatusFailed {
				failed++
			}
			if len(c.Tasks) == 6 {
				withTasks++
			}
			return nil
		},
	})
	if err != nil {
		t.Fatalf("the capture stopped early does not read back: %v", err)
	}
	if int64(cps) != res.Checkpoints || sum.Jobs == 0 || failed == 0 || withTasks < cps-1 {
		t.Errorf("read back %d checkpoints (%d failed, %d with all 6 vertices), %d jobs; recorded %d", cps, failed, withTasks, sum.Jobs, res.Checkpoints)
	}
	// And it opens in the app like any capture.
	a := newTestApp(t, Options{NoSample: true})
	imp, err := a.OpenCapture(out)
	if err != nil || imp.Checkpoints != int64(cps) {
		t.Errorf("import: %+v, %v", imp, err)
	}
}

// A 40 s capture of a backpressured job, started with the job: the first
// backpressure sample comes within a few seconds of the JobManager first
// answering a value (metrics are asked for at every poll until it does; the
// test asks Flink itself every 250 ms meanwhile), and most completed
// checkpoints carry a backpressure value in the report (from their window or
// the nearest sample).
func TestRecordSamplesBackpressureFromTheStart(t *testing.T) {
	env := flinkOn(t, trackFlinkA)
	jid := env.Submit(t, "--name", "ce-record-bp", "--interval-ms", "1000", "--rate", "2000", "--sleep-ms", "3")
	out := filepath.Join(t.TempDir(), "bp.ckpt.gz")
	start := time.Now()
	flinkFirst := firstBackpressureValue(t, env.RESTURL, jid)
	res, err := Record(context.Background(), RecordOptions{
		Cluster: model.Cluster{Name: "lab", Engine: model.EngineFlink, BaseURL: env.RESTURL},
		JobID:   jid, Duration: 40 * time.Second, Out: out, JobsEvery: time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	var first int64
	_, err = capture.ReadFile(context.Background(), out, capture.DefaultLimits(), capture.Visitor{
		MetricSample: func(m model.MetricSample) error {
			if m.Metric == model.MetricBackPressuredMsPerSec && (first == 0 || m.TimeMs < first) {
				first = m.TimeMs
			}
			return nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	fromFlink := <-flinkFirst
	if fromFlink.IsZero() {
		t.Fatal("Flink answered no backpressure value of the job's source while it was recorded")
	}
	// One poll (JobsEvery 1 s, metrics at every poll until they come) and the answer's way back.
	if first == 0 || time.UnixMilli(first).Sub(fromFlink) > 5*time.Second {
		t.Errorf("first backpressure sample %v after the recording started, %v after Flink first answered a value; want within 5 s of it",
			time.UnixMilli(first).Sub(start), time.UnixMilli(first).Sub(fromFlink))
	}

	a := newTestApp(t, Options{NoSample: true})
	if _, err := a.OpenCapture(out); err != nil {
		t.Fatal(err)
	}
	r, err := a.Report("capture: lab", jid, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	// Those triggered before the first sample have none to take (on a busy machine the first
	// comes seconds later than on an idle one); from then on, nearly all carry one.
	completed, covered, nearest := 0, 0, 0
	for _, c := range r.Checkpoints {
		if c.Status != model.StatusCompleted || c.TriggerMs < first {
			continue
		}
		completed++
		if c.Backpressure != nil && c.Backpressure.Max != nil {
			covered++
			if c.Backpressure.Basis == "nearest" {
				nearest++
			}
		}
	}
	// Most, not all: on a busy machine a sample can come later than the nearest-sample reach.
	if completed < 20 || covered*10 < completed*8 {
		t.Errorf("%d of the %d checkpoints completed after the first sample carry a backpressure value, want at least 80 %% (of 20 or more)", covered, completed)
	}
	t.Logf("first backpressure sample %v after the start; %d of the %d checkpoints completed after it with backpressure (%d from the nearest sample); %d metric samples, %d requests",
		time.UnixMilli(first).Sub(start).Round(100*time.Millisecond), covered, completed, nearest, res.MetricSamples, res.Requests)
}

// firstBackpressureValue asks Flink every 250 ms, for up to a minute, for the backpressure of
// the job's first vertex (its source) and sends when it first answered a value (zero: never).
func firstBackpressureValue(t *testing.T, restURL, jid string) <-chan time.Time {
	t.Helper()
	out := make(chan time.Time, 1)
	get := func(path string, v any) error {
		resp, err := http.Get(restURL + path)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("%s: %s", path, resp.Status)
		}
		return json.NewDecoder(resp.Body).Decode(v)
	}
	go func() {
		var at time.Time
		defer func() { out <- at }()
		var job struct{ Vertices []struct{ ID string } }
		for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(250 * time.Millisecond) {
			if len(job.Vertices) == 0 {
				if get("/jobs/"+jid, &job) != nil || len(job.Vertices) == 0 {
					continue
				}
			}
			var m []struct{ Max *float64 }
			path := "/jobs/" + jid + "/vertices/" + job.Vertices[0].ID + "/subtasks/metrics?get=backPressuredTimeMsPerSecond&agg=max"
			if get(path, &m) == nil && len(m) > 0 && m[0].Max != nil {
				at = time.Now()
				return
			}
		}
	}()
	return out
}

// TestRecordEndsCleanWithTheLastCheckpoints records a real job checkpointing
// every second for 12 s and checks, against Flink read directly, that the
// file holds every checkpoint that completed before the recording's duration
// ended — those of its last seconds too, which only the final poll sees (the
// collector polls every third of the 10 s history) — each with all its
// details, and a reconciliation record with nothing unaccounted.
func TestRecordEndsCleanWithTheLastCheckpoints(t *testing.T) {
	env := flinkOn(t, trackFlinkB)
	jid := env.Submit(t, "--name", "ce-record-final", "--interval-ms", "1000", "--rate", "100")
	obs := observeFlink(t, env.RESTURL, jid)
	out := filepath.Join(t.TempDir(), "final.ckpt.gz")
	const d = 12 * time.Second
	// Record starts its clock a little after this: endMs is at or before the
	// moment its duration ended.
	began := time.Now()
	endMs := began.Add(d).UnixMilli()
	res, err := Record(context.Background(), RecordOptions{
		Cluster: model.Cluster{Name: "lab", Engine: model.EngineFlink, BaseURL: env.RESTURL},
		JobID:   jid, Duration: d, Out: out, JobsEvery: time.Second,
	})
	took := time.Since(began)
	if err != nil {
		t.Fatal(err)
	}
	// Flink's REST API caches checkpoint statistics for up to 3 s
	// (rest.cache.checkpoint-statistics.timeout): the observer's view covers
	// the end of the recording once it lists a checkpoint triggered after it.
	waitFor(t, 15*time.Second, "Flink to list a checkpoint triggered after the recording ended", func() bool {
		obs.mu.Lock()
		defer obs.mu.Unlock()
		for _, c := range obs.seen {
			if c.TriggerMs > endMs {
				return true
			}
		}
		return false
	})
	seen, _ := obs.final(t)

	inFile := map[int64]model.Checkpoint{}
	var recons []model.Reconciliation
	var configs []model.JobConfig
	_, err = capture.ReadFile(context.Background(), out, capture.DefaultLimits(), capture.Visitor{
		JobConfig: func(c model.JobConfig) error {
			configs = append(configs, c)
			return nil
		},
		Checkpoint: func(c *model.Checkpoint) error {
			if _, dup := inFile[c.ID]; dup {
				t.Errorf("checkpoint %d twice in the file", c.ID)
			}
			inFile[c.ID] = *c
			return nil
		},
		Reconciliation: func(r model.Reconciliation) error {
			recons = append(recons, r)
			return nil
		},
	})
	if err != nil {
		t.Fatalf("read the capture back: %v", err)
	}

	var want, last3s []int64
	for id, c := range seen {
		if c.Status == model.StatusCompleted && c.LatestAckMs > 0 && c.LatestAckMs <= endMs {
			want = append(want, id)
			if c.LatestAckMs > endMs-3000 {
				last3s = append(last3s, id)
			}
		}
	}
	slices.Sort(want)
	slices.Sort(last3s)
	if len(want) < 8 || len(last3s) < 2 {
		t.Fatalf("Flink completed %v before the recording ended (%v in its last 3 s): want a dozen", want, last3s)
	}
	for _, id := range want {
		c, ok := inFile[id]
		switch {
		case !ok:
			t.Errorf("checkpoint %d (completed %d ms before the recording ended) is not in the file", id, endMs-seen[id].LatestAckMs)
		case c.Status != model.StatusCompleted || c.DetailLoss != "" || len(c.Tasks) != 6:
			t.Errorf("checkpoint %d in the file: %s with %d vertices, detail loss %q; want completed with all 6", id, c.Status, len(c.Tasks), c.DetailLoss)
		default:
			for _, ts := range c.Tasks {
				if len(ts.Subtasks) == 0 || len(ts.Subtasks) != ts.NumSubtasks || ts.Missing {
					t.Errorf("checkpoint %d vertex %s: %d of %d subtasks (missing %v)", id, ts.VertexID, len(ts.Subtasks), ts.NumSubtasks, ts.Missing)
				}
			}
		}
	}
	if len(recons) != 1 {
		t.Fatalf("%d reconciliation records in the file, want 1: %+v", len(recons), recons)
	}
	// The job's configuration, once (its settings did not change).
	if len(configs) != 1 || configs[0].JobID != jid || configs[0].IntervalMs == nil || *configs[0].IntervalMs != 1000 ||
		configs[0].StateBackend != "hashmap" {
		t.Errorf("job configurations in the file: %+v; want one, interval 1000 ms, hashmap", configs)
	}
	r := recons[0]
	if r.JobID != jid || r.Unaccounted != 0 || r.Stored+r.Gaps != r.IDs || r.LatestID < want[len(want)-1] {
		t.Errorf("reconciliation in the file: %+v; want the job's, nothing unaccounted, up to checkpoint %d at least", r, want[len(want)-1])
	}
	// What the file holds is what the reconciliation says was stored (a
	// checkpoint still running at the end is accounted for, not written).
	if int64(len(inFile)) > r.Stored || res.Checkpoints != int64(len(inFile)) {
		t.Errorf("the file holds %d checkpoints, the result says %d, the reconciliation %d stored", len(inFile), res.Checkpoints, r.Stored)
	}
	t.Logf("recorded %v (Record returned after %v): %d checkpoints in the file, all %d completed before the end (%d in its last 3 s: %v) with their details; reconciliation %d ids, %d stored, %d gaps, %d unaccounted, %d requests",
		d, took.Round(time.Millisecond), len(inFile), len(want), len(last3s), last3s, r.IDs, r.Stored, r.Gaps, r.Unaccounted, res.Requests)
}
