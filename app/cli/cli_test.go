package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"checkpoint-explorer/backend/capture"
	"checkpoint-explorer/backend/capture/capturetest"
	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/model/modeltest"
	"checkpoint-explorer/backend/store"
)

// runCLI runs the command line in-process, as a user would type it.
func runCLI(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	err := Run(context.Background(), args, &out, &errb, Options{})
	return out.String(), errb.String(), err
}

// The report command on the bundled captures, flags after the file as users
// type them, answers "why" for the phase-2.3 sample and asks which job for a
// capture holding several.
func TestReportCommandOnBundledCaptures(t *testing.T) {
	sample := filepath.Join("..", "sample", "phase-2.3-checkpoint-metrics.json")
	out, stderr, err := runCLI(t, "report", sample, "--format", "json", "--data-dir", t.TempDir())
	if err != nil {
		t.Fatalf("report: %v\n%s", err, stderr)
	}
	var r struct {
		Checkpoints []struct{ ID int64 } `json:"checkpoints"`
		Correlation struct{ Verdict, Basis, Reason string }
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("report JSON: %v\n%s", err, out)
	}
	if len(r.Checkpoints) != 7 || r.Correlation.Verdict != "backpressure" || r.Correlation.Basis != "slow_checkpoints" ||
		!strings.Contains(r.Correlation.Reason, "checkpoint 28") {
		t.Errorf("report = %d checkpoints, %+v", len(r.Checkpoints), r.Correlation)
	}

	out, _, err = runCLI(t, "report", sample, "--data-dir", t.TempDir())
	if err != nil || !strings.Contains(out, "Why: backpressure (from the slow checkpoints' phases; too few checkpoints to correlate)") {
		t.Errorf("text report (%v):\n%s", err, out)
	}

	knobs := filepath.Join("..", "sample", "flink-knobs.ckpt.gz")
	_, _, err = runCLI(t, "report", knobs, "--data-dir", t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "holds 6 jobs; choose one with --job") {
		t.Fatalf("a capture of 6 jobs without --job: %v", err)
	}
	id := strings.Fields(strings.SplitN(err.Error(), "(", 2)[1])[0]
	id = strings.Trim(id, ",)")
	out, stderr, err = runCLI(t, "report", knobs, "--job", id, "--format", "markdown", "--data-dir", t.TempDir())
	if err != nil || !strings.Contains(out, "- Why: **") {
		t.Errorf("markdown report of job %s (%v): %s\n%s", id, err, out, stderr)
	}
}

func TestClustersAddKeepsTheRequestBudget(t *testing.T) {
	dir := t.TempDir()
	if _, stderr, err := runCLI(t, "clusters", "add", "--name", "slow", "--url", "http://127.0.0.1:1", "--test=false",
		"--requests-per-second", "2.5", "--max-in-flight", "2", "--data-dir", dir); err != nil {
		t.Fatalf("clusters add: %v\n%s", err, stderr)
	}
	if _, stderr, err := runCLI(t, "clusters", "add", "--name", "plain", "--url", "http://127.0.0.1:2", "--test=false", "--data-dir", dir); err != nil {
		t.Fatalf("clusters add: %v\n%s", err, stderr)
	}
	out, _, err := runCLI(t, "clusters", "list", "--data-dir", dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"BUDGET", "2.5/s, 2 in flight", "20/s, 4 in flight"} {
		if !strings.Contains(out, want) {
			t.Errorf("clusters list lacks %q:\n%s", want, out)
		}
	}
	_, _, err = runCLI(t, "clusters", "add", "--name", "bad", "--url", "http://127.0.0.1:3", "--test=false",
		"--requests-per-second", "0.01", "--data-dir", dir)
	if err == nil || !strings.Contains(err.Error(), "requests per second 0.01: give 0.1 to 1000") {
		t.Errorf("a budget of 0.01/s: %v", err)
	}
}

