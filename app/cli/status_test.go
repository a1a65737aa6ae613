package cli

import (
	"encoding/json"
	"errors"
	"maps"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"checkpoint-explorer/backend/capture"
	"checkpoint-explorer/backend/capture/capturetest"
	"checkpoint-explorer/backend/model"
)

const (
	fastJob    = "fa57fa57fa57fa57fa57fa57fa57fa57"
	failingJob = "fa11fa11fa11fa11fa11fa11fa11fa11"
)

// fleetCapture writes a capture of a job whose 20 checkpoints a minute apart
// took 40 ms each and, with failing, a job whose last three expired.
func fleetCapture(t *testing.T, failing bool) string {
	t.Helper()
	jobs := map[string]string{fastJob: "fast"}
	if failing {
		jobs[failingJob] = "failing"
	}
	return capturetest.Write(t, filepath.Join(t.TempDir(), "fleet.ckpt.gz"), func(w *capture.Writer) error {
		err := w.Cluster(model.Cluster{Name: "fleet", Engine: model.EngineFlink, BaseURL: "http://127.0.0.1:8081"})
		for id, name := range jobs {
			err = errors.Join(err, w.Job(model.Job{Cluster: "fleet", ID: id, Name: name, Engine: model.EngineFlink, State: "RUNNING"}))
			for i := int64(1); i <= 20; i++ {
				c := model.Checkpoint{Cluster: "fleet", JobID: id, ID: i, Kind: model.KindCheckpoint, Status: model.StatusCompleted,
					TriggerMs: 1_780_000_000_000 + i*60_000, EndToEndMs: 40}
				c.CompletionMs, c.LatestAckMs = c.TriggerMs+40, c.TriggerMs+40
				if id == failingJob && i > 17 {
					c.Status, c.CompletionMs, c.LatestAckMs, c.EndToEndMs = model.StatusFailed, 0, 0, 600_000
					c.FailureMs, c.FailureMessage = c.TriggerMs+600_000, "Checkpoint expired before completing."
				}
				err = errors.Join(err, w.Checkpoint(&c))
			}
		}
		return err
	})
}

// importedFleet is a data dir holding fleetCapture(failing).
func importedFleet(t *testing.T, failing bool) string {
	t.Helper()
	dir := t.TempDir()
	if code, _, stderr := mainCLI(t, "import", fleetCapture(t, failing), "--quiet", "--data-dir", dir); code != 0 {
		t.Fatalf("import: exit %d: %s", code, stderr)
	}
	return dir
}

