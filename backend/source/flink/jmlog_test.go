package flink

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/testenv/fuzzenv"
)

const (
	logJob   = "e09b50e34602282ff7b73473e35768e1"
	otherJob = "0123456789abcdef0123456789abcdef"
)

func parseFile(t *testing.T, name string) *LogHistory {
	t.Helper()
	f, err := os.Open("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h, err := ParseJobManagerLog(f)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func i64(v int64) *int64 { return &v }

// wantLog is a checkpoint as the log gives it; the values were read off the
// fixture lines by hand.
type wantLog struct {
	id                                        int64
	status                                    model.Status
	trigger, completion, failure, e2e, latest int64
	finalize                                  *int64
	size                                      int64
	message, cause                            string
	declined                                  *model.Decline
}

func checkLog(t *testing.T, got []model.Checkpoint, want []wantLog) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d checkpoints, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		c := got[i]
		if c.ID != w.id || c.Status != w.status || c.TriggerMs != w.trigger || c.CompletionMs != w.completion ||
			c.FailureMs != w.failure || c.EndToEndMs != w.e2e || c.LatestAckMs != w.latest || c.StateSize != w.size ||
			c.FailureMessage != w.message || c.FailureCause != w.cause || c.Source != model.OriginJobManagerLog {
			t.Errorf("checkpoint %d:\n got %+v\nwant %+v", w.id, c, w)
		}
		if (c.FinalizeMs == nil) != (w.finalize == nil) || c.FinalizeMs != nil && *c.FinalizeMs != *w.finalize {
			t.Errorf("checkpoint %d: finalize %v, want %v", w.id, c.FinalizeMs, w.finalize)
		}
		if (c.Declined == nil) != (w.declined == nil) || c.Declined != nil && *c.Declined != *w.declined {
			t.Errorf("checkpoint %d: declined %+v, want %+v", w.id, c.Declined, w.declined)
		}
	}
}

func TestParseJobManagerLogOfFlink23(t *testing.T) {
	h := parseFile(t, "jobmanager-2.3.log")
	checkLog(t, h.Checkpoints[logJob], []wantLog{
		{id: 1, status: model.StatusCompleted, trigger: 1796116356174, completion: 1796116356174 + 930, e2e: 915,
			latest: 1796116356174 + 915, finalize: i64(15), size: 4672},
		{id: 2, status: model.StatusCompleted, trigger: 1796116357126, completion: 1796116357126 + 860, e2e: 854,
			latest: 1796116357126 + 854, finalize: i64(6), size: 22932},
		// Failed at the failure manager's line (09:12:38,060; the log's zone is UTC, learnt from the trigger lines).
		{id: 3, status: model.StatusFailed, trigger: 1796116357993, failure: 1796116358060, e2e: 67,
			message: "Asynchronous task checkpoint failed.",
			cause:   "Snapshot Thrower: injected async snapshot failure at checkpoint 3 (--fail-every)",
			declined: &model.Decline{VertexID: "ce895bde38987b0f5c4d06c0f9b622a0", Subtask: 0, Attempt: 0,
				Task: "Snapshot Thrower (1/2)#0", Message: "Asynchronous task checkpoint failed."}},
		{id: 4, status: model.StatusFailed, trigger: 1796116358500, failure: 1796116368500, e2e: 10000,
			message: "Checkpoint expired before completing."},
		// 5: its completion line is cut short (the log was read while it was written): not ended, left to REST.
	})
	// Lines of another job stay with that job.
	checkLog(t, h.Checkpoints[otherJob], []wantLog{
		{id: 7, status: model.StatusCompleted, trigger: 1796116358100, completion: 1796116358600, e2e: 250,
			latest: 1796116358350, finalize: i64(250), size: 100},
	})
	// 14 lines name a checkpoint of a job; all but the one cut short are understood.
	if h.Recognised != 13 || h.CheckpointLines != 14 {
		t.Errorf("recognised %d of %d checkpoint lines, want 13 of 14", h.Recognised, h.CheckpointLines)
	}
}

func TestParseJobManagerLogFindsMessagesWhateverThePattern(t *testing.T) {
	// Thread first, ISO time in UTC+8, the logger abbreviated; a decline
	// by an attempt id without the vertex (older Flink) naming its task in
	// the message; the pre-1.15 completion line.
	h := parseFile(t, "jobmanager-pattern.log")
	checkLog(t, h.Checkpoints[logJob], []wantLog{
		{id: 1, status: model.StatusCompleted, trigger: 1796116356174, completion: 1796116357104, e2e: 915,
			latest: 1796116357089, finalize: i64(15), size: 4672},
		{id: 2, status: model.StatusFailed, trigger: 1796116359001, failure: 1796116359001, e2e: 0,
			message: "Checkpoint was declined (tasks not ready)",
			declined: &model.Decline{Task: "Map (2/4)#1",
				Message: "Task name with subtask : Map (2/4)#1 Failure reason: Checkpoint was declined (tasks not ready)"}},
		{id: 3, status: model.StatusCompleted, trigger: 1796116360000, completion: 1796116360300, e2e: 300,
			latest: 1796116360300, size: 2048},
	})
}

