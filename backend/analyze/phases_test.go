package analyze

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"checkpoint-explorer/backend/model"
)

func TestSubtaskPhases(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    model.SubtaskStats
		ok   bool
		want [5]int64 // start_delay, alignment, sync, async, ack
	}{
		{"ack is the residual",
			model.SubtaskStats{Status: model.SubtaskCompleted, EndToEndMs: 100, StartDelayMs: 10, AlignmentMs: 20, SyncMs: 5, AsyncMs: 40},
			true, [5]int64{10, 20, 5, 40, 25}},
		{"measured phases fill end to end exactly: ack 0",
			model.SubtaskStats{Status: model.SubtaskCompleted, EndToEndMs: 75, StartDelayMs: 10, AlignmentMs: 20, SyncMs: 5, AsyncMs: 40},
			true, [5]int64{10, 20, 5, 40, 0}},
		{"start delay skewed past end to end: ack clamped at 0",
			model.SubtaskStats{Status: model.SubtaskCompleted, EndToEndMs: 50, StartDelayMs: 60, SyncMs: 1, AsyncMs: 2},
			true, [5]int64{60, 0, 1, 2, 0}},
		{"negative inputs are clamped",
			model.SubtaskStats{Status: model.SubtaskCompleted, EndToEndMs: 10, StartDelayMs: -5, AlignmentMs: -1, SyncMs: 3, AsyncMs: 4},
			true, [5]int64{0, 0, 3, 4, 3}},
		{"pending subtask has no phases",
			model.SubtaskStats{Index: 2, Status: model.SubtaskPendingOrFailed},
			false, [5]int64{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, ok := SubtaskPhases(tc.s)
			if ok != tc.ok {
				t.Fatalf("ok = %v, want %v", ok, tc.ok)
			}
			if !ok {
				if len(p.Present()) != 0 {
					t.Errorf("pending subtask has phases %v", p.Present())
				}
				return
			}
			for i, name := range SubtaskPhaseNames() {
				got, present := p.Get(name)
				if !present || got != tc.want[i] {
					t.Errorf("%s = %d (present %v), want %d", name, got, present, tc.want[i])
				}
			}
			if _, present := p.Get(PhaseFinalize); present {
				t.Error("a subtask has no finalize phase")
			}
		})
	}
}

func TestSubtaskEndToEndFromAckTime(t *testing.T) {
	s := model.SubtaskStats{Status: model.SubtaskCompleted, AckMs: 1_000_090, SyncMs: 10, AsyncMs: 30}
	if got := subtaskEndToEnd(&s, 1_000_000); got != 90 {
		t.Fatalf("end to end from ack time = %d, want 90", got)
	}
	if v := splitSubtask(&s, 90); v[4] != 50 {
		t.Errorf("ack = %d, want 50", v[4])
	}
}

