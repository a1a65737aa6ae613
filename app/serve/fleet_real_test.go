package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"checkpoint-explorer/app"
	"checkpoint-explorer/backend/analyze"
	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/testenv/envscript"
	"checkpoint-explorer/testenv/flinkenv"
	"checkpoint-explorer/testenv/seatunnelenv"
)

// fleetJob names one row the browser script looks for.
type fleetJob struct {
	Cluster string `json:"cluster"`
	ID      string `json:"id"`
	Name    string `json:"name"`
	// First is the first run's id, for the resubmitted job.
	First string `json:"first,omitempty"`
}

// TestFleetOnRealClusters is the fleet end to end (#31): `serve` over three real clusters — Flink
// 2.3, Flink 1.20 and a SeaTunnel node — and a capture, in Chromium (frontend/e2e-real/fleet.real.mjs,
// in English with en-GB dates, then in Chinese). On 2.3 a healthy knob job and one whose
// checkpoints begin to fail once the page is open: the script makes every checkpoint from a few
// ids on fail at its trigger (a file where Flink makes the checkpoint's directory: "IO-problem
// detected"), and measures how long after the collector's poll stored the first failure (and
// after Flink reported it) the row rose to the top. On 1.20 a job stopped with a savepoint and resubmitted from it under the same name: one
// row, two runs, which the user splits into two rows from the runs menu and joins again. The script also filters, sorts and opens a job with the keyboard; screenshots go
// to test-results/fleet-real-*.png.
func TestFleetOnRealClusters(t *testing.T) {
	begin := time.Now()
	f23 := flinkenv.Ensure(t)
	f120 := flinkenv.EnsureVersion(t, "1.20.5")
	zetaEnv := seatunnelenv.Ensure(t)
	if f23.RunDir == "" {
		t.Skip("the Flink 2.3 cluster is external (FLINK_REST_URL): the test needs its checkpoint directory to make checkpoints fail")
	}
	root, err := envscript.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	assets := distSnapshot(t, root)
	t.Logf("clusters up after %v", time.Since(begin).Round(time.Second))

	// Names of this run only: other tests' jobs on the shared clusters are in the fleet too.
	prefix := fmt.Sprintf("ce-fleet-%x", time.Now().UnixMilli())
	healthy := f23.Submit(t, "--name", prefix+"-healthy", "--interval-ms", "1000")
	failing := f23.Submit(t, "--name", prefix+"-failing", "--interval-ms", "1000")
	firstRun := f120.Submit(t, "--name", prefix+"-resubmitted", "--interval-ms", "1000")
	zeta := seatunnelenv.SubmitJob(t, zetaEnv, "SEATUNNEL_JOB_NAME="+prefix+"-zeta")
	t.Logf("jobs submitted after %v", time.Since(begin).Round(time.Second))

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	logPath := filepath.Join(t.TempDir(), "app.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := app.NewService(ctx, app.Options{DataDir: t.TempDir(), NoSample: true, Logger: slog.New(slog.NewTextHandler(logFile, nil))})
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		svc.Close()
		logFile.Close()
		if t.Failed() {
			b, _ := os.ReadFile(logPath)
			t.Logf("the app's log, its end:\n%s", envscript.Tail(string(b), 60))
		}
	})
	a := svc.App()
	for _, c := range []app.ClusterInput{
		{Name: "flink-2.3", Engine: model.EngineFlink, BaseURL: f23.RESTURL},
		{Name: "flink-1.20", Engine: model.EngineFlink, BaseURL: f120.RESTURL},
		{Name: "seatunnel", Engine: model.EngineSeaTunnel, BaseURL: zetaEnv.RESTURL},
	} {
		if err := a.SaveCluster(c); err != nil {
			t.Fatalf("add cluster %s: %v", c.Name, err)
		}
	}
	if _, err := a.OpenCapture(filepath.Join(root, "app", "sample", "flink120-mixed.ckpt.gz")); err != nil {
		t.Fatal(err)
	}

	// The first run is collected while it runs, then stopped with a savepoint and resubmitted
	// from it under its name.
	waitFleet(t, a, 3*time.Minute, "the first 1.20 run's checkpoints", func(f analyze.Fleet) (bool, string) {
		r := fleetRow(f, firstRun)
		return r != nil && r.Completed >= 3, rowState(r)
	})
	savepoint := f120.StopWithSavepoint(t, firstRun, 3*time.Minute)
	// The finished run cannot be cancelled (HTTP 409), so cancel.sh leaves its checkpoint
	// directory; the savepoint is this test's too. Both go once the second run is cancelled.
	t.Cleanup(func() {
		if f120.RunDir == "" {
			return
		}
		os.RemoveAll(filepath.Join(f120.RunDir, "checkpoints", firstRun))
		if p, ok := strings.CutPrefix(savepoint, "file:"); ok && strings.HasPrefix(p, f120.RunDir+"/savepoints/") {
			os.RemoveAll(p)
		}
	})
	second := f120.Submit(t, "--restore", savepoint, "--name", prefix+"-resubmitted", "--interval-ms", "1000")
	t.Logf("1.20 job resubmitted from %s after %v", savepoint, time.Since(begin).Round(time.Second))

	jobs := map[string]fleetJob{
		"healthy":     {Cluster: "flink-2.3", ID: healthy, Name: prefix + "-healthy"},
		"failing":     {Cluster: "flink-2.3", ID: failing, Name: prefix + "-failing"},
		"resubmitted": {Cluster: "flink-1.20", ID: second, Name: prefix + "-resubmitted", First: firstRun},
		"zeta":        {Cluster: "seatunnel", ID: zeta, Name: prefix + "-zeta"},
	}
	// Every row there before the browser looks: the capture's, the jobs' with checkpoints, the
	// resubmitted job as one row of two runs, and the job to fail still healthy.
	waitFleet(t, a, 3*time.Minute, "every row in the fleet", func(f analyze.Fleet) (bool, string) {
		var miss []string
		for _, k := range []string{"healthy", "failing", "resubmitted", "zeta"} {
			if r := fleetRow(f, jobs[k].ID); r == nil || r.Completed < 2 {
				miss = append(miss, k+" "+rowState(r))
			}
		}
		if r := fleetRow(f, second); r == nil || len(r.Runs) != 2 {
			miss = append(miss, "two runs")
		}
		if r := fleetRow(f, firstRun); r != nil {
			miss = append(miss, "the first run as a row of its own")
		}
		if r := fleetRow(f, failing); r != nil && r.Attention == analyze.AttentionFailing {
			miss = append(miss, "the job to fail not failing yet")
		}
		capture := false
		for _, r := range f.Jobs {
			if strings.HasPrefix(r.Cluster, "capture: ") {
				jobs["capture"] = fleetJob{Cluster: r.Cluster, ID: r.JobID, Name: r.Name}
				capture = true
			}
		}
		if !capture {
			miss = append(miss, "the capture")
		}
		return len(miss) == 0, "missing: " + strings.Join(miss, ", ")
	})
	f, err := a.Fleet(app.FleetRequest{WindowMs: time.Hour.Milliseconds()})
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range f.Jobs {
		t.Logf("row %d: %s %s %q %s %s, %d completed, %d failed (%q), %d runs", i, r.Cluster, r.Engine, r.Name, r.JobID, r.Attention, r.Completed, r.Failed, r.LatestFailure, len(r.Runs))
	}

	// serveApp (abuse_test.go): on loopback with the test token, stopped when the test ends.
	ceURL := serveApp(t, svc, Options{Assets: os.DirFS(assets)}, nil).url + "/?token=" + abuseToken
	t.Logf("serving after %v; the browser begins", time.Since(begin).Round(time.Second))

	jobsJSON, _ := json.Marshal(jobs)
	browse := time.Now()
	nodeCtx, stop := context.WithTimeout(ctx, 15*time.Minute)
	defer stop()
	cmd := exec.CommandContext(nodeCtx, "node", "--test", "--test-reporter=spec", "e2e-real/fleet.real.mjs")
	cmd.Dir = filepath.Join(root, "frontend")
	cmd.Env = append(os.Environ(),
		"CE_URL="+ceURL,
		"CE_FLEET_PREFIX="+prefix,
		"CE_FLEET_JOBS="+string(jobsJSON),
		"CE_FLINK23_URL="+f23.RESTURL,
		"CE_FAIL_DIR="+filepath.Join(f23.RunDir, "checkpoints", failing),
	)
	out, err := cmd.CombinedOutput()
	t.Logf("frontend/e2e-real/fleet.real.mjs:\n%s", out)
	if err != nil {
		t.Errorf("frontend/e2e-real/fleet.real.mjs: %v", err)
	}
	t.Logf("browser %v; the whole test %v", time.Since(browse).Round(time.Second), time.Since(begin).Round(time.Second))
}