// A capture's reconciliation reaches the report: the text names the ids
// stored, the gaps and what the engine counted; JSON carries the record;
// ids neither stored nor gapped count as missed.
func TestReportCommandShowsTheReconciliation(t *testing.T) {
	const job = "0123456789abcdef0123456789abcdef"
	path := capturetest.Write(t, filepath.Join(t.TempDir(), "rec.ckpt.gz"), func(w *capture.Writer) error {
		err := errors.Join(w.Cluster(model.Cluster{Name: "rec", Engine: model.EngineFlink, BaseURL: "http://127.0.0.1:8081"}),
			w.Job(model.Job{Cluster: "rec", ID: job, Name: "reconciled", Engine: model.EngineFlink, State: "RUNNING"}))
		for id := int64(1); id <= 8; id++ {
			if id == 4 || id == 5 {
				continue
			}
			err = errors.Join(err, w.Checkpoint(&model.Checkpoint{Cluster: "rec", JobID: job, ID: id, Status: model.StatusCompleted,
				TriggerMs: 1_780_000_000_000 + id*1000, EndToEndMs: 50, Kind: model.KindCheckpoint}))
		}
		return errors.Join(err, w.Gap(model.Gap{Cluster: "rec", JobID: job, FromID: 4, ToID: 4, DetectedMs: 1_780_000_009_000}),
			w.Reconciliation(model.Reconciliation{Cluster: "rec", JobID: job, AtMs: 1_780_000_010_000, Polls: 9, FailedPolls: 2,
				FirstID: 1, LatestID: 8, IDs: 8, Stored: 6, Gaps: 1, Unaccounted: 1, EngineCounted: 10, WithoutID: 2,
				Engine: &model.EngineCounts{Triggered: 10, Completed: 6, Failed: 4}}))
	})

	out, stderr, err := runCLI(t, "report", path, "--data-dir", t.TempDir())
	if err != nil {
		t.Fatalf("report: %v\n%s", err, stderr)
	}
	for _, want := range []string{
		"6 checkpoints from", "2 missed", // the gap and the unaccounted id
		"Reconciled: ids 1–8: 6 stored, 1 gaps, 1 unaccounted; the engine counted 10 (2 failed before they got an id)",
		"6 completed, 4 failed, 0 in progress, 0 restored", "2 of 11 list polls failed",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text report lacks %q:\n%s", want, out)
		}
	}
	out, _, err = runCLI(t, "report", path, "--format", "json", "--data-dir", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Summary        struct{ Missed int64 }
		Reconciliation *model.Reconciliation `json:"reconciliation"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if r.Summary.Missed != 2 || r.Reconciliation == nil || r.Reconciliation.Unaccounted != 1 || r.Reconciliation.EngineCounted != 10 {
		t.Errorf("JSON summary missed %d, reconciliation %+v", r.Summary.Missed, r.Reconciliation)
	}
}

// The text report names where barriers queued, from the bundled real
// recording: behind the Source at Slow Map's input for the slow-operator job,
// the sync snapshot for the slow-snapshot job.
func TestReportNamesWhereBarriersQueued(t *testing.T) {
	knobs := filepath.Join("..", "sample", "flink-knobs.ckpt.gz")
	for _, tc := range []struct{ job, want string }{
		{"1ac863d7989ca7c731d1817c06eb92c1", "barriers queued at the input of Slow Map (behind Source: Numbers, backpressured 100 %; Slow Map busy 100 %)"},
		{"1a7abe23917e55883b1ebbc8b7c0979f", "— 1.2 s: sync in Slow Snapshot subtask 0"},
	} {
		out, stderr, err := runCLI(t, "report", knobs, "--job", tc.job, "--data-dir", t.TempDir())
		if err != nil {
			t.Fatalf("report %s: %v\n%s", tc.job, err, stderr)
		}
		var slowest string
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, "Slowest:") {
				slowest = l
			}
		}
		if !strings.Contains(slowest, tc.want) {
			t.Errorf("job %s: %q lacks %q", tc.job, slowest, tc.want)
		}
	}
}

// Setting retention limits from the CLI applies the new limits, not the saved
// ones first: a cache of 50 checkpoints under a saved limit of 10, raised to
// 40, keeps 40.
func TestClustersRetentionAppliesOnlyTheNewLimits(t *testing.T) {
	dir := t.TempDir()
	cfg := `{"clusters": [], "retention": {"max_checkpoints_per_job": 10, "max_age_ms": 0, "max_bytes": 0}}`
	if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	s, err := store.Open(ctx, filepath.Join(dir, "cache.db"), store.Retention{})
	if err != nil {
		t.Fatal(err)
	}
	err = s.Bulk(ctx, func(w store.Writer) error {
		for i := range 50 {
			c := modeltest.Checkpoint("c", "j", int64(i+1), time.Now().UnixMilli()-int64(50-i)*1000, 1, 1)
			if err := w.PutCheckpoint(&c); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	out, stderr, err := runCLI(t, "clusters", "retention", "--max-checkpoints", "40", "--data-dir", dir)
	if err != nil {
		t.Fatalf("clusters retention: %v\n%s", err, stderr)
	}
	if !strings.Contains(out, "max checkpoints per job: 40") || !strings.Contains(out, ", 40 checkpoints") {
		t.Errorf("clusters retention printed:\n%s\nwant the limit 40 and 40 checkpoints kept", out)
	}
}

// export --format writes the other tools' formats from the cache, and a
// file of OTLP spans imports like a capture.
func TestExportFormats(t *testing.T) {
	dir := t.TempDir()
	knobs := filepath.Join("..", "sample", "flink-knobs.ckpt.gz")
	if _, stderr, err := runCLI(t, "--data-dir", dir, "import", knobs); err != nil {
		t.Fatalf("import: %v\n%s", err, stderr)
	}
	st, err := store.Open(context.Background(), filepath.Join(dir, "cache.db"), store.DefaultRetention())
	if err != nil {
		t.Fatal(err)
	}
	jobs, err := st.Jobs(context.Background(), "")
	st.Close()
	if err != nil || len(jobs) == 0 {
		t.Fatalf("imported jobs: %v, %v", jobs, err)
	}
	job := jobs[0].ID
	for _, tc := range []struct {
		args   []string
		starts string
	}{
		{[]string{"--format", "csv"}, "cluster,job_id,pipeline,checkpoint_id,"},
		{[]string{"--format", "csv", "--per-subtask"}, "cluster,job_id,pipeline,checkpoint_id,vertex_id,subtask,"},
		{[]string{"--format", "otlp"}, `{"resourceSpans":`},
		{[]string{"--format", "perfetto"}, `{"displayTimeUnit":"ms"`},
	} {
		file := filepath.Join(dir, "out-"+strings.Join(tc.args, ""))
		args := append([]string{"--data-dir", dir, "export", "--cluster", jobs[0].Cluster, "--job", job, "--out", file}, tc.args...)
		if _, stderr, err := runCLI(t, args...); err != nil {
			t.Fatalf("%v: %v\n%s", tc.args, err, stderr)
		}
		b, err := os.ReadFile(file)
		if err != nil || !strings.HasPrefix(string(b), tc.starts) {
			t.Fatalf("%v: the file starts %q, want %q (%v)", tc.args, string(b)[:min(60, len(b))], tc.starts, err)
		}
	}
	if _, stderr, err := runCLI(t, "--data-dir", dir, "import", filepath.Join(dir, "out---formatotlp")); err != nil {
		t.Fatalf("import of the OTLP export: %v\n%s", err, stderr)
	}
}

// capture --traces-url: what it needs is said before anything is asked of Jaeger.
func TestCaptureFromTracesNeedsItsFlags(t *testing.T) {
	out := filepath.Join(t.TempDir(), "t.ckpt.gz")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--traces-url", "http://127.0.0.1:9", "--job", "0123456789abcdef0123456789abcdef", "--out", out}, "--traces-service is required"},
		{[]string{"--traces-url", "http://127.0.0.1:9", "--traces-service", "f", "--out", out}, "--job and --out are required"},
		{[]string{"--traces-url", "http://127.0.0.1:9", "--traces-service", "f", "--new-jobs", "--out", out}, "--new-jobs is for live recording"},
		{[]string{"--traces-url", "http://127.0.0.1:9", "--url", "http://127.0.0.1:8081", "--traces-service", "f", "--job", "x", "--out", out}, "not both"},
		{[]string{"--traces-url", "http://127.0.0.1:9", "--traces-service", "f", "--job", "0123456789abcdef0123456789abcdef", "--since", "soon", "--out", out}, `--since "soon"`},
		{[]string{"--traces-url", "http://127.0.0.1:9", "--traces-service", "f", "--engine", "seatunnel", "--job", "x", "--out", out}, "--engine must be flink"},
	} {
		_, _, err := runCLI(t, append([]string{"capture"}, tc.args...)...)
		if err == nil || !strings.Contains(err.Error(), tc.want) || ExitCode(err) != 2 {
			t.Errorf("capture %v: %v (exit %d), want a usage error saying %q", tc.args, err, ExitCode(err), tc.want)
		}
	}
	// A job id that is not Flink's, and a Jaeger that does not answer: one error line each, no file.
	_, _, err := runCLI(t, "capture", "--traces-url", "http://127.0.0.1:9", "--traces-service", "f", "--job", "nope", "--out", out)
	if err == nil || !strings.Contains(err.Error(), "32 hexadecimal digits") {
		t.Errorf("a bad job id: %v", err)
	}
	_, _, err = runCLI(t, "capture", "--traces-url", "http://127.0.0.1:9", "--traces-service", "f", "--job", "0123456789abcdef0123456789abcdef", "--since", "1h", "--out", out)
	if err == nil || !strings.Contains(err.Error(), "traces from http://127.0.0.1:9") {
		t.Errorf("a Jaeger that does not answer: %v", err)
	}
	if _, statErr := os.Stat(out); !os.IsNotExist(statErr) {
		t.Errorf("a failed capture left %s: %v", out, statErr)
	}
}

// clusters add --traces-url/--traces-service are saved, listed and checked.
func TestClustersAddTraces(t *testing.T) {
	dir := t.TempDir()
	_, stderr, err := runCLI(t, "clusters", "add", "--name", "prod", "--url", "http://127.0.0.1:8081", "--test=false",
		"--traces-url", "http://127.0.0.1:16686", "--traces-service", "flink-prod", "--data-dir", dir)
	if err != nil {
		t.Fatalf("clusters add: %v\n%s", err, stderr)
	}
	out, _, err := runCLI(t, "clusters", "list", "--data-dir", dir)
	if err != nil || !strings.Contains(out, "TRACES") || !strings.Contains(out, "http://127.0.0.1:16686 (flink-prod)") {
		t.Errorf("clusters list (%v):\n%s", err, out)
	}
	out, _, err = runCLI(t, "clusters", "list", "--json", "--data-dir", dir)
	if err != nil || !strings.Contains(out, `"traces_url": "http://127.0.0.1:16686"`) || !strings.Contains(out, `"traces_service": "flink-prod"`) {
		t.Errorf("clusters list --json (%v):\n%s", err, out)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--traces-url", "http://127.0.0.1:16686"}, "give the service name"},
		{[]string{"--traces-url", "jaeger:16686", "--traces-service", "f"}, "give an http:// or https:// address"},
		{[]string{"--engine", "seatunnel", "--traces-url", "http://127.0.0.1:16686", "--traces-service", "f"}, "for Flink's checkpoint spans"},
	} {
		args := append([]string{"clusters", "add", "--name", "bad", "--url", "http://127.0.0.1:8081", "--test=false", "--data-dir", dir}, tc.args...)
		if _, _, err := runCLI(t, args...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("clusters add %v: %v, want an error saying %q", tc.args, err, tc.want)
		}
	}
}

// Two captures of one job id imported one after the other: the second is a
// source of its own and says so (it replaced the first's checkpoints before);
// --merge adds a file to the source of its name.
func TestImportKeepsACaptureOfTheSameJobApart(t *testing.T) {
	dir := t.TempDir()
	knobs := filepath.Join("..", "sample", "flink-knobs.ckpt.gz")
	type jobLine struct {
		Cluster     string `json:"cluster"`
		ID          string `json:"id"`
		Checkpoints int    `json:"checkpoints"`
	}
	jobs := func() map[string]int {
		out, stderr, err := runCLI(t, "--data-dir", dir, "jobs", "--format", "json")
		if err != nil {
			t.Fatalf("jobs: %v\n%s", err, stderr)
		}
		var got struct{ Jobs []jobLine }
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("jobs --format json: %v\n%s", err, out)
		}
		n := map[string]int{}
		for _, j := range got.Jobs {
			n[j.Cluster+"/"+j.ID] = j.Checkpoints
		}
		return n
	}
	if _, stderr, err := runCLI(t, "--data-dir", dir, "import", knobs); err != nil {
		t.Fatalf("import: %v\n%s", err, stderr)
	}
	first := jobs()
	if len(first) == 0 {
		t.Fatal("no job imported")
	}
	// A second capture of the same job: the first source's job exported anew.
	var src, jid string
	for k := range first {
		src, jid, _ = strings.Cut(k, "/")
		break
	}
	part := filepath.Join(dir, "part.ckpt.gz")
	if _, stderr, err := runCLI(t, "--data-dir", dir, "export", "--cluster", src, "--job", jid, "--out", part); err != nil {
		t.Fatalf("export: %v\n%s", err, stderr)
	}
	out, stderr, err := runCLI(t, "--data-dir", dir, "import", part)
	if err != nil {
		t.Fatalf("second import: %v\n%s", err, stderr)
	}
	apart := fmt.Sprintf("%s (2)", src)
	if want := fmt.Sprintf("the cache already held a source of that name with job %s: this file is the source %q, kept apart from %q (--merge adds to it)", jid, apart, src); !strings.Contains(out, want) {
		t.Errorf("second import said:\n%s\nwant it to say:\n%s", out, want)
	}
	second := jobs()
	for k, n := range first {
		if second[k] != n {
			t.Errorf("%s: %d checkpoints after the second import, %d before", k, second[k], n)
		}
	}
	if second[apart+"/"+jid] != first[src+"/"+jid] {
		t.Errorf("the second capture's source %q holds %d checkpoints of %s, want %d", apart, second[apart+"/"+jid], jid, first[src+"/"+jid])
	}
	out, stderr, err = runCLI(t, "--data-dir", dir, "import", "--merge", part)
	if err != nil || strings.Contains(out, "kept apart") {
		t.Fatalf("import --merge: %v\n%s%s", err, out, stderr)
	}
	if third := jobs(); len(third) != len(second) {
		t.Errorf("--merge made sources %v, want the ones before %v", third, second)
	}
}
