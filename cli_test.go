package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParseAnywhere(t *testing.T) {
	for _, tc := range []struct {
		args      []string
		wantPos   []string
		wantJob   string
		wantQuiet bool
	}{
		{[]string{"--job", "j", "file"}, []string{"file"}, "j", false},
		{[]string{"file", "--job", "j"}, []string{"file"}, "j", false},
		{[]string{"a", "--quiet", "b", "--job=j"}, []string{"a", "b"}, "j", true},
		{[]string{"a", "--", "--job", "x"}, []string{"a", "--job", "x"}, "", false},
		{nil, nil, "", false},
	} {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		job := fs.String("job", "", "")
		quiet := fs.Bool("quiet", false, "")
		pos, err := parseAnywhere(fs, tc.args)
		if err != nil || !reflect.DeepEqual(pos, tc.wantPos) || *job != tc.wantJob || *quiet != tc.wantQuiet {
			t.Errorf("%q: positionals %q, job %q, quiet %v, err %v", tc.args, pos, *job, *quiet, err)
		}
	}
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	if _, err := parseAnywhere(fs, []string{"file", "--nope"}); err == nil {
		t.Error("an unknown flag after a positional was accepted")
	}
}

// runCLI runs the command line in-process, as a user would type it.
func runCLI(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	err := run(context.Background(), args, &out, &errb)
	return out.String(), errb.String(), err
}

// The report command on the bundled captures, flags after the file as users
// type them, answers "why" for the phase-2.3 sample and asks which job for a
// capture holding several.
func TestReportCommandOnBundledCaptures(t *testing.T) {
	sample := filepath.Join("app", "sample", "phase-2.3-checkpoint-metrics.json")
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

	knobs := filepath.Join("app", "sample", "flink-knobs.ckpt.gz")
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
