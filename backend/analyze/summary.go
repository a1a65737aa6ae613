package analyze

import (
	"math"
	"sort"

	"checkpoint-explorer/backend/model"
)

// Summary is plain statistics over a job's checkpoints.
type Summary struct {
	Total       int   `json:"total"`
	Completed   int   `json:"completed"`
	Failed      int   `json:"failed"`
	InProgress  int   `json:"in_progress"`
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

// Summarize computes plain statistics; gaps count as missed checkpoints.
func Summarize(cps []model.Checkpoint, gaps []model.Gap) Summary {
	var s Summary
	var durs, sizes []int64
	type idDur struct{ id, d int64 }
	var done []idDur
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
			s.InProgress++
		}
		if s.FirstMs == 0 || c.TriggerMs < s.FirstMs {
			s.FirstMs = c.TriggerMs
		}
		s.LastMs = max(s.LastMs, c.TriggerMs)
	}
	for _, g := range gaps {
		s.Missed += g.Count()
	}
	s.DurationP50 = Quantile(durs, 0.5)
	s.DurationP90 = Quantile(durs, 0.9)
	s.DurationP99 = Quantile(durs, 0.99)
	s.DurationMax = Quantile(durs, 1)
	s.SizeP50 = Quantile(sizes, 0.5)
	s.SizeMax = Quantile(sizes, 1)
	sort.SliceStable(done, func(i, j int) bool {
		if done[i].d != done[j].d {
			return done[i].d > done[j].d
		}
		return done[i].id < done[j].id
	})
	s.Slowest = []int64{}
	for i := 0; i < len(done) && i < 5; i++ {
		s.Slowest = append(s.Slowest, done[i].id)
	}
	return s
}

// Quantile is the nearest-rank quantile q (0..1) of vs; 0 for no values.
// It sorts a copy, leaving vs as it was.
func Quantile(vs []int64, q float64) int64 {
	if len(vs) == 0 {
		return 0
	}
	s := append([]int64(nil), vs...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	rank := int(math.Ceil(q*float64(len(s)))) - 1
	rank = max(0, min(rank, len(s)-1))
	return s[rank]
}
