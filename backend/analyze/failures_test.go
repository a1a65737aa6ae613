package analyze

import (
	"reflect"
	"strings"
	"testing"

	"checkpoint-explorer/backend/model"
)

func TestSignatureCollapses(t *testing.T) {
	for _, tc := range []struct {
		name string
		msgs []string
		want string
	}{
		{"Flink's plain reason text is its own signature",
			[]string{"Checkpoint expired before completing.", "  Checkpoint expired before completing.\n"},
			"Checkpoint expired before completing."},
		{"checkpoint numbers and Flink job ids",
			[]string{
				"Checkpoint 12 of job 0f3a6b2c9d8e7f601234567890abcdef expired before completing.",
				"Checkpoint 98761 of job 4c0ffee0000000000000000000000001 expired before completing.",
			},
			"Checkpoint <n> of job <id> expired before completing."},
		{"task names with subtask and attempt numbers",
			[]string{
				"Task name with subtask : Map(enrich) (3/4)#0 Failure reason: Checkpoint was declined (tasks not ready)",
				"Task name with subtask : Map(enrich) (1/4)#12 Failure reason: Checkpoint was declined (tasks not ready)",
			},
			"Task name with subtask : Map(enrich) (<n>/<n>)#<n> Failure reason: Checkpoint was declined (tasks not ready)"},
		{"hosts, IPs and ports",
			[]string{
				"Connection to taskmanager-7.flink.svc.cluster.local:6122 refused",
				"Connection to 10.42.3.17:6122 refused",
				"Connection to [fe80::1]:6122 refused",
				"Connection to localhost:35811 refused",
			},
			"Connection to <host> refused"},
		{"paths and URLs",
			[]string{
				"Could not flush to hdfs://namenode:8020/flink/checkpoints/4c0ffee0000000000000000000000001/chk-77/_metadata",
				"Could not flush to s3://bucket-a/ckpt/9f/chk-3/_metadata",
				"Could not flush to /data/flink/checkpoints/abc/chk-9",
			},
			"Could not flush to <path>"},
		{"UUIDs, hex attempt ids and timestamps",
			[]string{
				"Task 7e1b2c3d-4e5f-6789-abcd-ef0123456789 (attempt 8f0c1d2e3a4b5c6d) failed at 2026-05-27T23:29:58.123Z",
				"Task 00000000-1111-2222-3333-444444444444 (attempt 1234abcd9876ef01) failed at 2025-01-02 03:04:05,999",
			},
			"Task <id> (attempt <id>) failed at <ts>"},
		{"durations and stack positions",
			[]string{
				"Timeout after 600000 ms at org.apache.flink.runtime.checkpoint.CheckpointCoordinator.lambda$0(CheckpointCoordinator.java:2134)",
				"Timeout after 10.5 ms at org.apache.flink.runtime.checkpoint.CheckpointCoordinator.lambda$0(CheckpointCoordinator.java:77)",
			},
			"Timeout after <n> ms at org.apache.flink.runtime.checkpoint.CheckpointCoordinator.lambda$<n>(CheckpointCoordinator.java:<n>)"},
		{"no message",
			[]string{"", "   "},
			NoMessage},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, m := range tc.msgs {
				if got := Signature(m); got != tc.want {
					t.Errorf("Signature(%q)\n = %q\nwant %q", m, got, tc.want)
				}
			}
		})
	}
}

func TestSignatureKeepsWhatMatters(t *testing.T) {
	// Different reasons, and words with digits in them, stay apart.
	distinct := []string{
		"Checkpoint expired before completing.",
		"Asynchronous task checkpoint failed.",
		"Task local checkpoint failure.",
		"Checkpoint was declined.",
		"Checkpoint Coordinator is suspending.",
		"The job has failed.",
		"Aggregate commit error.",
		"Checkpoint notify complete failed",
		"Could not write to Source1",
		"Could not write to Source2 (s3 v2 client)",
	}
	seen := map[string]string{}
	for _, m := range distinct {
		s := Signature(m)
		if prev, dup := seen[s]; dup {
			t.Errorf("%q and %q share signature %q", prev, m, s)
		}
		seen[s] = m
	}
	if s := Signature("Could not write to Source2 (s3 v2 client)"); s != "Could not write to Source2 (s3 v2 client)" {
		t.Errorf("words with digits were rewritten: %q", s)
	}
	long := strings.Repeat("at org.apache.flink.Foo.bar(Foo.java:12) ", 40)
	if s := Signature(long); len(s) > maxSignatureLen+len("…") {
		t.Errorf("signature of a long trace is %d bytes", len(s))
	}
}

