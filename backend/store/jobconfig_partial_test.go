package store

import (
	"context"
	"testing"

	"checkpoint-explorer/backend/model"
)

// partialConfig is knobConfig as read when the execution and JobManager configuration did
// not answer: the checkpoint settings only, the rest unknown.
func partialConfig(cluster, job string, seenMs, intervalMs int64, unaligned bool) model.JobConfig {
	c := knobConfig(cluster, job, seenMs, intervalMs, unaligned)
	c.Keys = nil
	c.Unknown = []model.ConfigGap{
		{Part: model.ConfigPartExecution, Endpoint: "GET /jobs/:jid/config", Error: "flink: GET /jobs/j/config: 404 Not Found"},
		{Part: model.ConfigPartJobManager, Endpoint: "GET /jobmanager/config", Error: "flink: GET /jobmanager/config: 500 Internal Server Error"},
	}
	return c
}

func TestJobConfigPartialReadsMakeNoChanges(t *testing.T) {
	type entry struct {
		seenMs  int64
		partial bool
		timeout int64
	}
	withTimeout := func(c model.JobConfig, ms int64) model.JobConfig { c.TimeoutMs = i64(ms); return c }
	tests := []struct {
		name  string
		reads []model.JobConfig
		want  []entry
	}{
		// (a) A partial read that says what the entry in effect says adds nothing.
		{"a partial read after a full one", []model.JobConfig{knobConfig("c", "j", 1000, 1000, false),
			partialConfig("c", "j", 2000, 1000, false)}, []entry{{1000, false, 600000}}},
		{"the same partial read again", []model.JobConfig{partialConfig("c", "j", 1000, 1000, false),
			partialConfig("c", "j", 2000, 1000, false)}, []entry{{1000, true, 600000}}},
		// (b) A full read that says what the partial entry said fills it in, first seen as it was.
		{"a full read after a partial one", []model.JobConfig{partialConfig("c", "j", 1000, 1000, false),
			knobConfig("c", "j", 2000, 1000, false), partialConfig("c", "j", 3000, 1000, false)},
			[]entry{{1000, false, 600000}}},
		// (c) A real difference is a change, partial or not.
		{"a partial read saying otherwise", []model.JobConfig{knobConfig("c", "j", 1000, 1000, false),
			partialConfig("c", "j", 2000, 1000, true)}, []entry{{1000, false, 600000}, {2000, true, 600000}}},
		{"a full read saying otherwise than the partial entry", []model.JobConfig{partialConfig("c", "j", 1000, 1000, false),
			withTimeout(knobConfig("c", "j", 2000, 1000, false), 6000)}, []entry{{1000, true, 600000}, {2000, false, 6000}}},
		// A capture's fill-in record (written under the partial entry's first sighting) fills the
		// entry in on import; importing it again adds nothing.
		{"a capture's fill-in, imported twice", []model.JobConfig{partialConfig("c", "j", 1000, 1000, false),
			knobConfig("c", "j", 1000, 1000, false), partialConfig("c", "j", 1000, 1000, false), knobConfig("c", "j", 1000, 1000, false)},
			[]entry{{1000, false, 600000}}},
		// A capture's partial record older than what the cache holds moves the entry's first
		// sighting back, and keeps the fuller entry.
		{"an older partial record from a capture", []model.JobConfig{knobConfig("c", "j", 3000, 1000, false),
			partialConfig("c", "j", 1000, 1000, false)}, []entry{{1000, false, 600000}}},
		// An older full record from a capture fills in the later partial entry it agrees with.
		{"an older full record from a capture", []model.JobConfig{partialConfig("c", "j", 3000, 1000, false),
			knobConfig("c", "j", 1000, 1000, false)}, []entry{{1000, false, 600000}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			s := openTest(t, DefaultRetention())
			for _, c := range tt.reads {
				if err := s.PutJobConfig(ctx, c); err != nil {
					t.Fatal(err)
				}
			}
			got, err := s.JobConfigs(ctx, "c", "j")
			if err != nil {
				t.Fatal(err)
			}
			var have []entry
			for _, c := range got {
				have = append(have, entry{c.SeenMs, c.Partial(), *c.TimeoutMs})
				if !c.Partial() && len(c.Keys) == 0 {
					t.Errorf("a full entry without its keys: %+v", c)
				}
			}
			if len(have) != len(tt.want) {
				t.Fatalf("history %+v, want %+v", have, tt.want)
			}
			for i := range have {
				if have[i] != tt.want[i] {
					t.Errorf("history %+v, want %+v", have, tt.want)
					break
				}
			}
		})
	}
}