// distSnapshot copies frontend/dist to a directory of the test's: a build running meanwhile
// (another test, a helper) replaces the hashed assets the served index.html names.
func distSnapshot(t *testing.T, root string) string {
	t.Helper()
	dist := filepath.Join(root, "frontend", "dist")
	if _, err := os.Stat(filepath.Join(dist, "index.html")); err != nil {
		t.Fatalf("frontend/dist is not built (make frontend): %v", err)
	}
	dir := filepath.Join(t.TempDir(), "dist")
	if err := os.CopyFS(dir, os.DirFS(dist)); err != nil {
		t.Fatalf("copy frontend/dist: %v", err)
	}
	return dir
}

// waitFleet asks the app for the fleet (the last hour) until ok holds, failing t with what the
// last answer was after d.
func waitFleet(t *testing.T, a *app.App, d time.Duration, what string, ok func(analyze.Fleet) (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(d)
	var last string
	for {
		f, err := a.Fleet(app.FleetRequest{WindowMs: time.Hour.Milliseconds()})
		if err != nil {
			last = err.Error()
		} else {
			var done bool
			if done, last = ok(f); done {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not after %v (%s)", what, d, last)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// fleetRow is the row of job id, or nil.
func fleetRow(f analyze.Fleet, id string) *analyze.FleetJob {
	for i := range f.Jobs {
		if f.Jobs[i].JobID == id {
			return &f.Jobs[i]
		}
	}
	return nil
}

func rowState(r *analyze.FleetJob) string {
	if r == nil {
		return "no row"
	}
	return fmt.Sprintf("%s, %d completed", r.Attention, r.Completed)
}
