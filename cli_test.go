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