func TestFailureClusters(t *testing.T) {
	const trig = 1_700_000_000_000
	stuckWin := []vtx{{vSrc, all4(healthy)}, {vMap, all4(healthy)}, {vWin, []*ph{&healthy, nil, &healthy, &healthy}}, {vSink, []*ph{nil, nil, nil, nil}}}
	declined := func(sub int) string {
		return "Task name with subtask : " + nameMap + " (" + string(rune('1'+sub)) + "/4)#0 Failure reason: Checkpoint was declined (tasks not ready)"
	}
	noAck := []vtx{{vSrc, []*ph{nil, nil, nil, nil}}, {vMap, []*ph{nil, nil, nil, nil}}, {vWin, []*ph{nil, nil, nil, nil}}, {vSink, []*ph{nil, nil, nil, nil}}}
	cps := []model.Checkpoint{
		healthyCP(1, trig),
		buildCP(2, trig+10_000, stuckWin, 600_000, "Checkpoint 2 of job 4c0ffee0000000000000000000000001 expired before completing."),
		healthyCP(3, trig+620_000),
		buildCP(4, trig+630_000, noAck, 50, declined(0)),
		buildCP(5, trig+640_000, stuckWin, 600_000, "Checkpoint 5 of job 4c0ffee0000000000000000000000001 expired before completing."),
		buildCP(6, trig+1_250_000, noAck, 40, declined(2)),
		buildCP(7, trig+1_260_000, stuckWin, 600_000, "Checkpoint 7 of job 4c0ffee0000000000000000000000001 expired before completing."),
	}
	ja := Analyze(flinkJob(), cps, nil, nil, nil)
	if len(ja.Failures) != 2 {
		t.Fatalf("%d clusters, want 2: %s", len(ja.Failures), js(ja.Failures))
	}
	exp, dec := ja.Failures[0], ja.Failures[1]
	wantExp := FailureCluster{
		Signature: "Checkpoint <n> of job <id> expired before completing.",
		Example:   "Checkpoint 2 of job 4c0ffee0000000000000000000000001 expired before completing.",
		Count:     3, Phase: PhaseAlignment, Expired: true, CheckpointIDs: []int64{2, 5, 7},
		Vertices: []VertexRef{{vWin, nameWin}},
		FirstMs:  trig + 10_000 + 600_000, LastMs: trig + 1_260_000 + 600_000,
	}
	if !reflect.DeepEqual(exp, wantExp) {
		t.Errorf("expired cluster = %s\nwant %s", js(exp), js(wantExp))
	}
	if dec.Count != 2 || dec.Phase != PhaseStartDelay || !reflect.DeepEqual(dec.CheckpointIDs, []int64{4, 6}) ||
		!reflect.DeepEqual(dec.Vertices, []VertexRef{{vMap, nameMap}}) || dec.Expired {
		t.Errorf("declined cluster = %s", js(dec))
	}
	// The per-checkpoint failure names the same.
	f := ja.Checkpoints[3].Failure
	if f == nil || f.Phase != PhaseStartDelay || len(f.Vertices) != 1 || f.Vertices[0].VertexID != vMap || f.AfterMs == nil || *f.AfterMs != 50 {
		t.Errorf("failure of checkpoint 4 = %s", js(f))
	}
}

func TestFailurePhaseFromSummaryOnly(t *testing.T) {
	// Flink history entries without task details: only the counts are known.
	for _, tc := range []struct {
		name       string
		acked, tot int
		want       Phase
	}{
		{"nothing acknowledged", 0, 16, PhaseStartDelay},
		{"everything acknowledged", 16, 16, PhaseFinalize},
		{"some acknowledged: cannot tell", 9, 16, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := model.Checkpoint{ID: 1, Status: model.StatusFailed, TriggerMs: 1000, FailureMs: 5000, EndToEndMs: 4000,
				NumSubtasks: tc.tot, NumAcknowledged: tc.acked, FailureMessage: "Checkpoint was declined."}
			ja := Analyze(flinkJob(), []model.Checkpoint{c}, nil, nil, nil)
			f := ja.Checkpoints[0].Failure
			if f == nil || f.Phase != tc.want || f.Basis == "" {
				t.Errorf("failure = %s, want phase %q with a basis", js(f), tc.want)
			}
		})
	}
}