func TestBottleneck(t *testing.T) {
	const trig = 1_700_000_000_000
	slowMap := ph{sd: 2, al: 1, sy: 3, as: 20, ack: 4}
	for _, tc := range []struct {
		name    string
		cp      model.Checkpoint
		want    Bottleneck
		phases  map[Phase]int64 // expected checkpoint-level phases; nil = none
		failure Phase
	}{
		{
			name: "long sync in one vertex",
			cp: buildCP(1, trig, []vtx{
				{vSrc, all4(healthy)},
				{vMap, with(2, ph{sd: 3, al: 2, sy: 4200, as: 25, ack: 5})},
				{vWin, all4(healthy)}, {vSink, all4(healthy)},
			}, 0, ""),
			want:   Bottleneck{Phase: PhaseSync, VertexID: vMap, VertexName: nameMap, Subtask: intp(2), PhaseMs: i64p(4200), EndToEndMs: 4235},
			phases: map[Phase]int64{PhaseStartDelay: 3, PhaseAlignment: 2, PhaseSync: 4200, PhaseAsync: 25, PhaseAck: 5},
		},
		{
			// The Map is slow, so the Window's barriers queue behind data on
			// one input and subtask 3 waits 16.9 s to align.
			name: "long alignment downstream of a slow operator",
			cp: buildCP(2, trig, []vtx{
				{vSrc, all4(healthy)},
				{vMap, all4(slowMap)},
				{vWin, with(3, ph{sd: 2000, al: 16882, sy: 40, as: 90, ack: 10})},
				{vSink, all4(healthy)},
			}, 0, ""),
			want: Bottleneck{Phase: PhaseAlignment, VertexID: vWin, VertexName: nameWin, Subtask: intp(3), PhaseMs: i64p(16882), EndToEndMs: 19022,
				// Barriers waited at the Window's input for Map(enrich)'s.
				Origin: &Origin{VertexID: vWin, VertexName: nameWin, UpstreamVertexID: vMap, UpstreamVertexName: nameMap}},
			phases: map[Phase]int64{PhaseStartDelay: 2000, PhaseAlignment: 16882, PhaseSync: 40, PhaseAsync: 90, PhaseAck: 10},
		},
		{
			name: "long async",
			cp: buildCP(3, trig, []vtx{
				{vSrc, all4(healthy)}, {vMap, all4(healthy)},
				{vWin, []*ph{{2, 1, 30, 51000, 12}, {2, 1, 30, 48000, 12}, &healthy, &healthy}},
				{vSink, all4(healthy)},
			}, 0, ""),
			want:   Bottleneck{Phase: PhaseAsync, VertexID: vWin, VertexName: nameWin, Subtask: intp(0), PhaseMs: i64p(51000), EndToEndMs: 51045},
			phases: map[Phase]int64{PhaseStartDelay: 2, PhaseAlignment: 1, PhaseSync: 30, PhaseAsync: 51000, PhaseAck: 12},
		},
		{
			name: "failed: Window pending after every upstream subtask acknowledged",
			cp: buildCP(4, trig, []vtx{
				{vSrc, all4(healthy)}, {vMap, all4(healthy)},
				{vWin, []*ph{&healthy, nil, &healthy, nil}},
				{vSink, []*ph{nil, nil, nil, nil}},
			}, 600_000, "Checkpoint expired before completing."),
			want:    Bottleneck{Phase: PhaseAlignment, VertexID: vWin, VertexName: nameWin, Subtask: intp(1), EndToEndMs: 600_000, Pending: true, PendingSubtasks: 6},
			failure: PhaseAlignment,
		},
		{
			name: "failed: nothing acknowledged",
			cp: buildCP(5, trig, []vtx{
				{vSrc, []*ph{nil, nil, nil, nil}}, {vMap, []*ph{nil, nil, nil, nil}},
				{vWin, []*ph{nil, nil, nil, nil}}, {vSink, []*ph{nil, nil, nil, nil}},
			}, 600_000, "Checkpoint expired before completing."),
			want:    Bottleneck{Phase: PhaseStartDelay, VertexID: vSrc, VertexName: nameSrc, Subtask: intp(0), EndToEndMs: 600_000, Pending: true, PendingSubtasks: 16},
			failure: PhaseStartDelay,
		},
		{
			name: "failed: acknowledged siblings spent their time in async",
			cp: buildCP(6, trig, []vtx{
				{vSrc, all4(healthy)}, {vMap, all4(healthy)},
				{vWin, []*ph{{1, 1, 10, 9000, 2}, nil, {1, 1, 10, 8000, 2}, nil}},
				{vSink, []*ph{nil, nil, nil, nil}},
			}, 600_000, "Checkpoint expired before completing."),
			want:    Bottleneck{Phase: PhaseAsync, VertexID: vWin, VertexName: nameWin, Subtask: intp(1), EndToEndMs: 600_000, Pending: true, PendingSubtasks: 6},
			failure: PhaseAsync,
		},
		{
			name: "failed: the message names the phase and the task",
			cp: buildCP(7, trig, []vtx{
				{vSrc, all4(healthy)}, {vMap, []*ph{&healthy, &healthy, nil, &healthy}},
				{vWin, []*ph{nil, nil, nil, nil}}, {vSink, []*ph{nil, nil, nil, nil}},
			}, 1200, "Task name with subtask : Map(enrich) (3/4)#0 Failure reason: Asynchronous task checkpoint failed."),
			want:    Bottleneck{Phase: PhaseAsync, VertexID: vMap, VertexName: nameMap, Subtask: intp(2), EndToEndMs: 1200, Pending: true, PendingSubtasks: 9},
			failure: PhaseAsync,
		},
		{
			name: "failed after every subtask acknowledged: finalize",
			cp: buildCP(8, trig, []vtx{
				{vSrc, all4(healthy)}, {vMap, all4(healthy)}, {vWin, all4(healthy)}, {vSink, all4(healthy)},
			}, 95, "Failure to finalize checkpoint."),
			want:    Bottleneck{Phase: PhaseFinalize, EndToEndMs: 95, Pending: true},
			phases:  map[Phase]int64{PhaseStartDelay: 2, PhaseAlignment: 1, PhaseSync: 3, PhaseAsync: 20, PhaseAck: 4},
			failure: PhaseFinalize,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ja := Analyze(flinkJob(), []model.Checkpoint{tc.cp}, nil, nil, nil)
			got := ja.Checkpoints[0]
			if got.Bottleneck == nil {
				t.Fatal("no bottleneck")
			}
			if !reflect.DeepEqual(*got.Bottleneck, tc.want) {
				t.Errorf("bottleneck = %s\nwant        %s", js(got.Bottleneck), js(tc.want))
			}
			for _, name := range PhaseNames() {
				v, ok := got.Phases.Get(name)
				want, wantOK := tc.phases[name]
				if ok != wantOK || v != want {
					t.Errorf("phase %s = %d (present %v), want %d (present %v)", name, v, ok, want, wantOK)
				}
			}
			if tc.failure != "" {
				if got.Failure == nil || got.Failure.Phase != tc.failure {
					t.Errorf("failure = %s, want phase %s", js(got.Failure), tc.failure)
				}
			} else if got.Failure != nil {
				t.Errorf("unexpected failure %s", js(got.Failure))
			}
		})
	}
}

