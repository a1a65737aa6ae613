package main

import (
	"bytes"
	"encoding/json"
	"testing"

	"checkpoint-explorer/app"
	"checkpoint-explorer/backend/analyze"
	"checkpoint-explorer/backend/model"
)

// writeReportJSON streams the checkpoints; its output must be byte for byte
// what encoding the whole report with an indenting json.Encoder gives.
func TestWriteReportJSONMatchesTheEncoder(t *testing.T) {
	for _, n := range []int{0, 1, 3} {
		var r app.Report
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
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Errorf("%d checkpoints: streamed JSON differs from the encoder's:\n%s\nwant:\n%s", n, got.String(), want.String())
		}
	}
}