func TestParseJobManagerLogTellsAnUnknownFormat(t *testing.T) {
	h := parseFile(t, "jobmanager-unknown.log")
	if len(h.Checkpoints) != 0 || h.Recognised != 0 || h.CheckpointLines != 2 {
		t.Errorf("checkpoints %v, recognised %d, lines mentioning checkpoints %d; want none, 0, 2",
			h.Checkpoints, h.Recognised, h.CheckpointLines)
	}
}

func TestParseJobManagerLogSeparatesTheRunsOfAReusedJobID(t *testing.T) {
	log := strings.Join([]string{
		"2026-12-01 09:00:00,000 INFO CheckpointCoordinator - Triggering checkpoint 1 (type=CHECKPOINT) @ 1796115600000 for job " + logJob + ".",
		"2026-12-01 09:00:00,100 INFO CheckpointCoordinator - Completed checkpoint 1 for job " + logJob + " (10 bytes, checkpointDuration=100 ms, finalizationTime=1 ms).",
		"2026-12-01 09:00:01,000 INFO CheckpointCoordinator - Triggering checkpoint 2 (type=CHECKPOINT) @ 1796115601000 for job " + logJob + ".",
		"2026-12-01 09:00:01,100 INFO CheckpointCoordinator - Completed checkpoint 2 for job " + logJob + " (10 bytes, checkpointDuration=100 ms, finalizationTime=2 ms).",
		// Resubmitted under the same id: ids start again.
		"2026-12-01 09:10:00,000 INFO CheckpointCoordinator - Triggering checkpoint 1 (type=CHECKPOINT) @ 1796116200000 for job " + logJob + ".",
		"2026-12-01 09:10:00,200 INFO CheckpointCoordinator - Completed checkpoint 1 for job " + logJob + " (20 bytes, checkpointDuration=200 ms, finalizationTime=3 ms).",
		"",
	}, "\n")
	h, err := ParseJobManagerLog(strings.NewReader(log))
	if err != nil {
		t.Fatal(err)
	}
	cps := h.Checkpoints[logJob]
	if len(cps) != 3 || cps[0].TriggerMs != 1796115600000 || cps[2].ID != 1 || cps[2].TriggerMs != 1796116200000 ||
		cps[2].StateSize != 20 || *cps[2].FinalizeMs != 3 {
		t.Errorf("runs not kept apart: %+v", cps)
	}
}

func TestParseJobManagerLogSurvivesHugeLines(t *testing.T) {
	long := strings.Repeat("x", 1<<20)
	log := "2026-12-01 09:00:00,000 INFO CheckpointCoordinator - Triggering checkpoint 1 (type=CHECKPOINT) @ 1796115600000 for job " + logJob + ".\n" +
		long + "\n" +
		"2026-12-01 09:00:00,100 INFO CheckpointCoordinator - Completed checkpoint 1 for job " + logJob + " (10 bytes, checkpointDuration=100 ms, finalizationTime=1 ms).\n"
	h, err := ParseJobManagerLog(strings.NewReader(log))
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Checkpoints[logJob]) != 1 || h.Bytes != int64(len(log)) {
		t.Errorf("got %+v, %d bytes of %d", h.Checkpoints, h.Bytes, len(log))
	}
}

func FuzzParseJobManagerLog(f *testing.F) {
	for _, name := range []string{"jobmanager-2.3.log", "jobmanager-pattern.log", "jobmanager-unknown.log"} {
		f.Add(ReadTestdata(f, name))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		fuzzenv.Count()
		h, err := ParseJobManagerLog(strings.NewReader(string(b)))
		if err != nil {
			t.Fatal(err) // a reader over memory never fails
		}
		for _, cps := range h.Checkpoints {
			for _, c := range cps {
				if !c.Status.Final() || c.EndToEndMs < 0 || c.FinalizeMs != nil && *c.FinalizeMs < 0 {
					t.Fatalf("bad checkpoint %+v", c)
				}
			}
		}
	})
}

// BenchmarkParseJobManagerLog16MiB parses a JobManager log at the reader's
// default cap (16 MiB): the fixture's lines repeated, job ids and
// checkpoint ids varied so that every line is a new checkpoint line.
func BenchmarkParseJobManagerLog16MiB(b *testing.B) {
	base := ReadTestdata(b, "jobmanager-2.3.log")
	var sb strings.Builder
	for i := 0; sb.Len() < 16<<20; i++ {
		sb.WriteString(strings.ReplaceAll(string(base), "e09b50e34602282ff7b73473e35768e1", fmt.Sprintf("%032x", i%50)))
		sb.WriteByte('\n')
	}
	log := sb.String()
	b.SetBytes(int64(len(log)))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := ParseJobManagerLog(strings.NewReader(log)); err != nil {
			b.Fatal(err)
		}
	}
}
