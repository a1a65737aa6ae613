package capture

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"checkpoint-explorer/backend/model"
)

const samplePath = "../../../shared/samples/phase-2.3-checkpoint-metrics.json"

// sampleFilePath finds the bundled sample: in shared/ beside the repository,
// as laid out in the workplace and in CI, or where CAPTURE_SAMPLE points.
func sampleFilePath(t testing.TB) string {
	t.Helper()
	for _, p := range []string{os.Getenv("CAPTURE_SAMPLE"), samplePath, "/work/shared/samples/phase-2.3-checkpoint-metrics.json"} {
		if p == "" {
			continue
		}
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	t.Fatalf("the phase-2.3 sample is not at %s; set CAPTURE_SAMPLE to its path", samplePath)
	return ""
}

func TestReadSample(t *testing.T) {
	var g got
	sum, err := ReadFile(context.Background(), sampleFilePath(t), Limits{}, g.visitor())
	if err != nil {
		t.Fatal(err)
	}
	const (
		jobID   = "469237c073b0c1ea872fc0403694fc68"
		cluster = "sample: phase-2.3 (Flink 1.20.4)"
	)
	if sum.Clusters != 1 || sum.Jobs != 1 || sum.Checkpoints != 7 || sum.Gaps != 5 || sum.MetricSamples != 45 || sum.AckSamples != 0 || sum.Skipped != 0 {
		t.Errorf("summary = %+v", sum)
	}
	h := sum.Header
	if h.Format != Format || h.Version != Version || h.Source == nil || h.Source.Format != SampleFormat ||
		h.Source.Name != "phase-2.3-checkpoint-metrics.json" || h.Source.RunID != "20260527T233135Z-0b65b846" ||
		h.RecordedAt.Format("2006-01-02T15:04:05Z07:00") != "2026-05-27T23:31:35Z" {
		t.Errorf("header = %+v (source %+v)", h, h.Source)
	}
	if !strings.Contains(h.Note, "failed-checkpoint counter was 1 from the first poll") {
		t.Errorf("note does not say what the failure counter shows: %s", h.Note)
	}

	var (
		clusters []model.Cluster
		jobs     []model.Job
		cps      []*model.Checkpoint
		gaps     []model.Gap
		metrics  = map[string][]model.MetricSample{}
		order    []string
	)
	for _, r := range g.records {
		switch r := r.(type) {
		case model.Cluster:
			clusters = append(clusters, r)
		case model.Job:
			jobs = append(jobs, r)
		case *model.Checkpoint:
			cps = append(cps, r)
			order = append(order, "c")
		case model.Gap:
			gaps = append(gaps, r)
			order = append(order, "g")
		case model.MetricSample:
			metrics[r.Metric] = append(metrics[r.Metric], r)
		}
	}
	wantCluster := model.Cluster{Name: cluster, Engine: model.EngineFlink, Auth: model.Auth{Kind: model.AuthNone}, ReadOnly: true}
	if len(clusters) != 1 || !reflect.DeepEqual(clusters[0], wantCluster) {
		t.Errorf("clusters = %+v", clusters)
	}
	if len(jobs) != 1 || jobs[0].ID != jobID || jobs[0].Cluster != cluster || jobs[0].Name != "Flink CDC job (phase-2.3 sample)" || jobs[0].Engine != model.EngineFlink {
		t.Errorf("jobs = %+v", jobs)
	}

	var ids []int64
	for _, cp := range cps {
		ids = append(ids, cp.ID)
		if cp.Status != model.StatusCompleted || cp.Kind != model.KindCheckpoint || cp.Cluster != cluster || cp.JobID != jobID {
			t.Errorf("checkpoint %d = %+v", cp.ID, cp)
		}
		if cp.Tasks != nil || cp.FinalizeMs != nil || cp.NumSubtasks != 0 {
			t.Errorf("checkpoint %d has invented detail: %+v", cp.ID, cp)
		}
		if cp.EndToEndMs != cp.LatestAckMs-cp.TriggerMs {
			t.Errorf("checkpoint %d: end-to-end %d ms, but ack - trigger = %d", cp.ID, cp.EndToEndMs, cp.LatestAckMs-cp.TriggerMs)
		}
	}
	if want := []int64{3, 13, 21, 27, 28, 39, 52}; !reflect.DeepEqual(ids, want) {
		t.Errorf("checkpoint ids = %v, want %v", ids, want)
	}
	want28 := &model.Checkpoint{Cluster: cluster, JobID: jobID, ID: 28, Kind: model.KindCheckpoint, Status: model.StatusCompleted,
		TriggerMs: 1779924618333, LatestAckMs: 1779924637355, EndToEndMs: 19022, CheckpointedSize: 12316, ProcessedData: 22248}
	if !reflect.DeepEqual(cps[4], want28) {
		t.Errorf("checkpoint 28 = %+v\nwant %+v", cps[4], want28)
	}

	var gapRanges [][2]int64
	for _, g := range gaps {
		gapRanges = append(gapRanges, [2]int64{g.FromID, g.ToID})
		if !strings.Contains(g.Reason, "not recorded") {
			t.Errorf("gap reason = %q", g.Reason)
		}
	}
	if want := [][2]int64{{4, 12}, {14, 20}, {22, 26}, {29, 38}, {40, 51}}; !reflect.DeepEqual(gapRanges, want) {
		t.Errorf("gaps = %v, want %v", gapRanges, want)
	}
	// Each gap comes just before the checkpoint after it, and is dated by its trigger.
	if got := strings.Join(order, ""); got != "cgcgcgccgcgc" {
		t.Errorf("order of checkpoints and gaps = %s", got)
	}
	if gaps[0].DetectedMs != 1779924602055 {
		t.Errorf("gap 4-12 detected at %d, want checkpoint 13's trigger", gaps[0].DetectedMs)
	}

	// The artifact scraped its "backpressured time" from the soft part only:
	// carried under that name, never as the total (which the file lacks).
	if n := len(metrics[model.MetricBackPressuredMsPerSec]); n != 0 {
		t.Errorf("%d samples claim total backpressure; the artifact recorded only soft backpressure", n)
	}
	for name, agg := range map[string]string{
		model.MetricSoftBackPressuredMsPerSec: model.AggMax,
		model.MetricBusyMsPerSec:              model.AggMax,
		MetricCheckpointAlignmentTime:         model.AggMax,
		MetricLastCheckpointDuration:          model.AggNone,
		MetricFailedCheckpoints:               model.AggNone,
	} {
		ms := metrics[name]
		if len(ms) != 9 {
			t.Errorf("%s: %d samples, want one per time series point (9)", name, len(ms))
			continue
		}
		for i, m := range ms {
			if m.VertexID != "" || m.Subtask != -1 || m.Agg != agg || m.Source != SourceCapture || m.Cluster != cluster || m.JobID != jobID {
				t.Errorf("%s[%d] = %+v", name, i, m)
			}
			if i > 0 && m.TimeMs <= ms[i-1].TimeMs {
				t.Errorf("%s not in time order", name)
			}
		}
	}
	if len(metrics) != 5 {
		t.Errorf("metrics = %d names, want 5", len(metrics))
	}
	if a := metrics[MetricCheckpointAlignmentTime]; len(a) == 9 && (a[6].Value != 16882.2503 || a[6].TimeMs != 1779924664000) {
		t.Errorf("alignment at the peak = %+v, want 16882.2503 ms at 23:31:04Z", a[6])
	}
	if b := metrics[model.MetricBusyMsPerSec]; len(b) == 9 && b[7].Value != 649 {
		t.Errorf("busy time = %v, want 649 ms/s", b[7].Value)
	}
}

// Reading the sample twice gives the same records, and converting it gives a
// capture that reads back as the same records.
func TestConvertSample(t *testing.T) {
	in := sampleFilePath(t)
	dir := t.TempDir()
	outA, outB := filepath.Join(dir, "a.ckpt.gz"), filepath.Join(dir, "b.ckpt.gz")

	var direct, again got
	if _, err := ReadFile(context.Background(), in, Limits{}, direct.visitor()); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(context.Background(), in, Limits{}, again.visitor()); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(direct, again) {
		t.Fatal("two reads of the sample differ")
	}

	for _, out := range []string{outA, outB} {
		if err := ConvertFile(context.Background(), in, out); err != nil {
			t.Fatal(err)
		}
	}
	a, _ := os.ReadFile(outA)
	b, _ := os.ReadFile(outB)
	if len(a) == 0 || !bytes.Equal(a, b) {
		t.Fatalf("conversion is not deterministic (%d and %d bytes)", len(a), len(b))
	}

	var converted got
	sum, err := ReadFile(context.Background(), outA, Limits{}, converted.visitor())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(converted.records, direct.records) {
		t.Error("the converted capture reads back differently from the sample")
	}
	if !reflect.DeepEqual(converted.header, direct.header) {
		t.Errorf("header %+v, want %+v", converted.header, direct.header)
	}
	if sum.Checkpoints != 7 || sum.Header.Source == nil || sum.Header.Source.Format != SampleFormat {
		t.Errorf("summary = %+v", sum)
	}

	// A capture converts to itself.
	outC := filepath.Join(dir, "c.ckpt.gz")
	if err := ConvertFile(context.Background(), outA, outC); err != nil {
		t.Fatal(err)
	}
	if c, _ := os.ReadFile(outC); !bytes.Equal(a, c) {
		t.Error("converting a capture changed it")
	}
}

// TestConvertFileKeepsEveryRecordType: a capture with a job's reconciliation, its
// configuration and a note converts to one that reads back the same.
func TestConvertFileKeepsEveryRecordType(t *testing.T) {
	dir := t.TempDir()
	in, out := filepath.Join(dir, "in.ckpt.gz"), filepath.Join(dir, "out.ckpt.gz")
	iv := int64(1000)
	recs := append(testRecords(),
		model.Reconciliation{Cluster: "prod-flink", JobID: "469237c073b0c1ea872fc0403694fc68", AtMs: 1, Polls: 3,
			FirstID: 1, LatestID: 2, IDs: 2, Stored: 2, EngineCounted: 3, WithoutID: 1,
			TriggerFailures: []model.TriggerFailureReason{{Reason: "Not all required tasks are currently running", Count: 1, FirstMs: 1, LastMs: 1,
				Task: "Source: Numbers (1/1)", Example: "Checkpoint triggering task Source: Numbers (1/1) of job 469237c073b0c1ea872fc0403694fc68 is not being executed at the moment. Aborting checkpoint. Failure reason: Not all required tasks are currently running."}}},
		model.JobConfig{Cluster: "prod-flink", JobID: "469237c073b0c1ea872fc0403694fc68", SeenMs: 1, Mode: "exactly_once", IntervalMs: &iv},
		testNotes()[0])
	if err := os.WriteFile(in, encode(t, testHeader(), recs), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := ConvertFile(context.Background(), in, out); err != nil {
		t.Fatal(err)
	}
	var before, after got
	if _, err := ReadFile(context.Background(), in, Limits{}, before.visitor()); err != nil {
		t.Fatal(err)
	}
	sum, err := ReadFile(context.Background(), out, Limits{}, after.visitor())
	if err != nil {
		t.Fatal(err)
	}
	if sum.Reconciliations != 1 || sum.JobConfigs != 1 || sum.JobNotes != 1 {
		t.Errorf("converted: %d reconciliations, %d configurations, %d notes; want 1 of each", sum.Reconciliations, sum.JobConfigs, sum.JobNotes)
	}
	if !reflect.DeepEqual(after.records, before.records) {
		t.Errorf("the converted capture reads back differently:\n got %+v\nwant %+v", after.records, before.records)
	}
}

func TestConvertFileFailureLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "cut.ckpt.gz")
	full := encode(t, testHeader(), testRecords())
	if err := os.WriteFile(in, full[:len(full)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.ckpt.gz")
	err := ConvertFile(context.Background(), in, out)
	if err == nil || !strings.Contains(err.Error(), "truncated") {
		t.Fatalf("error = %v, want truncated", err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("files left behind: %v", entries)
	}
}

func TestSampleBadInput(t *testing.T) {
	rec := func(fields string) string {
		return `{"job_id":"j","time_series":[],"checkpoint_records":[{` + fields + `}]}`
	}
	const good = `"id":1,"status":"COMPLETED","trigger_timestamp":1000`
	for _, tc := range []struct {
		name, doc, want string
	}{
		{"valid", rec(good), ""},
		{"pretty printed", "{\n \"job_id\": \"j\",\n \"time_series\": [],\n \"checkpoint_records\": []\n}\n", ""},
		{"missing job_id", `{"time_series":[],"checkpoint_records":[]}`, "capture: sample: empty job_id"},
		{"missing id", rec(`"status":"COMPLETED","trigger_timestamp":1`), "capture: sample: checkpoint_records[0]: missing id"},
		{"fractional id", rec(`"id":1.5,"status":"COMPLETED","trigger_timestamp":1`), "capture: sample: checkpoint_records[0]: id: 1.5 is not a non-negative whole number"},
		{"negative size", rec(good + `,"checkpointed_size_bytes":-4`), "capture: sample: checkpoint_records[0]: checkpoint 1: checkpointed_size_bytes: -4 is not a non-negative whole number"},
		{"bad status", rec(`"id":1,"status":"BOGUS","trigger_timestamp":1`), `capture: sample: checkpoint_records[0]: checkpoint 1: invalid status "BOGUS"`},
		{"no trigger", rec(`"id":1,"status":"COMPLETED"`), "capture: sample: checkpoint_records[0]: checkpoint 1: missing trigger_timestamp"},
		{"duplicate id", `{"job_id":"j","time_series":[],"checkpoint_records":[{` + good + `},{` + good + `}]}`, "capture: sample: checkpoint_records[1]: duplicate id 1"},
		{"bad collected_at", `{"job_id":"j","checkpoint_records":[],"time_series":[{"collected_at":"noon"}]}`, "capture: sample: time_series[0]: collected_at:"},
		{"wrong type", `{"job_id":"j","checkpoint_records":{},"time_series":[]}`, "capture: sample: json: cannot unmarshal object"},
		{"other JSON", `{"checkpoints":[]}`, "capture: not a capture file"},
		{"cut short", rec(good)[:40], "capture: not a capture file"},
		{"deep", "{\n" + `"job_id":"j","time_series":[],"checkpoint_records":[],"x":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}`, "capture: sample: JSON nested deeper than 32 levels"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, data := range [][]byte{[]byte(tc.doc), gzipBytes(t, []byte(tc.doc))} {
				_, err := Read(context.Background(), bytes.NewReader(data), Limits{}, Visitor{})
				if tc.want == "" {
					if err != nil {
						t.Fatal(err)
					}
					continue
				}
				if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
					t.Fatalf("error = %v\nwant prefix %q", err, tc.want)
				}
			}
		})
	}
	t.Run("over the size limit", func(t *testing.T) {
		doc := `{"job_id":"j","time_series":[],"checkpoint_records":[],"pad":"` + strings.Repeat(" ", 2000) + `"}`
		_, err := Read(context.Background(), strings.NewReader(doc), Limits{MaxLineBytes: 1000}, Visitor{})
		if err == nil || !strings.Contains(err.Error(), "longer than the 1000 B line limit") {
			t.Fatalf("error = %v", err)
		}
		doc = "{\n" + strings.Repeat(" \"pad\": 1,\n", 200) + `"job_id":"j","time_series":[],"checkpoint_records":[]}`
		_, err = Read(context.Background(), strings.NewReader(doc), Limits{MaxLineBytes: 1000}, Visitor{})
		if err == nil || !strings.Contains(err.Error(), "over the 1000 B limit") {
			t.Fatalf("error = %v", err)
		}
	})
}

// Ids only the time series knows (its latest completed id) are gaps too:
// they ran, but their details are not in the file.
func TestSampleGapsFromTimeSeries(t *testing.T) {
	doc := `{"job_id":"j","checkpoint_records":[
		{"id":5,"status":"COMPLETED","trigger_timestamp":5000,"latest_ack_timestamp":5100},
		{"id":7,"status":"FAILED","trigger_timestamp":7000}],
	 "time_series":[
		{"collected_at":"2026-01-01T00:00:10Z","checkpoint":{"latest_completed_id":5,"failed_count":0}},
		{"collected_at":"2026-01-01T00:00:20Z","checkpoint":{"latest_completed_id":10,"failed_count":2}}]}`
	var gaps []model.Gap
	var cps []*model.Checkpoint
	sum, err := Read(context.Background(), strings.NewReader(doc), Limits{}, Visitor{
		Gap:        func(g model.Gap) error { gaps = append(gaps, g); return nil },
		Checkpoint: func(cp *model.Checkpoint) error { cps = append(cps, cp); return nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	var got [][3]int64
	for _, g := range gaps {
		got = append(got, [3]int64{g.FromID, g.ToID, g.DetectedMs})
	}
	t20 := int64(1767225620000)
	if want := [][3]int64{{6, 6, 7000}, {8, 10, t20}}; !reflect.DeepEqual(got, want) {
		t.Errorf("gaps = %v, want %v", got, want)
	}
	if len(cps) != 2 || cps[0].EndToEndMs != 100 || cps[1].Status != model.StatusFailed || cps[1].EndToEndMs != 0 {
		t.Errorf("checkpoints = %+v %+v", cps[0], cps[1])
	}
	if !strings.Contains(sum.Header.Note, "rose from 0 to 2") {
		t.Errorf("note = %s", sum.Header.Note)
	}
}
