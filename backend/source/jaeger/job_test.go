package jaeger

import (
	"testing"
	"time"

	"checkpoint-explorer/backend/model"
)

func TestTracesWindowsAreWhatTheCacheLacks(t *testing.T) {
	ms := func(v int64) time.Time { return time.UnixMilli(v) }
	cp := func(id, trigger int64) model.Checkpoint { return model.Checkpoint{ID: id, TriggerMs: trigger} }
	done := func(id, trigger int64) model.Checkpoint {
		return model.Checkpoint{ID: id, TriggerMs: trigger, Status: model.StatusCompleted}
	}
	running := func(id, trigger int64) model.Checkpoint {
		return model.Checkpoint{ID: id, TriggerMs: trigger, Status: model.StatusInProgress}
	}
	from, now := ms(1_000), ms(100_000)
	for _, tc := range []struct {
		name   string
		cached []model.Checkpoint
		toNow  bool
		want   []Window
	}{
		{"nothing cached: the whole range", nil, false, []Window{{From: from, To: now}}},
		{"before the first cached one", []model.Checkpoint{cp(11, 50_000), cp(12, 51_000)}, false,
			[]Window{{From: from, To: ms(50_000)}}},
		{"ids that skip, given out of order", []model.Checkpoint{cp(14, 60_000), cp(11, 50_000), cp(12, 51_000)}, false,
			[]Window{{From: from, To: ms(50_000)}, {From: ms(51_001), To: ms(60_000)}}},
		{"after the last when the job is not followed", []model.Checkpoint{cp(1, 1_000), cp(2, 2_000)}, true,
			[]Window{{From: ms(2_001), To: now}}},
		{"the first cached one at the range's start: nothing before", []model.Checkpoint{cp(1, 500), cp(2, 1_500)}, false, nil},
		{"a skip older than the range is cut to it", []model.Checkpoint{cp(1, 100), cp(5, 3_000)}, false,
			[]Window{{From: from, To: ms(3_000)}}},
		{"in progress with a final one after it: no record", []model.Checkpoint{done(1, 1_000), running(2, 2_000), done(3, 3_000), running(4, 4_000)}, false,
			[]Window{{From: ms(1_001), To: ms(3_000)}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Uncovered(tc.cached, from, now, tc.toNow)
			if len(got) != len(tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
			for i := range got {
				if !got[i].From.Equal(tc.want[i].From) || !got[i].To.Equal(tc.want[i].To) {
					t.Errorf("window %d: got %v, want %v", i, got[i], tc.want[i])
				}
			}
		})
	}
}

// Many skips are joined into at most MaxWindows ranges that still cover every one.
func TestTracesWindowsAreBounded(t *testing.T) {
	var cached []model.Checkpoint
	for i := int64(0); i < 1000; i++ {
		cached = append(cached, model.Checkpoint{ID: 2 * i, TriggerMs: 10_000 + 2_000*i}) // every odd id missing
	}
	from, now := time.UnixMilli(10_000), time.UnixMilli(3_000_000)
	got := Uncovered(cached, from, now, false)
	if len(got) != MaxWindows {
		t.Fatalf("%d windows, want %d", len(got), MaxWindows)
	}
	for i := 1; i < 1000; i++ {
		mid := time.UnixMilli(10_000 + 2_000*int64(i) - 1_000) // where checkpoint 2i-1 was triggered
		covered := false
		for _, w := range got {
			if !mid.Before(w.From) && mid.Before(w.To) {
				covered = true
			}
		}
		if !covered {
			t.Fatalf("the range of missing checkpoint %d (%v) is in no window", 2*i-1, mid)
		}
	}
}

// A job opened from spans is Flink's unless the app's own spans name another engine (a SeaTunnel
// job's history a collector sent).
func TestJobOfTakesTheSpansEngine(t *testing.T) {
	for _, c := range []struct {
		spans, want model.Engine
	}{{"", model.EngineFlink}, {model.EngineSeaTunnel, model.EngineSeaTunnel}, {"spark", model.EngineFlink}} {
		j := JobOf("c", "905", Result{Job: model.Job{ID: "905", Name: "orders", Engine: c.spans}})
		if j.Engine != c.want || j.Name != "orders" || j.State != UnknownState {
			t.Errorf("spans saying %q: %+v, want engine %q", c.spans, j, c.want)
		}
	}
}

// A job id is read from traces as Flink writes it (32 hexadecimal digits) or
// as SeaTunnel does (a decimal number: its spans, exported by the app).
func TestValidJobID(t *testing.T) {
	for id, want := range map[string]bool{
		"0123456789abcdef0123456789abcdef": true, "1181495197431758849": true, "7": true,
		"0123456789ABCDEF0123456789ABCDEF": false, "0123456789abcdef": false, "": false, "12a": false,
		"123456789012345678901": false, "job-1": false, `{"jobId":"x"}`: false,
	} {
		if got := ValidJobID(id); got != want {
			t.Errorf("ValidJobID(%q) = %v, want %v", id, got, want)
		}
	}
}
