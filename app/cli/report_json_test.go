package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"checkpoint-explorer/app"
	"checkpoint-explorer/backend/analyze"
	"checkpoint-explorer/backend/model"
)

// writeReportJSON streams the checkpoints, one compact line each; the
// document must hold what encoding the whole report gives, the rest indented
// as the encoder indents it.
func TestWriteReportJSON(t *testing.T) {
	for _, n := range []int{0, 1, 3, 1500} {
		var r app.Report
		r.Checkpoints = []analyze.CheckpointAnalysis{} // as reports hold them
		r.Job = analyze.JobRef{Cluster: "c <&> \"checkpoints\": null", ID: "j", Name: "名前 \u2028", Engine: model.EngineFlink}
		r.Notes = []string{"\n  \"checkpoints\": null"}
		for i := 0; i < n; i++ {
			r.Checkpoints = append(r.Checkpoints, analyze.CheckpointAnalysis{ID: int64(i + 1), Status: model.StatusCompleted,
				TriggerMs: int64(1000 * i), DurationMs: 40, Phases: analyze.Phases{},
				Slow: []analyze.SlowFlag{{}}})
		}
		if n == 3 {
			// A line longer than the buffer the lines are read back through.
			r.Checkpoints[1].Status = model.StatusFailed
			r.Checkpoints[1].Failure = &analyze.CheckpointFailure{Message: strings.Repeat("a long <trace>\n", 300_000)}
		}
		r.Reconciliation = &model.Reconciliation{Cluster: "c", JobID: "j", Stored: int64(n)}
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetIndent("", "  ")
		if err := enc.Encode(r); err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if err := writeReportJSON(&got, r); err != nil {
			t.Fatal(err)
		}
		var g, w any
		if err := json.Unmarshal(got.Bytes(), &g); err != nil {
			t.Fatalf("%d checkpoints: not JSON: %v\n%s", n, err, got.String())
		}
		if err := json.Unmarshal(want.Bytes(), &w); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(g, w) {
			t.Errorf("%d checkpoints: streamed JSON holds something else than the encoder's:\n%s\nwant:\n%s", n, got.String(), want.String())
		}
		lines := strings.Split(got.String(), "\n")
		ids := 0
		for _, l := range lines {
			if strings.HasPrefix(l, `    {"id":`) {
				ids++
				if !strings.HasSuffix(l, "},") && !strings.HasSuffix(l, "}") {
					t.Errorf("%d checkpoints: a checkpoint's line does not end with its object: %q", n, l)
				}
			}
		}
		if ids != n {
			t.Errorf("%d checkpoints: %d lines hold one; want one line per checkpoint", n, ids)
		}
		if n == 0 && !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Errorf("no checkpoints: want exactly the encoder's output")
		}
		// Outside the checkpoints the indentation is the encoder's.
		if n > 0 && !strings.HasPrefix(got.String(), want.String()[:strings.Index(want.String(), `"checkpoints"`)]) {
			t.Errorf("%d checkpoints: the top level is not indented as the encoder indents it", n)
		}
	}
}

// writeReportJSON writes a report held in memory as `report --format json`
// writes a streamed one.
func writeReportJSON(w io.Writer, r app.Report) error {
	jw, err := newJSONReportWriter(w)
	if err != nil {
		return err
	}
	defer jw.close()
	for k := range r.Checkpoints {
		if err := jw.emit(k, &r.Checkpoints[k]); err != nil {
			return err
		}
	}
	r.Checkpoints = nil
	return jw.finish(w, r)
}

// The checkpoints' lines are segmentio's encoding: on the bundled real
// captures each must be the very bytes encoding/json writes for the same
// analysis.
func TestReportLinesAreWhatEncodingJSONWrites(t *testing.T) {
	ctx := context.Background()
	for _, file := range []string{"phase-2.3-checkpoint-metrics.json", "flink120-iceberg.ckpt.gz", "flink120-mixed.ckpt.gz", "flink-knobs.ckpt.gz"} {
		svc, err := openApp(ctx, &globals{dataDir: t.TempDir(), stderr: io.Discard}, app.Options{NoSample: true, NoCollect: true})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := svc.Call(ctx).OpenCapture(filepath.Join("..", "sample", file)); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		jobs, err := svc.App().ListJobs("")
		if err != nil || len(jobs) == 0 {
			t.Fatalf("%s: jobs %v, %v", file, jobs, err)
		}
		n := 0
		same := func(_ int, ca *analyze.CheckpointAnalysis) error {
			got, err := appendJSONLine(nil, ca)
			if err != nil {
				return err
			}
			want, err := json.Marshal(ca)
			if err != nil {
				return err
			}
			if !bytes.Equal(got, append(want, '\n')) {
				t.Fatalf("%s: checkpoint %d's line\n%s\nencoding/json writes\n%s", file, ca.ID, got, want)
			}
			n++
			return nil
		}
		for _, j := range jobs {
			if _, err := svc.StreamReport(ctx, j.Cluster, j.ID, 0, 0, same, same); err != nil {
				t.Fatalf("%s: job %s: %v", file, j.ID, err)
			}
		}
		svc.Close()
		if n == 0 {
			t.Fatalf("%s: no checkpoint analysed", file)
		}
		t.Logf("%s: %d jobs, %d analyses encoded as encoding/json encodes them", file, len(jobs), n)
	}
}