// A checkpoint aborted because the job was stopping, failing or restarting
// is no phase's fault: the phase and the bottleneck stay absent, whatever the
// subtasks had acknowledged, and the cluster says so.
func TestJobLevelFailuresBlameNoPhase(t *testing.T) {
	for _, msg := range []string{
		"Checkpoint Coordinator is suspending.",                       // Flink: cancel, failover
		"CheckpointCoordinator shutdown.",                             // Flink and SeaTunnel
		"Checkpoint coordinator is shut down.",                        // older Flink
		"FailoverRegion is restarting.",                               // Flink region failover
		"Task has failed.",                                            // Flink task failure
		"The job has failed.",                                         // Flink job failure
		"Checkpoint was declined (task is closing)",                   // Flink finishing tasks
		"CheckpointCoordinator reset. - java.lang.Exception: restore", // SeaTunnel pipeline restart
		"Pipeline turn to end state.",                                 // SeaTunnel
	} {
		t.Run(msg, func(t *testing.T) {
			// Half the Map's subtasks acknowledged: alignment would be inferred if the message did not say.
			c := buildCP(1, 1_000, []vtx{
				{vSrc, all4(ph{sd: 1, al: 0, sy: 1, as: 5, ack: 1})},
				{vMap, []*ph{{sd: 1, al: 2, sy: 1, as: 5, ack: 1}, {sd: 1, al: 2, sy: 1, as: 5, ack: 1}, nil, nil}},
				{vWin, []*ph{nil, nil, nil, nil}},
				{vSink, []*ph{nil, nil, nil, nil}},
			}, 3_000, msg)
			ja := Analyze(flinkJob(), []model.Checkpoint{c, c}, nil, nil, nil)
			f := ja.Checkpoints[0].Failure
			if f == nil || !f.JobLevel || f.Phase != "" || !strings.Contains(f.Basis, "no phase is to blame") {
				t.Fatalf("failure = %s, want a job-level abort with no phase", js(f))
			}
			if b := ja.Checkpoints[0].Bottleneck; b != nil {
				t.Errorf("bottleneck = %s, want none", js(b))
			}
			if len(ja.Failures) != 1 || !ja.Failures[0].JobLevel || ja.Failures[0].Phase != "" {
				t.Errorf("clusters = %s", js(ja.Failures))
			}
		})
	}
	// A message without such a cause still gets its phase from the stats.
	c := buildCP(1, 1_000, []vtx{
		{vSrc, all4(ph{sd: 1, al: 0, sy: 1, as: 5, ack: 1})},
		{vMap, []*ph{{sd: 1, al: 2, sy: 1, as: 5, ack: 1}, nil, nil, nil}},
		{vWin, []*ph{nil, nil, nil, nil}},
		{vSink, []*ph{nil, nil, nil, nil}},
	}, 3_000, "Checkpoint was declined.")
	f := Analyze(flinkJob(), []model.Checkpoint{c}, nil, nil, nil).Checkpoints[0].Failure
	if f == nil || f.JobLevel || f.Phase == "" {
		t.Errorf("failure = %s, want a phase inferred from the stats", js(f))
	}
}

// SeaTunnel's close reasons (CheckpointCloseReason messages, optionally
// " - " and the cause) with only polled in-flight counts to go on.
func TestSeaTunnelFailurePhases(t *testing.T) {
	job := model.Job{ID: "st", Engine: model.EngineSeaTunnel, Vertices: []model.Vertex{{ID: "1", Name: "Source[0]-FakeSource", Pipeline: 1}}}
	for _, tc := range []struct {
		msg        string
		acked, tot int // the last poll; tot 0 = never polled
		phase      Phase
		jobLevel   bool
		expired    bool
		basis      string
	}{
		{"Aggregate commit error. - java.io.IOException: /tmp/x: no space", 4, 4, PhaseFinalize, false, false, "commit"},
		{"Checkpoint notify complete failed", 4, 4, PhaseFinalize, false, false, "sink commit"},
		{"Task not all ready, savepoint error", 0, 4, PhaseStartDelay, false, false, "not ready"},
		{"CheckpointCoordinator inside have error. - java.lang.NullPointerException", 4, 4, PhaseFinalize, false, false, "every task acknowledged"},
		{"CheckpointCoordinator inside have error. - java.lang.NullPointerException", 2, 4, "", false, false, "2 of 4"},
		{"Checkpoint expired before completing. Please increase checkpoint timeout in the seatunnel.yaml or jobConfig env.", 3, 4, "", false, true, "3 of 4"},
		{"CheckpointCoordinator reset.", 1, 4, "", true, false, "restarting"},
		{"CheckpointCoordinator shutdown.", 0, 0, "", true, false, "shutting down"},
	} {
		t.Run(tc.msg, func(t *testing.T) {
			c := model.Checkpoint{JobID: "st", ID: 9, Pipeline: 1, Kind: model.KindCheckpoint, Status: model.StatusFailed,
				TriggerMs: 100_000, FailureMs: 160_000, EndToEndMs: 60_000, FailureMessage: tc.msg}
			var acks []model.AckSample
			if tc.tot > 0 {
				acks = append(acks, model.AckSample{JobID: "st", Pipeline: 1, CheckpointID: 9, TimeMs: 150_000, Acknowledged: tc.acked, Total: tc.tot})
			}
			f := Analyze(job, []model.Checkpoint{c}, acks, nil, nil).Checkpoints[0].Failure
			if f == nil || f.Phase != tc.phase || f.JobLevel != tc.jobLevel || f.Expired != tc.expired || !strings.Contains(f.Basis, tc.basis) {
				t.Errorf("failure = %s, want phase %q, job level %v, expired %v, basis with %q", js(f), tc.phase, tc.jobLevel, tc.expired, tc.basis)
			}
		})
	}
}
