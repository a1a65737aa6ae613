package app

import (
	"checkpoint-explorer/backend/capture"
	"checkpoint-explorer/backend/connect"
	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/source/flink"
	"checkpoint-explorer/backend/store"
	"checkpoint-explorer/testenv/promenv"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Checkpoints cached without backpressure (seen before the app was connected,
// here stored straight from the REST client) get it from the real Prometheus
// that scrapes the real cluster's reporter.
func TestBackfillBackpressureFromARealPrometheus(t *testing.T) {
	fe := flinkOn(t, trackFlinkA)
	pe := promenv.Ensure(t)
	jid := fe.Submit(t, "--name", "ce-backfill", "--interval-ms", "1000", "--rate", "0", "--sleep-ms", "5")
	a := newTestApp(t, Options{NoSample: true})
	if err := a.SaveCluster(ClusterInput{Name: "flink", Engine: model.EngineFlink, BaseURL: fe.RESTURL, PrometheusURL: pe.URL}); err != nil {
		t.Fatal(err)
	}
	res, err := a.TestConnection(ClusterInput{Name: "flink", Engine: model.EngineFlink, BaseURL: fe.RESTURL, PrometheusURL: pe.URL})
	if err != nil || !res.OK || !strings.Contains(res.Message, "Prometheus answers") {
		t.Fatalf("connection test: %+v, %v", res, err)
	}
	cl, err := flink.New(flink.Config{BaseURL: fe.RESTURL, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	j, err := cl.Job(ctx, jid)
	if err != nil {
		t.Fatal(err)
	}
	j.Cluster = "flink"
	if err := a.store.PutJob(ctx, j); err != nil {
		t.Fatal(err)
	}
	var src string
	for _, v := range j.Vertices {
		if strings.Contains(v.Name, "Numbers") {
			src = v.ID
		}
	}
	// Let backpressure build and Prometheus scrape it, then cache the checkpoints Flink still has.
	time.Sleep(35 * time.Second)
	list, err := cl.Checkpoints(ctx, jid)
	if err != nil {
		t.Fatal(err)
	}
	var cps []model.Checkpoint
	for _, c := range list.History {
		if c.Status.Final() {
			c.Cluster, c.JobID = "flink", jid
			cps = append(cps, c)
		}
	}
	if len(cps) < 3 {
		t.Fatalf("only %d final checkpoints after 35 s", len(cps))
	}
	if err := a.store.PutCheckpoints(ctx, cps); err != nil {
		t.Fatal(err)
	}
	got, err := a.BackfillBackpressure("flink", jid)
	if err != nil {
		t.Fatal(err)
	}
	if got.Checkpoints != len(cps) || got.Samples == 0 {
		t.Fatalf("backfill %+v for %d checkpoints without samples", got, len(cps))
	}
	ms, _ := a.store.MetricSamples(ctx, storeQuery("flink", jid))
	var peak float64
	for _, m := range ms {
		if m.VertexID == src && m.Metric == model.MetricBackPressuredMsPerSec && m.Agg == model.AggMax && m.Source == "prometheus" {
			peak = max(peak, m.Value)
		}
	}
	if peak < 500 {
		t.Errorf("backfilled source backpressure peaks at %.0f ms/s, want > 500 (Slow Map sleeps 5 ms a record)", peak)
	}
	// Nothing lacks samples any more: a second backfill asks Prometheus for nothing.
	again, err := a.BackfillBackpressure("flink", jid)
	if err != nil || again.Checkpoints != 0 || again.Ranges != 0 {
		t.Errorf("second backfill %+v, %v", again, err)
	}
	// A Prometheus that is down gives a clear error and loses nothing.
	before, _ := a.store.Checkpoints(ctx, storeQuery("flink", jid))
	if err := a.SaveCluster(ClusterInput{Name: "flink", Engine: model.EngineFlink, BaseURL: fe.RESTURL, PrometheusURL: "http://127.0.0.1:1"}); err != nil {
		t.Fatal(err)
	}
	a.store.PutCheckpoints(ctx, []model.Checkpoint{{Cluster: "flink", JobID: jid, ID: 99999, Kind: model.KindCheckpoint,
		Status: model.StatusCompleted, TriggerMs: time.Now().UnixMilli() + 3_600_000, EndToEndMs: 5}})
	_, err = a.BackfillBackpressure("flink", jid)
	if err == nil || !strings.Contains(err.Error(), "127.0.0.1:1") {
		t.Errorf("backfill from a closed port: %v", err)
	}
	after, _ := a.store.Checkpoints(ctx, storeQuery("flink", jid))
	if len(after) != len(before)+1 {
		t.Errorf("checkpoints %d → %d after a failed backfill", len(before), len(after))
	}
}

func storeQuery(cluster, job string) store.Query { return store.Query{Cluster: cluster, JobID: job} }

// With reporter addresses the collector scrapes Flink's Prometheus reporters
// directly for backpressure, within the cluster's budget.
func TestCollectorScrapesTheReportersDirectly(t *testing.T) {
	fe := flinkOn(t, trackFlinkA)
	if fe.JMPromURL == "" || fe.TMPromURL == "" {
		t.Skip("the cluster's reporter addresses are unknown")
	}
	jid := fe.Submit(t, "--name", "ce-reporter", "--interval-ms", "1000", "--rate", "0", "--sleep-ms", "5")
	a := newTestApp(t, Options{NoSample: true})
	a.opts.NoCollect = false
	a.opts.JobsEvery = 2 * time.Second
	a.startCollector(context.Background())
	defer a.stopCollector()
	if err := a.SaveCluster(ClusterInput{Name: "flink", Engine: model.EngineFlink, BaseURL: fe.RESTURL,
		clusterSettings: clusterSettings{ReporterURLs: []string{fe.JMPromURL, fe.TMPromURL}}}); err != nil {
		t.Fatal(err)
	}
	src := vertexByNameEventually(t, a, jid, "Numbers")
	waitFor(t, 90*time.Second, "reporter backpressure of the source above 500 ms/s", func() bool {
		ms, _ := a.store.MetricSamples(context.Background(), storeQuery("flink", jid))
		for _, m := range ms {
			if m.Source == "reporter" && m.VertexID == src && m.Metric == model.MetricBackPressuredMsPerSec && m.Value > 500 {
				return true
			}
		}
		return false
	})
	ms, _ := a.store.MetricSamples(context.Background(), storeQuery("flink", jid))
	for _, m := range ms {
		if m.Source == "rest" {
			t.Fatalf("a REST sample %+v although reporters are configured", m)
		}
	}
}

// Bad reporter URLs and Prometheus names are refused with the other bad
// input (TestSaveClusterRejectsBadInput); good names are kept across an edit.
func TestClusterConfigKeepsPrometheusNames(t *testing.T) {
	a := newTestApp(t, Options{NoSample: true})
	ok := ClusterInput{Name: "relabelled", Engine: model.EngineFlink, BaseURL: "http://127.0.0.1:1",
		PrometheusURL: "http://127.0.0.1:2", clusterSettings: clusterSettings{PrometheusNames: map[string]string{"task_label": "vertex_id", "job_label": "flink_job"}}}
	if err := a.SaveCluster(ok); err != nil {
		t.Fatal(err)
	}
	// The window's form sends neither setting: editing there keeps them.
	ok.PrometheusNames = nil
	ok.BaseURL = "http://127.0.0.1:3"
	if err := a.SaveCluster(ok); err != nil {
		t.Fatal(err)
	}
	c, _ := a.configuredCluster("relabelled")
	if c.PrometheusNames["task_label"] != "vertex_id" || c.BaseURL != "http://127.0.0.1:3" {
		t.Errorf("after an edit without names: %+v", c)
	}
	pc, err := connect.Prometheus(c)
	if err != nil || pc == nil {
		t.Fatalf("client with relabelled names: %v", err)
	}
}

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
		PrometheusURL: pe.URL, clusterSettings: clusterSettings{Lanes: lanes}}); err != nil {
		t.Fatal(err)
	}
	var tl struct{ custom map[string]int }
	// Minutes on a loaded machine (90 s ran out at a load of 25): Prometheus scrapes the reporter
	// every few seconds, and the collector samples at its polls.
	waitForState(t, 3*time.Minute, "points on both custom lanes", func() (bool, string) {
		got, err := a.Timeline(TimelineRequest{Cluster: "flink", Job: jid, WidthPx: 800})
		if err != nil {
			return false, err.Error()
		}
		tl.custom = map[string]int{}
		for _, l := range got.Lanes.Custom {
			tl.custom[l.Name] = len(l.Points)
		}
		return len(got.Lanes.Custom) == 2 && got.Lanes.Custom[0].Name == "busiest task" &&
			tl.custom["busiest task"] >= 2 && tl.custom["records out/s"] >= 2, fmt.Sprintf("points per lane %v", tl.custom)
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