func TestFinalizeDominatesBottleneck(t *testing.T) {
	c := healthyCP(1, 1_000_000)
	c.FinalizeMs = i64p(700)
	ja := Analyze(flinkJob(), []model.Checkpoint{c}, nil, nil, nil)
	b := ja.Checkpoints[0].Bottleneck
	want := Bottleneck{Phase: PhaseFinalize, PhaseMs: i64p(700), EndToEndMs: 30}
	if b == nil || !reflect.DeepEqual(*b, want) {
		t.Fatalf("bottleneck = %s, want %s", js(b), js(want))
	}
	if f, ok := ja.Checkpoints[0].Phases.Get(PhaseFinalize); !ok || f != 700 {
		t.Errorf("finalize = %d (present %v), want 700", f, ok)
	}
}

// Absent phases stay absent: SeaTunnel-like checkpoints have no tasks and
// no finalize, and must not report any phase, not even as 0.
func TestAbsentPhasesStayAbsent(t *testing.T) {
	job := model.Job{ID: "st-1", Name: "fake-to-console", Engine: model.EngineSeaTunnel,
		Vertices: []model.Vertex{{ID: "1", Name: "Source[0]-FakeSource", Pipeline: 1}, {ID: "2", Name: "Sink[0]-ConsoleSink", Pipeline: 1}}}
	blobs := int64(2)
	var cps []model.Checkpoint
	for i := int64(1); i <= 12; i++ {
		trig := 1_000_000 + i*10_000
		c := model.Checkpoint{JobID: "st-1", ID: i, Pipeline: 1, Kind: model.KindCheckpoint, Status: model.StatusCompleted,
			TriggerMs: trig, EndToEndMs: 200 + i, CompletionMs: trig + 200 + i, LatestAckMs: trig + 200 + i, StateBlobs: &blobs}
		if i == 7 {
			c.Status, c.CompletionMs, c.LatestAckMs, c.FailureMs = model.StatusFailed, 0, 0, trig+60_000
			c.FailureMessage = "Checkpoint expired before completing. Please increase checkpoint timeout in the seatunnel.yaml or jobConfig env."
		}
		cps = append(cps, c)
	}
	acks := []model.AckSample{
		{JobID: "st-1", Pipeline: 1, CheckpointID: 7, TimeMs: 1_070_000 + 1000, Acknowledged: 1, Total: 4},
		{JobID: "st-1", Pipeline: 1, CheckpointID: 7, TimeMs: 1_070_000 + 30_000, Acknowledged: 3, Total: 4},
	}
	ja := Analyze(job, cps, acks, nil, nil)
	if len(ja.PhasesAvailable) != 0 {
		t.Errorf("phases available = %v, want none", ja.PhasesAvailable)
	}
	for _, c := range ja.Checkpoints {
		if p := c.Phases.Present(); len(p) != 0 {
			t.Errorf("checkpoint %d has phases %v", c.ID, p)
		}
		if c.Bottleneck != nil {
			t.Errorf("checkpoint %d has a bottleneck %s", c.ID, js(c.Bottleneck))
		}
		b, _ := json.Marshal(c)
		if !strings.Contains(string(b), `"phases":{}`) || strings.Contains(string(b), "finalize") {
			t.Errorf("checkpoint %d JSON shows phases: %s", c.ID, b)
		}
	}
	f := ja.Checkpoints[6].Failure
	if f == nil || !f.Expired || f.Phase != "" || !strings.Contains(f.Basis, "3 of 4") {
		t.Errorf("failure of 7 = %s, want expired, no phase, basis naming the last poll", js(f))
	}
	if ap := ja.Checkpoints[6].AckProgress; ap == nil || !ap.Sampled || ap.P50Ms == nil || *ap.P50Ms != 30_000 || ap.P100Ms != nil || ap.Pending != 1 {
		t.Errorf("ack progress of 7 = %s", js(ap))
	}
	// Nor do the heatmaps and the comparison invent them.
	hm := BuildPhaseHeatmap(job, cps, 0, 0, 10)
	if len(hm.Rows) != 1 || hm.Rows[0].Phase != EndToEnd {
		t.Errorf("phase heatmap rows = %s, want only end_to_end", js(hm.Rows))
	}
	if cmp := Compare(job, &cps[0], &cps[1]); len(cmp.Phases) != 0 || len(cmp.Vertices) != 0 {
		t.Errorf("comparison shows phases or vertices: %s", js(cmp))
	}
	if len(ja.Notes) == 0 || !strings.Contains(ja.Notes[0], "SeaTunnel exposes no") {
		t.Errorf("notes = %v, want the SeaTunnel note first", ja.Notes)
	}
}

