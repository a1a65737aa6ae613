package flink_test

// The client on one recorded answer of every endpoint it reads, per Flink version of the matrix
// (testdata/versions/<version>/, recorded by testenv/flink/record-versions.sh from the knob job:
// A at parallelism 2 with every third checkpoint declined, B with a backpressured source). Each
// decoded value is compared with the same answer read independently of the client (plain maps),
// so a field that is renamed, moved or retyped in a version fails that version's subtest. The
// same comparisons run against live clusters in versions_real_test.go.

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/source/flink"
	"checkpoint-explorer/testenv/flinkenv"
)

// recordedMeta is meta.json: the ids the recording used.
type recordedMeta struct {
	Version            string   `json:"version"`
	Job                string   `json:"job"`
	Completed          int64    `json:"completed"`
	Failed             int64    `json:"failed"`
	SubtasksCompletedV string   `json:"subtasks_completed_vertex"`
	SubtasksFailedV    string   `json:"subtasks_failed_vertex"`
	BackpressureJob    string   `json:"backpressure_job"`
	BackpressureVertex string   `json:"backpressure_vertex"`
	Metrics            []string `json:"metrics"`
}

func TestRecordedVersions(t *testing.T) {
	versions, err := flinkenv.MatrixVersions()
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			t.Parallel()
			testRecordedVersion(t, v)
		})
	}
}