// A report written to a regular file writes its lines into it and moves them
// into place: whatever the revisions do to the lines' lengths, wherever the
// file's offset stood, the file must hold the bytes the spill path writes,
// and what is written after it must follow the document.
func TestReportJSONInPlace(t *testing.T) {
	long := strings.Repeat("a long <trace>\n", 100_000) // 1.5 MB: more than the copy buffer
	cases := []struct {
		name    string
		n       int
		long    []int          // checkpoints emitted with a long failure message
		medium  []int          // … with a 10 KB one
		revised map[int]string // checkpoint → the failure message it is revised to
		prefix  string         // already in the file, before the report
	}{
		{name: "one", n: 1},
		{name: "many", n: 1500, prefix: "before\n"},
		{name: "longer", n: 40, revised: map[int]string{0: long, 17: "x", 39: long}},
		{name: "shorter", n: 40, long: []int{3, 20}, revised: map[int]string{3: "", 20: ""}},
		{name: "both ways", n: 40, long: []int{2, 30}, revised: map[int]string{2: "", 10: long, 30: "", 39: "y"}, prefix: "x"},
		{name: "last shorter", n: 3, long: []int{2}, revised: map[int]string{2: ""}},
		{name: "long lines", n: 3, long: []int{0, 1, 2}},
		// Two runs moving left, the second onto where the first stood:
		// moved back to front, the first would be overwritten unmoved.
		{name: "left twice", n: 400, medium: []int{0}, revised: map[int]string{0: "", 200: "z"}},
	}
	for _, tc := range cases {
		r := testReport(tc.n)
		for _, k := range tc.long {
			r.Checkpoints[k].Status = model.StatusFailed
			r.Checkpoints[k].Failure = &analyze.CheckpointFailure{Message: long}
		}
		for _, k := range tc.medium {
			r.Checkpoints[k].Status = model.StatusFailed
			r.Checkpoints[k].Failure = &analyze.CheckpointFailure{Message: long[:10_000]}
		}
		revised := map[int]analyze.CheckpointAnalysis{}
		for k, msg := range tc.revised {
			ca := r.Checkpoints[k]
			ca.Status = model.StatusFailed
			ca.Failure = &analyze.CheckpointFailure{Message: msg, Phase: analyze.PhaseAsync}
			revised[k] = ca
		}
		var want bytes.Buffer
		want.WriteString(tc.prefix)
		if inPlace, err := writeRevisedReportJSON(&want, r, revised); err != nil || inPlace {
			t.Fatalf("%s: into a buffer: in place %v, %v", tc.name, inPlace, err)
		}
		final := r
		final.Checkpoints = slices.Clone(r.Checkpoints)
		for k, ca := range revised {
			final.Checkpoints[k] = ca
		}
		var encoded bytes.Buffer
		enc := json.NewEncoder(&encoded)
		enc.SetIndent("", "  ")
		if err := enc.Encode(final); err != nil {
			t.Fatal(err)
		}
		var g, e any
		if err := json.Unmarshal(want.Bytes()[len(tc.prefix):], &g); err != nil {
			t.Fatalf("%s: not JSON: %v", tc.name, err)
		}
		json.Unmarshal(encoded.Bytes(), &e)
		if !reflect.DeepEqual(g, e) {
			t.Fatalf("%s: the spilled document holds something else than the encoder's", tc.name)
		}

		// As a shell's `>` opens it: write-only.
		path := filepath.Join(t.TempDir(), "report.json")
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(tc.prefix)
		inPlace, err := writeRevisedReportJSON(f, r, revised)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !inPlace {
			t.Fatalf("%s: a regular file was not written in place", tc.name)
		}
		f.WriteString("after\n")
		f.Close()
		got, _ := os.ReadFile(path)
		if want.WriteString("after\n"); !bytes.Equal(got, want.Bytes()) {
			i := 0
			for i < min(len(got), want.Len()) && got[i] == want.Bytes()[i] {
				i++
			}
			t.Errorf("%s: the file (%d bytes) differs from the spilled document (%d bytes) at byte %d", tc.name, len(got), want.Len(), i)
		}
	}
}

