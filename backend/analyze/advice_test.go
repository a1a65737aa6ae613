package analyze

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"checkpoint-explorer/backend/capture/capturetest"
	"checkpoint-explorer/backend/model"
)

func bp(v bool) *bool        { return &v }
func f64(v float64) *float64 { return &v }

// completedRun is n completed checkpoints of e2e ms; the slowest quarter
// (the last ones, slower) has the given bottleneck.
func completedRun(n int, slow Phase, slowMs int64) []adviceCheckpoint {
	var out []adviceCheckpoint
	for i := range n {
		c := adviceCheckpoint{id: int64(i + 1), e2e: 500, size: 1 << 20, stateSize: 1 << 20, bottleneck: PhaseAsync,
			vertex: "Sink", phaseMs: 100}
		if i >= n-n/4 {
			c.e2e, c.bottleneck, c.phaseMs, c.vertex = 4000+int64(i), slow, slowMs, "Slow Map"
			c.upstreamBP = f64(0.9)
			if slow == PhaseStartDelay || slow == PhaseAlignment {
				c.queuedAt, c.vertex = "Slow Map", "Sink"
			}
		}
		out = append(out, c)
	}
	return out
}

func codes(as []Advice) []AdviceCode {
	out := []AdviceCode{}
	for _, a := range as {
		out = append(out, a.Code)
	}
	return out
}

func find(as []Advice, code AdviceCode) *Advice {
	for i := range as {
		if as[i].Code == code {
			return &as[i]
		}
	}
	return nil
}

