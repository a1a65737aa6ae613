package app

import (
	"context"
	"sort"
	"strconv"
	"testing"
	"time"

	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/source/jaeger"
	"checkpoint-explorer/testenv/flinkenv"
	"checkpoint-explorer/testenv/jaegerenv"
)

// TestFlinkTracesInJaegerMatchREST runs the real chain: Flink 2.3 with its OpenTelemetry trace
// reporter at the per-subtask detail level → a real Jaeger (OTLP/gRPC in, memory storage) → the
// jaeger traces source. The app's REST collector stores the same job's checkpoints; every id
// both have must agree on status, trigger time and (completed) end-to-end duration, and every
// subtask's start delay, alignment, sync and async phases.
//
// On the same cluster, the app with the cluster's traces configured reads from Jaeger what REST no
// longer lists (checkTracesBackfill), and opens a job from traces alone.
func TestFlinkTracesInJaegerMatchREST(t *testing.T) {
	j, f := checkTracesMatchREST(t, flinkenv.DefaultVersion, "traces", true)
	t.Run("backfill", func(t *testing.T) { checkTracesBackfill(t, j, f, true) })
}

// TestFlink120TracesInJaegerMatchREST is the same on Flink 1.20.5, which ships no OpenTelemetry
// reporter: flink-metrics-otel 2.0.0 and its SDK (testenv/flink/otel-reporter-1.x) send its
// job-level spans (1.20 has no span-detail-level): status, trigger and durations are compared.
//
// Then the backfill on 1.20's job-level spans (checkTracesBackfill without per-subtask stats).
func TestFlink120TracesInJaegerMatchREST(t *testing.T) {
	j, f := checkTracesMatchREST(t, "1.20.5", "traces-120", false)
	t.Run("backfill", func(t *testing.T) { checkTracesBackfill(t, j, f, false) })
}