// `status` exits 3 when a job needs attention, with the table on stdout and
// nothing on stderr; 0 when every job is healthy.
func TestStatusExitsThreeWhenAJobNeedsAttention(t *testing.T) {
	dir := importedFleet(t, true)
	code, out, stderr := mainCLI(t, "status", "--data-dir", dir)
	if code != ExitAttention || stderr != "" {
		t.Errorf("status with a failing job: exit %d, stderr %q", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "Checkpoint health over the last 1h, 2 jobs: 1 failing, 1 healthy") ||
		!strings.HasPrefix(lines[1], "ATTENTION  SINCE") ||
		!strings.HasPrefix(lines[2], "failing ") || !strings.Contains(lines[2], failingJob) ||
		!strings.Contains(lines[2], "3 (3 expired)") || !strings.Contains(lines[2], "Checkpoint expired before completing.") ||
		!strings.HasPrefix(lines[3], "healthy ") || !strings.Contains(lines[3], fastJob) {
		t.Errorf("status:\n%s", out)
	}
	code, out, stderr = mainCLI(t, "status", "--format", "markdown", "--data-dir", dir)
	if code != ExitAttention || !strings.HasPrefix(out, "# Checkpoint health\n\nOver the last 1h, 2 jobs: 1 failing, 1 healthy.\n") ||
		!strings.Contains(out, "| **failing** | ") || !strings.Contains(out, "`"+failingJob+"`") {
		t.Errorf("status --format markdown: exit %d, stderr %q\n%s", code, stderr, out)
	}

	healthy := importedFleet(t, false)
	code, out, stderr = mainCLI(t, "status", "--data-dir", healthy)
	if code != ExitOK || stderr != "" || !strings.Contains(out, "1 jobs: 1 healthy") {
		t.Errorf("status with a healthy job: exit %d, stderr %q\n%s", code, stderr, out)
	}
	// Nothing cached: nothing needs attention.
	if code, out, _ := mainCLI(t, "status", "--data-dir", t.TempDir()); code != ExitOK || !strings.Contains(out, "No job is cached") {
		t.Errorf("status of an empty cache: exit %d\n%s", code, out)
	}
}

// `status --format json` is a contract (docs/fleet.md): {"window_ms",
// "jobs"}, each job with the fields by these names, the ones that
// can be unknown null.
func TestStatusJSONIsTheContract(t *testing.T) {
	dir := importedFleet(t, true)
	code, out, stderr := mainCLI(t, "status", "--format", "json", "--window", "30m", "--data-dir", dir)
	if code != ExitAttention {
		t.Fatalf("status --format json: exit %d: %s", code, stderr)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &top); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if keys := slices.Sorted(maps.Keys(top)); !reflect.DeepEqual(keys, []string{"jobs", "window_ms"}) {
		t.Errorf("top-level keys %v, want jobs and window_ms", keys)
	}
	if string(top["window_ms"]) != "1800000" {
		t.Errorf("window_ms %s, want 1800000", top["window_ms"])
	}
	var jobs []map[string]any
	if err := json.Unmarshal(top["jobs"], &jobs); err != nil || len(jobs) != 2 {
		t.Fatalf("jobs: %v\n%s", err, top["jobs"])
	}
	for _, j := range jobs {
		for _, k := range []string{"cluster", "engine", "job_id", "name", "state", "attention", "completed", "failed", "missed",
			"p50_ms", "p90_ms", "baseline_p90_ms", "since_ms", "latest_failure"} {
			if _, ok := j[k]; !ok {
				t.Errorf("job %v lacks %q", j["job_id"], k)
			}
		}
	}
	// In the window's order: the failing job first. Its last three
	// checkpoints expired (since the first of them, 18 minutes after the
	// first checkpoint); the fast one has no trouble. Neither has the 10
	// checkpoints of history a baseline needs: the window holds all of them.
	f, h := jobs[0], jobs[1]
	want := map[string]any{"job_id": failingJob, "name": "failing", "engine": "flink", "state": "RUNNING", "attention": "failing",
		"completed": 17.0, "failed": 3.0, "missed": 0.0, "p50_ms": 40.0, "p90_ms": 40.0, "baseline_p90_ms": nil,
		"since_ms": float64(1_780_000_000_000 + 18*60_000), "latest_failure": "Checkpoint expired before completing."}
	for k, v := range want {
		if f[k] != v {
			t.Errorf("failing job: %s = %v, want %v", k, f[k], v)
		}
	}
	want = map[string]any{"job_id": fastJob, "attention": "healthy", "completed": 20.0, "failed": 0.0, "since_ms": nil,
		"baseline_p90_ms": nil, "latest_failure": ""}
	for k, v := range want {
		if h[k] != v {
			t.Errorf("fast job: %s = %v, want %v", k, h[k], v)
		}
	}
	if c, _ := f["cluster"].(string); !strings.Contains(c, "fleet") || h["cluster"] != c {
		t.Errorf("clusters %v and %v, want the capture's", f["cluster"], h["cluster"])
	}
}

// `jobs` lists the cached jobs and their ids, the ids `report` takes; an
// unknown cluster is an error, a bad flag value a usage error.
func TestJobsListsTheIds(t *testing.T) {
	dir := importedFleet(t, true)
	code, out, stderr := mainCLI(t, "jobs", "--data-dir", dir)
	if code != 0 || !strings.HasPrefix(out, "CLUSTER ") || !strings.Contains(out, "CHECKPOINTS  NEWEST") {
		t.Fatalf("jobs: exit %d, stderr %q\n%s", code, stderr, out)
	}
	for _, id := range []string{fastJob, failingJob} {
		if !strings.Contains(out, id) {
			t.Errorf("jobs lacks %s:\n%s", id, out)
		}
	}
	code, out, _ = mainCLI(t, "jobs", "--format", "json", "--data-dir", dir)
	var v struct {
		Jobs []struct {
			Cluster, Engine, ID, Name, State string
			Checkpoints                      int
			NewestMs                         int64 `json:"newest_trigger_ms"`
		}
	}
	if err := json.Unmarshal([]byte(out), &v); code != 0 || err != nil || len(v.Jobs) != 2 {
		t.Fatalf("jobs --format json: exit %d, %v\n%s", code, err, out)
	}
	if j := v.Jobs[0]; j.Checkpoints != 20 || j.NewestMs != 1_780_000_000_000+20*60_000 || j.Engine != "flink" || j.State != "RUNNING" {
		t.Errorf("jobs --format json: %+v", j)
	}
	// The id `jobs` gave is what report takes; a fast job's verdict is healthy.
	code, out, stderr = mainCLI(t, "report", "--cluster", v.Jobs[0].Cluster, "--job", fastJob, "--data-dir", dir)
	if code != 0 || !strings.Contains(out, "Why: healthy — checkpoints are fast and regular: 20 completed") {
		t.Errorf("report of the fast job: exit %d, stderr %q\n%s", code, stderr, out)
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"jobs", "--cluster", "nope"}, ExitFailure, `jobs: no cluster or capture is named "nope"`},
		{[]string{"status", "--cluster", "nope"}, ExitFailure, `status: no cluster or capture is named "nope"`},
		{[]string{"jobs", "--format", "xml"}, ExitUsage, `jobs: --format "xml": choose text or json`},
		{[]string{"status", "--format", "xml"}, ExitUsage, `status: --format "xml": choose text, json or markdown`},
		{[]string{"status", "--window", "soon"}, ExitUsage, `status: --window "soon": give a duration`},
		{[]string{"status", "extra"}, ExitUsage, `status takes no arguments`},
	} {
		code, out, stderr := mainCLI(t, append(tc.args, "--data-dir", dir)...)
		if code != tc.code || out != "" || !strings.HasPrefix(stderr, "checkpoint-explorer: ") || !strings.Contains(stderr, tc.want) ||
			strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit %d and %q", tc.args, code, out, stderr, tc.code, tc.want)
		}
	}
}

