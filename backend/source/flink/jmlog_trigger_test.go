package flink

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"regexp"
	"strings"
	"testing"

	"checkpoint-explorer/backend/model"
)

// notRunning is the JobManager's message when a trigger finds a task not
// running yet, minus its task and job.
const notRunning = " is not being executed at the moment. Aborting checkpoint. Failure reason: Not all required tasks are currently running."

// versionStart is what a job's start logs on each version of the matrix (testenv/.run/flink-matrix-<version>),
// the words the same on all: a trigger failing while a task deploys, then the first trigger (which
// gives the log's zone: UTC there). The times are the lines', at wantMs as UTC.
type versionStart struct {
	version, job, task, failedAt, triggeredAt string
	triggerTS, wantMs                         int64
}

func (v versionStart) lines() []string {
	return []string{
		v.failedAt + " INFO  org.apache.flink.runtime.checkpoint.CheckpointFailureManager [] - Failed to trigger checkpoint for job " + v.job +
			" since Checkpoint triggering task " + v.task + " of job " + v.job + notRunning + ".",
		v.triggeredAt + " INFO  org.apache.flink.runtime.checkpoint.CheckpointCoordinator    [] - Triggering checkpoint 1 (type=CheckpointType{name='Checkpoint', sharingFilesStrategy=FORWARD_BACKWARD}) @ " +
			fmt.Sprint(v.triggerTS) + " for job " + v.job + ".",
	}
}

func (v versionStart) want() []model.TriggerFailure {
	return []model.TriggerFailure{{AtMs: v.wantMs, Reason: "Not all required tasks are currently running", Task: v.task,
		Message: "Checkpoint triggering task " + v.task + " of job " + v.job + notRunning}}
}

var versionStarts = []versionStart{
	{"1.19.3", "6c7e293e9394bd67004a9b3c13f70665", "Slow Map (1/1)", "2026-12-05 02:23:11,616", "2026-12-05 02:23:13,671", 1796437393618, 1796437391616},
	{"1.20.5", "d4671f86d95472fc1d68c86ec9a30ef9", "Slow Map (1/1)", "2026-12-05 02:24:04,205", "2026-12-05 02:24:06,233", 1796437446219, 1796437444205},
	{"2.0.2", "f3dedebb0da4d395b9e15e9d2a46b722", "Source: Numbers (1/1)", "2026-12-05 02:23:15,067", "2026-12-05 02:23:16,982", 1796437396972, 1796437395067},
	{"2.1.3", "7506409bfbe8431c8cdd910947e8118a", "Source: Numbers (1/2)", "2026-12-05 02:23:47,463", "2026-12-05 02:23:49,406", 1796437429400, 1796437427463},
	{"2.2.1", "a3ed415a7040cf5ac1aadc245723ef6e", "Source: Numbers (1/2)", "2026-12-05 02:23:30,730", "2026-12-05 02:23:33,133", 1796437413123, 1796437410730},
	{"2.3.0", "29fe2dcb310b43aa3c17dfe6ba2132c9", "Slow Map (1/1)", "2026-12-05 02:23:39,593", "2026-12-05 02:23:39,941", 1796437419940, 1796437419593},
	// The same 2.3 lines logged in UTC+8: the failure's time is told in UTC all the same.
	{"2.3.0 in UTC+8", "29fe2dcb310b43aa3c17dfe6ba2132c9", "Slow Map (1/1)", "2026-12-05 10:23:39,593", "2026-12-05 10:23:39,941", 1796437419940, 1796437419593},
}

