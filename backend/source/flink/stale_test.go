package flink_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"

	"checkpoint-explorer/backend/collect"
	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/source/flink"
)

// Flink caches the statistics each REST handler serves on its own, so on a
// busy JobManager the details of a checkpoint the list shows completed can
// be those of its progress: the checkpoint's answer still in progress, or a
// vertex's subtasks with fewer acknowledgements than the checkpoint says.
// Such an answer is not kept as the details: the checkpoint (or the vertex)
// is asked again, and the fresh answer is kept whole.
func TestDetailsOlderThanTheListAreAskedAgain(t *testing.T) {
	read := func(name string) map[string]any {
		b, err := os.ReadFile("testdata/rest-2.3/" + name)
		if err != nil {
			t.Fatal(err)
		}
		var v map[string]any
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	detail, subtasks := read("checkpoint-completed.json"), read("subtasks-completed.json")
	cid := int64(detail["id"].(float64))
	var vertices []string
	for vid := range detail["tasks"].(map[string]any) {
		vertices = append(vertices, vid)
	}
	staleDetail := map[string]any{}
	for k, v := range detail {
		staleDetail[k] = v
	}
	staleDetail["status"] = "IN_PROGRESS"
	staleSubtasks := map[string]any{}
	for k, v := range subtasks {
		staleSubtasks[k] = v
	}
	staleSubtasks["status"], staleSubtasks["num_acknowledged_subtasks"] = "IN_PROGRESS", 1
	staleSubtasks["subtasks"] = []any{subtasks["subtasks"].([]any)[0], map[string]any{"index": 1, "status": "pending_or_failed"}}

	var mu sync.Mutex
	stale := map[string]bool{"detail": true, vertices[0]: true} // the first answer of each is stale
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if i := strings.Index(r.URL.Path, "/subtasks/"); i >= 0 {
			vid := r.URL.Path[i+len("/subtasks/"):]
			body := subtasks
			if stale[vid] {
				body, stale[vid] = staleSubtasks, false
			}
			json.NewEncoder(w).Encode(body)
			return
		}
		body := detail
		if stale["detail"] {
			body, stale["detail"] = staleDetail, false
		}
		json.NewEncoder(w).Encode(body)
	})
	src := flink.NewSource(newClient(t, flink.Config{BaseURL: srv.URL, Cluster: "c"}),
		collect.NewBudget(collect.BudgetOptions{RequestsPerSecond: 1000, Burst: 100}), flink.SourceOptions{})
	job := &model.Job{ID: "0123456789abcdef0123456789abcdef", Cluster: "c"}
	summary := model.Checkpoint{ID: cid, Status: model.StatusCompleted, NumSubtasks: 12, NumAcknowledged: 12}
	ctx := context.Background()

	if _, err := src.Detail(ctx, job, summary); err == nil || !strings.Contains(err.Error(), "older than the checkpoint list") {
		t.Fatalf("the checkpoint's answer in progress: %v, want it asked again", err)
	}
	got, err := src.Detail(ctx, job, summary)
	var incomplete *collect.IncompleteError
	if !errors.As(err, &incomplete) || len(incomplete.Missing) != 1 || incomplete.Missing[0] != vertices[0] ||
		!strings.Contains(err.Error(), "1 of its 2 acknowledgements") || got.DetailLoss != model.DetailPartial {
		t.Fatalf("a vertex's subtasks older than the checkpoint: %v (loss %q), want that vertex asked again", err, got.DetailLoss)
	}
	full, err := src.Detail(ctx, job, got)
	if err != nil || full.DetailLoss != "" {
		t.Fatalf("asked again: %v (loss %q)", err, full.DetailLoss)
	}
	for _, ts := range full.Tasks {
		if ts.NumAcknowledged != 2 || len(ts.Subtasks) != 2 {
			t.Errorf("vertex %s: %d acknowledged, %d subtasks; want the fresh answer's 2", ts.VertexID, ts.NumAcknowledged, len(ts.Subtasks))
		}
	}
}