// Each rule, with the configuration in both Flink spellings, without it,
// and with the configuration already following the advice.
func TestAdviceRules(t *testing.T) {
	flink := func(cfg *model.JobConfig, mod func(f *adviceFacts)) *adviceFacts {
		f := &adviceFacts{engine: model.EngineFlink, cfg: cfg, corr: Correlation{Verdict: VerdictInconclusive}}
		mod(f)
		return f
	}
	backpressured := func(f *adviceFacts) {
		f.corr.Verdict = VerdictBackpressure
		f.completed = completedRun(16, PhaseStartDelay, 3000)
	}
	expiring := func(latestAck int64) func(f *adviceFacts) {
		return func(f *adviceFacts) {
			f.completed = completedRun(16, PhaseAsync, 3000)
			for id := int64(100); id < 103; id++ {
				f.expired = append(f.expired, adviceFailure{id: id, e2e: 10_000, latestAck: latestAck})
			}
		}
	}
	growing := func(full bool) func(f *adviceFacts) {
		return func(f *adviceFacts) {
			f.completed = completedRun(16, PhaseAsync, 3000)
			for i := range f.completed {
				f.completed[i].size = int64(1<<20) * int64(1+i)
				f.completed[i].stateSize = f.completed[i].size
				if !full {
					f.completed[i].stateSize *= 4
				}
			}
			f.corr.AsyncShare = f64(1)
		}
	}
	sync := func(ms int64) func(f *adviceFacts) {
		return func(f *adviceFacts) { f.completed = completedRun(16, PhaseSync, ms) }
	}
	declining := func(f *adviceFacts) {
		f.completed = completedRun(16, PhaseAsync, 100)
		f.declined = []adviceFailure{{id: 40, task: "Map (2/4)#0"}, {id: 44}}
	}
	quick := func(f *adviceFacts) { f.completed = completedRun(16, PhaseAsync, 100) }
	// behind gives the facts the job graph Source → Slow Map → Sink whose
	// Slow Map (where completedRun's barriers queue) reads the Source with
	// strategy, and, with strategy and, a second input, read with and.
	behind := func(strategy, and string) func(f *adviceFacts) {
		return func(f *adviceFacts) {
			job := model.Job{Vertices: []model.Vertex{{ID: "src", Name: "Source", Parallelism: 2}, {ID: "map", Name: "Slow Map", Parallelism: 2},
				{ID: "sink", Name: "Sink", Parallelism: 2}}}
			if strategy != "" {
				job.Edges = []model.Edge{{Source: "src", Target: "map", ShipStrategy: strategy}, {Source: "map", Target: "sink", ShipStrategy: "HASH"}}
			}
			if and != "" {
				job.Vertices = append(job.Vertices, model.Vertex{ID: "rules", Name: "Rules", Parallelism: 1})
				job.Edges = append(job.Edges, model.Edge{Source: "rules", Target: "map", ShipStrategy: and})
			}
			f.alignedInput = alignedInputs(newJobGraph(job), job.Edges)
		}
	}
	then := func(mods ...func(f *adviceFacts)) func(f *adviceFacts) {
		return func(f *adviceFacts) {
			for _, m := range mods {
				m(f)
			}
		}
	}
	takenUnaligned := func(f *adviceFacts) {
		for i := range f.completed {
			f.completed[i].unaligned = true
		}
	}

	for _, tc := range []struct {
		name    string
		facts   *adviceFacts
		want    []AdviceCode
		keys    []string          // of the first advice, when set
		current map[string]string // of the first advice, when set
		text    string            // in the first advice's text, when set
	}{
		{name: "aligned under backpressure (2.x spelling)",
			facts: flink(&model.JobConfig{Unaligned: bp(false), Keys: map[string]string{"execution.checkpointing.unaligned.enabled": "false"}}, backpressured),
			want:  []AdviceCode{AdviceUnaligned},
			keys: []string{"execution.checkpointing.unaligned.enabled", "execution.checkpointing.unaligned",
				"execution.checkpointing.aligned-checkpoint-timeout", "taskmanager.network.memory.buffer-debloat.enabled"},
			current: map[string]string{"execution.checkpointing.unaligned.enabled": "false", "execution.checkpointing.unaligned": "false"},
			text:    "Slow Map"},
		{name: "aligned under backpressure (1.x spelling)",
			facts:   flink(&model.JobConfig{Unaligned: bp(false), Keys: map[string]string{"execution.checkpointing.unaligned": "false"}}, backpressured),
			want:    []AdviceCode{AdviceUnaligned},
			current: map[string]string{"execution.checkpointing.unaligned.enabled": "false", "execution.checkpointing.unaligned": "false"}},
		{name: "aligned under backpressure, no configuration collected",
			facts: flink(nil, backpressured), want: []AdviceCode{AdviceUnaligned}, current: map[string]string{}},
		{name: "debloating on already: not advised again",
			facts: flink(&model.JobConfig{Unaligned: bp(false), BufferDebloat: bp(true)}, backpressured), want: []AdviceCode{AdviceUnaligned},
			keys: []string{"execution.checkpointing.unaligned.enabled", "execution.checkpointing.unaligned", "execution.checkpointing.aligned-checkpoint-timeout"}},
		{name: "unaligned on already", facts: flink(&model.JobConfig{Unaligned: bp(true)}, backpressured), want: []AdviceCode{}},
		{name: "checkpoints taken unaligned", facts: flink(nil, func(f *adviceFacts) {
			backpressured(f)
			f.completed[0].unaligned = true
		}), want: []AdviceCode{}},
		{name: "backpressure not the verdict", facts: flink(&model.JobConfig{Unaligned: bp(false)}, func(f *adviceFacts) {
			backpressured(f)
			f.corr.Verdict = VerdictStorage
		}), want: []AdviceCode{}},

		{name: "queued at a FORWARD input: aligned there, no unaligned advice",
			facts: flink(&model.JobConfig{Unaligned: bp(false)}, then(backpressured, behind("FORWARD", ""))),
			want:  []AdviceCode{AdviceAlignedInput},
			keys: []string{"execution.checkpointing.unaligned.enabled", "execution.checkpointing.unaligned",
				"taskmanager.network.memory.buffer-debloat.enabled"},
			text: "Slow Map has a FORWARD input: Flink keeps barriers aligned"},
		{name: "queued at a RESCALE input (the strategy as the plan spells it, any case)",
			facts: flink(nil, then(backpressured, behind("rescale", ""))), want: []AdviceCode{AdviceAlignedInput},
			text: "a rebalance before it makes that input all-to-all"},
		{name: "queued at a vertex with a BROADCAST input: all its inputs aligned, no rebalance helps",
			facts: flink(&model.JobConfig{BufferDebloat: bp(true)}, then(backpressured, behind("HASH", "BROADCAST"))),
			want:  []AdviceCode{AdviceAlignedInput}, keys: []string{"execution.checkpointing.unaligned.enabled", "execution.checkpointing.unaligned"},
			text: "Slow Map has a BROADCAST input"},
		{name: "queued at a HASH input: unaligned as before",
			facts: flink(&model.JobConfig{Unaligned: bp(false)}, then(backpressured, behind("HASH", ""))), want: []AdviceCode{AdviceUnaligned}},
		{name: "queued at a REBALANCE input between equal parallelisms: all-to-all, unaligned as before",
			facts: flink(&model.JobConfig{Unaligned: bp(false)}, then(backpressured, behind("REBALANCE", ""))), want: []AdviceCode{AdviceUnaligned}},
		{name: "no edges (SeaTunnel, no plan): unaligned as before",
			facts: flink(&model.JobConfig{Unaligned: bp(false)}, then(backpressured, behind("", ""))), want: []AdviceCode{AdviceUnaligned}},
		{name: "two vertices named Slow Map, one behind FORWARD, one behind HASH: unaligned as before",
			facts: flink(&model.JobConfig{Unaligned: bp(false)}, then(backpressured, func(f *adviceFacts) {
				job := model.Job{Vertices: []model.Vertex{{ID: "src", Name: "Source"}, {ID: "m1", Name: "Slow Map"}, {ID: "m2", Name: "Slow Map"}},
					Edges: []model.Edge{{Source: "src", Target: "m1", ShipStrategy: "FORWARD"}, {Source: "src", Target: "m2", ShipStrategy: "HASH"}}}
				f.alignedInput = alignedInputs(newJobGraph(job), job.Edges)
			})), want: []AdviceCode{AdviceUnaligned}},
		{name: "unaligned on, still queued at a FORWARD input",
			facts: flink(&model.JobConfig{Unaligned: bp(true)}, then(backpressured, behind("FORWARD", ""))), want: []AdviceCode{AdviceAlignedInput},
			current: map[string]string{"execution.checkpointing.unaligned.enabled": "true", "execution.checkpointing.unaligned": "true"},
			text:    "even with unaligned checkpoints on (execution.checkpointing.unaligned.enabled)"},
		{name: "checkpoints taken unaligned, queued at a FORWARD input, verdict not backpressure",
			facts: flink(nil, then(backpressured, behind("FORWARD", ""), takenUnaligned, func(f *adviceFacts) { f.corr.Verdict = VerdictInconclusive })),
			want:  []AdviceCode{AdviceAlignedInput}},
		{name: "unaligned on, the queue at a FORWARD input short",
			facts: flink(&model.JobConfig{Unaligned: bp(true)}, then(behind("FORWARD", ""), func(f *adviceFacts) {
				f.completed = completedRun(16, PhaseStartDelay, 50)
			})), want: []AdviceCode{}},
		{name: "unaligned on, barriers queue at the FORWARD input in a quarter of the slowest",
			facts: flink(&model.JobConfig{Unaligned: bp(true)}, then(backpressured, behind("FORWARD", ""), func(f *adviceFacts) {
				for i := 12; i < 15; i++ {
					f.completed[i].bottleneck, f.completed[i].queuedAt = PhaseAsync, ""
				}
			})), want: []AdviceCode{}},
		{name: "unaligned off, queued at a FORWARD input, backpressure not the verdict",
			facts: flink(&model.JobConfig{Unaligned: bp(false)}, then(backpressured, behind("FORWARD", ""), func(f *adviceFacts) {
				f.corr.Verdict = VerdictStorage
			})), want: []AdviceCode{}},

		{name: "expired while acknowledging, completed ones near the timeout",
			facts: flink(&model.JobConfig{TimeoutMs: i64(10_000)}, func(f *adviceFacts) {
				expiring(9_500)(f)
				f.completed[15].e2e = 8_000
			}),
			want: []AdviceCode{AdviceTimeout}, keys: []string{"execution.checkpointing.timeout"},
			current: map[string]string{"execution.checkpointing.timeout": "10 s"}, text: "raise execution.checkpointing.timeout to at least 16 s"},
		{name: "expired while acknowledging, completed ones far from it",
			facts: flink(&model.JobConfig{TimeoutMs: i64(60_000)}, func(f *adviceFacts) {
				expiring(58_000)(f)
			}),
			want: []AdviceCode{AdviceTimeout}, text: "outliers"},
		{name: "expired, timeout not reported: read from the expired ones",
			facts: flink(nil, expiring(9_000)), want: []AdviceCode{AdviceTimeout}, current: map[string]string{}},
		{name: "expired stuck early: not the timeout's fault", facts: flink(&model.JobConfig{TimeoutMs: i64(10_000)}, expiring(2_000)), want: []AdviceCode{}},
		{name: "SeaTunnel names its env key",
			facts: func() *adviceFacts {
				f := flink(&model.JobConfig{TimeoutMs: i64(10_000)}, expiring(9_500))
				f.engine = model.EngineSeaTunnel
				return f
			}(),
			want: []AdviceCode{AdviceTimeout}, keys: []string{"checkpoint.timeout"}, current: map[string]string{"checkpoint.timeout": "10 s"}},

		{name: "full checkpoints of growing state on RocksDB (config says so, 1.x spelling)",
			facts: flink(&model.JobConfig{StateBackend: "rocksdb", Incremental: bp(false), Keys: map[string]string{"state.backend.incremental": "false"}}, growing(true)),
			want:  []AdviceCode{AdviceIncremental},
			keys:  []string{"execution.checkpointing.incremental", "state.backend.incremental", "state.backend.type"},
			current: map[string]string{"execution.checkpointing.incremental": "false", "state.backend.incremental": "false",
				"state.backend.type": "rocksdb"}},
		{name: "growing state on RocksDB, setting not reported, sizes say full",
			facts: flink(&model.JobConfig{StateBackend: "rocksdb"}, growing(true)), want: []AdviceCode{AdviceIncremental}, text: "look full"},
		{name: "growing state on RocksDB, sizes say incremental", facts: flink(&model.JobConfig{StateBackend: "rocksdb"}, growing(false)), want: []AdviceCode{}},
		{name: "incremental on already", facts: flink(&model.JobConfig{StateBackend: "rocksdb", Incremental: bp(true)}, growing(true)), want: []AdviceCode{}},
		{name: "state backend unknown", facts: flink(nil, growing(true)), want: []AdviceCode{}},
		{name: "size not growing", facts: flink(&model.JobConfig{StateBackend: "rocksdb", Incremental: bp(false)}, func(f *adviceFacts) {
			growing(true)(f)
			for i := range f.completed {
				f.completed[i].size, f.completed[i].stateSize = 1<<20, 1<<20
			}
		}), want: []AdviceCode{}},

		{name: "large heap state", facts: flink(&model.JobConfig{StateBackend: "hashmap"}, func(f *adviceFacts) {
			growing(true)(f)
			for i := range f.completed {
				f.completed[i].size = 512 << 20
			}
		}), want: []AdviceCode{AdviceRocksDB}, keys: []string{"state.backend.type"}, current: map[string]string{"state.backend.type": "hashmap"}},
		{name: "small heap state", facts: flink(&model.JobConfig{StateBackend: "hashmap"}, growing(true)), want: []AdviceCode{}},

		{name: "sync dominates", facts: flink(nil, sync(800)), want: []AdviceCode{AdviceSync}, text: "if Slow Map holds many timers"},
		{name: "sync dominates but is short", facts: flink(nil, sync(50)), want: []AdviceCode{}},

		{name: "interval shorter than p90 plus min pause",
			facts: flink(&model.JobConfig{IntervalMs: i64(1000), MinPauseMs: i64(0)}, quick), want: []AdviceCode{AdviceInterval},
			keys:    []string{"execution.checkpointing.interval", "execution.checkpointing.min-pause"},
			current: map[string]string{"execution.checkpointing.interval": "1 s", "execution.checkpointing.min-pause": "0 ms"}},
		{name: "interval long enough", facts: flink(&model.JobConfig{IntervalMs: i64(60_000), MinPauseMs: i64(500)}, quick), want: []AdviceCode{}},
		{name: "interval not reported", facts: flink(nil, quick), want: []AdviceCode{}},

		{name: "declines with none tolerated", facts: flink(&model.JobConfig{TolerableFailures: i64(0)}, declining),
			want: []AdviceCode{AdviceTolerable}, current: map[string]string{"execution.checkpointing.tolerable-failed-checkpoints": "0"},
			text: "Map (2/4)#0 declined them"},
		{name: "declines tolerated", facts: flink(&model.JobConfig{TolerableFailures: i64(3)}, declining), want: []AdviceCode{}},
		{name: "declines, tolerance not reported", facts: flink(nil, declining), want: []AdviceCode{}},

		{name: "finalize dominates", facts: flink(&model.JobConfig{CheckpointStorage: "FileSystemCheckpointStorage"}, sync(0)), want: []AdviceCode{}},
		{name: "finalize dominates, long", facts: flink(&model.JobConfig{CheckpointStorage: "FileSystemCheckpointStorage"}, func(f *adviceFacts) {
			f.completed = completedRun(16, PhaseFinalize, 2500)
		}), want: []AdviceCode{AdviceFinalize}, text: "FileSystemCheckpointStorage"},
		{name: "the sink's commit dominates", facts: flink(nil, func(f *adviceFacts) {
			quick(f)
			f.commitMs = []int64{2000, 2100, 1900}
		}), want: []AdviceCode{AdviceFinalize}, text: "the sink's commit after each checkpoint takes 2 s"},

		{name: "most severe first", facts: flink(&model.JobConfig{Unaligned: bp(false), TimeoutMs: i64(10_000)}, func(f *adviceFacts) {
			backpressured(f)
			f.expired = []adviceFailure{{id: 99, e2e: 10_000, latestAck: 9_900}}
		}), want: []AdviceCode{AdviceTimeout, AdviceUnaligned}},
		{name: "too few checkpoints for anything but failures", facts: flink(&model.JobConfig{Unaligned: bp(false)}, func(f *adviceFacts) {
			backpressured(f)
			f.completed = f.completed[:4]
		}), want: []AdviceCode{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := advise(tc.facts)
			if !slices.Equal(codes(got), tc.want) {
				t.Fatalf("advice %v, want %v", codes(got), tc.want)
			}
			for _, a := range got {
				if a.Title == "" || a.Text == "" || a.DocsURL == "" || len(a.ConfigKeys) == 0 {
					t.Errorf("%s: incomplete: %+v", a.Code, a)
				}
				if len(a.Evidence.CheckpointIDs) == 0 {
					t.Errorf("%s: advice without evidence", a.Code)
				}
				if a.Title != renderClauses([]ReasonPart{a.TitlePart}) || a.Text != renderReason(a.TextParts) {
					t.Errorf("%s: the English is not its templates'", a.Code)
				}
			}
			if len(got) == 0 {
				return
			}
			a := got[0]
			if tc.keys != nil && !slices.Equal(a.ConfigKeys, tc.keys) {
				t.Errorf("keys %v, want %v", a.ConfigKeys, tc.keys)
			}
			if tc.current != nil && !reflect.DeepEqual(a.Current, tc.current) {
				t.Errorf("current %v, want %v", a.Current, tc.current)
			}
			if tc.text != "" && !strings.Contains(a.Text, tc.text) {
				t.Errorf("text %q lacks %q", a.Text, tc.text)
			}
		})
	}
}

