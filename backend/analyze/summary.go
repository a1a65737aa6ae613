package analyze

import (
	"math"
	"slices"

	"checkpoint-explorer/backend/model"
)

// Summary is plain statistics over a job's checkpoints.
type Summary struct {
	Total      int `json:"total"`
	Completed  int `json:"completed"`
	Failed     int `json:"failed"`
	InProgress int `json:"in_progress"`
	// EndedUnseen counts checkpoints stored in progress that have ended
	// unseen (CheckpointAnalysis.EndedUnseen); InProgress leaves them out.
	EndedUnseen int   `json:"ended_unseen"`
	Missed      int64 `json:"missed"`
	FirstMs     int64 `json:"first_ms"`
	LastMs      int64 `json:"last_ms"`
	DurationP50 int64 `json:"duration_p50_ms"`
	DurationP90 int64 `json:"duration_p90_ms"`
	DurationP99 int64 `json:"duration_p99_ms"`
	DurationMax int64 `json:"duration_max_ms"`
	// Slowest are the ids of the longest completed checkpoints, longest first.
	Slowest []int64 `json:"slowest"`
	// SizeP50 and SizeMax are checkpointed bytes of completed checkpoints.
	SizeP50 int64 `json:"size_p50_bytes"`
	SizeMax int64 `json:"size_max_bytes"`
}

// Summarize computes plain statistics of a job of engine e; gaps count as
// missed checkpoints.
func Summarize(e model.Engine, cps []model.Checkpoint, gaps []model.Gap) Summary {
	var s Summary
	var durs, sizes []int64
	var done []idDur
	var newest map[int]int64
	if EndsPendingOnCompletion(e) {
		newest = newestCompleted(cps)
	}
	for i := range cps {
		c := &cps[i]
		s.Total++
		switch c.Status {
		case model.StatusCompleted:
			s.Completed++
			durs = append(durs, c.EndToEndMs)
			sizes = append(sizes, c.CheckpointedSize)
			done = append(done, idDur{c.ID, c.EndToEndMs})
		case model.StatusFailed:
			s.Failed++
		default:
			if endedUnseen(e, c.Status, c.Kind, c.Pipeline, c.ID, newest) {
				s.EndedUnseen++
			} else {
				s.InProgress++
			}
		}
		if s.FirstMs == 0 || c.TriggerMs < s.FirstMs {
			s.FirstMs = c.TriggerMs
		}
		s.LastMs = max(s.LastMs, c.TriggerMs)
	}
	for _, g := range gaps {
		s.Missed += g.Count()
	}
	// Each list is sorted once: over a day at 1 s, sorting a copy per
	// quantile was a tenth of a report's time after its scan.
	slices.Sort(durs)
	slices.Sort(sizes)
	s.DurationP50 = quantileSorted(durs, 0.5)
	s.DurationP90 = quantileSorted(durs, 0.9)
	s.DurationP99 = quantileSorted(durs, 0.99)
	s.DurationMax = quantileSorted(durs, 1)
	s.SizeP50 = quantileSorted(sizes, 0.5)
	s.SizeMax = quantileSorted(sizes, 1)
	s.Slowest = slowestIDs(done, 5)
	return s
}

// slowestIDs are the ids of the n longest checkpoints, longest first, the
// lower id first among equal durations and the earlier among equal ids.
func slowestIDs(done []idDur, n int) []int64 {
	top := make([]idDur, 0, n+1)
	for _, c := range done {
		i := len(top)
		for i > 0 && (c.d > top[i-1].d || c.d == top[i-1].d && c.id < top[i-1].id) {
			i--
		}
		if i < n {
			top = slices.Insert(top, i, c)
			top = top[:min(len(top), n)]
		}
	}
	ids := make([]int64, len(top))
	for i, c := range top {
		ids[i] = c.id
	}
	return ids
}

type idDur struct{ id, d int64 }

// Quantile is the nearest-rank quantile q (0..1) of vs; 0 for no values.
// It sorts a copy, leaving vs as it was.
func Quantile(vs []int64, q float64) int64 {
	if len(vs) == 0 {
		return 0
	}
	return quantileSorted(slices.Sorted(slices.Values(vs)), q)
}

// quantileSorted is Quantile of values already sorted.
func quantileSorted(s []int64, q float64) int64 {
	if len(s) == 0 {
		return 0
	}
	return s[nearestRank(len(s), q)]
}

// nearestRank is the index of the nearest-rank quantile q of n sorted values.
func nearestRank(n int, q float64) int {
	return max(0, min(int(math.Ceil(q*float64(n)))-1, n-1))
}