// `jobs --split ID` makes a run a logical job of its own (status names it in
// split_job_id) and `--join ID` matches it again; either needs --cluster.
func TestJobsSplitsAndJoinsARun(t *testing.T) {
	dir := importedFleet(t, false)
	code, out, _ := mainCLI(t, "jobs", "--format", "json", "--data-dir", dir)
	var v struct{ Jobs []struct{ Cluster string } }
	if err := json.Unmarshal([]byte(out), &v); code != 0 || err != nil || len(v.Jobs) != 1 {
		t.Fatalf("jobs --format json: exit %d, %v\n%s", code, err, out)
	}
	cluster := v.Jobs[0].Cluster
	splitOf := func() string {
		t.Helper()
		_, out, _ := mainCLI(t, "status", "--format", "json", "--window", "87600h", "--data-dir", dir)
		var f struct {
			Jobs []struct {
				Split string `json:"split_job_id"`
			}
		}
		if err := json.Unmarshal([]byte(out), &f); err != nil || len(f.Jobs) != 1 {
			t.Fatalf("status --format json: %v\n%s", err, out)
		}
		return f.Jobs[0].Split
	}
	if code, out, stderr := mainCLI(t, "jobs", "--cluster", cluster, "--split", fastJob, "--data-dir", dir); code != 0 ||
		!strings.Contains(out, fastJob+" on "+cluster+" is a logical job of its own now") {
		t.Fatalf("jobs --split: exit %d, stderr %q\n%s", code, stderr, out)
	}
	if got := splitOf(); got != fastJob {
		t.Errorf("after --split: split_job_id %q, want %s", got, fastJob)
	}
	if code, out, stderr := mainCLI(t, "jobs", "--cluster", cluster, "--join", fastJob, "--data-dir", dir); code != 0 ||
		!strings.Contains(out, "matched with the earlier runs of its name again") {
		t.Fatalf("jobs --join: exit %d, stderr %q\n%s", code, stderr, out)
	}
	if got := splitOf(); got != "" {
		t.Errorf("after --join: split_job_id %q, want none", got)
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"jobs", "--split", fastJob}, ExitUsage, "with --cluster"},
		{[]string{"jobs", "--cluster", cluster, "--split", fastJob, "--join", fastJob}, ExitUsage, "one of them at a time"},
		{[]string{"jobs", "--cluster", cluster, "--split", "nope"}, ExitFailure, `the cache holds no job nope`},
	} {
		code, _, stderr := mainCLI(t, append(tc.args, "--data-dir", dir)...)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", tc.args, code, stderr, tc.code, tc.want)
		}
	}
}
