package analyze

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"sort"
	"testing"

	"checkpoint-explorer/backend/model"
)

func TestSummarize(t *testing.T) {
	done := func(id, d, size int64) model.Checkpoint {
		return model.Checkpoint{ID: id, Status: model.StatusCompleted, TriggerMs: 1000 * id, EndToEndMs: d, CheckpointedSize: size}
	}
	running := func(id int64, kind model.CheckpointKind) model.Checkpoint {
		return model.Checkpoint{ID: id, Status: model.StatusInProgress, TriggerMs: 1000 * id, Kind: kind}
	}
	cps := []model.Checkpoint{
		done(1, 300, 10), done(2, 100, 40), {ID: 3, Status: model.StatusFailed, TriggerMs: 3000},
		done(4, 300, 20), done(5, 900, 30), running(6, ""), running(7, model.KindSavepoint), done(8, 200, 50),
		running(11, ""),
	}
	// 6 has a completed checkpoint after it: Flink ended it. A savepoint
	// (7) is not ended so, nor is the newest (11); SeaTunnel ends none.
	for _, tc := range []struct {
		engine                  model.Engine
		inProgress, endedUnseen int
	}{{model.EngineFlink, 2, 1}, {model.EngineSeaTunnel, 3, 0}} {
		s := Summarize(tc.engine, cps, []model.Gap{{FromID: 9, ToID: 10}})
		// Durations sorted: 100 200 300 300 900; nearest rank ⌈q·5⌉.
		want := Summary{Total: 9, Completed: 5, Failed: 1, InProgress: tc.inProgress, EndedUnseen: tc.endedUnseen, Missed: 2,
			FirstMs: 1000, LastMs: 11000, DurationP50: 300, DurationP90: 900, DurationP99: 900, DurationMax: 900, SizeP50: 30, SizeMax: 50,
			Slowest: []int64{5, 1, 4, 8, 2}}
		if !slices.Equal(s.Slowest, want.Slowest) {
			t.Fatalf("%s: slowest %v, want %v", tc.engine, s.Slowest, want.Slowest)
		}
		s.Slowest, want.Slowest = nil, nil
		if !reflect.DeepEqual(s, want) {
			t.Fatalf("%s: summary\n got %+v\nwant %+v", tc.engine, s, want)
		}
	}
	if e := Summarize(model.EngineFlink, nil, nil); len(e.Slowest) != 0 || e.Slowest == nil || e.DurationMax != 0 {
		t.Fatalf("empty summary %+v: want zeros and an empty (not null) slowest", e)
	}
}

// slowestIDs keeps what a stable sort by duration (longest first), then id,
// would put first — ties and repeated ids (pipelines) included.
func TestSlowestIDsMatchesAStableSort(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for round := range 200 {
		n := r.IntN(40)
		done := make([]idDur, n)
		for i := range done {
			done[i] = idDur{id: r.Int64N(8), d: r.Int64N(5)}
		}
		ref := slices.Clone(done)
		sort.SliceStable(ref, func(i, j int) bool {
			if ref[i].d != ref[j].d {
				return ref[i].d > ref[j].d
			}
			return ref[i].id < ref[j].id
		})
		var want []int64
		for i := 0; i < len(ref) && i < 5; i++ {
			want = append(want, ref[i].id)
		}
		if got := slowestIDs(done, 5); !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
			t.Fatalf("round %d: %v → %v, want %v", round, done, got, want)
		}
	}
}
