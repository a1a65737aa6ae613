package app

import (
	"bytes"
	"checkpoint-explorer/backend/analyze"
	"checkpoint-explorer/backend/capture"
	"checkpoint-explorer/backend/capture/capturetest"
	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/store"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

func newTestApp(t *testing.T, opts Options) *App {
	t.Helper()
	if opts.DataDir == "" {
		opts.DataDir = t.TempDir()
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	opts.NoCollect = true
	return startTestApp(t, opts)
}

// startTestApp builds and starts an app from opts, closed when the test ends.
func startTestApp(t *testing.T, opts Options) *App {
	t.Helper()
	a, err := newApp(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := startApp(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closeApp(a) })
	return a
}

const (
	secretPassword = "s3cr3t-P4ssw0rd-xyzzy"
	secretToken    = "tok-9f8e7d6c5b4a-plugh"
)

// seedJob stores a configured cluster with secrets and a job with detailed checkpoints.
func seedJob(t *testing.T, a *App) {
	t.Helper()
	ctx := context.Background()
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	os.WriteFile(caFile, []byte("-----BEGIN CERTIFICATE-----\n"), 0o600)
	if err := a.SaveCluster(ClusterInput{Name: "prod", Engine: model.EngineFlink, BaseURL: "http://127.0.0.1:1",
		Auth: model.Auth{Kind: model.AuthBasic, Username: "ops", Password: secretPassword}, CAFile: caFile}); err != nil {
		t.Fatal(err)
	}
	if err := a.store.PutJob(ctx, model.Job{Cluster: "prod", ID: "job1", Name: "Orders", Engine: model.EngineFlink, State: "RUNNING",
		Vertices: []model.Vertex{{ID: "v1", Name: "Source", Parallelism: 2}, {ID: "v2", Name: "Sink", Parallelism: 2}},
		Edges:    []model.Edge{{Source: "v1", Target: "v2", ShipStrategy: "HASH"}}}); err != nil {
		t.Fatal(err)
	}
	// Recent, so the default age limit (30 days) keeps them.
	base := time.Now().Add(-time.Hour).UnixMilli()
	var cps []model.Checkpoint
	for i := int64(1); i <= 20; i++ {
		c := model.Checkpoint{Cluster: "prod", JobID: "job1", ID: i, Kind: model.KindCheckpoint, Status: model.StatusCompleted,
			TriggerMs: base + i*1000, EndToEndMs: 40 + i, CheckpointedSize: 1000 * i, StateSize: 5000 * i,
			NumSubtasks: 4, NumAcknowledged: 4}
		c.LatestAckMs, c.CompletionMs = c.TriggerMs+c.EndToEndMs, c.TriggerMs+c.EndToEndMs
		if i == 7 {
			c.Status, c.CompletionMs, c.FailureMs, c.FailureMessage = model.StatusFailed, 0, c.TriggerMs+900, "Checkpoint expired before completing."
			c.NumAcknowledged = 2
		}
		for _, v := range []string{"v1", "v2"} {
			ts := model.TaskStats{VertexID: v, LatestAckMs: c.LatestAckMs, EndToEndMs: c.EndToEndMs, NumSubtasks: 2, NumAcknowledged: 2}
			for s := 0; s < 2; s++ {
				ts.Subtasks = append(ts.Subtasks, model.SubtaskStats{Index: s, Status: model.SubtaskCompleted, AckMs: c.LatestAckMs,
					EndToEndMs: c.EndToEndMs, StartDelayMs: 1, AlignmentMs: 2, SyncMs: 3, AsyncMs: 30, StateSize: 100, CheckpointedSize: 50})
			}
			c.Tasks = append(c.Tasks, ts)
		}
		if i == 15 {
			// Its details left the engine's history before the collector fetched them.
			c.Tasks, c.DetailLoss = nil, model.DetailMissed
		}
		cps = append(cps, c)
	}
	if err := a.store.PutCheckpoints(ctx, cps); err != nil {
		t.Fatal(err)
	}
	if err := a.store.PutMetricSamples(ctx, []model.MetricSample{{Cluster: "prod", JobID: "job1", VertexID: "v1", Subtask: -1,
		Metric: model.MetricBackPressuredMsPerSec, Agg: model.AggMax, TimeMs: base + 5_000, Value: 420, Source: "rest"}}); err != nil {
		t.Fatal(err)
	}
	if err := a.store.PutGaps(ctx, []model.Gap{{Cluster: "prod", JobID: "job1", FromID: 21, ToID: 23, DetectedMs: base + 30_000}}); err != nil {
		t.Fatal(err)
	}
}

func TestConfigFileIsPrivateAndHoldsTheSecret(t *testing.T) {
	a := newTestApp(t, Options{NoSample: true})
	seedJob(t, a)
	fi, err := os.Stat(a.paths.Config)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("config mode %v, want 0600", fi.Mode().Perm())
	}
	b, _ := os.ReadFile(a.paths.Config)
	if !bytes.Contains(b, []byte(secretPassword)) {
		t.Error("the config does not keep the password")
	}
	// The API never hands the secret back.
	list, err := a.ListClusters()
	if err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(list)
	if bytes.Contains(out, []byte(secretPassword)) {
		t.Error("ListClusters leaks the password")
	}
	// Saving again with an empty password keeps the stored one.
	if err := a.SaveCluster(ClusterInput{Name: "prod", Engine: model.EngineFlink, BaseURL: "http://127.0.0.1:2",
		Auth: model.Auth{Kind: model.AuthBasic, Username: "ops"}}); err != nil {
		t.Fatal(err)
	}
	c, _ := a.configuredCluster("prod")
	if c.Auth.Password != secretPassword || c.BaseURL != "http://127.0.0.1:2" {
		t.Errorf("edit without password: got %+v", c)
	}
}

func TestSaveClusterRejectsBadInput(t *testing.T) {
	a := newTestApp(t, Options{NoSample: true})
	for _, tc := range []struct {
		in   ClusterInput
		want string
	}{
		{ClusterInput{Name: "", Engine: "flink", BaseURL: "http://x"}, "cluster name"},
		{ClusterInput{Name: "a", Engine: "spark", BaseURL: "http://x"}, "choose flink or seatunnel"},
		{ClusterInput{Name: "a", Engine: "flink", BaseURL: "ftp://x"}, "http:// or https://"},
		{ClusterInput{Name: "a", Engine: "flink", BaseURL: "http://u:" + secretPassword + "@x"}, "auth fields"},
		{ClusterInput{Name: "a", Engine: "flink", BaseURL: "http://x", Auth: model.Auth{Kind: model.AuthBearer}}, "needs a token"},
		{ClusterInput{Name: "capture: x", Engine: "flink", BaseURL: "http://x"}, "reserved"},
		{ClusterInput{Name: "a", Engine: "flink", BaseURL: "http://x", clusterSettings: clusterSettings{RequestsPerSecond: -3}}, "requests per second -3"},
		{ClusterInput{Name: "a", Engine: "flink", BaseURL: "http://x", clusterSettings: clusterSettings{RequestsPerSecond: 5000}}, "give 0.1 to 1000"},
		{ClusterInput{Name: "a", Engine: "seatunnel", BaseURL: "http://x", clusterSettings: clusterSettings{MaxInFlight: 100}}, "requests in flight 100"},
		{ClusterInput{Name: "a", Engine: "flink", BaseURL: "http://x", clusterSettings: clusterSettings{ReporterURLs: []string{"ftp://r"}}}, "reporter URL"},
		{ClusterInput{Name: "a", Engine: "seatunnel", BaseURL: "http://x", clusterSettings: clusterSettings{ReporterURLs: []string{"http://r:9249"}}}, "for Flink's Prometheus reporter"},
		{ClusterInput{Name: "a", Engine: "flink", BaseURL: "http://x", clusterSettings: clusterSettings{PrometheusNames: map[string]string{"colour": "x"}}}, "unknown field"},
		{ClusterInput{Name: "a", Engine: "flink", BaseURL: "http://x", clusterSettings: clusterSettings{PrometheusNames: map[string]string{"task_label": "not a label!"}}}, "Prometheus names"},
	} {
		err := a.SaveCluster(tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !IsBadRequest(err) {
			t.Errorf("SaveCluster(%+v) = %v, want a bad request naming %q", tc.in.Name, err, tc.want)
		}
		if err != nil && strings.Contains(err.Error(), secretPassword) {
			t.Errorf("error leaks the password: %v", err)
		}
	}
}

func TestExportImportRoundTripWithoutSecrets(t *testing.T) {
	a := newTestApp(t, Options{NoSample: true})
	seedJob(t, a)
	out := filepath.Join(t.TempDir(), "prod.ckpt.gz")
	res, err := a.ExportCapture(ExportRequest{Cluster: "prod", Job: "job1", Path: out})
	if err != nil {
		t.Fatal(err)
	}
	if res.Checkpoints != 20 {
		t.Errorf("exported %d checkpoints, want 20", res.Checkpoints)
	}
	raw, _ := os.ReadFile(out)
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	plain, _ := io.ReadAll(zr)
	for _, s := range []string{secretPassword, "ops"} {
		if bytes.Contains(plain, []byte(s)) {
			t.Errorf("the export contains the secret %q", s)
		}
	}

	b := newTestApp(t, Options{NoSample: true})
	imp, err := b.OpenCapture(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(imp.Sources) != 1 || imp.Sources[0] != "capture: prod" || imp.Checkpoints != 20 || imp.Gaps != 1 || imp.MetricSamples != 1 {
		t.Fatalf("import result %+v", imp)
	}
	ctx := context.Background()
	for id := int64(1); id <= 20; id++ {
		want, err := a.store.Checkpoint(ctx, model.Key{Cluster: "prod", JobID: "job1", ID: id})
		if err != nil {
			t.Fatal(err)
		}
		got, err := b.store.Checkpoint(ctx, model.Key{Cluster: "capture: prod", JobID: "job1", ID: id})
		if err != nil {
			t.Fatal(err)
		}
		want.Cluster = "capture: prod"
		if !reflect.DeepEqual(want, got) {
			t.Fatalf("checkpoint %d differs after export → import:\nwant %+v\ngot  %+v", id, want, got)
		}
	}
	// Merging the same file again changes nothing; opening it again makes a source of its own.
	if _, err := b.MergeCapture(out); err != nil {
		t.Fatal(err)
	}
	st, _ := b.store.Stats(ctx)
	if st.Checkpoints != 20 || st.Gaps != 1 || st.MetricSamples != 1 {
		t.Errorf("after merging it again: %+v", st)
	}
	again, err := b.OpenCapture(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(again.Renamed) != 1 || again.Renamed[0].To != "capture: prod (2)" || !slices.Equal(again.Renamed[0].Jobs, []string{"job1"}) {
		t.Errorf("opened again: %+v, want the source \"capture: prod (2)\" kept apart for job1", again)
	}
	if st, _ = b.store.Stats(ctx); st.Checkpoints != 40 {
		t.Errorf("after opening it again: %d checkpoints, want 20 in each source", st.Checkpoints)
	}
	// Export of the imported capture gives a file that imports identically again.
	c, _ := reimported(t, b, ExportRequest{Cluster: "capture: prod", Job: "job1"})
	got, _ := c.store.Checkpoint(ctx, model.Key{Cluster: "capture: prod", JobID: "job1", ID: 7})
	want, _ := b.store.Checkpoint(ctx, model.Key{Cluster: "capture: prod", JobID: "job1", ID: 7})
	if !reflect.DeepEqual(want, got) {
		t.Errorf("second round trip differs for checkpoint 7")
	}
}

// reimported is a new app that opened the capture a exported as req says,
// and the capture file (the test's).
func reimported(t *testing.T, a *App, req ExportRequest) (*App, string) {
	t.Helper()
	req.Path = filepath.Join(t.TempDir(), "reimported.ckpt.gz")
	if _, err := a.ExportCapture(req); err != nil {
		t.Fatal(err)
	}
	b := newTestApp(t, Options{NoSample: true})
	if _, err := b.OpenCapture(req.Path); err != nil {
		t.Fatal(err)
	}
	return b, req.Path
}

// contentDigest lists everything a reader can see in the cache.
func contentDigest(t *testing.T, a *App) string {
	t.Helper()
	ctx := context.Background()
	var b strings.Builder
	clusters, _ := a.store.Clusters(ctx)
	jobs, _ := a.store.Jobs(ctx, "")
	json.NewEncoder(&b).Encode(clusters)
	json.NewEncoder(&b).Encode(jobs)
	for _, j := range jobs {
		q := store.Query{Cluster: j.Cluster, JobID: j.ID}
		a.store.ScanCheckpoints(ctx, q, true, func(c *model.Checkpoint) error { return json.NewEncoder(&b).Encode(c) })
		ms, _ := a.store.MetricSamples(ctx, q)
		gs, _ := a.store.Gaps(ctx, q)
		json.NewEncoder(&b).Encode(ms)
		json.NewEncoder(&b).Encode(gs)
	}
	return b.String()
}

func TestCorruptCaptureLeavesTheCacheUnchanged(t *testing.T) {
	a := newTestApp(t, Options{NoSample: true})
	seedJob(t, a)
	good := filepath.Join(t.TempDir(), "good.ckpt.gz")
	if _, err := a.ExportCapture(ExportRequest{Cluster: "prod", Job: "job1", Path: good}); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(good)
	zr, _ := gzip.NewReader(bytes.NewReader(raw))
	plain, _ := io.ReadAll(zr)
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, b, 0o600)
		return p
	}
	gz := func(b []byte) []byte {
		var buf bytes.Buffer
		w := gzip.NewWriter(&buf)
		w.Write(b)
		w.Close()
		return buf.Bytes()
	}
	// A checkpoint line with a bad status, after valid records were read.
	lines := bytes.Split(plain, []byte("\n"))
	last := -1
	for i, l := range lines {
		if bytes.Contains(l, []byte(`"COMPLETED"`)) {
			last = i
		}
	}
	var bad [][]byte
	for i, l := range lines {
		if i == last {
			l = bytes.Replace(l, []byte(`"COMPLETED"`), []byte(`"BOGUS"`), 1)
		}
		bad = append(bad, l)
	}
	cases := map[string]string{
		"truncated":   write("truncated.ckpt.gz", raw[:len(raw)*2/3]),
		"bad status":  write("badstatus.ckpt.gz", gz(bytes.Join(bad, []byte("\n")))),
		"not capture": write("random.json", []byte(`{"hello": "world"}`)),
		"deep":        write("deep.jsonl", []byte(`{"type":"header","format":"checkpoint-explorer-capture","version":"1.0"}`+"\n"+strings.Repeat("[", 5000)+"\n")),
	}
	b := newTestApp(t, Options{NoSample: true})
	// Give b some content of its own first, so "unchanged" is not "empty".
	if _, err := b.OpenCapture(good); err != nil {
		t.Fatal(err)
	}
	before := contentDigest(t, b)
	for name, p := range cases {
		_, err := b.OpenCapture(p)
		if err == nil {
			t.Errorf("%s: imported without error", name)
			continue
		}
		if !strings.Contains(err.Error(), filepath.Base(p)) || !strings.Contains(err.Error(), "nothing was imported") {
			t.Errorf("%s: error %q does not name the file and say nothing was imported", name, err)
		}
		if after := contentDigest(t, b); after != before {
			t.Errorf("%s: the cache changed after a refused import", name)
		}
	}
}

func TestFirstRunOpensTheBundledSamples(t *testing.T) {
	a := newTestApp(t, Options{})
	list, err := a.ListClusters()
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]SourceView{}
	for _, s := range list {
		if s.Kind != "sample" || !s.ReadOnly {
			t.Errorf("first-run source %+v is not a read-only sample", s)
		}
		byName[s.Name] = s
	}
	if len(list) != 4 {
		t.Fatalf("first run sources %+v, want the four samples", list)
	}
	if _, ok := byName["sample: Flink 1.20 Iceberg slow commits"]; !ok {
		t.Errorf("no Iceberg sample among %v", byName)
	}
	var phase23 string
	for n := range byName {
		if strings.HasPrefix(n, "sample: phase-2.3") {
			phase23 = n
		}
	}
	jobs, err := a.ListJobs(phase23)
	if err != nil || len(jobs) != 1 {
		t.Fatalf("phase-2.3 sample jobs %+v, %v", jobs, err)
	}
	rows, err := a.Checkpoints(phase23, jobs[0].ID, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, r := range rows {
		if r.ID == 28 && r.EndToEndMs == 19022 {
			found = true
		}
	}
	if len(rows) != 7 || !found {
		t.Errorf("sample rows %d, checkpoint 28 at 19022 ms found: %v", len(rows), found)
	}
	tl, err := a.Timeline(TimelineRequest{Cluster: phase23, Job: jobs[0].ID, WidthPx: 800})
	if err != nil {
		t.Fatal(err)
	}
	if len(tl.Bars) != 7 {
		t.Errorf("timeline has %d bars at 800 px, want 7", len(tl.Bars))
	}

	// The recorded knob job: hundreds of checkpoints with every subtask's stats,
	// failures with Flink's own messages, backpressure samples.
	knobs := "sample: Flink 2.3 knob job"
	if _, ok := byName[knobs]; !ok {
		t.Fatalf("no %q among %v", knobs, list)
	}
	kj, err := a.ListJobs(knobs)
	if err != nil || len(kj) != 6 {
		t.Fatalf("knob sample: %d jobs (%v), want one per knob (6)", len(kj), err)
	}
	var completed, failed, bottlenecks, clusters int
	// What the analysis must say of each knob, on real data.
	type expect struct {
		verdict analyze.Verdict
		basis   analyze.Basis
		reason  string // a phrase the verdict's reason must hold
		// failure cluster (by its example) → phase and the vertex it names first ("" = job-level abort)
		failures map[string][2]string
	}
	suspend := "Checkpoint Coordinator is suspending." // each recording ends by cancelling its job
	want := map[string]expect{
		"knobs: healthy baseline":                  {verdict: analyze.VerdictHealthy, reason: "checkpoints are fast and regular"},
		"knobs: backpressure from a slow operator": {verdict: analyze.VerdictBackpressure, basis: analyze.BasisSustained, failures: map[string][2]string{suspend: {"", ""}}},
		"knobs: growing state":                     {verdict: analyze.VerdictStateSize, basis: analyze.BasisCorrelation},
		"knobs: slow synchronous snapshot": {verdict: analyze.VerdictInconclusive, reason: "the bottleneck is sync in Slow Snapshot",
			failures: map[string][2]string{suspend: {"", ""}}},
		"knobs: snapshots that throw": {verdict: analyze.VerdictInconclusive,
			failures: map[string][2]string{"Asynchronous task checkpoint failed.": {"async", "Snapshot Thrower"}}},
		// The snapshot (2.6 s) outlasts the timeout (2 s): every checkpoint expires in sync at Slow Snapshot.
		"knobs: checkpoints that expire": {verdict: analyze.VerdictInconclusive, reason: "no checkpoint completed",
			failures: map[string][2]string{"Checkpoint expired before completing.": {"sync", ""}, suspend: {"", ""}}},
	}
	for _, j := range kj {
		r, err := a.Report(knobs, j.ID, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		w, ok := want[j.Name]
		if !ok {
			t.Errorf("unexpected job %q in the knob sample", j.Name)
			continue
		}
		if c := r.Correlation; c.Verdict != w.verdict || c.Basis != w.basis || !strings.Contains(c.Reason, w.reason) {
			t.Errorf("%s: verdict %s (basis %q): %s\nwant %s (basis %q) saying %q", j.Name, c.Verdict, c.Basis, c.Reason, w.verdict, w.basis, w.reason)
		}
		for _, f := range r.Failures {
			wf, ok := w.failures[f.Example]
			if !ok {
				continue
			}
			delete(w.failures, f.Example)
			switch {
			case wf[0] == "" && (!f.JobLevel || f.Phase != ""):
				t.Errorf("%s: %q should be a job-level abort with no phase: %+v", j.Name, f.Example, f)
			case wf[0] != "" && string(f.Phase) != wf[0]:
				t.Errorf("%s: %q failed during %q, want %s", j.Name, f.Example, f.Phase, wf[0])
			case wf[1] != "" && (len(f.Vertices) == 0 || f.Vertices[0].VertexName != wf[1]):
				t.Errorf("%s: %q names vertices %+v, want %s first", j.Name, f.Example, f.Vertices, wf[1])
			}
		}
		for ex := range w.failures {
			t.Errorf("%s: no failure cluster %q", j.Name, ex)
		}
		if j.Name == "knobs: checkpoints that expire" {
			// Most are caught in Slow Snapshot's sync; the others are held up
			// upstream of it while it still snapshots the checkpoint before.
			expired, inSync := 0, 0
			for _, c := range r.Checkpoints {
				if c.Failure == nil || !c.Failure.Expired {
					continue
				}
				expired++
				if b := c.Bottleneck; b != nil && b.Phase == analyze.PhaseSync && b.VertexName == "Slow Snapshot" {
					inSync++
				}
			}
			if expired < 10 || inSync*3 < expired*2 {
				t.Errorf("%s: %d of %d expired checkpoints caught in sync at Slow Snapshot, want at least two thirds", j.Name, inSync, expired)
			}
		}
		if j.Name == "knobs: slow synchronous snapshot" {
			for _, c := range r.Checkpoints {
				if c.Status == model.StatusCompleted && c.ID > 1 && (c.Bottleneck == nil || c.Bottleneck.Phase != analyze.PhaseSync || c.Bottleneck.VertexName != "Slow Snapshot") {
					t.Errorf("%s: checkpoint %d bottleneck %+v, want sync in Slow Snapshot", j.Name, c.ID, c.Bottleneck)
					break
				}
			}
		}
		completed += r.Summary.Completed
		failed += r.Summary.Failed
		clusters += len(r.Failures)
		for _, c := range r.Checkpoints {
			if c.Bottleneck != nil && c.Status == model.StatusCompleted {
				bottlenecks++
			}
		}
	}
	if completed < 200 || failed < 5 || clusters == 0 {
		t.Errorf("knob sample: %d completed, %d failed, %d failure clusters", completed, failed, clusters)
	}
	if bottlenecks < completed {
		t.Errorf("only %d of %d completed checkpoints have a bottleneck: per-subtask stats missing", bottlenecks, completed)
	}

	// A removed sample does not come back on the next start of the same data dir.
	if err := a.RemoveCluster(phase23); err != nil {
		t.Fatal(err)
	}
	if list, _ := a.ListClusters(); len(list) != 3 {
		t.Errorf("after removing a sample: %+v", list)
	}
}

func TestRetentionLimitsAreSavedAndApplied(t *testing.T) {
	dir := t.TempDir()
	a := newTestApp(t, Options{NoSample: true, DataDir: dir})
	seedJob(t, a)
	if err := a.SetRetention(RetentionLimits{MaxCheckpointsPerJob: -1}); err == nil {
		t.Error("a negative limit was accepted")
	}
	if err := a.SetRetention(RetentionLimits{MaxCheckpointsPerJob: 5, MaxAgeMs: 0, MaxBytes: 64 << 20}); err != nil {
		t.Fatal(err)
	}
	r, err := a.Retention()
	if err != nil {
		t.Fatal(err)
	}
	if r.Checkpoints != 5 || r.Limits.MaxCheckpointsPerJob != 5 || r.PrunedTotal.Checkpoints != 15 {
		t.Errorf("after limiting to 5: %+v", r)
	}
	closeApp(a)
	b := newTestApp(t, Options{NoSample: true, DataDir: dir})
	r, _ = b.Retention()
	if r.Limits.MaxCheckpointsPerJob != 5 || r.Limits.MaxBytes != 64<<20 {
		t.Errorf("limits not kept across restarts: %+v", r.Limits)
	}
}

// The bundled Flink 1.20 recording with two problems at once (a
// backpressured source and a slow snapshot downstream) says where barriers
// queued: in most checkpoints the largest cause is the queue at Slow Map's
// input behind the Source, the slow sync comes after it, and the verdict
// names Slow Map as the slow operator.
func TestTheMixedCauseSampleNamesWhereBarriersQueued(t *testing.T) {
	a := newTestApp(t, Options{})
	const src = "sample: Flink 1.20 mixed causes"
	jobs, err := a.ListJobs(src)
	if err != nil || len(jobs) != 1 {
		t.Fatalf("jobs of %s: %+v, %v", src, jobs, err)
	}
	r, err := a.Report(src, jobs[0].ID, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	completed, queued, sync := 0, 0, 0
	for _, c := range r.Checkpoints {
		if c.Status != model.StatusCompleted || len(c.Causes) < 2 {
			continue
		}
		completed++
		if c.Causes[0].Phase == analyze.PhaseStartDelay && strings.Contains(c.Causes[0].VertexName, "Slow Map") &&
			strings.Contains(c.Causes[0].UpstreamVertexName, "Numbers") {
			queued++
		}
		if c.Causes[1].Phase == analyze.PhaseSync && strings.Contains(c.Causes[1].VertexName, "Slow Snapshot") {
			sync++
		}
	}
	if completed < 30 || queued*10 < completed*8 || sync*10 < completed*8 {
		t.Errorf("of %d completed checkpoints %d start with the queue at Slow Map behind the Source and %d have Slow Snapshot's sync next; want 80 %%",
			completed, queued, sync)
	}
	var named bool
	for _, p := range r.Correlation.ReasonParts {
		named = named || p.Code == "queue_dominant" && p.Args["vertex"] == "Slow Map"
	}
	if r.Correlation.Verdict != analyze.VerdictBackpressure || !named {
		t.Errorf("verdict %s: %s; want backpressure naming Slow Map", r.Correlation.Verdict, r.Correlation.Reason)
	}
}

// The bundled Iceberg sample (testenv/iceberg/record-sample.sh): a real
// Iceberg sink on Flink 1.20 whose table location makes each commit take
// about 1.9 s. Its timeline has the sink-commit lane, its checkpoints the
// commits that followed them, every completed one its finalize time from
// the JobManager log.
func TestTheIcebergSampleShowsItsSlowCommits(t *testing.T) {
	a := newTestApp(t, Options{})
	const src = "sample: Flink 1.20 Iceberg slow commits"
	jobs, err := a.ListJobs(src)
	if err != nil || len(jobs) != 1 {
		t.Fatalf("Iceberg sample jobs %+v, %v", jobs, err)
	}
	jid := jobs[0].ID
	tl, err := a.Timeline(TimelineRequest{Cluster: src, Job: jid, WidthPx: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if len(tl.Lanes.Commit) < 3 {
		t.Errorf("sink-commit lane %+v, want its samples", tl.Lanes.Commit)
	}
	for _, p := range tl.Lanes.Commit {
		if p.Value < 1500 || p.Value > 2500 {
			t.Errorf("commit lane value %v ms, want about 1.9 s", p.Value)
		}
	}
	r, err := a.Report(src, jid, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	with, finalize := 0, 0
	for _, c := range r.Checkpoints {
		if c.Commit != nil && c.Commit.DurationMs != nil && *c.Commit.DurationMs > 1500 && c.Commit.Files != nil && *c.Commit.Files > 0 {
			with++
		}
		if c.Status == model.StatusCompleted && c.Phases.Finalize != nil {
			finalize++
		}
	}
	if with < 8 || finalize != r.Summary.Completed {
		t.Errorf("%d checkpoints with a slow commit (want ≥ 8), %d of %d completed with finalize", with, finalize, r.Summary.Completed)
	}
}

func TestJobConfigSurvivesExportAndImport(t *testing.T) {
	a := newTestApp(t, Options{NoSample: true})
	seedJob(t, a)
	ctx := context.Background()
	if got, err := a.JobConfig("prod", "job1"); got != nil || err != nil {
		t.Fatalf("JobConfig before any was read: %+v %v, want nil", got, err)
	}
	iv, off, on := int64(1000), false, true
	first := model.JobConfig{Cluster: "prod", JobID: "job1", SeenMs: 1000, Mode: "exactly_once", IntervalMs: &iv,
		Unaligned: &off, StateBackend: "hashmap", Keys: map[string]string{"execution-config.job-parallelism": "2"}}
	second := first
	second.SeenMs, second.Unaligned, second.StateBackend = 2000, &on, "rocksdb"
	for _, c := range []model.JobConfig{first, second} {
		if err := a.store.PutJobConfig(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	got, err := a.JobConfig("prod", "job1")
	if err != nil || got == nil || !got.SameSettings(second) || got.SeenMs != 2000 {
		t.Fatalf("JobConfig = %+v (%v), want the newest", got, err)
	}
	if _, err := a.JobConfig("", "job1"); !IsBadRequest(err) {
		t.Errorf("JobConfig without a cluster: %v, want a bad request", err)
	}

	b, out := reimported(t, a, ExportRequest{Cluster: "prod", Job: "job1"})
	hist, err := b.store.JobConfigs(ctx, "capture: prod", "job1")
	if err != nil {
		t.Fatal(err)
	}
	first.Cluster, second.Cluster = "capture: prod", "capture: prod"
	if !reflect.DeepEqual(hist, []model.JobConfig{first, second}) {
		t.Errorf("imported history\n%+v\nwant\n%+v", hist, []model.JobConfig{first, second})
	}
	// Opening the file again adds nothing.
	if _, err := b.OpenCapture(out); err != nil {
		t.Fatal(err)
	}
	if hist, _ := b.store.JobConfigs(ctx, "capture: prod", "job1"); len(hist) != 2 {
		t.Errorf("after a second import: %d entries, want 2", len(hist))
	}
}

// What was dropped on the window and did not open is told with the reason in
// words the user can act on, without the layers' prefixes.
func TestOpenDroppedSaysWhy(t *testing.T) {
	a := newTestApp(t, Options{NoSample: true})
	var got []ImportErrorEvent
	defer a.events.subscribe(func(_ string, payload any) {
		if e, ok := payload.(ImportErrorEvent); ok {
			got = append(got, e)
		}
	})()
	d := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(d, name)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	sample, err := os.ReadFile("sample/flink-knobs.ckpt.gz")
	if err != nil {
		t.Fatal(err)
	}
	folder := filepath.Join(d, "captures")
	if err := os.Mkdir(folder, 0o700); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		path string
		want []string
	}{
		{write("shot.png", []byte("\x89PNG\r\n\x1a\n0000")), []string{"not a capture file", "opens capture files (.ckpt.gz)"}},
		{write("empty.ckpt.gz", nil), []string{"the file is empty"}},
		{write("cut.ckpt.gz", sample[:len(sample)/3]), []string{"truncated", "ends early"}},
		{folder, []string{"it is a folder", "drop the capture files"}},
		{filepath.Join(d, "gone.ckpt.gz"), []string{"the file is gone"}},
	}
	for _, c := range cases {
		got = nil
		openDropped(a, []string{c.path})
		if len(got) != 1 {
			t.Fatalf("%s: %d import-error events, want 1", c.path, len(got))
		}
		e := got[0]
		if e.File != filepath.Base(c.path) {
			t.Errorf("%s: event names %q", c.path, e.File)
		}
		for _, w := range c.want {
			if !strings.Contains(e.Error, w) {
				t.Errorf("%s: reason %q lacks %q", filepath.Base(c.path), e.Error, w)
			}
		}
		for _, noise := range []string{"bad request", "store: bulk", "open " + e.File + ":"} {
			if strings.Contains(e.Error, noise) {
				t.Errorf("%s: reason %q still carries %q", filepath.Base(c.path), e.Error, noise)
			}
		}
		t.Logf("%s: %s", e.File, e.Error)
	}
	// A good capture among them still opens, and says which sources it opened.
	got = nil
	var done []ImportDoneEvent
	defer a.events.subscribe(func(_ string, payload any) {
		if e, ok := payload.(ImportDoneEvent); ok {
			done = append(done, e)
		}
	})()
	openDropped(a, []string{write("good.ckpt.gz", sample)})
	if len(got) != 0 {
		t.Errorf("a good capture failed: %+v", got)
	}
	if len(done) != 1 || done[0].File != "good.ckpt.gz" || len(done[0].Sources) == 0 || done[0].Checkpoints == 0 {
		t.Errorf("import-done events %+v, want one naming good.ckpt.gz, its sources and checkpoints", done)
	}
}

// The app's own metrics: requests and errors per cluster and endpoint, the
// cache's size and count, what retention removed (the HTTP door serves them
// behind its token, tested in app/serve).
func TestMetricsHandlerExportsRequestsAndTheCache(t *testing.T) {
	a := newTestApp(t, Options{NoSample: true})
	ts := httptest.NewServer(metricsHandler(a))
	defer ts.Close()
	a.metrics.observe("prod", "/jobs/:jid/checkpoints", 503, 20*time.Millisecond, nil)
	a.metrics.observe("test", "/jobs/:jid/checkpoints", 200, 20*time.Millisecond, nil)
	res, err := http.Get(ts.URL)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	for _, want := range []string{
		`checkpoint_explorer_cluster_requests_total{cluster="prod",code="503",endpoint="/jobs/:jid/checkpoints"} 1`,
		`checkpoint_explorer_cluster_request_errors_total{cluster="prod",endpoint="/jobs/:jid/checkpoints"} 1`,
		"checkpoint_explorer_store_bytes ",
		"checkpoint_explorer_store_checkpoints 0",
		"checkpoint_explorer_retention_pruned_checkpoints_total 0",
		// Latency by endpoint alone: by cluster too, a fleet's /metrics grew to megabytes.
		`checkpoint_explorer_cluster_request_duration_seconds_count{endpoint="/jobs/:jid/checkpoints"} 2`,
	} {
		if !strings.Contains(string(b), want) {
			t.Errorf("metrics lack %q", want)
		}
	}
}

// testReconciliation is what a collector would keep for seedJob's job after
// a poll: ids 1..23 of which 20 stored and 21..23 a gap, and the engine's
// counters saying 25 were triggered over the span, 2 of them before an id.
func testReconciliation(cluster string) model.Reconciliation {
	return model.Reconciliation{
		Cluster: cluster, JobID: "job1", AtMs: time.Now().UnixMilli(), Polls: 40, FailedPolls: 3,
		FirstID: 1, LatestID: 23, IDs: 23, Stored: 20, Gaps: 3, Unaccounted: 0,
		EngineCounted: 25, WithoutID: 2,
		Engine: &model.EngineCounts{Triggered: 25, Completed: 21, Failed: 4},
	}
}

func TestJobReconciliationReturnsWhatTheStoreHolds(t *testing.T) {
	a := newTestApp(t, Options{NoSample: true})
	seedJob(t, a)
	ctx := context.Background()

	// None kept yet: nil, not an empty record.
	got, err := a.JobReconciliation("prod", "job1")
	if err != nil || got != nil {
		t.Fatalf("before any poll: %+v, %v; want nil, nil", got, err)
	}

	want := testReconciliation("prod")
	if err := a.store.PutReconciliation(ctx, want); err != nil {
		t.Fatal(err)
	}
	got, err = a.JobReconciliation("prod", "job1")
	if err != nil {
		t.Fatal(err)
	}
	if got == nil || !reflect.DeepEqual(got.Reconciliation, want) || got.Missed != 3 {
		t.Fatalf("got %+v, want %+v with missed 3", got, want)
	}

	// A later poll replaces it; one unaccounted id counts as missed too.
	later := want
	later.AtMs, later.LatestID, later.IDs, later.Unaccounted = want.AtMs+1000, 24, 24, 1
	if err := a.store.PutReconciliation(ctx, later); err != nil {
		t.Fatal(err)
	}
	if got, err = a.JobReconciliation("prod", "job1"); err != nil || got == nil || got.LatestID != 24 || got.Missed != 4 {
		t.Fatalf("after a later poll: %+v, %v", got, err)
	}

	// Another job, or another cluster's job of the same id, has none.
	for _, k := range [][2]string{{"prod", "job2"}, {"other", "job1"}} {
		if got, err := a.JobReconciliation(k[0], k[1]); err != nil || got != nil {
			t.Errorf("%s/%s: %+v, %v; want nil, nil", k[0], k[1], got, err)
		}
	}
	if _, err := a.JobReconciliation("", "job1"); !IsBadRequest(err) {
		t.Errorf("without a cluster: %v, want a bad request", err)
	}
}

// The JSON the UI reads: the model's fields flat, with missed beside them,
// and null when there is none.
func TestJobReconciliationJSONShape(t *testing.T) {
	a := newTestApp(t, Options{NoSample: true})
	seedJob(t, a)
	if err := a.store.PutReconciliation(context.Background(), testReconciliation("prod")); err != nil {
		t.Fatal(err)
	}
	got, err := a.JobReconciliation("prod", "job1")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(got)
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]float64{"engine_counted": 25, "stored": 20, "gaps": 3, "unaccounted": 0, "without_id": 2,
		"missed": 3, "first_id": 1, "latest_id": 23, "ids": 23, "polls": 40, "failed_polls": 3} {
		if m[k] != v {
			t.Errorf("%s = %v, want %v (%s)", k, m[k], v, b)
		}
	}
	if e, _ := m["engine"].(map[string]any); e == nil || e["triggered"] != 25.0 {
		t.Errorf("engine counters: %s", b)
	}
	none, _ := a.JobReconciliation("prod", "nope")
	if b, _ := json.Marshal(none); string(b) != "null" {
		t.Errorf("no reconciliation marshals as %s, want null", b)
	}
}

func TestImportedCaptureBringsItsReconciliation(t *testing.T) {
	base := time.Now().Add(-time.Hour).UnixMilli()
	want := testReconciliation("lab")
	path := capturetest.Write(t, filepath.Join(t.TempDir(), "recon.ckpt.gz"), func(w *capture.Writer) error {
		err := errors.Join(w.Cluster(model.Cluster{Name: "lab", Engine: model.EngineFlink, BaseURL: "http://jm:8081"}),
			w.Job(model.Job{Cluster: "lab", ID: "job1", Name: "Orders", Engine: model.EngineFlink, State: "RUNNING"}))
		for i := int64(1); i <= 20; i++ {
			err = errors.Join(err, w.Checkpoint(&model.Checkpoint{Cluster: "lab", JobID: "job1", ID: i, Kind: model.KindCheckpoint,
				Status: model.StatusCompleted, TriggerMs: base + i*1000, CompletionMs: base + i*1000 + 50, EndToEndMs: 50}))
		}
		return errors.Join(err, w.Gap(model.Gap{Cluster: "lab", JobID: "job1", FromID: 21, ToID: 23, DetectedMs: base + 30_000}),
			w.Reconciliation(want))
	})

	a := newTestApp(t, Options{NoSample: true})
	imp, err := a.OpenCapture(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(imp.Sources) != 1 || imp.Sources[0] != "capture: lab" {
		t.Fatalf("import result %+v", imp)
	}
	got, err := a.JobReconciliation("capture: lab", "job1")
	if err != nil {
		t.Fatal(err)
	}
	want.Cluster = "capture: lab"
	if got == nil || !reflect.DeepEqual(got.Reconciliation, want) || got.Missed != 3 {
		t.Fatalf("imported reconciliation %+v, want %+v", got, want)
	}
	// It is kept under the capture's name only.
	if got, _ := a.JobReconciliation("lab", "job1"); got != nil {
		t.Errorf("also kept under the recorded cluster name: %+v", got)
	}
	// A whole export carries it on; an export of a time range does not.
	for _, tc := range []struct {
		fromMs int64
		keeps  bool
	}{{0, true}, {base + 5_000, false}} {
		b, _ := reimported(t, a, ExportRequest{Cluster: "capture: lab", Job: "job1", FromMs: tc.fromMs})
		again, err := b.JobReconciliation("capture: lab", "job1") // a capture name is kept as it is
		if err != nil {
			t.Fatal(err)
		}
		if (again != nil) != tc.keeps {
			t.Errorf("export from %d: reconciliation %+v, want kept %v", tc.fromMs, again, tc.keeps)
		}
		if again != nil && (again.Stored != want.Stored || again.Gaps != want.Gaps) {
			t.Errorf("re-imported reconciliation %+v, want %+v", again, want)
		}
	}
}

// A source that is not polled lists no problems and nothing missed; the
// facade is reachable by name from serve (reflection) like every method.
func TestSourcesWithoutCollectorListNoProblems(t *testing.T) {
	a := newTestApp(t, Options{NoSample: true})
	seedJob(t, a)
	list, err := a.ListClusters()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range list {
		if len(s.Health.Problems) != 0 || s.Health.Missed != 0 {
			t.Errorf("%s: problems %v, missed %d without a collector", s.Name, s.Health.Problems, s.Health.Missed)
		}
		b, _ := json.Marshal(s)
		if strings.Contains(string(b), `"problems"`) || strings.Contains(string(b), `"missed"`) {
			t.Errorf("%s: empty problems or missed marshalled: %s", s.Name, b)
		}
	}
	if _, ok := reflect.TypeFor[*App]().MethodByName("JobReconciliation"); !ok {
		t.Error("JobReconciliation is not a method the doors expose")
	}
}

// The window's first fleet after a start is the last run's, at once, marked
// as of its read; the fleet of now follows. A command that only reads the
// cache (status) never gets the last run's.
func TestFleetAfterAStartIsTheLastRunsAtOnce(t *testing.T) {
	dir := t.TempDir()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	req := FleetRequest{WindowMs: 100 * 365 * 24 * 3600 * 1000}
	first := startTestApp(t, Options{DataDir: dir, Logger: quiet})
	f1, err := first.Fleet(req)
	if err != nil || len(f1.Jobs) == 0 || f1.AsOfMs != 0 {
		t.Fatalf("the first run's fleet: %d rows, as of %d, %v; want the sample's row, read now", len(f1.Jobs), f1.AsOfMs, err)
	}
	closeApp(first) // waits for the read to be kept

	second := startTestApp(t, Options{DataDir: dir, Logger: quiet})
	f2, err := second.Fleet(req)
	if err != nil || f2.AsOfMs == 0 || !reflect.DeepEqual(f2.Jobs, f1.Jobs) {
		t.Fatalf("the next run's first fleet: as of %d, %v; want the last run's rows, marked", f2.AsOfMs, err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for f2.AsOfMs != 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
		if f2, err = second.Fleet(req); err != nil {
			t.Fatal(err)
		}
	}
	if f2.AsOfMs != 0 || len(f2.Jobs) != len(f1.Jobs) {
		t.Errorf("the fleet after the background read: as of %d, %d rows; want the fleet of now", f2.AsOfMs, len(f2.Jobs))
	}
	closeApp(second)

	status := newTestApp(t, Options{DataDir: dir})
	if f, err := status.Fleet(req); err != nil || f.AsOfMs != 0 {
		t.Errorf("a reading command's fleet: as of %d, %v; want the fleet of now", f.AsOfMs, err)
	}
}
