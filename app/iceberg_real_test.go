package app

import (
	"context"
	"fmt"
	"testing"
	"time"

	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/store"
	"checkpoint-explorer/testenv/icebergenv"
)

// TestSinkCommitsOfARealIcebergSink follows two Flink 1.20 jobs appending to
// real Iceberg tables (a Hadoop catalog in a local directory), committing on
// each checkpoint: one as is, one whose table location makes every commit
// slow (--commit-delay-ms: each of the six metadata file operations of a
// commit sleeps 300 ms). The committer's metrics are found on the
// IcebergFilesCommitter vertex, drawn as the sink-commit lane, and each
// completed checkpoint gets the commit that followed it; the slow one's
// commits take seconds, the other's well under one.
func TestSinkCommitsOfARealIcebergSink(t *testing.T) {
	env := flinkOn(t, trackFlink120) // icebergenv.Version
	fast, _ := icebergenv.Submit(t, env, "--name", "ce-iceberg-fast", "--interval-ms", "3000", "--rate", "200")
	slow, _ := icebergenv.Submit(t, env, "--name", "ce-iceberg-slow", "--interval-ms", "3000", "--rate", "200",
		"--commit-delay-ms", "300")
	a := newCollectingApp(t, env.RESTURL)
	commits := func(jid string) (lane []float64, with int, durations []int64) {
		tl, err := a.Timeline(TimelineRequest{Cluster: "flink", Job: jid, WidthPx: 1000})
		if err != nil {
			return nil, 0, nil
		}
		for _, p := range tl.Lanes.Commit {
			lane = append(lane, p.Value)
		}
		r, err := a.Report("flink", jid, 0, 0)
		if err != nil {
			return lane, 0, nil
		}
		for _, c := range r.Checkpoints {
			if c.Commit != nil && c.Commit.DurationMs != nil {
				with++
				durations = append(durations, *c.Commit.DurationMs)
			}
		}
		return lane, with, durations
	}
	// The slow job's first commits can take minutes to show on a busy machine.
	waitForState(t, 6*time.Minute, "commits of both jobs on their checkpoints", func() (bool, string) {
		fl, fw, _ := commits(fast)
		sl, sw, _ := commits(slow)
		return len(fl) >= 3 && len(sl) >= 3 && fw >= 4 && sw >= 3,
			fmt.Sprintf("fast: %d lane points, %d checkpoints with a commit; slow: %d, %d", len(fl), fw, len(sl), sw)
	})
	a.stopCollector()
	fl, fw, fd := commits(fast)
	sl, sw, sd := commits(slow)
	for _, d := range fd {
		if d <= 0 || d >= 1000 {
			t.Errorf("a commit of the fast job took %d ms", d)
		}
	}
	for _, d := range sd {
		if d < 1200 {
			t.Errorf("a commit of the slow job took %d ms, want the seconds its slow table location costs", d)
		}
	}
	// The lane and the stage come from the committer vertex.
	ms, err := a.store.MetricSamples(context.Background(), store.Query{Cluster: "flink", JobID: slow})
	if err != nil {
		t.Fatal(err)
	}
	committer := vertexByName(t, a, slow, "IcebergFilesCommitter")
	files := 0
	for _, m := range ms {
		if m.Metric == model.MetricCommittedFiles && m.VertexID == committer && m.Value > 0 {
			files++
		}
	}
	if files == 0 {
		t.Errorf("no committed-files samples from the committer vertex %s", committer)
	}
	t.Logf("fast job: lane %v, %d checkpoints with a commit %v; slow job: lane %v, %d with a commit %v", fl, fw, fd, sl, sw, sd)
}
