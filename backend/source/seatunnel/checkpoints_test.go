package seatunnel

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"checkpoint-explorer/backend/model"
)

func ptr(v int64) *int64 { return &v }

const expired = "Checkpoint expired before completing. Please increase checkpoint timeout in the seatunnel.yaml or jobConfig env."

func TestCheckpointOverviewToHistory(t *testing.T) {
	srv := serveFiles(t, map[string]string{"/jobs/checkpoints/1179434693738364929": "v2-2.3.13-checkpoints.json"})
	c := newClient(t, srv.URL)
	o, err := c.Checkpoints(context.Background(), fakeJobID)
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Problems) != 0 || len(o.Pipelines) != 2 || o.UpdatedMs != 1795964400500 {
		t.Fatalf("overview = %+v", o)
	}
	if o.Pipelines[0].LatestSavepoint != nil {
		t.Errorf("latestSavepoint {} decoded as %+v, want nil", o.Pipelines[0].LatestSavepoint)
	}
	if got := o.Pipelines[1].Counts; got != (CheckpointCounts{Triggered: 3, Completed: 1, Failed: 1, Restored: 1}) {
		t.Errorf("pipeline 2 counts = %+v", got)
	}

	h := c.History(o, 1500, 3000)
	if h.Capacity != HistoryCapacity || h.IntervalMs != 1500 || h.Triggered != 15 {
		t.Errorf("capacity/interval/triggered = %d/%d/%d, want 32/1500/15", h.Capacity, h.IntervalMs, h.Triggered)
	}
	base := model.Checkpoint{Cluster: "st", JobID: fakeJobID, Kind: model.KindCheckpoint}
	with := func(f func(*model.Checkpoint)) model.Checkpoint { cp := base; f(&cp); return cp }
	want := []model.Checkpoint{
		with(func(c *model.Checkpoint) {
			c.ID, c.Pipeline, c.Status, c.TriggerMs = 11, 1, model.StatusCompleted, 1795964398000
			c.CompletionMs, c.LatestAckMs, c.EndToEndMs, c.StateBlobs = 1795964398250, 1795964398250, 250, ptr(6)
		}),
		with(func(c *model.Checkpoint) {
			// Expired: the end is trigger + the job's checkpoint.timeout (3000).
			c.ID, c.Pipeline, c.Status, c.TriggerMs = 10, 1, model.StatusFailed, 1795964390000
			c.FailureMs, c.EndToEndMs, c.StateBlobs, c.FailureMessage = 1795964393000, 3000, ptr(0), expired
		}),
		with(func(c *model.Checkpoint) {
			// Any other failure: Zeta reports no end time.
			c.ID, c.Pipeline, c.Status, c.TriggerMs = 9, 1, model.StatusFailed, 1795964388000
			c.StateBlobs, c.FailureMessage = ptr(0), "CheckpointCoordinator inside have error. - java.io.IOException: disk full"
		}),
		with(func(c *model.Checkpoint) {
			c.ID, c.Pipeline, c.Kind, c.Status, c.TriggerMs = 8, 1, model.KindSavepoint, model.StatusCompleted, 1795964386000
			c.CompletionMs, c.LatestAckMs, c.EndToEndMs, c.StateBlobs = 1795964386900, 1795964386900, 900, ptr(6)
		}),
		with(func(c *model.Checkpoint) {
			c.ID, c.Pipeline, c.Status, c.TriggerMs = 7, 1, model.StatusCompleted, 1795964384000
			c.CompletionMs, c.LatestAckMs, c.EndToEndMs, c.StateBlobs = 1795964384100, 1795964384100, 100, ptr(6)
		}),
		with(func(c *model.Checkpoint) {
			c.ID, c.Pipeline, c.Status, c.TriggerMs = 12, 1, model.StatusInProgress, 1795964400000
			c.NumSubtasks, c.NumAcknowledged = 6, 3
		}),
		// Pipeline 2: the completed-point (id Long.MAX_VALUE) is left out.
		with(func(c *model.Checkpoint) {
			c.ID, c.Pipeline, c.Status, c.TriggerMs = 2, 2, model.StatusFailed, 1795964396000
			c.StateBlobs, c.FailureMessage = ptr(0), "canceled: CheckpointCoordinator completed."
		}),
		with(func(c *model.Checkpoint) {
			c.ID, c.Pipeline, c.Status, c.TriggerMs = 1, 2, model.StatusCompleted, 1795964394000
			c.CompletionMs, c.LatestAckMs, c.EndToEndMs, c.StateBlobs = 1795964394300, 1795964394300, 300, ptr(2)
		}),
	}
	if !reflect.DeepEqual(h.Checkpoints, want) {
		for i := range max(len(h.Checkpoints), len(want)) {
			var g, w model.Checkpoint
			if i < len(h.Checkpoints) {
				g = h.Checkpoints[i]
			}
			if i < len(want) {
				w = want[i]
			}
			if !reflect.DeepEqual(g, w) {
				t.Errorf("checkpoint %d:\n got %+v\nwant %+v", i, g, w)
			}
		}
	}
	for _, cp := range h.Checkpoints {
		if cp.StateSize != 0 || cp.FinalizeMs != nil {
			t.Errorf("checkpoint %d: StateSize %d FinalizeMs %v, want 0 and nil (blobs are no bytes; finalize not observable)", cp.ID, cp.StateSize, cp.FinalizeMs)
		}
	}
	wantAck := []model.AckSample{{Cluster: "st", JobID: fakeJobID, Pipeline: 1, CheckpointID: 12, TimeMs: 1795964400500, Acknowledged: 3, Total: 6}}
	if !reflect.DeepEqual(h.InFlight, wantAck) {
		t.Errorf("in flight = %+v, want %+v", h.InFlight, wantAck)
	}
}

