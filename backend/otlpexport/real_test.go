package otlpexport

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"checkpoint-explorer/backend/analyze"
	"checkpoint-explorer/backend/capture/capturetest"
	"checkpoint-explorer/backend/interop"
	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/source/jaeger"
	"checkpoint-explorer/backend/source/restclient"
	"checkpoint-explorer/testenv/jaegerenv"
)

// recordedJob is a stored job and its checkpoints, with its analysis where the job's sink
// commits were sampled.
type recordedJob struct {
	job       model.Job
	cps       []model.Checkpoint
	explained []analyze.CheckpointAnalysis
}

// recordedJobs are the jobs of the bundled Flink 2.3 knob recording (per-subtask stats; failed
// checkpoints) and the 1.20 Iceberg one (finalize phases, sink commits: sent with its analysis).
func recordedJobs(t *testing.T) []recordedJob {
	var out []recordedJob
	for _, sample := range []string{"flink-knobs.ckpt.gz", "flink120-iceberg.ckpt.gz"} {
		rec := capturetest.Read(t, capturetest.Sample(sample))
		seen := map[string]bool{}
		for _, job := range rec.Jobs {
			if seen[job.ID] {
				continue
			}
			seen[job.ID] = true
			r := recordedJob{job: job, cps: rec.CheckpointsOf(job.ID)}
			if analyze.HasCommitSamples(rec.MetricSamples) {
				r.explained = analysisOf(t, job, r.cps, rec.MetricSamples).Checkpoints
			}
			out = append(out, r)
		}
	}
	return out
}

func analysisOf(t *testing.T, job model.Job, cps []model.Checkpoint, metrics []model.MetricSample) analyze.JobAnalysis {
	t.Helper()
	a := analyze.NewAnalyzer(job, nil, metrics)
	for i := range cps {
		if err := a.Add(&cps[i]); err != nil {
			t.Fatal(err)
		}
	}
	ja, err := a.Finish(nil)
	if err != nil {
		t.Fatal(err)
	}
	return ja
}

// Stored checkpoints sent to a real Jaeger (testenv/jaeger, the pinned v1.75.0) over OTLP/HTTP
// and over OTLP/gRPC, twice, read back through the app's traces source (backend/source/jaeger,
// as it reads Flink's own spans): every finished checkpoint once, with its id, status, kind,
// trigger, end-to-end, latest ack, completion, finalize and every acknowledged subtask's phases
// and ack to the millisecond, and the same analysed phases; in Jaeger, one trace per checkpoint
// with exactly the derived span ids, although every span was sent twice.
func TestRealExportReadBack(t *testing.T) {
	j := jaegerenv.Ensure(t)
	t.Logf("Jaeger %s at %s", j.Version, j.QueryURL)
	jobs := recordedJobs(t)
	run := strconv.FormatInt(time.Now().UnixNano(), 36)
	for _, c := range []struct {
		protocol Protocol
		endpoint string
	}{{ProtocolHTTP, j.OTLPHTTPURL}, {ProtocolGRPC, j.OTLPGRPCEndpoint}} {
		t.Run(string(c.protocol), func(t *testing.T) {
			// A cluster and a service of this run's own: ids and searches meet no earlier run's spans.
			cluster, service := "otlpexport-"+string(c.protocol)+"-"+run, "ce-otlpexport-"+string(c.protocol)+"-"+run
			ex := newExporter(t, Options{Endpoint: c.endpoint, Protocol: c.protocol, ServiceName: service, BatchSize: 200})
			if ex.Protocol() != c.protocol {
				t.Fatalf("protocol %s, want %s", ex.Protocol(), c.protocol)
			}
			for i := range jobs {
				jobs[i].job.Cluster = cluster
				for k := range jobs[i].cps {
					jobs[i].cps[k].Cluster = cluster
				}
			}
			ctx := context.Background()
			for round := 1; round <= 2; round++ {
				start := time.Now()
				sent, spans := 0, 0
				for _, r := range jobs {
					res, err := ex.Export(ctx, r.job, r.cps, r.explained)
					if err != nil {
						t.Fatalf("round %d, job %s: %v", round, r.job.ID, err)
					}
					sent, spans = sent+len(res.Sent), spans+res.Spans
				}
				t.Logf("round %d: %d checkpoints, %d spans sent over %s in %s", round, sent, spans, c.protocol, time.Since(start).Round(time.Millisecond))
			}
			jc, err := jaeger.New(jaeger.Config{EngineConfig: restclient.EngineConfig{BaseURL: j.QueryURL, Cluster: "not-" + cluster}, Service: service, MaxRequests: jaeger.OpenRequests})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range jobs {
				checkReadBack(t, jc, r)
				checkStoredOnce(t, j.QueryURL, service, r)
			}
		})
	}
}

