package analyze

import (
	"reflect"
	"testing"

	"checkpoint-explorer/backend/model"
)

func TestDetectConfigChanges(t *testing.T) {
	cfg := func(seen int64, f func(*model.JobConfig)) model.JobConfig {
		c := model.JobConfig{Cluster: "prod", JobID: "j1", SeenMs: seen, Mode: "exactly_once", IntervalMs: i64p(60_000),
			Unaligned: bp(false), StateBackend: "hashmap",
			Keys: map[string]string{"execution.checkpointing.unaligned": "false", "execution-config.job-parallelism": "2"}}
		if f != nil {
			f(&c)
		}
		return c
	}
	unknownJM := []model.ConfigGap{{Part: model.ConfigPartJobManager, Endpoint: "GET /jobs/:jid/jobmanager/config", Error: "503"}}
	tests := []struct {
		name    string
		engine  model.Engine
		configs []model.JobConfig
		want    []model.ConfigKeyChange // of the one change, at SeenMs 5000; nil: none
	}{
		{"unaligned turned on: the typed setting covers its 1.x key", model.EngineFlink, []model.JobConfig{cfg(1000, nil),
			cfg(5000, func(c *model.JobConfig) {
				c.Unaligned, c.Keys["execution.checkpointing.unaligned"] = bp(true), "true"
			})},
			[]model.ConfigKeyChange{{Key: "execution.checkpointing.unaligned.enabled", Old: "false", New: "true"}}},
		{"several settings and a raw key, typed ones first", model.EngineFlink, []model.JobConfig{cfg(1000, nil),
			cfg(5000, func(c *model.JobConfig) {
				c.IntervalMs, c.StateBackend = i64p(30_000), "rocksdb"
				c.Keys["state.backend.rocksdb.timer-service.factory"] = "ROCKSDB"
				delete(c.Keys, "execution-config.job-parallelism")
			})},
			[]model.ConfigKeyChange{{Key: "execution.checkpointing.interval", Old: "1 min", New: "30 s"},
				{Key: "state.backend.type", Old: "hashmap", New: "rocksdb"},
				{Key: "execution-config.job-parallelism", Old: "2", New: ""},
				{Key: "state.backend.rocksdb.timer-service.factory", Old: "", New: "ROCKSDB"}}},
		{"a partial read lacks what it did not read: no change", model.EngineFlink, []model.JobConfig{cfg(1000, nil),
			cfg(5000, func(c *model.JobConfig) {
				c.StateBackend, c.Unknown = "", unknownJM
				delete(c.Keys, "execution.checkpointing.unaligned")
			})}, nil},
		{"a partial read that says otherwise is a change", model.EngineFlink, []model.JobConfig{cfg(1000, nil),
			cfg(5000, func(c *model.JobConfig) { c.Unaligned, c.Unknown = bp(true), unknownJM })},
			[]model.ConfigKeyChange{{Key: "execution.checkpointing.unaligned.enabled", Old: "false", New: "true"}}},
		{"the same settings seen again", model.EngineFlink, []model.JobConfig{cfg(1000, nil), cfg(5000, nil)}, nil},
		{"SeaTunnel names its own key", model.EngineSeaTunnel, []model.JobConfig{cfg(1000, nil),
			cfg(5000, func(c *model.JobConfig) { c.IntervalMs = i64p(10_000) })},
			[]model.ConfigKeyChange{{Key: "checkpoint.interval", Old: "1 min", New: "10 s"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := DetectChanges(ChangeInputs{Job: model.Job{Cluster: "prod", ID: "j1", Engine: tc.engine}, Configs: tc.configs})
			var want []model.Change
			if tc.want != nil {
				want = []model.Change{{Kind: model.ChangeConfig, TimeMs: 5000, Source: model.ChangeFromConfigHistory,
					Cluster: "prod", JobID: "j1", Detail: model.ChangeDetail{Keys: tc.want}}}
			}
			if len(got) != len(want) || len(want) > 0 && !reflect.DeepEqual(got, want) {
				t.Errorf("changes = %s\nwant      %s", js(got), js(want))
			}
		})
	}
}

// tasksAt is a checkpoint whose Map (and Sink) tasks have n subtasks; n = 0 gives it no tasks.
func tasksAt(id, triggerMs int64, n int) model.Checkpoint {
	c := model.Checkpoint{Cluster: "prod", JobID: "j1", ID: id, Status: model.StatusCompleted, TriggerMs: triggerMs, EndToEndMs: 30}
	if n > 0 {
		c.Tasks = []model.TaskStats{{VertexID: vMap, NumSubtasks: n}, {VertexID: vSink, NumSubtasks: 1}}
	}
	return c
}

func TestDetectRescalesAndRestarts(t *testing.T) {
	job := model.Job{Cluster: "prod", ID: "j1", Engine: model.EngineFlink, UpdatedMs: 90_000,
		Vertices: []model.Vertex{{ID: vMap, Name: nameMap, Parallelism: 8}, {ID: vSink, Name: nameSink, Parallelism: 1}}}
	failed := func(id, triggerMs int64, msg string) model.Checkpoint {
		return model.Checkpoint{Cluster: "prod", JobID: "j1", ID: id, Status: model.StatusFailed, TriggerMs: triggerMs,
			FailureMs: triggerMs + 500, FailureMessage: msg}
	}
	cps := []model.Checkpoint{
		tasksAt(3, 30_000, 2), tasksAt(1, 10_000, 2), tasksAt(2, 20_000, 0), // any order; 2 has no tasks
		failed(4, 40_000, "Checkpoint Coordinator is suspending."), // the adaptive scheduler restarts to rescale…
		tasksAt(5, 50_000, 4),                                                                        // …and the next checkpoint has 4
		failed(6, 60_000, "FailoverRegion is restarting."), failed(7, 61_000, "The job has failed."), // one restart
		failed(8, 65_000, "Checkpoint expired before completing."),
		tasksAt(9, 70_000, 4),
		failed(10, 80_000, "FailoverRegion is restarting."), // the last: nothing shows the job went on
	}
	got := DetectChanges(ChangeInputs{Job: job, Checkpoints: cps, Restores: []model.RestoreCount{
		{AtMs: 55_000, Restored: 0}, {AtMs: 62_000, Restored: 1}, // the abort at 60,500 marks it already
		{AtMs: 75_000, Restored: 2, LastRestoreMs: 72_000}, // nothing else did
		// The poll at 79,000 had an answer from before the restore at 78,990.
		{AtMs: 79_000, Restored: 3, LastRestoreMs: 78_000}, {AtMs: 84_000, Restored: 4, LastRestoreMs: 78_990},
	}})
	want := []model.Change{
		{Kind: model.ChangeRescale, TimeMs: 50_000, Source: model.ChangeFromCheckpoints, Cluster: "prod", JobID: "j1",
			Detail: model.ChangeDetail{VertexID: vMap, VertexName: nameMap, From: 2, To: 4}},
		{Kind: model.ChangeRestart, TimeMs: 60_500, Source: model.ChangeFromCheckpoints, Cluster: "prod", JobID: "j1",
			Detail: model.ChangeDetail{CheckpointID: 6, Reason: "f_job_region", Restored: 1}},
		{Kind: model.ChangeRestart, TimeMs: 72_000, Source: model.ChangeFromEngine, Cluster: "prod", JobID: "j1",
			Detail: model.ChangeDetail{Restored: 2}},
		{Kind: model.ChangeRestart, TimeMs: 78_000, Source: model.ChangeFromEngine, Cluster: "prod", JobID: "j1",
			Detail: model.ChangeDetail{Restored: 3}},
		{Kind: model.ChangeRestart, TimeMs: 78_990, Source: model.ChangeFromEngine, Cluster: "prod", JobID: "j1",
			Detail: model.ChangeDetail{Restored: 4}},
		// The job's vertices say 8 now, after the last checkpoint that showed the Map.
		{Kind: model.ChangeRescale, TimeMs: 90_000, Source: model.ChangeFromJobGraph, Cluster: "prod", JobID: "j1",
			Detail: model.ChangeDetail{VertexID: vMap, VertexName: nameMap, From: 4, To: 8}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("changes = %s\nwant      %s", js(got), js(want))
	}
}

func TestDetectResubmitsAndNotes(t *testing.T) {
	old := model.Job{Cluster: "prod", ID: "j0", Name: "orders", StartMs: 1000}
	job := model.Job{Cluster: "prod", ID: "j1", Name: "orders", StartMs: 50_000}
	savepoint := model.Checkpoint{ID: 9, Kind: model.KindSavepoint, Status: model.StatusCompleted, ExternalPath: "s3://sp/savepoint-9"}
	note := model.Change{Kind: model.ChangeNote, TimeMs: 60_000, Source: model.ChangeFromUser, Detail: model.ChangeDetail{Text: "deployed v42"}}
	got := DetectChanges(ChangeInputs{
		Job: job, Previous: []PriorRun{{Job: old, Last: &savepoint}},
		// The new run was first read 3 s after it started: the change is at its start.
		Configs: []model.JobConfig{{Cluster: "prod", JobID: "j0", SeenMs: 2000, Unaligned: bp(false)},
			{Cluster: "prod", JobID: "j1", SeenMs: 53_000, Unaligned: bp(true)}},
		Notes: []model.Change{note, note},
	})
	want := []model.Change{
		{Kind: model.ChangeResubmit, TimeMs: 50_000, Source: model.ChangeFromRuns, Cluster: "prod", JobID: "j1",
			Detail: model.ChangeDetail{PreviousJobID: "j0", Savepoint: "s3://sp/savepoint-9"}},
		{Kind: model.ChangeConfig, TimeMs: 50_000, Source: model.ChangeFromConfigHistory, Cluster: "prod", JobID: "j1",
			Detail: model.ChangeDetail{Keys: []model.ConfigKeyChange{{Key: "execution.checkpointing.unaligned.enabled", Old: "false", New: "true"}}}},
		note,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("changes = %s\nwant      %s", js(got), js(want))
	}
	if got := DetectChanges(ChangeInputs{Job: job}); got == nil || len(got) != 0 {
		t.Errorf("no changes = %#v, want empty", got)
	}
}

func TestFollowAdvice(t *testing.T) {
	advice := func(code AdviceCode, ids ...int64) Advice {
		return Advice{Code: code, Evidence: AdviceEvidence{CheckpointIDs: ids}}
	}
	config := func(at int64, key, old, new string) model.Change {
		return model.Change{Kind: model.ChangeConfig, TimeMs: at, Detail: model.ChangeDetail{Keys: []model.ConfigKeyChange{{Key: key, Old: old, New: new}}}}
	}
	unaligned := config(30_000, "execution.checkpointing.unaligned.enabled", "false", "true")
	shorter := config(31_000, "execution.checkpointing.timeout", "10 min", "1 min")
	longer := config(32_000, "execution.checkpointing.min-pause", "", "2 s")
	rescale := model.Change{Kind: model.ChangeRescale, TimeMs: 26_000, Detail: model.ChangeDetail{VertexID: vMap, From: 2, To: 4}}
	changes := []model.Change{rescale, unaligned, shorter, longer}
	episodes := []Episode{{FirstID: 6, LastID: 25, EndedBy: &rescale}}
	got := FollowAdvice([]Advice{
		advice(AdviceUnaligned, 7, 8, 9),  // turned on later
		advice(AdviceIncremental, 14, 25), // its evidence is the episode the rescale ended
		advice(AdviceTimeout, 24, 27),     // lowered, not raised; and 27 is after the episode
		advice(AdviceInterval, 20),        // the min pause was set
		advice(AdviceFinalize),            // no evidence to place
		advice(AdviceAlignedInput, 27),    // unaligned checkpoints turned on do not apply it
	}, changes, episodes)
	want := []AdviceFollowUp{
		{Code: AdviceUnaligned, Status: AdviceApplied, Change: &unaligned, Key: "execution.checkpointing.unaligned.enabled"},
		{Code: AdviceIncremental, Status: AdviceOutdated, Change: &rescale},
		{Code: AdviceTimeout, Status: AdviceCurrent},
		{Code: AdviceInterval, Status: AdviceApplied, Change: &longer, Key: "execution.checkpointing.min-pause"},
		{Code: AdviceFinalize, Status: AdviceCurrent},
		{Code: AdviceAlignedInput, Status: AdviceCurrent},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("follow-ups = %s\nwant         %s", js(got), js(want))
	}
	// Without an ending change the episode's advice stays current.
	if got := FollowAdvice([]Advice{advice(AdviceIncremental, 14)}, nil, []Episode{{FirstID: 6, LastID: 25}}); got[0].Status != AdviceCurrent {
		t.Errorf("follow-up = %s", js(got))
	}
}

func TestDurationMs(t *testing.T) {
	for _, tc := range []struct {
		s  string
		ms int64
		ok bool
	}{
		{"30 s", 30_000, true}, {"1 min", 60_000, true}, {"500 ms", 500, true}, {"12.5 s", 12_500, true},
		{"30s", 30_000, true}, {"2min", 120_000, true}, {"3", 3, true}, {"", 0, false}, {"true", 0, false}, {"5 weeks", 0, false},
	} {
		if ms, ok := durationMs(tc.s); ms != tc.ms || ok != tc.ok {
			t.Errorf("durationMs(%q) = %d, %v; want %d, %v", tc.s, ms, ok, tc.ms, tc.ok)
		}
	}
}