// A file opened to append, and a pipe, take the spill path: the kernel
// would put every write of the first at its end, the second has no offsets.
func TestReportJSONNotInPlace(t *testing.T) {
	r := testReport(600)
	var want bytes.Buffer
	if _, err := writeRevisedReportJSON(&want, r, nil); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "report.json")
	os.WriteFile(path, []byte("earlier\n"), 0o644)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if inPlace, err := writeRevisedReportJSON(f, r, nil); err != nil || inPlace {
		t.Fatalf("appending: in place %v, %v", inPlace, err)
	}
	f.Close()
	if got, _ := os.ReadFile(path); !bytes.Equal(got, append([]byte("earlier\n"), want.Bytes()...)) {
		t.Errorf("appending: the file is not the earlier line and the document")
	}

	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	read := make(chan []byte)
	go func() { b, _ := io.ReadAll(pr); read <- b }()
	inPlace, err := writeRevisedReportJSON(pw, r, nil)
	pw.Close()
	if err != nil || inPlace {
		t.Fatalf("a pipe: in place %v, %v", inPlace, err)
	}
	if got := <-read; !bytes.Equal(got, want.Bytes()) {
		t.Errorf("a pipe: read %d bytes, want the %d of the document", len(got), want.Len())
	}
}

// A report that fails after its lines went into the output leaves the file
// as it was before it.
func TestReportJSONInPlaceFailureLeavesTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "report.json")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.WriteString("kept\n")
	jw, err := newJSONReportWriter(f)
	if err != nil {
		t.Fatal(err)
	}
	r := testReport(2000)
	for k := range r.Checkpoints {
		if err := jw.emit(k, &r.Checkpoints[k]); err != nil {
			t.Fatal(err)
		}
	}
	jw.close() // as runReport does when the report fails
	if got, _ := os.ReadFile(path); string(got) != "kept\n" {
		t.Errorf("after a failed report the file holds %d bytes, want only what was there before", len(got))
	}
}

func testReport(n int) app.Report {
	var r app.Report
	r.Checkpoints = []analyze.CheckpointAnalysis{}
	r.Job = analyze.JobRef{Cluster: "c", ID: "j", Name: "名前", Engine: model.EngineFlink}
	r.Notes = []string{}
	for i := 0; i < n; i++ {
		r.Checkpoints = append(r.Checkpoints, analyze.CheckpointAnalysis{ID: int64(i + 1), Status: model.StatusCompleted,
			TriggerMs: int64(1000 * i), DurationMs: 40, Phases: analyze.Phases{}})
	}
	return r
}

// writeRevisedReportJSON writes r as `report --format json` does, revising
// the checkpoints in revised after all are emitted; it tells whether the
// lines went straight into w.
func writeRevisedReportJSON(w io.Writer, r app.Report, revised map[int]analyze.CheckpointAnalysis) (bool, error) {
	jw, err := newJSONReportWriter(w)
	if err != nil {
		return false, err
	}
	defer jw.close()
	for k := range r.Checkpoints {
		if err := jw.emit(k, &r.Checkpoints[k]); err != nil {
			return jw.inPlace, err
		}
	}
	for k, ca := range revised {
		if err := jw.revise(k, &ca); err != nil {
			return jw.inPlace, err
		}
	}
	r.Checkpoints = nil
	return jw.inPlace, jw.finish(w, r)
}

// `report --format json > file` writes the very bytes it writes to a pipe,
// on the bundled real captures (some of whose analyses are revised at the end).
func TestReportCommandIntoAFile(t *testing.T) {
	for _, file := range []string{"flink120-mixed.ckpt.gz", "flink120-iceberg.ckpt.gz"} {
		capture := filepath.Join("..", "sample", file)
		var want, errb bytes.Buffer
		if err := Run(context.Background(), []string{"report", capture, "--format", "json", "--data-dir", t.TempDir()}, &want, &errb, Options{}); err != nil {
			t.Fatalf("%s: %v\n%s", file, err, errb.String())
		}
		if n := bytes.Count(want.Bytes(), []byte("\n    {\"id\":")); n == 0 {
			t.Fatalf("%s: the report holds no checkpoint's line", file)
		}
		path := filepath.Join(t.TempDir(), "report.json")
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		err = Run(context.Background(), []string{"report", capture, "--format", "json", "--data-dir", t.TempDir()}, f, &errb, Options{})
		f.Close()
		if err != nil {
			t.Fatalf("%s into a file: %v\n%s", file, err, errb.String())
		}
		if got, _ := os.ReadFile(path); !bytes.Equal(got, want.Bytes()) {
			t.Errorf("%s: the file holds %d bytes, the buffer %d: not the same document", file, len(got), want.Len())
		}
	}
}