// finished are a job's checkpoints that have spans, by id.
func finished(cps []model.Checkpoint) map[int64]*model.Checkpoint {
	out := map[int64]*model.Checkpoint{}
	for i := range cps {
		if cps[i].Status.Final() {
			out[cps[i].ID] = &cps[i]
		}
	}
	return out
}

// window is the range of the job's trigger times, half-open.
func window(cps []model.Checkpoint) (from, to time.Time) {
	lo, hi := cps[0].TriggerMs, cps[0].TriggerMs
	for _, c := range cps {
		lo, hi = min(lo, c.TriggerMs), max(hi, c.TriggerMs)
	}
	return time.UnixMilli(lo), time.UnixMilli(hi + 1)
}

// checkReadBack reads the job's checkpoints back through the traces source (waiting for Jaeger
// to have stored them all) and holds them to the stored ones.
func checkReadBack(t *testing.T, jc *jaeger.Client, r recordedJob) {
	t.Helper()
	want := finished(r.cps)
	from, to := window(r.cps)
	var res jaeger.Result
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(time.Second) {
		var err error
		if res, err = jc.Checkpoints(context.Background(), r.job.ID, from, to); err != nil {
			t.Fatal(err)
		}
		if len(res.Checkpoints) >= len(want) || time.Now().After(deadline) {
			break
		}
	}
	if !res.Complete() || len(res.Checkpoints) != len(want) || res.Job.Name != r.job.Name {
		t.Fatalf("job %s: read %d checkpoints of %q (incomplete %v) in %d requests; want %d of %q", r.job.ID, len(res.Checkpoints),
			res.Job.Name, res.Incomplete, res.Requests, len(want), r.job.Name)
	}
	got := make([]model.Checkpoint, len(res.Checkpoints))
	differ := 0
	for i, b := range res.Checkpoints {
		a := want[b.ID]
		if a == nil || b.Source != model.OriginTraces || b.Cluster != a.Cluster {
			t.Fatalf("job %s: read checkpoint %d (source %q, cluster %q), not one sent", r.job.ID, b.ID, b.Source, b.Cluster)
		}
		delete(want, b.ID) // read once
		if d := checkpointDiff(a, &b); d != "" {
			if differ++; differ <= 3 {
				t.Errorf("job %s, checkpoint %d: %s", r.job.ID, a.ID, d)
			}
		}
		got[i] = b
	}
	if differ > 0 {
		t.Fatalf("job %s: %d of %d checkpoints read back otherwise than stored", r.job.ID, differ, len(got))
	}
	byID := func(ja analyze.JobAnalysis) map[int64]analyze.Phases {
		m := map[int64]analyze.Phases{}
		for _, ca := range ja.Checkpoints {
			m[ca.ID] = ca.Phases
		}
		return m
	}
	stored, read := byID(analysisOf(t, r.job, r.cps, nil)), byID(analysisOf(t, r.job, got, nil))
	for id, p := range read {
		if a, b := jsonText(stored[id]), jsonText(p); a != b {
			t.Errorf("job %s, checkpoint %d: phases read back %s, stored %s", r.job.ID, id, b, a)
		}
	}
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// checkpointDiff says how b, read back, differs from a, stored: the fields the spans carry.
func checkpointDiff(a, b *model.Checkpoint) string {
	type times struct {
		Status                                                 model.Status
		Kind                                                   model.CheckpointKind
		Trigger, EndToEnd, LatestAck, Completion, Failure, End int64
		Finalize                                               *int64
		Subtasks, Acknowledged                                 int
	}
	of := func(c *model.Checkpoint) times {
		return times{c.Status, c.Kind, c.TriggerMs, c.EndToEndMs, c.LatestAckMs, c.CompletionMs, c.FailureMs, c.EndMs(), c.FinalizeMs,
			c.NumSubtasks, c.NumAcknowledged}
	}
	if x, y := jsonText(of(a)), jsonText(of(b)); x != y {
		return fmt.Sprintf("read back %s, stored %s", y, x)
	}
	type phases struct {
		Vertex                                    string
		Index                                     int
		Ack, StartDelay, Alignment, Sync, Async   int64
		StateSize, CheckpointedSize, ProcessedSum int64
	}
	subtasks := func(c *model.Checkpoint) []phases {
		var out []phases
		for _, task := range c.Tasks {
			for _, s := range task.Subtasks {
				if s.Acknowledged() {
					out = append(out, phases{task.VertexID, s.Index, s.AckMs, s.StartDelayMs, s.AlignmentMs, s.SyncMs, s.AsyncMs,
						s.StateSize, s.CheckpointedSize, s.ProcessedData})
				}
			}
		}
		slices.SortFunc(out, func(x, y phases) int { return cmp.Or(strings.Compare(x.Vertex, y.Vertex), x.Index-y.Index) })
		return out
	}
	if x, y := jsonText(subtasks(a)), jsonText(subtasks(b)); x != y {
		return fmt.Sprintf("subtasks read back\n%s\nstored\n%s", y, x)
	}
	return ""
}

// checkStoredOnce asks Jaeger itself (its query API, raw) for the job's traces: one per finished
// checkpoint, with the trace id and exactly the span ids interop derives for it.
func checkStoredOnce(t *testing.T, queryURL, service string, r recordedJob) {
	t.Helper()
	want := map[string]map[string]bool{}
	for _, c := range finished(r.cps) {
		for _, s := range interop.CheckpointSpans(r.job, c) {
			tr := fmt.Sprintf("%x", s.TraceID)
			if want[tr] == nil {
				want[tr] = map[string]bool{}
			}
			want[tr][fmt.Sprintf("%x", s.SpanID)] = true
		}
	}
	from, to := window(r.cps)
	q := url.Values{"service": {service}, "tags": {`{"jobId":"` + r.job.ID + `"}`}, "limit": {"1000"}, "raw": {"true"},
		"start": {strconv.FormatInt(from.UnixMicro(), 10)}, "end": {strconv.FormatInt(to.UnixMicro(), 10)}}
	resp, err := http.Get(queryURL + "/api/traces?" + q.Encode())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /api/traces: %s", resp.Status)
	}
	var answer struct {
		Data []struct {
			TraceID string `json:"traceID"`
			Spans   []struct {
				SpanID string `json:"spanID"`
			} `json:"spans"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&answer); err != nil {
		t.Fatal(err)
	}
	stored := 0
	for _, tr := range answer.Data {
		ids := map[string]bool{}
		for _, s := range tr.Spans {
			ids[s.SpanID] = true
		}
		stored += len(tr.Spans)
		if w, ok := want[tr.TraceID]; !ok || len(ids) != len(w) {
			t.Fatalf("job %s: trace %s with %d span ids; want one of the derived traces", r.job.ID, tr.TraceID, len(ids))
		}
		for id := range ids {
			if !want[tr.TraceID][id] {
				t.Fatalf("job %s: trace %s holds span %s, not a derived id", r.job.ID, tr.TraceID, id)
			}
		}
	}
	if len(answer.Data) != len(want) {
		t.Fatalf("job %s: Jaeger holds %d traces, want %d (one per checkpoint, though sent twice)", r.job.ID, len(answer.Data), len(want))
	}
	t.Logf("job %s: %d traces, %d spans stored for %d sent twice", r.job.ID, len(answer.Data), stored, func() (n int) {
		for _, w := range want {
			n += len(w)
		}
		return n
	}())
}