// randomJob builds checkpoints with random phases, some failed, some with
// clock skew, for the property tests.
func randomCheckpoints(seed uint64, n int) []model.Checkpoint {
	r := rand.New(rand.NewPCG(seed, 42))
	vs := []string{vSrc, vMap, vWin, vSink}
	var cps []model.Checkpoint
	for i := range n {
		trig := int64(1_700_000_000_000 + i*5_000)
		var vtxs []vtx
		fail := r.IntN(10) == 0
		for _, v := range vs {
			subs := make([]*ph, 4)
			for s := range subs {
				if fail && r.IntN(3) == 0 {
					continue
				}
				p := ph{sd: r.Int64N(50), al: r.Int64N(200), sy: r.Int64N(30), as: r.Int64N(500), ack: r.Int64N(20)}
				if r.IntN(20) == 0 {
					p.al += r.Int64N(20_000)
				}
				subs[s] = &p
			}
			vtxs = append(vtxs, vtx{v, subs})
		}
		var after int64
		if fail {
			after = 60_000
		}
		c := buildCP(int64(i+1), trig, vtxs, after, "Checkpoint expired before completing.")
		if r.IntN(15) == 0 && c.Status == model.StatusCompleted {
			// Clock skew: the TaskManager's start delay exceeds the subtask's end to end.
			c.Tasks[1].Subtasks[0].StartDelayMs = c.Tasks[1].Subtasks[0].EndToEndMs + 500
		}
		if r.IntN(4) == 0 && c.Status == model.StatusCompleted {
			c.FinalizeMs = i64p(r.Int64N(100))
		}
		cps = append(cps, c)
	}
	return cps
}