// The timeout advice quotes the figures it rests on.
func TestTimeoutAdviceQuotesTheP99(t *testing.T) {
	f := &adviceFacts{engine: model.EngineFlink, cfg: &model.JobConfig{TimeoutMs: i64(10_000)}, completed: completedRun(100, PhaseAsync, 10)}
	f.completed[99].e2e = 7_000
	f.expired = []adviceFailure{{id: 500, e2e: 10_000, latestAck: 9_000}, {id: 501, e2e: 10_000, latestAck: 1_000}}
	a := find(advise(f), AdviceTimeout)
	if a == nil {
		t.Fatal("no timeout advice")
	}
	p99 := Quantile(f.durations(), 0.99)
	if a.Evidence.Figures["timeout_ms"] != 10_000 || a.Evidence.Figures["p99_ms"] != float64(p99) ||
		!slices.Equal(a.Evidence.CheckpointIDs, []int64{500}) {
		t.Errorf("evidence %+v; want timeout 10000, p99 %d, only the checkpoint still acknowledging", a.Evidence, p99)
	}
}

// On a real recording (Flink 1.20, the mixed-load capture whose verdict is
// backpressure; its barriers queue at Slow Map, which reads the source over a
// FORWARD edge), the analysis says Flink keeps that input aligned, whether
// unaligned checkpoints are on or off. With that edge a HASH one instead, it
// advises unaligned checkpoints when they are off, and not when the
// configuration says they are on.
func TestAdviceOnARealRecording(t *testing.T) {
	rec := capturetest.Read(t, capturetest.Sample("flink120-mixed.ckpt.gz"))
	job, metrics := rec.Jobs[0], rec.MetricSamples
	mine := rec.CheckpointsOf(job.ID)
	run := func(job model.Job, cfg *model.JobConfig) JobAnalysis {
		a := NewAnalyzer(job, nil, metrics)
		a.SetConfig(cfg)
		for i := range mine {
			a.Add(&mine[i])
		}
		ja, _ := a.Finish(nil)
		return ja
	}
	stored := map[int64]bool{}
	for _, c := range mine {
		stored[c.ID] = true
	}
	// wantAt checks that the analysis advises code (and not the other),
	// naming Slow Map, on checkpoints of the recording.
	wantAt := func(ja JobAnalysis, code, not AdviceCode, suffix string) {
		t.Helper()
		adv := find(ja.Advice, code)
		if adv == nil || find(ja.Advice, not) != nil {
			t.Fatalf("advice %v, want %s and not %s", codes(ja.Advice), code, not)
		}
		if !strings.HasSuffix(adv.Text, suffix) {
			t.Errorf("advice names another slow operator than the verdict's (Slow Map): %s", adv.Text)
		}
		for _, id := range adv.Evidence.CheckpointIDs {
			if !stored[id] {
				t.Errorf("evidence cites checkpoint %d, not in the recording", id)
			}
		}
	}

	off := run(job, &model.JobConfig{Unaligned: bp(false)})
	if off.Correlation.Verdict != VerdictBackpressure {
		t.Fatalf("verdict %s; the recording's is backpressure", off.Correlation.Verdict)
	}
	const forwardFix = "what helps is a faster Slow Map or a higher parallelism for it; where its data may be redistributed, " +
		"a rebalance before it makes that input all-to-all, and unaligned checkpoints then apply there; buffer debloating " +
		"(taskmanager.network.memory.buffer-debloat.enabled: true) keeps less data in flight, so aligned barriers queue less."
	wantAt(off, AdviceAlignedInput, AdviceUnaligned, forwardFix)
	wantAt(run(job, &model.JobConfig{Unaligned: bp(true)}), AdviceAlignedInput, AdviceUnaligned, forwardFix)

	hashed := job
	hashed.Edges = slices.Clone(job.Edges)
	for i, e := range hashed.Edges {
		if e.ShipStrategy == "FORWARD" && e.Target == "2c893a3eb04f42bf85ab34544f6f051f" { // Slow Map
			hashed.Edges[i].ShipStrategy = "HASH"
		}
	}
	wantAt(run(hashed, &model.JobConfig{Unaligned: bp(false)}), AdviceUnaligned, AdviceAlignedInput, ": Slow Map.")
	if on := run(hashed, &model.JobConfig{Unaligned: bp(true)}); find(on.Advice, AdviceUnaligned) != nil || find(on.Advice, AdviceAlignedInput) != nil {
		t.Errorf("advice %v while the configuration has unaligned checkpoints on and every input could be unaligned", codes(on.Advice))
	}
}
