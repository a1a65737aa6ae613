package analyze

import (
	"reflect"
	"strings"
	"testing"

	"checkpoint-explorer/backend/model"
)

// pattern builds analysed checkpoints from a string, one per character, id
// 1 on, triggered every 10 s from 1,000,000: o ordinary (30 ms), s slow
// (1 s, barriers queued at the Map's input), f failed (in alignment at the
// Window), r running, p a savepoint.
func pattern(p string) []CheckpointAnalysis {
	out := make([]CheckpointAnalysis, 0, len(p))
	for i, ch := range p {
		trig := patternTrigger(i + 1)
		c := CheckpointAnalysis{ID: int64(i + 1), Status: model.StatusCompleted, TriggerMs: trig, DurationMs: 30, EndMs: trig + 30}
		switch ch {
		case 's':
			c.DurationMs, c.EndMs = 1000, trig+1000
			c.Slow = []SlowFlag{{Phase: EndToEnd, ValueMs: 1000}, {Phase: PhaseStartDelay, VertexID: vWin, ValueMs: 990}}
			c.Bottleneck = &Bottleneck{Phase: PhaseStartDelay, VertexID: vWin, VertexName: nameWin,
				Origin: &Origin{VertexID: vMap, VertexName: nameMap, UpstreamVertexID: vSrc}}
		case 'f':
			c.Status, c.EndMs = model.StatusFailed, trig+5000
			c.Failure = &CheckpointFailure{Phase: PhaseAlignment, Vertices: []VertexRef{{VertexID: vWin, VertexName: nameWin}}}
		case 'r':
			c.Status, c.EndMs = model.StatusInProgress, 0
		case 'p':
			c.Kind = model.KindSavepoint
		}
		out = append(out, c)
	}
	return out
}

func patternTrigger(id int) int64 { return 1_000_000 + int64(id-1)*10_000 }

// The issue's job: Map at parallelism 2 backpressured its source
// (checkpoints 6–25 at ~1 s, a few of them just under the slow threshold),
// then was rescaled to 4 (26 on at 30 ms). That is one episode, 6–25, which
// the rescale ended.
func TestEpisodesTheIssuesRescale(t *testing.T) {
	cas := pattern("ooooo" + "sssso" + "soosss" + "sssssssss" + "ooooooooooooooo")
	for _, id := range []int{10, 12, 13} { // ~990 ms: not over the threshold, but not ordinary to a reader
		cas[id-1].DurationMs = 990
	}
	rescale := model.Change{Kind: model.ChangeRescale, TimeMs: patternTrigger(26), Source: model.ChangeFromCheckpoints,
		Detail: model.ChangeDetail{VertexID: vMap, VertexName: nameMap, From: 2, To: 4}}
	note := model.Change{Kind: model.ChangeNote, TimeMs: patternTrigger(30), Detail: model.ChangeDetail{Text: "later"}}
	got := Episodes(cas, []model.Change{rescale, note})
	want := []Episode{{FirstID: 6, LastID: 25, StartMs: patternTrigger(6), EndMs: patternTrigger(25) + 1000, Slow: 17, Ordinary: 3,
		Cause:   &EpisodeCause{Phase: PhaseStartDelay, VertexID: vMap, VertexName: nameMap, Checkpoints: 17},
		EndedBy: &rescale}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("episodes = %s\nwant       %s", js(got), js(want))
	}
}

func TestEpisodes(t *testing.T) {
	note := func(id int) model.Change {
		return model.Change{Kind: model.ChangeNote, TimeMs: patternTrigger(id), Detail: model.ChangeDetail{Text: "n"}}
	}
	long := "oo" + strings.Repeat("s", 30) + "ooooo" + "s" + "oooooooo" // 30 slow, a gap of 5 ≤ 0.2 × 30, 1 slow
	tests := []struct {
		name    string
		pattern string
		changes []model.Change
		// want are the episodes as first–last ids, slow, failed and ordinary counts, open.
		want []episodeShape
	}{
		{"an ordinary checkpoint inside does not split", "oossosssoooo", nil, []episodeShape{{3, 8, 5, 0, 1, false}}},
		{"a gap of more than 3 splits; the last is open", "ssooooss", nil,
			[]episodeShape{{1, 2, 2, 0, 0, false}, {7, 8, 2, 0, 0, true}}},
		{"a long episode tolerates a gap of 20 % of it", long, nil, []episodeShape{{3, 38, 31, 0, 5, false}}},
		{"failures belong to it", "sffos", nil, []episodeShape{{1, 5, 2, 2, 1, true}}},
		{"running checkpoints and savepoints are neither", "srsps", nil, []episodeShape{{1, 5, 3, 0, 0, true}}},
		{"a change in a short gap ends the episode", "ssoss", []model.Change{note(3)},
			[]episodeShape{{1, 2, 2, 0, 0, false}, {4, 5, 2, 0, 0, true}}},
		{"a change after the first ordinary checkpoint ended does not", "ssooss", []model.Change{note(4)},
			[]episodeShape{{1, 6, 4, 0, 2, true}}},
		{"nothing slow", "oooo", nil, []episodeShape{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			eps := Episodes(pattern(tc.pattern), tc.changes)
			got := make([]episodeShape, len(eps))
			for i, e := range eps {
				got[i] = episodeShape{e.FirstID, e.LastID, e.Slow, e.Failed, e.Ordinary, e.Open}
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("episodes = %v, want %v", got, tc.want)
			}
			// Only the change in the gap's first ordinary checkpoint ends the episode before it.
			if ended := len(eps) > 0 && eps[0].EndedBy != nil; ended != (tc.name == "a change in a short gap ends the episode") ||
				ended && !reflect.DeepEqual(*eps[0].EndedBy, tc.changes[0]) {
				t.Errorf("first episode ended by %s", js(eps[0].EndedBy))
			}
		})
	}
	// A failure's cause is its phase and vertex; ties go to the first seen.
	if eps := Episodes(pattern("ffs"), nil); eps[0].Cause == nil ||
		*eps[0].Cause != (EpisodeCause{Phase: PhaseAlignment, VertexID: vWin, VertexName: nameWin, Checkpoints: 2}) {
		t.Errorf("cause = %s", js(eps[0].Cause))
	}
}

type episodeShape struct {
	first, last            int64
	slow, failed, ordinary int
	open                   bool
}