func testRecordedVersion(t *testing.T, version string) {
	dir := filepath.Join("testdata", "versions", version)
	read := func(name string) []byte {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatalf("%v (record it with testenv/flink/record-versions.sh %s)", err, version)
		}
		if strings.HasSuffix(name, ".gz") {
			zr, err := gzip.NewReader(bytes.NewReader(b))
			if err != nil {
				t.Fatal(err)
			}
			if b, err = io.ReadAll(zr); err != nil {
				t.Fatal(err)
			}
		}
		return b
	}
	var meta recordedMeta
	if err := json.Unmarshal(read("meta.json"), &meta); err != nil || meta.Version != version {
		t.Fatalf("meta.json: %+v, %v", meta, err)
	}
	a, b := meta.Job, meta.BackpressureJob
	cp := fmt.Sprintf("/jobs/%s/checkpoints/details/", a)
	routes := map[string]string{
		"/config":                       "config.json",
		"/overview":                     "overview.json",
		"/jobs/overview":                "jobs-overview.json",
		"/jobs/" + a:                    "job.json",
		"/jobs/" + a + "/checkpoints":   "checkpoints.json",
		cp + fmt.Sprint(meta.Completed): "checkpoint-completed.json",
		cp + fmt.Sprint(meta.Failed):    "checkpoint-failed.json",
		cp + fmt.Sprintf("%d/subtasks/%s", meta.Completed, meta.SubtasksCompletedV): "subtasks-completed.json",
		cp + fmt.Sprintf("%d/subtasks/%s", meta.Failed, meta.SubtasksFailedV):       "subtasks-failed.json",
		"/jobs/" + a + "/checkpoints/config":                                        "checkpoint-config.json",
		"/jobs/" + a + "/config":                                                    "job-config.json",
		"/jobmanager/config":                                                        "jobmanager-config.json",
		"/jobs/" + a + "/jobmanager/config":                                         "job-jobmanager-config.json",
		"/jobs/" + b + "/vertices/" + meta.BackpressureVertex + "/backpressure":     "backpressure.json",
		"/jobmanager/logs":                                                          "logs.json",
		"/jobmanager/log":                                                           "jobmanager.log.gz",
	}
	metricsPath := "/jobs/" + b + "/vertices/" + meta.BackpressureVertex + "/subtasks/metrics"
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		name, ok := routes[r.URL.Path]
		if r.URL.Path == metricsPath {
			name, ok = "metric-names.json", true
			if r.URL.Query().Get("get") != "" {
				name = "metrics.json"
				if got, want := r.URL.Query().Get("get"), strings.Join(meta.Metrics, ","); got != want {
					t.Errorf("metrics asked for %q, recorded %q", got, want)
				}
			}
		}
		if !ok {
			http.Error(w, `{"errors":["Not found: `+r.URL.Path+`"]}`, http.StatusNotFound)
			return
		}
		w.Write(read(name))
	})
	c := newClient(t, flink.Config{BaseURL: srv.URL, Cluster: "rec"})
	ctx := context.Background()

	v, err := c.Version(ctx)
	if err != nil || v != version {
		t.Errorf("Version = %q, %v; want %q", v, err, version)
	}
	o, err := c.Overview(ctx)
	if err != nil {
		t.Fatal(err)
	}
	checkOverview(t, read("overview.json"), o)

	jobs, err := c.Jobs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	checkJobs(t, read("jobs-overview.json"), jobs, "rec")

	job, err := c.Job(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	checkJobGraph(t, read("job.json"), job, 2)

	list, err := c.Checkpoints(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	checkCheckpointList(t, read("checkpoints.json"), list, a, "rec")
	if list.LatestFailedID == 0 || list.LatestCompletedID == 0 {
		t.Errorf("recorded list has no completed or no failed checkpoint: %+v", list)
	}
	checkKnobHistory(t, list, 2)

	for _, x := range []struct {
		cid  int64
		file string
		want model.Status
	}{{meta.Completed, "checkpoint-completed.json", model.StatusCompleted}, {meta.Failed, "checkpoint-failed.json", model.StatusFailed}} {
		d, err := c.CheckpointDetail(ctx, a, x.cid)
		if err != nil {
			t.Fatal(err)
		}
		checkCheckpointDetail(t, read(x.file), d, a, "rec")
		if d.Status != x.want || len(d.Tasks) != len(knobVertices) {
			t.Errorf("checkpoint %d: status %s, %d tasks; want %s, %d", x.cid, d.Status, len(d.Tasks), x.want, len(knobVertices))
		}
	}
	ts, err := c.SubtaskStats(ctx, a, meta.Completed, meta.SubtasksCompletedV)
	if err != nil {
		t.Fatal(err)
	}
	checkSubtasks(t, read("subtasks-completed.json"), ts, meta.SubtasksCompletedV)
	if len(ts.Subtasks) != 2 || !ts.Subtasks[0].Acknowledged() || ts.Subtasks[1].StateSize <= 0 {
		t.Errorf("Stateful Counter in completed checkpoint %d: %+v", meta.Completed, ts)
	}
	ts, err = c.SubtaskStats(ctx, a, meta.Failed, meta.SubtasksFailedV)
	if err != nil {
		t.Fatal(err)
	}
	checkSubtasks(t, read("subtasks-failed.json"), ts, meta.SubtasksFailedV)
	pending := 0
	for _, s := range ts.Subtasks {
		if s.Status == model.SubtaskPendingOrFailed {
			pending++
		}
	}
	if len(ts.Subtasks) != 2 || pending == 0 {
		t.Errorf("Snapshot Thrower in failed checkpoint %d: %+v, want a subtask pending_or_failed", meta.Failed, ts)
	}

	cc, err := c.CheckpointConfig(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	checkCheckpointConfig(t, read("checkpoint-config.json"), cc)
	if cc.IntervalMs != 1000 || cc.Mode != "exactly_once" || cc.TolerableFailed != 1000000 {
		t.Errorf("checkpoint config %+v, want the knob job's (1000 ms, exactly once)", cc)
	}
	exec, err := c.ExecutionConfig(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	checkExecutionConfig(t, read("job-config.json"), exec)
	for _, jid := range []string{"", a} {
		kv, err := c.JobManagerConfig(ctx, jid)
		if err != nil {
			t.Fatal(err)
		}
		file := "jobmanager-config.json"
		if jid != "" {
			file = "job-jobmanager-config.json"
		}
		checkKeyValues(t, read(file), kv)
	}

	names, err := c.VertexMetricNames(ctx, b, meta.BackpressureVertex)
	if err != nil {
		t.Fatal(err)
	}
	checkMetricNames(t, read("metric-names.json"), names)
	samples, err := c.VertexMetrics(ctx, b, meta.BackpressureVertex, meta.Metrics, 1)
	if err != nil {
		t.Fatal(err)
	}
	checkMetrics(t, read("metrics.json"), samples)
	bp, err := c.Backpressure(ctx, b, meta.BackpressureVertex)
	if err != nil {
		t.Fatal(err)
	}
	checkBackpressure(t, read("backpressure.json"), bp)
	if bp.Level != "high" || len(samples) != 6 || maxOf(samples, model.MetricBackPressuredMsPerSec) < 500 {
		t.Errorf("B's source: backpressure %+v, samples %+v; want high, > 500 ms/s", bp, samples)
	}

	files, err := c.LogFiles(ctx)
	if err != nil {
		t.Fatal(err)
	}
	checkLogFiles(t, read("logs.json"), files)
	h, err := c.JobManagerLog(ctx, 64<<20)
	if err != nil {
		t.Fatal(err)
	}
	checkLogAgainstREST(t, h, list, a, meta.SubtasksFailedV)
}

// ---- independent reading of Flink's JSON, shared with versions_real_test.go ----

func decodeRaw(t *testing.T, raw []byte, out any) {
	t.Helper()
	if err := json.Unmarshal(raw, out); err != nil {
		t.Fatalf("Flink's JSON does not decode: %v: %.200s", err, raw)
	}
}

// rawNum reads a number that must be there: a version without it is one the client misreads.
func rawNum(t *testing.T, m map[string]any, key string) int64 {
	t.Helper()
	f, ok := m[key].(float64)
	if !ok {
		t.Fatalf("Flink's JSON has no number %q: %v", key, m)
	}
	return int64(f)
}

// rawOpt reads a number that may be absent (0 then).
func rawOpt(m map[string]any, key string) int64 {
	f, _ := m[key].(float64)
	return int64(f)
}

func rawStr(m map[string]any, key string) string {
	s, _ := m[key].(string)
	return s
}

func nonNeg(v int64) int64 { return max(v, 0) }

func checkOverview(t *testing.T, raw []byte, got flink.Overview) {
	t.Helper()
	var m map[string]any
	decodeRaw(t, raw, &m)
	want := flink.Overview{Version: rawStr(m, "flink-version"), TaskManagers: int(rawNum(t, m, "taskmanagers")),
		SlotsTotal: int(rawNum(t, m, "slots-total")), SlotsAvailable: int(rawNum(t, m, "slots-available")),
		JobsRunning: int(rawNum(t, m, "jobs-running")), JobsFinished: int(rawNum(t, m, "jobs-finished")),
		JobsCancelled: int(rawNum(t, m, "jobs-cancelled")), JobsFailed: int(rawNum(t, m, "jobs-failed"))}
	if got != want || got.TaskManagers < 1 || got.JobsRunning < 2 {
		t.Errorf("Overview\n got %+v\nwant %+v (Flink's JSON), with a TaskManager and 2 jobs", got, want)
	}
}

func checkJobs(t *testing.T, raw []byte, got []model.Job, cluster string) {
	t.Helper()
	var body struct {
		Jobs []map[string]any `json:"jobs"`
	}
	decodeRaw(t, raw, &body)
	var want []model.Job
	for _, j := range body.Jobs {
		want = append(want, model.Job{Cluster: cluster, ID: rawStr(j, "jid"), Name: rawStr(j, "name"), Engine: model.EngineFlink,
			State: rawStr(j, "state"), StartMs: nonNeg(rawNum(t, j, "start-time")), EndMs: nonNeg(rawNum(t, j, "end-time")),
			UpdatedMs: nonNeg(rawNum(t, j, "last-modification"))})
	}
	// Flink lists the jobs in no stable order (a hash map): compare them by id.
	got = append([]model.Job(nil), got...)
	for _, l := range [][]model.Job{got, want} {
		sort.Slice(l, func(i, j int) bool { return l[i].ID < l[j].ID })
	}
	if !reflect.DeepEqual(got, want) || len(got) == 0 {
		t.Errorf("Jobs\n got %+v\nwant %+v (Flink's JSON)", got, want)
	}
}

// checkJobGraph compares the vertices and edges with Flink's JSON and with the knob job's shape.
func checkJobGraph(t *testing.T, raw []byte, got model.Job, parallelism int) {
	t.Helper()
	var body struct {
		Vertices []map[string]any `json:"vertices"`
		Plan     struct {
			Nodes []struct {
				ID     string           `json:"id"`
				Inputs []map[string]any `json:"inputs"`
			} `json:"nodes"`
		} `json:"plan"`
	}
	decodeRaw(t, raw, &body)
	var want []model.Vertex
	for _, v := range body.Vertices {
		want = append(want, model.Vertex{ID: rawStr(v, "id"), Name: rawStr(v, "name"), Parallelism: int(rawNum(t, v, "parallelism"))})
	}
	if !reflect.DeepEqual(got.Vertices, want) {
		t.Errorf("vertices\n got %+v\nwant %+v (Flink's JSON)", got.Vertices, want)
	}
	if len(got.Vertices) != len(knobVertices) {
		t.Fatalf("%d vertices, want the knob job's %d", len(got.Vertices), len(knobVertices))
	}
	var wantEdges []model.Edge
	for i, kv := range knobVertices {
		if v := got.Vertices[i]; v.Name != kv.name || v.Parallelism != parallelism {
			t.Errorf("vertex %d = %+v, want %q at parallelism %d", i, v, kv.name, parallelism)
		}
		if i > 0 {
			wantEdges = append(wantEdges, model.Edge{Source: got.Vertices[i-1].ID, Target: got.Vertices[i].ID, ShipStrategy: kv.in})
		}
	}
	n := 0
	for _, node := range body.Plan.Nodes {
		n += len(node.Inputs)
	}
	if !reflect.DeepEqual(got.Edges, wantEdges) || n != len(wantEdges) {
		t.Errorf("edges\n got %+v\nwant %+v (plan has %d inputs)", got.Edges, wantEdges, n)
	}
}

// wantCheckpoint is what a history entry or details answer must become, read from Flink's JSON
// by the mapping docs/flink.md documents.
func wantCheckpoint(t *testing.T, m map[string]any, jid, cluster string) model.Checkpoint {
	t.Helper()
	kind := model.KindCheckpoint
	switch rawStr(m, "checkpoint_type") {
	case "UNALIGNED_CHECKPOINT":
		kind = model.KindUnaligned
	case "SAVEPOINT", "SYNC_SAVEPOINT":
		kind = model.KindSavepoint
	case "":
		t.Fatalf("Flink's checkpoint JSON has no checkpoint_type: %v", m)
	}
	if sp, _ := m["is_savepoint"].(bool); sp {
		kind = model.KindSavepoint
	}
	status := map[string]model.Status{"COMPLETED": model.StatusCompleted, "FAILED": model.StatusFailed,
		"IN_PROGRESS": model.StatusInProgress}[rawStr(m, "status")]
	if status == "" {
		t.Fatalf("Flink's checkpoint JSON has status %q", rawStr(m, "status"))
	}
	cp := model.Checkpoint{
		Cluster: cluster, JobID: jid, ID: rawNum(t, m, "id"), Kind: kind, Status: status,
		TriggerMs:      nonNeg(rawNum(t, m, "trigger_timestamp")),
		FailureMs:      nonNeg(rawOpt(m, "failure_timestamp")),
		FailureMessage: rawStr(m, "failure_message"),
		ExternalPath:   rawStr(m, "external_path"),
	}
	wantFigures(t, m, &cp.LatestAckMs, &cp.EndToEndMs, &cp.StateSize, &cp.CheckpointedSize, &cp.ProcessedData, &cp.PersistedData,
		&cp.NumSubtasks, &cp.NumAcknowledged)
	return cp
}

func wantTask(t *testing.T, vid string, m map[string]any) model.TaskStats {
	t.Helper()
	ts := model.TaskStats{VertexID: vid}
	wantFigures(t, m, &ts.LatestAckMs, &ts.EndToEndMs, &ts.StateSize, &ts.CheckpointedSize, &ts.ProcessedData, &ts.PersistedData,
		&ts.NumSubtasks, &ts.NumAcknowledged)
	return ts
}

// wantFigures reads the figures Flink reports alike for a checkpoint and for each of its tasks
// into the fields given: times and sizes (negative read as 0), then the subtask counts.
func wantFigures(t *testing.T, m map[string]any, latestAck, endToEnd, stateSize, checkpointed, processed, persisted *int64,
	subtasks, acknowledged *int) {
	t.Helper()
	for key, field := range map[string]*int64{"latest_ack_timestamp": latestAck, "end_to_end_duration": endToEnd,
		"state_size": stateSize, "checkpointed_size": checkpointed, "processed_data": processed, "persisted_data": persisted} {
		*field = nonNeg(rawNum(t, m, key))
	}
	*subtasks = int(rawNum(t, m, "num_subtasks"))
	*acknowledged = int(rawNum(t, m, "num_acknowledged_subtasks"))
}

func checkCheckpointList(t *testing.T, raw []byte, got flink.CheckpointList, jid, cluster string) {
	t.Helper()
	var body struct {
		Counts  map[string]any            `json:"counts"`
		Latest  map[string]map[string]any `json:"latest"`
		History []map[string]any          `json:"history"`
	}
	decodeRaw(t, raw, &body)
	wantCounts := flink.Counts{Restored: rawNum(t, body.Counts, "restored"), Total: rawNum(t, body.Counts, "total"),
		InProgress: rawNum(t, body.Counts, "in_progress"), Completed: rawNum(t, body.Counts, "completed"),
		Failed: rawNum(t, body.Counts, "failed")}
	if got.Counts != wantCounts {
		t.Errorf("counts %+v, Flink says %+v", got.Counts, wantCounts)
	}
	latest := func(k string) int64 {
		if l := body.Latest[k]; l != nil {
			return rawNum(t, l, "id")
		}
		return 0
	}
	if got.LatestCompletedID != latest("completed") || got.LatestFailedID != latest("failed") ||
		got.LatestSavepointID != latest("savepoint") || got.RestoredID != latest("restored") {
		t.Errorf("latest ids %d/%d/%d/%d, Flink says completed %d failed %d savepoint %d restored %d",
			got.LatestCompletedID, got.LatestFailedID, got.LatestSavepointID, got.RestoredID,
			latest("completed"), latest("failed"), latest("savepoint"), latest("restored"))
	}
	if len(got.History) != len(body.History) || len(got.History) == 0 {
		t.Fatalf("history of %d entries, Flink's has %d", len(got.History), len(body.History))
	}
	for i, h := range body.History {
		if want := wantCheckpoint(t, h, jid, cluster); !reflect.DeepEqual(got.History[i], want) {
			t.Errorf("history entry %d\n got %+v\nwant %+v (Flink's JSON)", i, got.History[i], want)
		}
	}
}

// checkKnobHistory checks what the knob job with --fail-every 3 at parallelism p must show.
func checkKnobHistory(t *testing.T, list flink.CheckpointList, p int) {
	t.Helper()
	n := 6 * p
	var completed, failed int
	for i, cp := range list.History {
		if i > 0 && cp.ID >= list.History[i-1].ID {
			t.Errorf("history not newest first at %d", i)
		}
		if cp.TriggerMs <= 0 || cp.NumSubtasks != n || cp.Kind != model.KindCheckpoint {
			t.Errorf("history entry %+v", cp)
		}
		switch cp.Status {
		case model.StatusCompleted:
			completed++
			// end to end is trigger → last ack, to the millisecond.
			if cp.ID%3 == 0 || cp.NumAcknowledged != n || cp.LatestAckMs-cp.TriggerMs != cp.EndToEndMs ||
				cp.StateSize <= 0 || cp.CheckpointedSize <= 0 || !strings.Contains(cp.ExternalPath, fmt.Sprintf("chk-%d", cp.ID)) {
				t.Errorf("completed checkpoint %+v", cp)
			}
		case model.StatusFailed:
			failed++
			if cp.ID%3 != 0 || cp.FailureMs < cp.TriggerMs || cp.FailureMessage != "Asynchronous task checkpoint failed." {
				t.Errorf("failed checkpoint %+v", cp)
			}
		}
	}
	if completed == 0 || failed == 0 {
		t.Errorf("history has %d completed and %d failed checkpoints, want both", completed, failed)
	}
}

func checkCheckpointDetail(t *testing.T, raw []byte, got model.Checkpoint, jid, cluster string) {
	t.Helper()
	var m map[string]any
	decodeRaw(t, raw, &m)
	want := wantCheckpoint(t, m, jid, cluster)
	tasks, _ := m["tasks"].(map[string]any)
	for vid, tm := range tasks {
		want.Tasks = append(want.Tasks, wantTask(t, vid, tm.(map[string]any)))
	}
	sort.Slice(want.Tasks, func(i, j int) bool { return want.Tasks[i].VertexID < want.Tasks[j].VertexID })
	if !reflect.DeepEqual(got, want) {
		t.Errorf("checkpoint %d details\n got %+v\nwant %+v (Flink's JSON)", got.ID, got, want)
	}
	if len(got.Tasks) == 0 {
		t.Errorf("checkpoint %d details without per-vertex tasks", got.ID)
	}
}

func checkSubtasks(t *testing.T, raw []byte, got model.TaskStats, vid string) {
	t.Helper()
	var m map[string]any
	decodeRaw(t, raw, &m)
	want := wantTask(t, vid, m)
	subs, _ := m["subtasks"].([]any)
	for _, s := range subs {
		sm := s.(map[string]any)
		if rawStr(sm, "status") == model.SubtaskCompleted {
			want.Subtasks = append(want.Subtasks, flinkenv.SubtaskFromJSON(t, sm))
		} else {
			want.Subtasks = append(want.Subtasks, model.SubtaskStats{Index: int(rawNum(t, sm, "index")), Status: model.SubtaskPendingOrFailed})
		}
	}
	sort.Slice(want.Subtasks, func(i, j int) bool { return want.Subtasks[i].Index < want.Subtasks[j].Index })
	if !reflect.DeepEqual(got, want) || len(got.Subtasks) == 0 {
		t.Errorf("subtasks of %s\n got %+v\nwant %+v (Flink's JSON)", vid, got, want)
	}
}

func checkCheckpointConfig(t *testing.T, raw []byte, got flink.CheckpointConfig) {
	t.Helper()
	var m map[string]any
	decodeRaw(t, raw, &m)
	ext, _ := m["externalization"].(map[string]any)
	b := func(m map[string]any, k string) bool { v, _ := m[k].(bool); return v }
	want := flink.CheckpointConfig{Mode: rawStr(m, "mode"), IntervalMs: rawNum(t, m, "interval"), TimeoutMs: rawNum(t, m, "timeout"),
		MinPauseMs: rawNum(t, m, "min_pause"), MaxConcurrent: int(rawNum(t, m, "max_concurrent")),
		Unaligned: b(m, "unaligned_checkpoints"), AlignedTimeout: rawNum(t, m, "aligned_checkpoint_timeout"),
		TolerableFailed: int(rawNum(t, m, "tolerable_failed_checkpoints")), Externalized: b(ext, "enabled"),
		DeleteOnCancel: b(ext, "delete_on_cancellation"), StateBackend: rawStr(m, "state_backend"),
		Storage: rawStr(m, "checkpoint_storage"), ChangelogEnabled: b(m, "state_changelog_enabled")}
	got.Settings = flink.CheckpointSettings{}
	if got != want || want.StateBackend == "" || want.Storage == "" {
		t.Errorf("checkpoint config\n got %+v\nwant %+v (Flink's JSON)", got, want)
	}
}

func checkExecutionConfig(t *testing.T, raw []byte, got map[string]string) {
	t.Helper()
	var body struct {
		Exec map[string]any `json:"execution-config"`
	}
	decodeRaw(t, raw, &body)
	want := map[string]string{}
	for k, v := range body.Exec {
		switch v := v.(type) {
		case string:
			want[k] = v
		case float64, bool:
			want[k] = fmt.Sprint(v)
		}
	}
	if !reflect.DeepEqual(got, want) || got["job-parallelism"] == "" {
		t.Errorf("execution config\n got %v\nwant %v (Flink's JSON)", got, want)
	}
}

func checkKeyValues(t *testing.T, raw []byte, got map[string]string) {
	t.Helper()
	var body []struct{ Key, Value string }
	decodeRaw(t, raw, &body)
	want := map[string]string{}
	for _, kv := range body {
		want[kv.Key] = kv.Value
	}
	if !reflect.DeepEqual(got, want) || got["execution.checkpointing.dir"] == "" {
		t.Errorf("JobManager config\n got %v\nwant %v (Flink's JSON)", got, want)
	}
}

func checkMetricNames(t *testing.T, raw []byte, got []string) {
	t.Helper()
	var body []struct{ ID string }
	decodeRaw(t, raw, &body)
	var want []string
	for _, e := range body {
		want = append(want, e.ID)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("metric names\n got %v\nwant %v (Flink's JSON)", got, want)
	}
	has := map[string]bool{}
	for _, n := range got {
		has[n] = true
	}
	for _, n := range []string{model.MetricBackPressuredMsPerSec, model.MetricBusyMsPerSec, model.MetricIdleMsPerSec} {
		if !has[n] {
			t.Errorf("the source lists no metric %s", n)
		}
	}
}

func checkMetrics(t *testing.T, raw []byte, got []model.MetricSample) {
	t.Helper()
	var body []map[string]any
	decodeRaw(t, raw, &body)
	want := map[string]float64{}
	for _, e := range body {
		for _, agg := range []string{model.AggMax, model.AggAvg} {
			switch v := e[agg].(type) {
			case float64:
				want[rawStr(e, "id")+"/"+agg] = v
			case nil:
			default:
				t.Fatalf("metric %v: %s is %T", e, agg, v)
			}
		}
	}
	gotm := map[string]float64{}
	for _, s := range got {
		gotm[s.Metric+"/"+s.Agg] = s.Value
	}
	if !reflect.DeepEqual(gotm, want) || len(want) != 6 {
		t.Errorf("metrics\n got %v\nwant %v (Flink's JSON)", gotm, want)
	}
}

func maxOf(samples []model.MetricSample, metric string) float64 {
	for _, s := range samples {
		if s.Metric == metric && s.Agg == model.AggMax {
			return s.Value
		}
	}
	return math.NaN()
}

func checkBackpressure(t *testing.T, raw []byte, got flink.BackpressureInfo) {
	t.Helper()
	var m map[string]any
	decodeRaw(t, raw, &m)
	ratio := func(m map[string]any, k string) *float64 {
		if f, ok := m[k].(float64); ok {
			return &f
		}
		return nil
	}
	want := flink.BackpressureInfo{Status: rawStr(m, "status"), Level: rawStr(m, "backpressureLevel"), EndMs: rawNum(t, m, "end-timestamp")}
	subs, _ := m["subtasks"].([]any)
	for _, s := range subs {
		sm := s.(map[string]any)
		want.Subtasks = append(want.Subtasks, flink.BackpressureSubtask{Subtask: int(rawNum(t, sm, "subtask")),
			Level: rawStr(sm, "backpressureLevel"), Ratio: ratio(sm, "ratio"), IdleRatio: ratio(sm, "idleRatio"), BusyRatio: ratio(sm, "busyRatio")})
	}
	if !reflect.DeepEqual(got, want) || !got.Available() || len(got.Subtasks) == 0 || got.Subtasks[0].Ratio == nil {
		t.Errorf("backpressure\n got %+v\nwant %+v (Flink's JSON)", got, want)
	}
}

func checkLogFiles(t *testing.T, raw []byte, got []flink.LogFile) {
	t.Helper()
	var body struct {
		Logs []map[string]any `json:"logs"`
	}
	decodeRaw(t, raw, &body)
	var want []flink.LogFile
	names := map[string]bool{}
	for _, l := range body.Logs {
		want = append(want, flink.LogFile{Name: rawStr(l, "name"), Size: rawNum(t, l, "size"), MtimeMs: rawNum(t, l, "mtime")})
		names[rawStr(l, "name")] = true
	}
	if !reflect.DeepEqual(got, want) || !names["jobmanager.log"] {
		t.Errorf("log files\n got %+v\nwant %+v (Flink's JSON), with jobmanager.log", got, want)
	}
}

// checkLogAgainstREST checks the JobManager log's checkpoints of job jid against the REST history
// read at about the same time: every final checkpoint REST lists and the log has is the same
// checkpoint (status, trigger time); completed ones have a finalize time and end to end as REST
// says, failed ones name the declining vertex.
func checkLogAgainstREST(t *testing.T, h *flink.LogHistory, list flink.CheckpointList, jid, throwerVertex string) {
	t.Helper()
	logged := map[int64]model.Checkpoint{}
	for _, cp := range h.Checkpoints[jid] {
		logged[cp.ID] = cp
	}
	if h.Recognised == 0 || len(logged) == 0 {
		t.Fatalf("the JobManager log has no checkpoint of job %s: %d lines, %d recognised, %d mention a checkpoint",
			jid, h.Lines, h.Recognised, h.CheckpointLines)
	}
	matched := map[model.Status]int{}
	for _, r := range list.History {
		l, ok := logged[r.ID]
		if r.Status == model.StatusInProgress || !ok {
			continue
		}
		if l.Status != r.Status || l.TriggerMs != r.TriggerMs {
			t.Errorf("checkpoint %d: log says %s triggered at %d, REST %s at %d", r.ID, l.Status, l.TriggerMs, r.Status, r.TriggerMs)
			continue
		}
		matched[r.Status]++
		switch r.Status {
		case model.StatusCompleted:
			// The log's checkpointDuration ends at completion, REST's end to end at the last ack:
			// completion comes after it. The log's duration less finalization is not REST's end
			// to end (tens of ms either way: finalization overlaps the last acks). The log's byte
			// count is REST's state_size plus a few bytes (16 on every version here).
			if l.FinalizeMs == nil || l.CompletionMs < r.LatestAckMs ||
				l.StateSize < r.StateSize || l.StateSize > r.StateSize+1024 {
				t.Errorf("checkpoint %d in the log %+v (finalize %v), REST %+v", r.ID, l, l.FinalizeMs, r)
			}
		case model.StatusFailed:
			if l.Declined == nil || l.Declined.VertexID != throwerVertex || !strings.Contains(l.Declined.Task, "Snapshot Thrower") ||
				l.FailureMessage == "" {
				t.Errorf("failed checkpoint %d in the log: %+v declined %+v", r.ID, l, l.Declined)
			}
		}
	}
	if matched[model.StatusCompleted] == 0 || matched[model.StatusFailed] == 0 {
		t.Errorf("the log and REST share %v final checkpoints, want completed and failed ones", matched)
	}
}