func TestCheckpointOddAnswers(t *testing.T) {
	for _, tc := range []struct {
		name     string
		body     string
		check    func(t *testing.T, o CheckpointOverview, h model.History)
		wantErr  string
		errMatch error
	}{
		{
			name: "unknown job or none yet: only the jobId",
			body: `{"jobId":"5"}`,
			check: func(t *testing.T, o CheckpointOverview, h model.History) {
				if len(o.Pipelines) != 0 || len(h.Checkpoints) != 0 || h.Triggered != -1 {
					t.Errorf("overview %+v history %+v, want empty", o, h)
				}
			},
		},
		{
			name: "string numbers, unknown fields, empty latest entries",
			body: `{"jobId":5,"updatedAt":"1000","newTopLevel":[1],"pipelines":[{"pipelineId":"1","counts":{"triggered":"2"},
				"latestCompleted":{},"latestFailed":{},"latestSavepoint":{},"inProgress":[{"checkpointId":"2","checkpointType":"checkpoint",
				"triggerTimestamp":"900","acknowledged":"1","total":"4","phase":"x"}],
				"history":[{"pipelineId":"1","checkpoint":{"checkpointId":"1","checkpointType":"checkpoint","status":"COMPLETED",
				"triggerTimestamp":"100","completedTimestamp":"160","stateSize":"3","futureField":{"a":1}}}]}]}`,
			check: func(t *testing.T, o CheckpointOverview, h model.History) {
				if len(h.Checkpoints) != 2 {
					t.Fatalf("checkpoints = %+v", h.Checkpoints)
				}
				cp := h.Checkpoints[0]
				// durationMillis absent: end-to-end from the two timestamps.
				if cp.ID != 1 || cp.EndToEndMs != 60 || *cp.StateBlobs != 3 || cp.CompletionMs != 160 {
					t.Errorf("checkpoint 1 = %+v", cp)
				}
				if h.InFlight[0] != (model.AckSample{Cluster: "st", JobID: "5", Pipeline: 1, CheckpointID: 2, TimeMs: 1000, Acknowledged: 1, Total: 4}) {
					t.Errorf("ack sample = %+v", h.InFlight[0])
				}
			},
		},
		{
			name: "entries without id or with an unknown status are skipped and reported",
			body: `{"jobId":"5","pipelines":[{"pipelineId":1,"history":[{"pipelineId":1,"checkpoint":{"status":"COMPLETED"}},
				{"pipelineId":1,"checkpoint":{"checkpointId":3,"status":"WEIRD","checkpointType":"checkpoint"}},
				{"pipelineId":1,"checkpoint":{"checkpointId":4,"status":"FAILED","checkpointType":"checkpoint","triggerTimestamp":5}}]}]}`,
			check: func(t *testing.T, o CheckpointOverview, h model.History) {
				if len(h.Checkpoints) != 1 || h.Checkpoints[0].ID != 4 {
					t.Errorf("kept %+v, want checkpoint 4 only", h.Checkpoints)
				}
				joined := strings.Join(o.Problems, "; ")
				if !strings.Contains(joined, "without checkpointId") || !strings.Contains(joined, `unknown status "WEIRD"`) {
					t.Errorf("problems = %q", joined)
				}
			},
		},
		{
			name: "an id reused after a restore: the newer trigger wins",
			body: `{"jobId":"5","pipelines":[{"pipelineId":1,"history":[
				{"pipelineId":1,"checkpoint":{"checkpointId":4,"checkpointType":"checkpoint","status":"COMPLETED","triggerTimestamp":900,"completedTimestamp":950,"stateSize":1}},
				{"pipelineId":1,"checkpoint":{"checkpointId":4,"checkpointType":"checkpoint","status":"FAILED","triggerTimestamp":500,"stateSize":0,"failureReason":"CheckpointCoordinator reset."}}]}]}`,
			check: func(t *testing.T, o CheckpointOverview, h model.History) {
				if len(h.Checkpoints) != 1 || h.Checkpoints[0].Status != model.StatusCompleted {
					t.Errorf("checkpoints = %+v, want the completed one", h.Checkpoints)
				}
			},
		},
		{name: "a pipeline that is not an object", body: `{"jobId":"5","pipelines":[7]}`, wantErr: "decode JSON"},
		{name: "a number where an id belongs", body: `{"jobId":"5","pipelines":[{"pipelineId":{"x":1}}]}`, wantErr: "want a number or a string"},
		{name: "not JSON", body: `OK`, wantErr: "decode JSON"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := serveFiles(t, map[string]string{"/jobs/checkpoints/5": tc.body})
			c := newClient(t, srv.URL)
			o, err := c.Checkpoints(context.Background(), "5")
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, o, c.History(o, 0, 0))
		})
	}
}

