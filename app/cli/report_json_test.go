package cli

import (
	"bytes"
	"encoding/json"
	"io"
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
