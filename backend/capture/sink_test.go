package capture

import (
	"context"
	"reflect"
	"testing"
	"time"

	"checkpoint-explorer/backend/model"
)

// A recording of an engine whose details come after the summary holds a
// checkpoint back until its details come (a capture holds each checkpoint
// once, so a summary written first would hide them), writes it as it is once
// it is too far behind for details to come, and marks what is still waiting
// at the end as missed.
func TestCaptureSinkWaitsForDetailsBeforeWriting(t *testing.T) {
	w, buf := newTestWriter(t, Header{RecordedBy: "test", RecordedAt: time.Now().UTC(), AppVersion: "t"})
	sink := NewSink(w, SinkOptions{HoldDetails: true})
	ctx := context.Background()
	cp := func(id int64, loss model.DetailLoss, subtasks ...int) model.Checkpoint {
		c := model.Checkpoint{Cluster: "c", JobID: "j", ID: id, Status: model.StatusCompleted, Kind: model.KindCheckpoint, DetailLoss: loss}
		for i, n := range subtasks {
			ts := model.TaskStats{VertexID: string(rune('a' + i)), NumSubtasks: n, Missing: n == 0}
			for s := 0; s < n; s++ {
				ts.Subtasks = append(ts.Subtasks, model.SubtaskStats{Index: s, Status: model.SubtaskCompleted, SyncMs: 3})
			}
			c.Tasks = append(c.Tasks, ts)
		}
		return c
	}
	put := func(cs ...model.Checkpoint) {
		t.Helper()
		if err := sink.PutCheckpoints(ctx, cs); err != nil {
			t.Fatal(err)
		}
	}
	put(cp(1, ""), cp(2, ""), cp(3, ""))                   // summaries: their details were deferred
	put(cp(1, "", 2, 2))                                   // 1's details came
	put(cp(2, model.DetailPartial, 2, 0))                  // 2's came in part
	put(cp(2, "", 2, 2))                                   // and then in full
	put(cp(4, model.DetailPartial, 2, 0))                  // 4 stays partial
	put(cp(5, model.DetailMissed))                         // 5 left the history before its details
	put(cp(6, ""))                                         // 6 waits...
	put(cp(6+holdBehind+1, "", 1))                         // ... until it is too far behind
	put(cp(3+holdBehind+2, "", 1), cp(3+holdBehind+3, "")) // 3 too; the last waits to the end
	// 1, 2 and 5 at once; 3, 4 and 6 once too far behind the newest; the two newer with details.
	if sink.st.Checkpoints != 8 {
		t.Errorf("%d checkpoints written before the end, want 8", sink.st.Checkpoints)
	}
	if err := sink.Finish(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got := map[int64]*model.Checkpoint{}
	_, err := Read(ctx, buf, DefaultLimits(), Visitor{Checkpoint: func(c *model.Checkpoint) error {
		if got[c.ID] != nil {
			t.Errorf("checkpoint %d written twice", c.ID)
		}
		got[c.ID] = c
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	subtasks := func(c *model.Checkpoint) int {
		n := 0
		for _, t := range c.Tasks {
			n += len(t.Subtasks)
		}
		return n
	}
	for _, want := range []struct {
		id       int64
		loss     model.DetailLoss
		subtasks int
	}{
		{1, "", 4}, {2, "", 4}, {3, model.DetailMissed, 0}, {4, model.DetailPartial, 2}, {5, model.DetailMissed, 0},
		{6, model.DetailMissed, 0}, {6 + holdBehind + 1, "", 1}, {3 + holdBehind + 2, "", 1}, {3 + holdBehind + 3, model.DetailMissed, 0},
	} {
		c := got[want.id]
		if c == nil {
			t.Errorf("checkpoint %d not in the file", want.id)
			continue
		}
		if c.DetailLoss != want.loss || subtasks(c) != want.subtasks {
			t.Errorf("checkpoint %d: loss %q with %d subtasks, want %q with %d", want.id, c.DetailLoss, subtasks(c), want.loss, want.subtasks)
		}
	}
	if len(got) != 9 {
		t.Errorf("%d checkpoints in the file, want 9", len(got))
	}
}

// A recording writes a job's configuration once for the same settings, again when they change.
func TestCaptureSinkWritesEachConfigurationOnce(t *testing.T) {
	w, buf := newTestWriter(t, Header{RecordedBy: "test", RecordedAt: time.Now().UTC(), AppVersion: "t"})
	sink := NewSink(w, SinkOptions{})
	ctx := context.Background()
	iv := int64(1000)
	for i, tolerable := range []int64{3, 3, 3, 5} {
		tol := tolerable
		c := model.JobConfig{Cluster: "c", JobID: "j", SeenMs: int64(i), IntervalMs: &iv, TolerableFailures: &tol}
		if err := sink.PutJobConfig(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	var got []int64
	sum, err := Read(ctx, buf, Limits{}, Visitor{JobConfig: func(c model.JobConfig) error {
		got = append(got, *c.TolerableFailures)
		return nil
	}})
	if err != nil || sum.JobConfigs != 2 || !reflect.DeepEqual(got, []int64{3, 5}) {
		t.Errorf("recorded %v (%+v, %v), want tolerable 3 then 5", got, sum, err)
	}
}

// A recording keeps a partial read, writes nothing for a partial read that agrees with what it
// wrote, and writes the fuller read that fills it in under the partial entry's first sighting
// (importing it fills the entry in); the unknown parts survive the file.
func TestCaptureSinkFillsInAPartialConfiguration(t *testing.T) {
	w, buf := newTestWriter(t, Header{RecordedBy: "test", RecordedAt: time.Now().UTC(), AppVersion: "t"})
	sink := NewSink(w, SinkOptions{})
	ctx := context.Background()
	gap := model.ConfigGap{Part: model.ConfigPartJobManager, Endpoint: "GET /jobmanager/config", Error: "flink: GET /jobmanager/config: 404 Not Found"}
	partial := func(seen, timeout int64) model.JobConfig {
		return model.JobConfig{Cluster: "c", JobID: "j", SeenMs: seen, StateBackend: "hashmap", TimeoutMs: i64(timeout),
			Unknown: []model.ConfigGap{gap}}
	}
	full := func(seen, timeout int64) model.JobConfig {
		return model.JobConfig{Cluster: "c", JobID: "j", SeenMs: seen, StateBackend: "hashmap", TimeoutMs: i64(timeout),
			Incremental: bp(false), Keys: map[string]string{"state.backend.incremental": "false"}}
	}
	for _, c := range []model.JobConfig{partial(1, 6000), partial(2, 6000), full(3, 6000), partial(4, 6000), partial(5, 9000)} {
		if err := sink.PutJobConfig(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	var got []model.JobConfig
	if _, err := Read(ctx, buf, Limits{}, Visitor{JobConfig: func(c model.JobConfig) error {
		got = append(got, c)
		return nil
	}}); err != nil {
		t.Fatal(err)
	}
	want := []model.JobConfig{partial(1, 6000), full(1, 6000), partial(5, 9000)}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("recorded\n%+v\nwant\n%+v", got, want)
	}
}