func TestParseJobManagerLogReadsTriggerFailures(t *testing.T) {
	type triggerCase struct {
		name  string
		lines []string
		job   string
		want  []model.TriggerFailure
	}
	var cases []triggerCase
	for _, v := range versionStarts {
		cases = append(cases, triggerCase{name: v.version, job: v.job, lines: v.lines(), want: v.want()})
	}
	for _, tc := range append(cases, []triggerCase{
		// 2.3 (testenv/.run/flink-shared-app-b): a periodic trigger racing the job's cancel took
		// an id but failed before its checkpoint existed; the reason is the exception's.
		{name: "2.3.0 UNKNOWN_CHECKPOINT_ID", job: "80b8bfb7819cd3ae5b91d33ef5b5e01e", lines: []string{
			"2026-12-05 03:32:42,765 INFO  org.apache.flink.runtime.checkpoint.CheckpointCoordinator    [] - Triggering checkpoint 31 (type=CheckpointType{name='Checkpoint', sharingFilesStrategy=FORWARD_BACKWARD}) @ 1796441562764 for job 80b8bfb7819cd3ae5b91d33ef5b5e01e.",
			"2026-12-05 03:32:44,662 INFO  org.apache.flink.runtime.executiongraph.ExecutionGraph       [] - Sink: Discard (1/1) (ba8ee79062a8b985d271dfd62922a501_298755e8e632b439cafe5a0c747de7e1_0_0) switched from RUNNING to CANCELING.",
			"2026-12-05 03:32:44,723 WARN  org.apache.flink.runtime.checkpoint.CheckpointFailureManager [] - Failed to trigger or complete checkpoint UNKNOWN_CHECKPOINT_ID for job 80b8bfb7819cd3ae5b91d33ef5b5e01e. (0 consecutive failed attempts so far)",
			"org.apache.flink.runtime.checkpoint.CheckpointException: Periodic checkpoint scheduler is shut down.",
			"\tat org.apache.flink.runtime.checkpoint.CheckpointCoordinator.preCheckGlobalState(CheckpointCoordinator.java:2309)",
			"\tat org.apache.flink.runtime.checkpoint.CheckpointCoordinator.createPendingCheckpoint(CheckpointCoordinator.java:908)",
			"\tat java.base/java.util.concurrent.CompletableFuture$Completion.run(CompletableFuture.java:482)",
		}, want: []model.TriggerFailure{{AtMs: 1796441564723, Reason: "Periodic checkpoint scheduler is shut down",
			Message: "Periodic checkpoint scheduler is shut down."}}},
		// What CheckpointCoordinator.onTriggerFailure wraps (TRIGGER_CHECKPOINT_FAILURE) when the
		// trigger itself threw, per Flink's source: the short reason is the wrapper's, the cause
		// goes with the message.
		{name: "a wrapped cause", job: logJob, lines: []string{
			"2026-12-01 09:00:00,000 INFO CheckpointCoordinator - Triggering checkpoint 1 (type=CHECKPOINT) @ 1796115600000 for job " + logJob + ".",
			"2026-12-01 09:00:05,000 WARN CheckpointFailureManager - Failed to trigger or complete checkpoint UNKNOWN_CHECKPOINT_ID for job " + logJob + ". (1 consecutive failed attempts so far)",
			"org.apache.flink.runtime.checkpoint.CheckpointException: Trigger checkpoint failure.",
			"\tat org.apache.flink.runtime.checkpoint.CheckpointCoordinator.onTriggerFailure(CheckpointCoordinator.java:1020)",
			"Caused by: java.io.IOException: Cannot create directory /checkpoints/chk-2",
			"\t... 12 more",
		}, want: []model.TriggerFailure{{AtMs: 1796115605000, Reason: "Trigger checkpoint failure",
			Message: "Trigger checkpoint failure. Caused by: Cannot create directory /checkpoints/chk-2"}}},
	}...) {
		t.Run(tc.name, func(t *testing.T) {
			h, err := ParseJobManagerLog(strings.NewReader(strings.Join(tc.lines, "\n") + "\n"))
			if err != nil {
				t.Fatal(err)
			}
			got := h.TriggerFailures[tc.job]
			if len(got) != len(tc.want) {
				t.Fatalf("trigger failures %+v, want %+v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("trigger failure %d:\n got %+v\nwant %+v", i, got[i], tc.want[i])
				}
			}
			// A trigger failure is no checkpoint: only the trigger line made one (in progress, not listed).
			if len(h.Checkpoints[tc.job]) != 0 {
				t.Errorf("checkpoints %+v, want none", h.Checkpoints[tc.job])
			}
			if h.Recognised != 2 {
				t.Errorf("recognised %d lines, want the trigger and its failure", h.Recognised)
			}
		})
	}
}

// The recorded JobManager log of every version of the matrix (testdata/versions): each trigger
// failure it logs is read, for its job, with a time and a reason.
func TestParseJobManagerLogReadsTheTriggerFailuresOfEveryVersion(t *testing.T) {
	reLine := regexp.MustCompile(`Failed to trigger (?:checkpoint|or complete checkpoint UNKNOWN_CHECKPOINT_ID) for job ([0-9a-f]{32})`)
	for _, version := range []string{"1.19.3", "1.20.5", "2.0.2", "2.1.3", "2.2.1", "2.3.0"} {
		t.Run(version, func(t *testing.T) {
			zr, err := gzip.NewReader(bytes.NewReader(ReadTestdata(t, "versions", version, "jobmanager.log.gz")))
			if err != nil {
				t.Fatal(err)
			}
			raw, err := io.ReadAll(zr)
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]int{}
			for _, m := range reLine.FindAllStringSubmatch(string(raw), -1) {
				want[m[1]]++
			}
			if len(want) == 0 {
				t.Fatal("the recorded log has no trigger failure: pick another fixture")
			}
			h, err := ParseJobManagerLog(bytes.NewReader(raw))
			if err != nil {
				t.Fatal(err)
			}
			for job, n := range want {
				got := h.TriggerFailures[job]
				if len(got) != n {
					t.Errorf("job %s: %d trigger failures, the log has %d", job, len(got), n)
				}
				for _, f := range got {
					if f.AtMs <= 0 || f.Reason == "" || f.Message == "" {
						t.Errorf("job %s: trigger failure %+v lacks a time, a reason or its message", job, f)
					}
				}
			}
			if len(h.TriggerFailures) != len(want) {
				t.Errorf("trigger failures of %d jobs, the log names %d", len(h.TriggerFailures), len(want))
			}
		})
	}
}
