package analyze

import (
	"math"
	"sort"

	"checkpoint-explorer/backend/model"
)

// Commit is the sink commit that followed a checkpoint, as its committer's
// metrics show it. They are sampled (every 10 s from Flink's REST), so a
// commit is known per sampling window: the first sample after the
// checkpoint completed in which the committed counters moved. Checkpoints
// is how many completed in that window; the counts are theirs together.
type Commit struct {
	AtMs int64 `json:"at_ms"`
	// DurationMs is the last commit's duration at AtMs (Iceberg's
	// lastCommitDurationMs).
	DurationMs *int64 `json:"duration_ms,omitempty"`
	// Files, Records and Committables were committed in the window.
	Files        *int64 `json:"files,omitempty"`
	Records      *int64 `json:"records,omitempty"`
	Committables *int64 `json:"committables,omitempty"`
	Checkpoints  int    `json:"checkpoints"`
}

// commitSample is the committer's state at one sampling time.
type commitSample struct {
	t                                 int64
	dur, files, records, committables float64 // NaN: not sampled
}

// commitSamples gathers the commit metrics by time (the largest value over
// vertices), oldest first.
func commitSamples(metrics []model.MetricSample) []commitSample {
	byT := map[int64]*commitSample{}
	for _, m := range metrics {
		var f *float64
		s := byT[m.TimeMs]
		switch m.Metric {
		case model.MetricCommitDurationMs, model.MetricCommittedFiles, model.MetricCommittedRecords, model.MetricCommittedCommittables:
			if s == nil {
				s = &commitSample{t: m.TimeMs, dur: math.NaN(), files: math.NaN(), records: math.NaN(), committables: math.NaN()}
				byT[m.TimeMs] = s
			}
		default:
			continue
		}
		switch m.Metric {
		case model.MetricCommitDurationMs:
			f = &s.dur
		case model.MetricCommittedFiles:
			f = &s.files
		case model.MetricCommittedRecords:
			f = &s.records
		default:
			f = &s.committables
		}
		if math.IsNaN(*f) || m.Value > *f {
			*f = m.Value
		}
	}
	out := make([]commitSample, 0, len(byT))
	for _, s := range byT {
		out = append(out, *s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].t < out[j].t })
	return out
}

// growth is how much a cumulative counter grew between two samples; nil
// when either lacks it or it went back (a restart counts from 0 again).
func growth(prev, cur float64) *int64 {
	if math.IsNaN(prev) || math.IsNaN(cur) || cur < prev {
		return nil
	}
	d := int64(math.Round(cur - prev))
	return &d
}

// commitIndex finds the sink commit that followed a checkpoint: the
// sampling windows in which the committed counters moved. A commit is
// shared by the checkpoints that completed in its window; count them all
// (count) before reading any (at), so each carries the window's total.
type commitIndex struct {
	ss      []commitSample
	commits []*Commit // commits[i]: the window (ss[i-1].t, ss[i].t]; nil when nothing moved
}

func newCommitIndex(metrics []model.MetricSample) *commitIndex {
	ss := commitSamples(metrics)
	ci := &commitIndex{ss: ss, commits: make([]*Commit, len(ss))}
	for i := 1; i < len(ss); i++ {
		p, c := ss[i-1], ss[i]
		cm := &Commit{AtMs: c.t, Files: growth(p.files, c.files), Records: growth(p.records, c.records),
			Committables: growth(p.committables, c.committables)}
		moved := false
		for _, d := range []*int64{cm.Files, cm.Records, cm.Committables} {
			moved = moved || d != nil && *d > 0
		}
		if !moved {
			continue
		}
		if !math.IsNaN(c.dur) {
			d := int64(math.Round(c.dur))
			cm.DurationMs = &d
		}
		ci.commits[i] = cm
	}
	return ci
}

// sampled reports whether the metrics hold a committer's samples at all.
func (ci *commitIndex) sampled() bool { return len(ci.ss) >= 2 }

// at is the commit in whose window a checkpoint that completed at endMs
// falls, or nil.
func (ci *commitIndex) at(endMs int64) *Commit {
	if !ci.sampled() {
		return nil
	}
	i := sort.Search(len(ci.ss), func(i int) bool { return ci.ss[i].t >= endMs })
	if i == 0 || i >= len(ci.ss) {
		return nil
	}
	return ci.commits[i]
}

// of is the commit that followed checkpoint c; nil unless c completed.
func (ci *commitIndex) of(c *model.Checkpoint) *Commit {
	if c.Status != model.StatusCompleted {
		return nil
	}
	return ci.at(c.EndMs())
}

// count adds a checkpoint that completed at endMs to its commit's window.
func (ci *commitIndex) count(endMs int64) {
	if cm := ci.at(endMs); cm != nil {
		cm.Checkpoints++
	}
}
