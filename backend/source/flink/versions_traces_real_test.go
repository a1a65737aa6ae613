package flink_test

// The traces step of the version matrix's smoke test (TestVersionSmoke): every matrix cluster
// runs with its OpenTelemetry trace reporter sending to the shared real Jaeger (service
// flink-matrix-<version>), and job A's checkpoints as the app's jaeger source reads them from
// there must be those Flink's REST history gives the app's flink client.

import (
	"context"
	"fmt"
	"sort"
	"testing"
	"time"

	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/source/flink"
	"checkpoint-explorer/backend/source/jaeger"
	"checkpoint-explorer/backend/source/restclient"
	"checkpoint-explorer/testenv/flinkenv"
)

// tracesMatched is how many of job A's final checkpoints the step waits to find both in REST's
// history and in Jaeger (every third one is declined, so some failed ones are among them).
const tracesMatched = 8

// smokeTraces reads job jid's checkpoint spans from Jaeger (jaeger.Client, as the app's traces
// source does) and its history from REST (flink.Client.Checkpoints, as the app's collector does),
// until at least tracesMatched final checkpoints are in both and one of them failed; every one in
// both must have the same job, status and trigger time; a completed one the same end-to-end
// duration and sizes, a failed one the same latest acknowledgement (where Flink ends its span).
// Flink 2.2 on (traces.checkpoint.span-detail-level) must send a completed checkpoint's task and
// subtask spans, as many as REST counts; older versions only the job-level span.
func smokeTraces(t *testing.T, c *flink.Client, env flinkenv.Env, jaegerURL, jid, version string) {
	if env.TracesEndpoint == "" || env.TracesService == "" {
		t.Skipf("Flink %s of the matrix runs without a trace reporter", version)
	}
	t0 := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	jc, err := jaeger.New(jaeger.Config{EngineConfig: restclient.EngineConfig{BaseURL: jaegerURL, Cluster: "smoke"}, Service: env.TracesService})
	if err != nil {
		t.Fatal(err)
	}
	job, err := c.Job(ctx, jid)
	if err != nil {
		t.Fatal(err)
	}
	perSubtask := sendsSubtaskSpans(version)
	vertices := map[string]bool{}
	for _, v := range job.Vertices {
		vertices[v.ID] = true
	}

	// REST keeps only the newest 10 history entries: they are gathered while waiting, and Jaeger
	// is asked from the oldest REST showed first (older ones could not be matched anyway).
	rest := map[int64]model.Checkpoint{}
	var from time.Time
	var res jaeger.Result
	var matched, failed int
	waitFor(t, ctx, 5*time.Minute, fmt.Sprintf("%d of job A's final checkpoints in both REST and Jaeger, one failed", tracesMatched), func() (bool, string) {
		l, err := c.Checkpoints(ctx, jid)
		if err != nil {
			t.Fatal(err)
		}
		for _, cp := range l.History {
			if cp.Status != model.StatusCompleted && cp.Status != model.StatusFailed {
				continue
			}
			rest[cp.ID] = cp
			if from.IsZero() || cp.TriggerMs < from.UnixMilli() {
				from = time.UnixMilli(cp.TriggerMs)
			}
		}
		if from.IsZero() {
			return false, "no final checkpoint in REST's history yet"
		}
		// Flink's span processor exports in batches (every 5 s by default) and Jaeger indexes
		// them on arrival: ask again each time.
		res, err = jc.Checkpoints(ctx, jid, from, time.Now().Add(time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		matched, failed = 0, 0
		for _, tc := range res.Checkpoints {
			if rc, ok := rest[tc.ID]; ok {
				matched++
				if rc.Status == model.StatusFailed {
					failed++
				}
			}
		}
		return matched >= tracesMatched && failed > 0, fmt.Sprintf("REST %d final, Jaeger %d since %s, %d in both (%d failed)",
			len(rest), len(res.Checkpoints), from.Format(time.RFC3339), matched, failed)
	})
	if !res.Complete() {
		t.Errorf("the range was not read whole: %v (%d requests)", res.Incomplete, res.Requests)
	}

	var withTasks, completed int
	var ids []int64
	for _, tc := range res.Checkpoints {
		rc, ok := rest[tc.ID]
		if !ok {
			continue
		}
		ids = append(ids, tc.ID)
		if tc.JobID != jid || tc.Cluster != "smoke" || tc.Source != model.OriginTraces {
			t.Errorf("checkpoint %d from traces: job %q cluster %q source %q, want %s / smoke / %s", tc.ID, tc.JobID, tc.Cluster, tc.Source, jid, model.OriginTraces)
		}
		if tc.Status != rc.Status {
			t.Errorf("checkpoint %d: %s in traces, %s in REST", tc.ID, tc.Status, rc.Status)
			continue
		}
		if !withinMs(tc.TriggerMs, rc.TriggerMs) {
			t.Errorf("checkpoint %d: trigger %d in traces, %d in REST", tc.ID, tc.TriggerMs, rc.TriggerMs)
		}
		if !perSubtask && len(tc.Tasks) > 0 {
			t.Errorf("checkpoint %d: %d task spans from Flink %s, which has no span-detail-level", tc.ID, len(tc.Tasks), version)
		}
		if tc.Status == model.StatusFailed {
			// The span ends at the latest acknowledgement; REST's failed end to end runs to the
			// failure, which no span carries. Its sizes are not compared: they were often below
			// REST's (530 B against 250,908 B) with as many subtasks acknowledged.
			if !withinMs(tc.LatestAckMs, rc.LatestAckMs) {
				t.Errorf("failed checkpoint %d: latest ack %d in traces, %d in REST", tc.ID, tc.LatestAckMs, rc.LatestAckMs)
			}
			if tc.NumSubtasks > rc.NumAcknowledged {
				t.Errorf("failed checkpoint %d: %d subtask spans, REST counts %d acknowledged", tc.ID, tc.NumSubtasks, rc.NumAcknowledged)
			}
			continue
		}
		completed++
		if !withinMs(tc.EndToEndMs, rc.EndToEndMs) {
			t.Errorf("checkpoint %d: end to end %d ms in traces, %d ms in REST", tc.ID, tc.EndToEndMs, rc.EndToEndMs)
		}
		if tc.StateSize != rc.StateSize || tc.CheckpointedSize != rc.CheckpointedSize {
			t.Errorf("checkpoint %d: full/checkpointed size %d/%d B in traces, %d/%d B in REST", tc.ID,
				tc.StateSize, tc.CheckpointedSize, rc.StateSize, rc.CheckpointedSize)
		}
		if len(tc.Tasks) == 0 {
			if perSubtask {
				t.Errorf("completed checkpoint %d: no task spans from Flink %s at CHILDREN_SPANS_PER_SUBTASK", tc.ID, version)
			}
			continue
		}
		withTasks++
		for _, task := range tc.Tasks {
			if !vertices[task.VertexID] {
				t.Errorf("checkpoint %d: a task span of vertex %q, not one of job A's", tc.ID, task.VertexID)
			}
		}
		if len(tc.Tasks) != len(knobVertices) || tc.NumSubtasks != rc.NumSubtasks {
			t.Errorf("checkpoint %d: %d task spans with %d subtask spans, REST counts %d subtasks of %d vertices",
				tc.ID, len(tc.Tasks), tc.NumSubtasks, rc.NumSubtasks, len(knobVertices))
		}
	}
	sort.Slice(ids, func(i, k int) bool { return ids[i] < ids[k] })
	if completed == 0 {
		t.Errorf("no completed checkpoint among the %d in both", matched)
	}
	t.Logf("Flink %s traces (service %s): %d checkpoints in both REST and Jaeger, ids %v (%d failed); %d of %d completed with per-subtask spans; Jaeger %d in %d requests; %v",
		version, env.TracesService, matched, ids, failed, withTasks, completed, len(res.Checkpoints), res.Requests,
		time.Since(t0).Round(100*time.Millisecond))
}

// sendsSubtaskSpans reports whether Flink version has traces.checkpoint.span-detail-level, which
// start.sh sets to CHILDREN_SPANS_PER_SUBTASK: 2.2 on. Earlier versions send one span per
// checkpoint.
func sendsSubtaskSpans(version string) bool {
	var major, minor int
	if _, err := fmt.Sscanf(version, "%d.%d", &major, &minor); err != nil {
		return false
	}
	return major > 2 || major == 2 && minor >= 2
}

// withinMs reports whether two millisecond times agree to the millisecond (a span's times are
// nanoseconds, REST's milliseconds).
func withinMs(a, b int64) bool { return a-b >= -1 && a-b <= 1 }
