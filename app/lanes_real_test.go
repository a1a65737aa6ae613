package app

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"checkpoint-explorer/backend/capture"
	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/testenv/promenv"
)

// Custom lanes on a real Flink 2.3 job: one from a PromQL query on the real
// Prometheus of testenv (which scrapes the cluster's reporters), one from a
// Flink metric of the job's vertices. Both are sampled with the
// backpressure, drawn on the timeline in the cluster's order, and kept in a
// capture with the cluster's lane definitions.
func TestCustomLanesFromPrometheusAndFlinkMetrics(t *testing.T) {
	fe := flinkOn(t, trackFlinkA)
	pe := promenv.Ensure(t)
	jid := fe.Submit(t, "--name", "ce-lanes", "--interval-ms", "1000", "--rate", "500")
	lanes := []model.Lane{
		{Name: "busiest task", PromQL: `max(flink_taskmanager_job_task_busyTimeMsPerSecond{job_id="$job_id"})`},
		{Name: "records out/s", Metric: "numRecordsOutPerSecond"},
	}
	a := newCollectingAppWith(t, fe.RESTURL, Options{})
	if err := a.SaveCluster(ClusterInput{Name: "flink", Engine: model.EngineFlink, BaseURL: fe.RESTURL,
		PrometheusURL: pe.URL, Lanes: lanes}); err != nil {
		t.Fatal(err)
	}
	var tl struct{ custom map[string]int }
	waitFor(t, 90*time.Second, "points on both custom lanes", func() bool {
		got, err := a.Timeline(TimelineRequest{Cluster: "flink", Job: jid, WidthPx: 800})
		if err != nil {
			return false
		}
		tl.custom = map[string]int{}
		for _, l := range got.Lanes.Custom {
			tl.custom[l.Name] = len(l.Points)
		}
		return len(got.Lanes.Custom) == 2 && got.Lanes.Custom[0].Name == "busiest task" &&
			tl.custom["busiest task"] >= 2 && tl.custom["records out/s"] >= 2
	})
	got, _ := a.Timeline(TimelineRequest{Cluster: "flink", Job: jid, WidthPx: 800})
	for _, p := range got.Lanes.Custom[1].Points {
		if p.Value < 0 || p.Value > 100_000 {
			t.Errorf("records out/s %v: want the rate of a job producing 500 records/s", p.Value)
		}
	}
	t.Logf("custom lane points: %v", tl.custom)
	a.stopCollector()

	out := filepath.Join(t.TempDir(), "lanes.ckpt.gz")
	// A minute past its end, a recording still running is stopped (and then what it wrote is judged).
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Second+time.Minute)
	defer cancel()
	if _, err := Record(ctx, RecordOptions{
		Cluster: model.Cluster{Name: "lab", Engine: model.EngineFlink, BaseURL: fe.RESTURL, PrometheusURL: pe.URL, Lanes: lanes},
		JobID:   jid, Duration: 25 * time.Second, Out: out, JobsEvery: time.Second, PromEvery: 10 * time.Second,
	}); err != nil {
		t.Fatal(err)
	}
	perLane := map[string]int{}
	var kept []model.Lane
	if _, err := capture.ReadFile(context.Background(), out, capture.DefaultLimits(), capture.Visitor{
		Cluster: func(c model.Cluster) error { kept = c.Lanes; return nil },
		MetricSample: func(m model.MetricSample) error {
			if strings.HasPrefix(m.Metric, model.MetricLanePrefix) {
				perLane[strings.TrimPrefix(m.Metric, model.MetricLanePrefix)]++
			}
			return nil
		},
	}); err != nil {
		t.Fatal(err)
	}
	if len(kept) != 2 || kept[0] != lanes[0] || perLane["busiest task"] < 2 || perLane["records out/s"] < 2 {
		t.Errorf("the capture keeps lanes %+v and samples %v", kept, perLane)
	}
}