func TestPhaseProperties(t *testing.T) {
	job := flinkJob()
	cps := randomCheckpoints(7, 300)
	ja := Analyze(job, cps, nil, nil, nil)

	for _, c := range ja.Checkpoints {
		var sum int64
		for _, name := range PhaseNames() {
			if v, ok := c.Phases.Get(name); ok {
				if v < 0 {
					t.Errorf("checkpoint %d: %s = %d < 0", c.ID, name, v)
				}
				if name != PhaseFinalize {
					sum += v
				}
			}
		}
		if c.Status == model.StatusFailed {
			if _, ok := c.Phases.Get(PhaseAlignment); ok {
				t.Errorf("failed checkpoint %d reports subtask phases", c.ID)
			}
			continue
		}
		// The critical path's phases add up to the end-to-end time unless
		// clock skew made the measured ones exceed it (then ack is 0).
		ack, _ := c.Phases.Get(PhaseAck)
		if sum != c.DurationMs && ack != 0 {
			t.Errorf("checkpoint %d: phases sum to %d, end to end %d", c.ID, sum, c.DurationMs)
		}
	}
	for i := range cps {
		for _, row := range SubtaskRows(job, &cps[i]) {
			if !row.Acknowledged {
				if len(row.Phases.Present()) != 0 {
					t.Errorf("pending subtask %s/%d has phases", row.VertexID, row.Subtask)
				}
				continue
			}
			var sum int64
			for _, name := range SubtaskPhaseNames() {
				v, ok := row.Phases.Get(name)
				if !ok || v < 0 {
					t.Fatalf("subtask %s/%d: %s = %d (present %v)", row.VertexID, row.Subtask, name, v, ok)
				}
				sum += v
			}
			ack, _ := row.Phases.Get(PhaseAck)
			if sum != row.EndToEndMs && !(ack == 0 && sum > row.EndToEndMs) {
				t.Errorf("subtask %s/%d: phases sum to %d, end to end %d", row.VertexID, row.Subtask, sum, row.EndToEndMs)
			}
		}
	}

	// Identical across runs, and independent of the input order.
	again := Analyze(job, cps, nil, nil, nil)
	if !reflect.DeepEqual(ja, again) {
		t.Fatal("two runs over the same input differ")
	}
	shuffled := append([]model.Checkpoint(nil), cps...)
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	if !reflect.DeepEqual(ja, Analyze(job, shuffled, nil, nil, nil)) {
		t.Fatal("the analysis depends on the order of the input")
	}
	a, _ := json.Marshal(ja)
	b, _ := json.Marshal(again)
	if string(a) != string(b) {
		t.Fatal("JSON of two runs differs")
	}
}

// The input is not modified.
func TestAnalyzeLeavesInputAlone(t *testing.T) {
	cps := randomCheckpoints(3, 40)
	before, _ := json.Marshal(cps)
	Analyze(flinkJob(), cps, nil, nil, nil)
	after, _ := json.Marshal(cps)
	if string(before) != string(after) {
		t.Fatal("Analyze modified its input")
	}
}

func TestSubtaskRowsMarkTheCriticalPath(t *testing.T) {
	c := buildCP(1, 1_000_000, []vtx{
		{vSrc, all4(healthy)}, {vMap, all4(healthy)},
		{vWin, with(3, ph{sd: 2000, al: 16882, sy: 40, as: 90, ack: 10})}, {vSink, all4(healthy)},
	}, 0, "")
	rows := SubtaskRows(flinkJob(), &c)
	if len(rows) != 16 {
		t.Fatalf("%d rows, want 16", len(rows))
	}
	var critical []string
	for _, r := range rows {
		if r.Critical {
			critical = append(critical, r.VertexName+"#"+string(rune('0'+r.Subtask)))
		}
	}
	if len(critical) != 1 || critical[0] != nameWin+"#3" {
		t.Errorf("critical = %v, want the Window's subtask 3", critical)
	}
	if rows[0].VertexID != vSrc || rows[15].VertexID != vSink {
		t.Errorf("rows not upstream first: first %s, last %s", rows[0].VertexID, rows[15].VertexID)
	}
}

