package app

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"checkpoint-explorer/backend/analyze"
	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/store"
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
		{ClusterInput{Name: "a", Engine: "flink", BaseURL: "http://x", RequestsPerSecond: -3}, "requests per second -3"},
		{ClusterInput{Name: "a", Engine: "flink", BaseURL: "http://x", RequestsPerSecond: 5000}, "give 0.1 to 1000"},
		{ClusterInput{Name: "a", Engine: "seatunnel", BaseURL: "http://x", MaxInFlight: 100}, "requests in flight 100"},
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
	// Importing the same file again changes nothing.
	if _, err := b.OpenCapture(out); err != nil {
		t.Fatal(err)
	}
	st, _ := b.store.Stats(ctx)
	if st.Checkpoints != 20 || st.Gaps != 1 || st.MetricSamples != 1 {
		t.Errorf("after a second import: %+v", st)
	}
	// Export of the imported capture gives a file that imports identically again.
	out2 := filepath.Join(t.TempDir(), "again.ckpt.gz")
	if _, err := b.ExportCapture(ExportRequest{Cluster: "capture: prod", Job: "job1", Path: out2}); err != nil {
		t.Fatal(err)
	}
	c := newTestApp(t, Options{NoSample: true})
	if _, err := c.OpenCapture(out2); err != nil {
		t.Fatal(err)
	}
	got, _ := c.store.Checkpoint(ctx, model.Key{Cluster: "capture: prod", JobID: "job1", ID: 7})
	want, _ := b.store.Checkpoint(ctx, model.Key{Cluster: "capture: prod", JobID: "job1", ID: 7})
	if !reflect.DeepEqual(want, got) {
		t.Errorf("second round trip differs for checkpoint 7")
	}
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
		"knobs: healthy baseline":                  {verdict: analyze.VerdictInconclusive},
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