func TestNoCheckpointAPI(t *testing.T) {
	for _, tc := range []struct {
		name    string
		handler http.HandlerFunc
	}{
		// REST v2 before 2.3.13: Jetty's DefaultServlet has no such resource.
		{"v2 404 page", jetty404},
		// Jetty's ErrorHandler answers JSON when asked for JSON.
		{"v2 404 json", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(404)
			_, _ = w.Write([]byte(`{"url":"/jobs/checkpoints/5","status":"404","message":"Not Found"}`))
		}},
		// REST v1 (2.3.8, seen on the test node): 204 and no body for a path it does not know.
		{"v1 204", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(tc.handler)
			defer srv.Close()
			c := newClient(t, srv.URL)
			_, err := c.Checkpoints(context.Background(), "5")
			if !errors.Is(err, ErrNoCheckpointAPI) || errors.Is(err, ErrNotFound) {
				t.Fatalf("err = %v, want ErrNoCheckpointAPI only", err)
			}
			if !strings.Contains(err.Error(), "no checkpoint REST API (added in 2.3.13 / PR #10065") {
				t.Errorf("err = %q, want the version hint", err)
			}
			_, _, err = c.CheckpointHistory(context.Background(), "5", HistoryQuery{})
			if !errors.Is(err, ErrNoCheckpointAPI) {
				t.Errorf("history err = %v, want ErrNoCheckpointAPI", err)
			}
		})
	}
}

func TestCheckpointHistoryQuery(t *testing.T) {
	f, srv := newFakeZeta(t)
	for i := 0; i < 40; i++ { // more than the ring holds
		f.trigger(1, TypeCheckpoint, 2)
		if i%5 == 4 {
			f.fail(1, "CHECKPOINT_EXPIRED", expired, "")
		} else {
			f.complete(1, 2)
		}
	}
	f.trigger(2, TypeCheckpoint, 1)
	f.complete(2, 1)
	c := newClient(t, srv.URL)
	ctx := context.Background()

	all, problems, err := c.CheckpointHistory(ctx, fakeJobID, HistoryQuery{Limit: 100})
	if err != nil || len(problems) != 0 {
		t.Fatal(err, problems)
	}
	if len(all) != HistoryCapacity+1 {
		t.Errorf("got %d entries, want the ring of 32 of pipeline 1 and 1 of pipeline 2", len(all))
	}
	failed, _, err := c.CheckpointHistory(ctx, fakeJobID, HistoryQuery{Pipeline: 1, Status: "failed", Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(failed) != 3 {
		t.Fatalf("got %d, want 3", len(failed))
	}
	for _, e := range failed {
		if e.Status != "FAILED" || e.Pipeline != 1 || e.FailureReason != expired || e.ID%5 != 0 {
			t.Errorf("entry %+v, want an expired failure of pipeline 1", e)
		}
	}
	if _, _, err := c.CheckpointHistory(ctx, fakeJobID, HistoryQuery{Status: "RUNNING"}); err == nil || !strings.Contains(err.Error(), "want COMPLETED, FAILED or CANCELED") {
		t.Errorf("bad status: err = %v", err)
	}
}
