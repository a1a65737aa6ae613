package model

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestChangeValidate(t *testing.T) {
	keys := []ConfigKeyChange{{Key: "execution.checkpointing.unaligned.enabled", Old: "false", New: "true"}}
	tests := []struct {
		name  string
		c     Change
		wrong string // "" = valid; else a word of the error
	}{
		{"a config change", Change{Kind: ChangeConfig, TimeMs: 1, Detail: ChangeDetail{Keys: keys}}, ""},
		{"a rescale", Change{Kind: ChangeRescale, TimeMs: 1, Detail: ChangeDetail{VertexID: "v", From: 2, To: 4}}, ""},
		{"a note", Change{Kind: ChangeNote, TimeMs: 1, Detail: ChangeDetail{Text: "deployed v42"}}, ""},
		{"a restart needs no detail", Change{Kind: ChangeRestart, TimeMs: 1}, ""},
		{"a resubmission needs no detail", Change{Kind: ChangeResubmit, TimeMs: 1}, ""},
		{"an unknown kind", Change{Kind: "upgrade", TimeMs: 1}, "kind"},
		{"no time", Change{Kind: ChangeRestart}, "time"},
		{"a config change without keys", Change{Kind: ChangeConfig, TimeMs: 1}, "key"},
		{"a config key that stays", Change{Kind: ChangeConfig, TimeMs: 1,
			Detail: ChangeDetail{Keys: []ConfigKeyChange{{Key: "k", Old: "1", New: "1"}}}}, "does not change"},
		{"a rescale to the same parallelism", Change{Kind: ChangeRescale, TimeMs: 1,
			Detail: ChangeDetail{VertexID: "v", From: 2, To: 2}}, "rescale"},
		{"a rescale without a vertex", Change{Kind: ChangeRescale, TimeMs: 1, Detail: ChangeDetail{From: 2, To: 4}}, "rescale"},
		{"an empty note", Change{Kind: ChangeNote, TimeMs: 1}, "note"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.c.Validate()
			if tc.wrong == "" && err != nil || tc.wrong != "" && (err == nil || !strings.Contains(err.Error(), tc.wrong)) {
				t.Errorf("Validate() = %v, want an error saying %q", err, tc.wrong)
			}
		})
	}
}

// The report's changes[] is a contract: kind, time_ms, detail with a
// rescale's vertex_id, vertex_name, from, to and a config change's keys
// with old and new (an unset old value is "", not left out).
func TestChangeJSONContract(t *testing.T) {
	for _, tc := range []struct {
		c    Change
		want string
	}{
		{Change{Kind: ChangeRescale, TimeMs: 26000, Source: ChangeFromCheckpoints,
			Detail: ChangeDetail{VertexID: "v1", VertexName: "Map", From: 2, To: 4}},
			`{"kind":"rescale","time_ms":26000,"source":"checkpoints","detail":{"vertex_id":"v1","vertex_name":"Map","from":2,"to":4}}`},
		{Change{Kind: ChangeConfig, TimeMs: 5, Source: ChangeFromConfigHistory, Cluster: "c", JobID: "j",
			Detail: ChangeDetail{Keys: []ConfigKeyChange{{Key: "state.backend.type", Old: "", New: "rocksdb"}}}},
			`{"kind":"config","time_ms":5,"source":"config-history","cluster":"c","job_id":"j","detail":{"keys":[{"key":"state.backend.type","old":"","new":"rocksdb"}]}}`},
	} {
		b, err := json.Marshal(tc.c)
		if err != nil || string(b) != tc.want {
			t.Errorf("JSON = %s (%v)\nwant   %s", b, err, tc.want)
		}
	}
}
