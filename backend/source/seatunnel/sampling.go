package seatunnel

import (
	"encoding/binary"
	"hash/fnv"
	"slices"
	"time"
)

// What the source remembers of each job between calls: the last checkpoint overview it gave
// (ack samples are keyed by the engine's updatedAt) and how often the engine refreshes it, the
// checkpoints in flight and how long they usually take, and the sampling of /job-info's
// metrics block.
type jobState struct {
	overview   overviewSeen
	flights    flights
	info       infoSampler
	realtimeAt time.Time // when realtime windows were last asked for
	// restores is the pipeline restores the engine has counted for the job, summed over its
	// pipelines, as of the last overview that listed them.
	restores int64
}

// restores sums the pipelines' restore counters.
func restores(o CheckpointOverview) int64 {
	var n int64
	for _, p := range o.Pipelines {
		n += p.Counts.Restored
	}
	return n
}

// An engine that snapshots its overview on a period of its own restamps it with nothing else
// changed, again and again while a checkpoint waits; 2.3.13 stamps it on every trigger,
// acknowledgement, completion, failure and restore (CheckpointMonitorService), and only now and
// then with no visible change (an acknowledgement that leaves the count as it was). So the
// source says the engine refreshes on a period only after minRestamps such answers, when they
// are most of the latest recentStamps new stamps.
const (
	minRestamps  = 3
	recentStamps = 8
)

// overviewSeen is the last checkpoint overview the source gave for a job.
type overviewSeen struct {
	updatedMs int64
	content   uint64
	// at is when the latest poll that returned updatedMs started.
	at time.Time
	// refresh is the largest lower bound of the refresh period the restamps gave; minDelta the
	// smallest distance between two successive stamps (a period's engine never restamps
	// sooner). recent says, for the latest new stamps, which came with nothing changed;
	// periodic is set once they showed a period (and stays: a busy job changes every snapshot).
	refresh, minDelta time.Duration
	recent            []bool
	restamps          int
	periodic          bool
}

// observe records an answer polled from start to end and reports whether it is new for the
// job: only then are its ack samples new. An answer is the one given before when its updatedAt
// and content are; two changes within the engine's millisecond share a stamp, and the later
// one's samples (same time, newer counts) replace the earlier's in the store.
func (o *overviewSeen) observe(updatedMs int64, content uint64, start, end time.Time) bool {
	switch {
	case updatedMs <= 0:
		return true // nothing to key on: every answer counts
	case updatedMs == o.updatedMs && content == o.content:
		o.at = start
		return false
	case updatedMs > o.updatedMs && o.updatedMs > 0:
		d := time.Duration(updatedMs-o.updatedMs) * time.Millisecond
		if o.minDelta == 0 || d < o.minDelta {
			o.minDelta = d
		}
		restamp := content == o.content
		if restamp {
			// The first refresh after the old stamp came after the last poll that saw the old
			// one, so the period exceeds the stamps' distance less the polls' (the clocks'
			// offset cancels).
			o.refresh = max(o.refresh, d-end.Sub(o.at))
			o.restamps++
		}
		o.recent = append(o.recent, restamp)
		if len(o.recent) > recentStamps {
			o.recent = o.recent[1:]
		}
		o.periodic = o.periodic || o.restamps >= minRestamps && 2*count(o.recent) > len(o.recent)
	}
	o.updatedMs, o.content, o.at = updatedMs, content, start
	return true
}

// refreshMs is the engine's refresh period for History.RefreshMs: 0 unless it refreshes on a
// period of its own (see minRestamps), and never more than its stamps were seen apart.
func (o *overviewSeen) refreshMs() int64 {
	if !o.periodic {
		return 0
	}
	return min(o.refresh, o.minDelta).Milliseconds()
}

func count(bs []bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}

// overviewContent hashes what an overview says, its stamp aside: every change the engine
// stamps (a trigger, an acknowledgement, an end, a restore) moves a counter, an in-flight
// entry's progress or the newest entry of a ring.
func overviewContent(o CheckpointOverview) uint64 {
	h := fnv.New64a()
	var buf [8]byte
	put := func(vs ...int64) {
		for _, v := range vs {
			binary.LittleEndian.PutUint64(buf[:], uint64(v))
			_, _ = h.Write(buf[:])
		}
	}
	id := func(c *CheckpointInfo) int64 {
		if c == nil {
			return -1
		}
		return c.ID
	}
	for _, p := range o.Pipelines {
		c := p.Counts
		put(int64(p.Pipeline), c.Triggered, c.Completed, c.Failed, c.InProgress, c.Restored,
			id(p.LatestCompleted), id(p.LatestFailed), id(p.LatestSavepoint), int64(len(p.History)), int64(len(p.InProgress)))
		if len(p.History) > 0 {
			put(p.History[0].ID, p.History[0].TriggerMs)
			_, _ = h.Write([]byte(p.History[0].Status))
		}
		for _, ip := range p.InProgress {
			put(ip.ID, ip.TriggerMs, int64(ip.Acknowledged), int64(ip.Total))
		}
	}
	return h.Sum64()
}

