package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"path/filepath"
	"reflect"
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
	jw, err := newJSONReportWriter()
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
