package flinkenv

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"checkpoint-explorer/backend/model"
)

// RawSubtasks fetches Flink's own JSON for a vertex's subtasks in a
// checkpoint, bypassing the client under test; false when Flink no longer
// holds the details (404: evicted from its cache).
func RawSubtasks(t testing.TB, base, jobID string, checkpointID int64, vertexID string) ([]map[string]any, bool) {
	t.Helper()
	url := fmt.Sprintf("%s/jobs/%s/checkpoints/details/%d/subtasks/%s", base, jobID, checkpointID, vertexID)
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound {
		return nil, false
	}
	var body struct {
		Subtasks []map[string]any `json:"subtasks"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("%s: HTTP %d, %v", url, resp.StatusCode, err)
	}
	return body.Subtasks, true
}

// SubtaskFromJSON is what a completed subtask in Flink's JSON must be stored
// as: every field the model maps, read independently of the client.
func SubtaskFromJSON(t testing.TB, raw map[string]any) model.SubtaskStats {
	t.Helper()
	num := func(keys ...string) int64 {
		var v any = raw
		for _, k := range keys {
			m, ok := v.(map[string]any)
			if !ok {
				t.Fatalf("Flink's subtask JSON has no %v: %v", keys, raw)
			}
			v = m[k]
		}
		f, ok := v.(float64)
		if !ok {
			t.Fatalf("Flink's subtask JSON %v = %v, not a number", keys, v)
		}
		return int64(f)
	}
	flag := func(key string) bool {
		b, ok := raw[key].(bool)
		if !ok {
			t.Fatalf("Flink's subtask JSON %s = %v, not a bool", key, raw[key])
		}
		return b
	}
	status, _ := raw["status"].(string)
	return model.SubtaskStats{
		Index:            int(num("index")),
		Status:           status,
		AckMs:            num("ack_timestamp"),
		EndToEndMs:       num("end_to_end_duration"),
		StartDelayMs:     num("start_delay"),
		AlignmentMs:      num("alignment", "duration"),
		SyncMs:           num("checkpoint", "sync"),
		AsyncMs:          num("checkpoint", "async"),
		StateSize:        num("state_size"),
		CheckpointedSize: num("checkpointed_size"),
		ProcessedData:    num("alignment", "processed"),
		PersistedData:    num("alignment", "persisted"),
		Unaligned:        flag("unaligned_checkpoint"),
		Aborted:          flag("aborted"),
	}
}