// longAfter is how long a checkpoint must have been in flight before it runs long, whatever
// the job's usual duration.
const longAfter = 2 * time.Second

type flightKey struct {
	pipeline int
	id       int64
}

// flights follows a job's checkpoints in flight: when the source first saw each (its own
// clock, so no skew against the engine's), and how long the job's checkpoints usually take.
type flights struct {
	since map[flightKey]time.Time
	// sampled marks the flights a /job-info sample was taken during: the queue ahead of a
	// barrier when it was triggered is what decides how long it waits, so each checkpoint gets
	// a sample as soon as it is seen in flight.
	sampled map[flightKey]bool
	// usual is the median end-to-end time of the completed checkpoints the engine lists.
	usual time.Duration
}

func (f *flights) observe(o CheckpointOverview, now time.Time) {
	seen := map[flightKey]time.Time{}
	var done []int64
	for _, p := range o.Pipelines {
		for _, ip := range p.InProgress {
			k := flightKey{ip.Pipeline, ip.ID}
			seen[k] = now
			if t, ok := f.since[k]; ok {
				seen[k] = t
			}
		}
		for _, h := range p.History {
			if h.Status == "COMPLETED" && h.DurationMs != nil {
				done = append(done, *h.DurationMs)
			}
		}
	}
	f.since = seen
	for k := range f.sampled {
		if _, ok := seen[k]; !ok {
			delete(f.sampled, k)
		}
	}
	if len(done) > 0 {
		slices.Sort(done)
		f.usual = time.Duration(done[len(done)/2]) * time.Millisecond
	}
}

// unsampled reports whether a checkpoint in flight has had no sample yet.
func (f *flights) unsampled() bool {
	for k := range f.since {
		if !f.sampled[k] {
			return true
		}
	}
	return false
}

// markSampled notes a sample taken during every checkpoint now in flight.
func (f *flights) markSampled() {
	if f.sampled == nil {
		f.sampled = map[flightKey]bool{}
	}
	for k := range f.since {
		f.sampled[k] = true
	}
}

// long reports whether a checkpoint has been in flight longer than usual, and at least
// longAfter.
func (f *flights) long(now time.Time) bool {
	limit := max(f.usual, longAfter)
	for _, t := range f.since {
		if now.Sub(t) >= limit {
			return true
		}
	}
	return false
}

// infoSampler samples a job's /job-info metrics block. 2.3.13 computes it when asked (the
// master gathers the task groups' counters), so each answer is a snapshot of its request's
// time; an answer like the last (an engine serving a stored snapshot) is not sampled again.
type infoSampler struct {
	asked time.Time // start of the last request
	snap  *JobMetrics
	fp    string
	stamp time.Time // when snap was taken
	// After a pipeline restore the engine adds the ended attempt's last values to the new
	// one's, which is right for its counters but not for the queue size and what the commit lag
	// is made of. restores is the engine's restore count the baselines were started for; base
	// holds, per corrected value, the smallest seen since (nil before any restore): the new
	// attempt starts with empty queues and nothing uncommitted.
	restores int64
	base     map[string]float64
	// err is the last request's failure, nil after one that worked; worked is set by the first.
	err    error
	worked bool
}

// due reports whether a request every `every` is due now.
func (p *infoSampler) due(now time.Time, every time.Duration) bool {
	return p.asked.IsZero() || now.Sub(p.asked) >= every
}

// update takes the answer of a request made from start to end. fresh is false when it is the
// snapshot already taken; else prev is the snapshot before (nil for the first) and gap how far
// apart the two were taken.
func (p *infoSampler) update(m *JobMetrics, start, end time.Time) (prev *JobMetrics, gap time.Duration, fresh bool) {
	p.err, p.worked = nil, true
	fp := m.fingerprint()
	if p.snap != nil && fp == p.fp {
		return nil, 0, false
	}
	stamp := start.Add(end.Sub(start) / 2)
	if p.snap != nil {
		prev, gap = p.snap, stamp.Sub(p.stamp)
	}
	p.snap, p.fp, p.stamp = m, fp, stamp
	return prev, gap, true
}

// restored starts new baselines when the engine's restore count (over all pipelines) grew; a
// count that went back (a new master counts from 0) is only taken note of.
func (p *infoSampler) restored(n int64) {
	if n > p.restores {
		p.base = map[string]float64{}
	}
	p.restores = n
}

// adjust takes out of a value what ended attempts left in it: its smallest since the last
// restore (so the value is 0 when first seen after one; an underestimate while the new
// attempt's own part has not been 0 since).
func (p *infoSampler) adjust(key string, v float64) float64 {
	if p.base == nil {
		return v
	}
	b, ok := p.base[key]
	if !ok || v < b {
		p.base[key], b = v, v
	}
	return v - b
}