func checkTracesMatchREST(t *testing.T, version, cluster string, perSubtask bool) (*jaegerenv.Env, flinkenv.Env) {
	tr := trackOwnA
	if version != flinkenv.DefaultVersion {
		tr = trackOwnB
	}
	onTrack(t, tr)
	j := jaegerenv.Ensure(t)
	f := flinkenv.DedicatedTracedVersion(t, cluster, version, j.OTLPGRPCEndpoint, "flink-"+cluster)
	if f.TracesService == "" {
		t.Fatalf("the traced cluster reports no service name: %+v", f)
	}
	from := time.Now().Add(-time.Second)
	// Two subtasks per vertex, a visible sync phase, and every 5th checkpoint failed (declined in
	// its async part), so both statuses and non-zero phases are compared.
	jid := f.Submit(t, "--name", "ce-traces", "--parallelism", "2", "--interval-ms", "1000",
		"--slow-snapshot-ms", "150", "--fail-every", "5")
	a := newCollectingApp(t, f.RESTURL)

	const want = 15
	waitFor(t, 4*time.Minute, "15 final checkpoints stored from REST", func() bool {
		return len(finalCheckpoints(t, a, jid)) >= want
	})
	// Let the last ones' per-subtask details arrive, then stop collecting.
	waitFor(t, time.Minute, "the stored checkpoints' details", func() bool {
		for _, c := range finalCheckpoints(t, a, jid) {
			if c.Status == model.StatusCompleted && len(c.Tasks) == 0 && c.DetailLoss == "" {
				return false
			}
		}
		return true
	})
	a.stopCollector()
	rest := map[int64]model.Checkpoint{}
	var maxID int64
	for _, c := range finalCheckpoints(t, a, jid) {
		rest[c.ID] = c
		maxID = max(maxID, c.ID)
	}
	to := time.Now()

	jc, err := jaeger.New(jaeger.Config{BaseURL: j.QueryURL, Service: f.TracesService, Cluster: "flink", PageSize: 10})
	if err != nil {
		t.Fatal(err)
	}
	// Flink's span processor exports in batches (every 5 s by default): wait until Jaeger has the
	// newest checkpoint REST stored.
	var res jaeger.Result
	deadline := time.Now().Add(90 * time.Second)
	for {
		res, err = jc.Checkpoints(context.Background(), jid, from, to)
		if err != nil {
			t.Fatal(err)
		}
		got := map[int64]bool{}
		for _, c := range res.Checkpoints {
			got[c.ID] = true
		}
		if got[maxID] || time.Now().After(deadline) {
			break
		}
		time.Sleep(2 * time.Second)
	}
	if !res.Complete() {
		t.Errorf("the range was not read whole: %v (requests %d)", res.Incomplete, res.Requests)
	}
	if res.Requests < 2 {
		t.Errorf("%d requests for %d checkpoints with PageSize 10: the window was never split", res.Requests, len(res.Checkpoints))
	}

	var matched, withSubtasks, subtasks, failed int
	for _, tc := range res.Checkpoints {
		rc, ok := rest[tc.ID]
		if !ok {
			continue
		}
		matched++
		if tc.JobID != jid || tc.Cluster != "flink" {
			t.Errorf("checkpoint %d: job %q cluster %q, want %s / flink", tc.ID, tc.JobID, tc.Cluster, jid)
		}
		if tc.Status != rc.Status {
			t.Errorf("checkpoint %d: status %s from traces, %s from REST", tc.ID, tc.Status, rc.Status)
			continue
		}
		if d := tc.TriggerMs - rc.TriggerMs; d < -1 || d > 1 {
			t.Errorf("checkpoint %d: trigger %d from traces, %d from REST", tc.ID, tc.TriggerMs, rc.TriggerMs)
		}
		if tc.Status == model.StatusFailed {
			// Flink's span ends at the latest acknowledgement; REST's failed end-to-end runs to
			// the failure, which the span does not carry.
			failed++
			if d := tc.LatestAckMs - rc.LatestAckMs; d < -1 || d > 1 {
				t.Errorf("failed checkpoint %d: latest ack %d from traces, %d from REST", tc.ID, tc.LatestAckMs, rc.LatestAckMs)
			}
			continue
		}
		if d := tc.EndToEndMs - rc.EndToEndMs; d < -1 || d > 1 {
			t.Errorf("checkpoint %d: end-to-end %d ms from traces, %d ms from REST", tc.ID, tc.EndToEndMs, rc.EndToEndMs)
		}
		if len(tc.Tasks) == 0 {
			continue
		}
		withSubtasks++
		restSub := map[string]model.SubtaskStats{}
		for _, task := range rc.Tasks {
			for _, s := range task.Subtasks {
				if s.Acknowledged() {
					restSub[task.VertexID+"/"+strconv.Itoa(s.Index)] = s
				}
			}
		}
		for _, task := range tc.Tasks {
			for _, s := range task.Subtasks {
				r, ok := restSub[task.VertexID+"/"+strconv.Itoa(s.Index)]
				if !ok {
					continue
				}
				subtasks++
				if s.StartDelayMs != r.StartDelayMs || s.AlignmentMs != r.AlignmentMs || s.SyncMs != r.SyncMs || s.AsyncMs != r.AsyncMs {
					t.Errorf("checkpoint %d vertex %s subtask %d: start delay/alignment/sync/async %d/%d/%d/%d ms from traces, %d/%d/%d/%d from REST",
						tc.ID, task.VertexID, s.Index, s.StartDelayMs, s.AlignmentMs, s.SyncMs, s.AsyncMs,
						r.StartDelayMs, r.AlignmentMs, r.SyncMs, r.AsyncMs)
				}
			}
		}
	}
	ids := make([]int64, 0, len(rest))
	for id := range rest {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, k int) bool { return ids[i] < ids[k] })
	t.Logf("Flink %s: REST stored %d final checkpoints (ids %v); traces gave %d in %d requests; %d matched by id (%d failed), %d with per-subtask spans, %d subtasks compared",
		f.Version, len(rest), ids, len(res.Checkpoints), res.Requests, matched, failed, withSubtasks, subtasks)
	if matched < want-3 {
		t.Errorf("only %d checkpoints in both, want at least %d", matched, want-3)
	}
	if failed == 0 || perSubtask && (withSubtasks == 0 || subtasks == 0) || !perSubtask && withSubtasks != 0 {
		t.Errorf("compared %d failed checkpoints, %d with subtasks, %d subtasks (per-subtask spans expected: %v)", failed, withSubtasks, subtasks, perSubtask)
	}
	return j, f
}
