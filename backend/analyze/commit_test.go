package analyze

import (
	"testing"

	"checkpoint-explorer/backend/model"
)

func TestCommitIndexGivesEachCheckpointTheCommitThatFollowedIt(t *testing.T) {
	// Samples every 10 s (Flink's metric fetcher); checkpoints complete at
	// 12 s, 25 s and 27 s, 41 s; the committer's counters move at 20 s (one
	// commit: 3 files, 300 records, 120 ms) and 30 s (two commits together:
	// 5 files, 500 records, the last 480 ms), not at 50 s.
	m := func(t int64, name string, v float64) model.MetricSample {
		return model.MetricSample{TimeMs: t, Metric: name, Value: v, VertexID: "sink", Agg: model.AggMax}
	}
	var ms []model.MetricSample
	for _, s := range []struct {
		t                   int64
		dur, files, records float64
	}{{10_000, 50, 10, 1000}, {20_000, 120, 13, 1300}, {30_000, 480, 18, 1800}, {40_000, 480, 18, 1800}, {50_000, 480, 18, 1800}} {
		ms = append(ms, m(s.t, model.MetricCommitDurationMs, s.dur), m(s.t, model.MetricCommittedFiles, s.files),
			m(s.t, model.MetricCommittedRecords, s.records))
	}
	ms = append(ms, m(30_000, "backPressuredTimeMsPerSecond", 900)) // not a commit metric
	cp := func(id, end int64) model.Checkpoint {
		return model.Checkpoint{ID: id, Status: model.StatusCompleted, TriggerMs: end - 1000, LatestAckMs: end, EndToEndMs: 1000}
	}
	heads := []model.Checkpoint{cp(1, 12_000), cp(2, 25_000), cp(3, 27_000), cp(4, 41_000),
		{ID: 5, Status: model.StatusFailed, TriggerMs: 14_000, FailureMs: 15_000}}
	ci := newCommitIndex(ms)
	for _, c := range heads {
		if c.Status == model.StatusCompleted {
			ci.count(c.EndMs())
		}
	}
	out := make([]CheckpointAnalysis, len(heads))
	for k := range heads {
		out[k].Commit = ci.of(&heads[k])
	}
	want := []struct {
		dur, files, records int64
		checkpoints         int
	}{{120, 3, 300, 1}, {480, 5, 500, 2}, {480, 5, 500, 2}}
	for k, w := range want {
		c := out[k].Commit
		if c == nil || *c.DurationMs != w.dur || *c.Files != w.files || *c.Records != w.records || c.Checkpoints != w.checkpoints {
			t.Errorf("checkpoint %d: commit %+v, want %+v", heads[k].ID, c, w)
		}
	}
	if out[3].Commit != nil {
		t.Errorf("checkpoint 4: no counter moved after it, got %+v", out[3].Commit)
	}
	if out[4].Commit != nil {
		t.Errorf("a failed checkpoint has no commit, got %+v", out[4].Commit)
	}
}
