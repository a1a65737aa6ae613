package model

import "testing"

func TestJobConfigAgreesOnWhatItReports(t *testing.T) {
	i64 := func(v int64) *int64 { return &v }
	bl := func(v bool) *bool { return &v }
	gap := func(p ConfigPart) ConfigGap { return ConfigGap{Part: p, Endpoint: "GET /x", Error: "404"} }
	// full is a read every part answered: the checkpoint settings, an execution key and a
	// JobManager key (with the setting read from it).
	full := func() JobConfig {
		return JobConfig{Mode: "exactly_once", TimeoutMs: i64(6000), Unaligned: bl(false), StateBackend: "hashmap",
			Incremental: bl(true), Keys: map[string]string{"execution-config.job-parallelism": "2",
				"state.backend.incremental": "true"}}
	}
	// checkpointsOnly is full as a read where only the checkpoint settings answered.
	checkpointsOnly := func() JobConfig {
		return JobConfig{Mode: "exactly_once", TimeoutMs: i64(6000), Unaligned: bl(false), StateBackend: "hashmap",
			Unknown: []ConfigGap{gap(ConfigPartExecution), gap(ConfigPartJobManager)}}
	}
	with := func(c JobConfig, f func(*JobConfig)) JobConfig { f(&c); return c }
	tests := []struct {
		name     string
		c, o     JobConfig
		agrees   bool // c.Agrees(o)
		filledBy bool // c.FilledBy(o)
		settled  bool // c.SettledBy(o)
	}{
		{"the same full read", full(), full(), true, false, true},
		{"a partial read of the entry in effect", full(), checkpointsOnly(), false, false, true},
		{"the partial entry, read in full", checkpointsOnly(), full(), true, true, false},
		{"the same partial read again", checkpointsOnly(), checkpointsOnly(), true, false, true},
		{"a partial read saying otherwise", full(),
			with(checkpointsOnly(), func(c *JobConfig) { c.TimeoutMs = i64(60000) }), false, false, false},
		{"a full read saying otherwise of what the partial entry knew", checkpointsOnly(),
			with(full(), func(c *JobConfig) { c.StateBackend = "rocksdb" }), false, false, false},
		{"a full read with a setting more", full(),
			with(full(), func(c *JobConfig) { c.IntervalMs = i64(1000) }), true, false, false},
		{"a full read with a setting less", full(),
			with(full(), func(c *JobConfig) { c.Unaligned = nil }), false, false, false},
		{"a key changed", full(),
			with(full(), func(c *JobConfig) {
				c.Keys = map[string]string{"execution-config.job-parallelism": "4", "state.backend.incremental": "true"}
			}),
			false, false, false},
		{"a key less, of a part both read", full(),
			with(full(), func(c *JobConfig) { c.Keys = map[string]string{"state.backend.incremental": "true"} }), false, false, false},
		{"a key more, of a part both read", with(full(), func(c *JobConfig) { c.Keys = map[string]string{"state.backend.incremental": "true"} }),
			full(), false, false, false},
		{"a partial read without the JobManager's keys", full(),
			with(full(), func(c *JobConfig) {
				c.Incremental, c.Keys = nil, map[string]string{"execution-config.job-parallelism": "2"}
				c.Unknown = []ConfigGap{gap(ConfigPartJobManager)}
			}), false, false, true},
		{"a partial read that lost an execution key it did read", full(),
			with(full(), func(c *JobConfig) {
				c.Incremental, c.Keys = nil, map[string]string{}
				c.Unknown = []ConfigGap{gap(ConfigPartJobManager)}
			}), false, false, false},
		{"the partial entry, read with one part more", checkpointsOnly(),
			with(full(), func(c *JobConfig) {
				c.Keys = map[string]string{"state.backend.incremental": "true"}
				c.Unknown = []ConfigGap{gap(ConfigPartExecution)}
			}), true, true, false},
		{"partial reads of other parts", checkpointsOnly(),
			JobConfig{Incremental: bl(true), Keys: map[string]string{"state.backend.incremental": "true"},
				Unknown: []ConfigGap{gap(ConfigPartCheckpoints), gap(ConfigPartExecution)}}, false, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.c.Agrees(tt.o); got != tt.agrees {
				t.Errorf("Agrees = %v, want %v", got, tt.agrees)
			}
			if got := tt.c.FilledBy(tt.o); got != tt.filledBy {
				t.Errorf("FilledBy = %v, want %v", got, tt.filledBy)
			}
			if got := tt.c.SettledBy(tt.o); got != tt.settled {
				t.Errorf("SettledBy = %v, want %v", got, tt.settled)
			}
		})
	}
}

func TestJobConfigKnowsItsParts(t *testing.T) {
	c := JobConfig{Unknown: []ConfigGap{{Part: ConfigPartJobManager}}}
	if !c.Partial() || c.Knows(ConfigPartJobManager) || !c.Knows(ConfigPartCheckpoints) || !c.Knows(ConfigPartExecution) {
		t.Errorf("partial %v, knows jobmanager %v checkpoints %v execution %v", c.Partial(),
			c.Knows(ConfigPartJobManager), c.Knows(ConfigPartCheckpoints), c.Knows(ConfigPartExecution))
	}
	if (JobConfig{}).Partial() {
		t.Error("a read with no unknown part is partial")
	}
}