func js(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestAnalyzeEmptyAndSavepoints(t *testing.T) {
	ja := Analyze(flinkJob(), nil, nil, nil, nil)
	b, _ := json.Marshal(ja)
	for _, s := range []string{`"checkpoints":[]`, `"failures":[]`, `"slow_phases":[]`, `"slow_checkpoints":[]`, `"phases_available":[]`, `"verdict":"inconclusive"`} {
		if !strings.Contains(string(b), s) {
			t.Errorf("empty analysis JSON lacks %s: %s", s, b)
		}
	}
	// A savepoint 100× slower than the checkpoints around it is not a slow checkpoint.
	var cps []model.Checkpoint
	for i := int64(1); i <= 10; i++ {
		cps = append(cps, healthyCP(i, 1_000_000+i*10_000))
	}
	cps[7].Kind, cps[7].EndToEndMs = model.KindSavepoint, 30_000
	if ja := Analyze(flinkJob(), cps, nil, nil, nil); len(ja.SlowCheckpoints) != 0 || len(ja.Checkpoints[7].Slow) != 0 {
		t.Errorf("savepoint flagged slow: %s", js(ja.SlowCheckpoints))
	}
}

// The notes count the checkpoints whose details were missed, trimmed or
// partial, and those read from the JobManager log or a cluster's traces,
// each by its cause, and say what such a record lacks; checkpoints with
// their details are unaffected.
func TestNotesCountCheckpoints(t *testing.T) {
	for _, tc := range []struct {
		name string
		n    int                          // healthy checkpoints, 10 s apart
		edit func(cps []model.Checkpoint) // what befell them
		want map[string]string            // note code → its count
		says string                       // a note's text; "" for none checked
		then func(t *testing.T, ja JobAnalysis, cps []model.Checkpoint)
	}{
		{
			name: "details missed or trimmed: no phases",
			n:    4,
			edit: func(cps []model.Checkpoint) {
				cps[1].Tasks, cps[1].DetailLoss = nil, model.DetailMissed
				cps[2].Tasks, cps[2].DetailLoss = nil, model.DetailMissed
				for i := range cps[3].Tasks {
					cps[3].Tasks[i].Subtasks = nil
				}
				cps[3].DetailLoss = model.DetailTrimmed
			},
			want: map[string]string{"note_details_missed": "2", "note_details_trimmed": "1"},
			says: "2 checkpoint(s) have no per-subtask stats because they left the engine's history",
			then: func(t *testing.T, ja JobAnalysis, _ []model.Checkpoint) {
				if _, ok := partsByCode(ja.NoteParts)["note_no_subtasks"]; ok {
					t.Errorf("the job has subtask stats, yet the notes say none: %v", ja.Notes)
				}
				if ja.Checkpoints[0].Bottleneck == nil || ja.Checkpoints[1].Bottleneck != nil || ja.Checkpoints[3].Bottleneck != nil {
					t.Errorf("bottlenecks %v / %v / %v: only checkpoint 1 has details", js(ja.Checkpoints[0].Bottleneck), js(ja.Checkpoints[1].Bottleneck), js(ja.Checkpoints[3].Bottleneck))
				}
			},
		},
		{
			// One vertex's subtasks could not be fetched, yet every subtask
			// acknowledged: its ack progress reaches 100 % at its end, not "never".
			name: "partial details reach full acknowledgement",
			n:    2,
			edit: func(cps []model.Checkpoint) {
				c := &cps[1]
				c.DetailLoss = model.DetailPartial
				c.Tasks[3].Subtasks, c.Tasks[3].Missing = nil, true
				c.Tasks[3].NumAcknowledged = c.Tasks[3].NumSubtasks
			},
			want: map[string]string{"note_details_partial": "1"},
			then: func(t *testing.T, _ JobAnalysis, cps []model.Checkpoint) {
				c := &cps[1]
				p := CheckpointAckProgress(flinkJob(), c, nil, 0)
				if p == nil || p.Pending != 0 || p.P100Ms == nil || *p.P100Ms != c.EndToEndMs {
					t.Errorf("ack progress %s, want every subtask acknowledged and 100 %% at the end (%d ms)", js(p), c.EndToEndMs)
				}
			},
		},
		{
			name: "from the log and from traces",
			n:    4,
			edit: func(cps []model.Checkpoint) {
				cps[0].Source, cps[0].Tasks = model.OriginJobManagerLog, nil
				cps[1].Source = model.OriginTraces
				cps[2].Source = model.OriginTraces
			},
			want: map[string]string{"note_from_log": "1", "note_from_traces": "2"},
			says: "2 checkpoint(s) come from the cluster's traces alone",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var cps []model.Checkpoint
			for i := range int64(tc.n) {
				cps = append(cps, healthyCP(i+1, 1_000_000+i*10_000))
			}
			tc.edit(cps)
			ja := Analyze(flinkJob(), cps, nil, nil, nil)
			notes := partsByCode(ja.NoteParts)
			for code, n := range tc.want {
				if notes[code]["n"] != n {
					t.Errorf("note parts %s, want %s of %s", js(ja.NoteParts), n, code)
				}
			}
			if tc.says != "" && !strings.Contains(strings.Join(ja.Notes, "\n"), tc.says) {
				t.Errorf("notes = %v", ja.Notes)
			}
			if tc.then != nil {
				tc.then(t, ja, cps)
			}
		})
	}
}
