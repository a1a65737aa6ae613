package collect

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"checkpoint-explorer/backend/model"
)

// recentlyEnded is how long after its end a finished job is still polled once.
const recentlyEnded = time.Hour

// jobPoller follows one job's checkpoints.
type jobPoller struct {
	c   *clusterPoller
	src Source
	// job holds the graph once fetched.
	job       model.Job
	haveGraph bool

	mu    sync.Mutex
	state string

	// final holds, per pipeline, the ids stored in their final state: never fetched again.
	final map[int]map[int64]bool
	// maxID is, per pipeline, the highest id accounted for (stored or gapped); -1 = none yet.
	maxID map[int]int64
	// deferred holds, per pipeline, the final checkpoints stored as
	// summaries whose details a later poll fetches (tick ran out of time for
	// them), by id.
	deferred map[int]map[int64]model.Checkpoint

	lastMetrics  time.Time
	metricsSince int64

	// exited is set when run returns.
	exited atomic.Bool
}

func newJobPoller(c *clusterPoller, j model.Job) *jobPoller {
	j.Cluster = c.target.Name
	return &jobPoller{
		c: c, src: c.target.Source, job: j, state: j.State,
		final: map[int]map[int64]bool{}, maxID: map[int]int64{},
	}
}

func (j *jobPoller) setState(s string) {
	j.mu.Lock()
	j.state = s
	j.mu.Unlock()
}

func (j *jobPoller) currentState() string {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.state
}

func (j *jobPoller) log() []any {
	return []any{"cluster", j.c.target.Name, "job", j.job.ID}
}

func (j *jobPoller) run() {
	defer j.exited.Store(true)
	ctx := j.c.ctx
	opts := j.c.opts
	if terminalState(j.job.State) && j.job.EndMs > 0 && opts.Now().Sub(time.UnixMilli(j.job.EndMs)) > recentlyEnded {
		return // ended long ago: nothing new will come
	}
	bo := backoff{max: opts.MaxBackoff}
	for attempt := 1; ; attempt++ {
		began := opts.Now()
		wait, err := j.tick(ctx)
		if ctx.Err() != nil {
			return
		}
		if errors.Is(err, ErrJobGone) {
			// Not the cluster's fault: stop, and start afresh if the job comes back.
			opts.Logger.Info("job no longer on the cluster; stopped polling", append(j.log(), "err", err)...)
			j.c.forget(j.job.ID)
			return
		}
		j.c.report(err)
		if err != nil {
			opts.Logger.Warn("poll failed", append(j.log(), "err", err)...)
			if terminalState(j.currentState()) && attempt >= 3 {
				return // an ended job is not worth retrying for ever
			}
			wait = bo.next()
		} else {
			bo.reset()
			if terminalState(j.currentState()) {
				opts.Logger.Info("job ended; stopped polling", append(j.log(), "state", j.currentState())...)
				return
			}
			// The interval runs from the start of a poll: fetching details takes time too.
			wait = max(wait-opts.Now().Sub(began), opts.MinPoll)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
	}
}

// tick polls once and returns how long to wait before the next poll.
func (j *jobPoller) tick(ctx context.Context) (time.Duration, error) {
	opts := j.c.opts
	sink := opts.Sink
	began := opts.Now()
	if !j.haveGraph || j.job.State != j.currentState() {
		g, err := j.src.Job(ctx, j.job.ID)
		if err != nil {
			return 0, fmt.Errorf("job %s: %w", j.job.ID, err)
		}
		g.Cluster = j.c.target.Name
		if err := sink.PutJob(ctx, g); err != nil {
			return 0, fmt.Errorf("store job %s: %w", j.job.ID, err)
		}
		j.job, j.haveGraph = g, true
		j.setState(g.State)
	}
	h, err := j.src.History(ctx, &j.job)
	if err != nil {
		return 0, fmt.Errorf("checkpoints of %s: %w", j.job.ID, err)
	}
	traits := j.src.Traits()
	capacity := h.Capacity
	if capacity <= 0 {
		capacity = traits.DefaultCapacity
	}
	if capacity <= 0 {
		capacity = 10
	}

	byPipe := map[int][]model.Checkpoint{}
	for _, cp := range h.Checkpoints {
		cp.Cluster, cp.JobID = j.c.target.Name, j.job.ID
		byPipe[cp.Pipeline] = append(byPipe[cp.Pipeline], cp)
	}
	pipes := make([]int, 0, len(byPipe))
	for p := range byPipe {
		pipes = append(pipes, p)
	}
	sort.Ints(pipes)

	// Details are fetched until the next poll is due; the checkpoints left
	// are stored as summaries and get their details in a later poll (oldest
	// first). When the request budget cannot keep up, this keeps the list
	// polls on time, so that no checkpoint leaves the engine's history
	// unseen: a checkpoint may lose its details, never its row.
	detailsUntil := began.Add(j.nextInterval(h, capacity, 0, traits))
	fetched, deferred, missed := 0, 0, 0

	var (
		toStore   []model.Checkpoint
		gaps      []model.Gap
		newFinal  = map[int][]int64{}
		newMax    = map[int]int64{}
		fresh     int // ids never accounted for before this tick
		detailErr error
	)
	nowMs := opts.Now().UnixMilli()
	for _, p := range pipes {
		cps := byPipe[p]
		sort.Slice(cps, func(a, b int) bool { return cps[a].ID < cps[b].ID })
		prev, ok := j.maxID[p]
		if !ok {
			latest, found, err := sink.LatestCheckpointID(ctx, j.c.target.Name, j.job.ID, p)
			if err != nil {
				return 0, fmt.Errorf("read cache: %w", err)
			}
			prev = -1
			if found {
				prev = latest
				// Summaries stored before the app last stopped, still waiting
				// for details the engine no longer lists, will not get them.
				if traits.DetailRequests {
					n, err := sink.MarkDetailsMissed(ctx, j.c.target.Name, j.job.ID, p, cps[0].ID)
					if err != nil {
						return 0, fmt.Errorf("mark missed details: %w", err)
					}
					if n > 0 {
						opts.Logger.Info("details missed: checkpoints stored as summaries before the app stopped left the engine's history",
							append(j.log(), "pipeline", p, "missed", n)...)
					}
				}
			}
			j.maxID[p] = prev
			if j.final[p] == nil {
				j.final[p] = map[int64]bool{}
			}
		}
		top := cps[len(cps)-1].ID
		if prev >= 0 && top < prev-int64(2*capacity) {
			// Ids went back far: a new checkpoint sequence (e.g. a job restarted from scratch).
			opts.Logger.Info("checkpoint ids restarted", append(j.log(), "pipeline", p, "was", prev, "now", top)...)
			prev = -1
			j.final[p] = map[int64]bool{}
			delete(j.deferred, p)
		}
		// Deferred checkpoints the history no longer lists lost their details
		// for good: their summaries are stored again, marked so.
		for id, sc := range j.deferred[p] {
			if id < cps[0].ID {
				sc.DetailLoss = model.DetailMissed
				toStore = append(toStore, sc)
				newFinal[p] = append(newFinal[p], id)
				delete(j.deferred[p], id)
				missed++
			}
		}
		// Ids after the last one accounted for that the history no longer holds were missed.
		if prev >= 0 {
			expected := prev + 1
			for _, cp := range cps {
				if cp.ID <= prev {
					continue
				}
				if cp.ID > expected {
					gaps = append(gaps, model.Gap{
						Cluster: j.c.target.Name, JobID: j.job.ID, Pipeline: p,
						FromID: expected, ToID: cp.ID - 1, DetectedMs: nowMs,
						Reason: fmt.Sprintf("evicted from the engine's history (%d deep) before a poll saw them", capacity),
					})
				}
				expected = cp.ID + 1
			}
		}
		for _, cp := range cps {
			if cp.ID > prev {
				fresh++
			}
			if j.final[p][cp.ID] {
				continue
			}
			if !cp.Status.Final() || detailErr != nil {
				if !cp.Status.Final() {
					toStore = append(toStore, cp)
				}
				continue
			}
			if traits.DetailRequests && fetched > 0 && opts.Now().After(detailsUntil) {
				if _, stored := j.deferred[p][cp.ID]; !stored {
					toStore = append(toStore, cp) // its summary, until the details come
				}
				j.deferDetails(p, cp)
				deferred++
				continue
			}
			fetched++
			full, err := j.src.Detail(ctx, &j.job, cp)
			switch {
			case errors.Is(err, ErrGone):
				// Keep the summary: better than nothing, and say so in the log.
				opts.Logger.Info("details evicted before fetch; stored the summary", append(j.log(), "checkpoint", cp.ID)...)
				full = cp
				full.DetailLoss = model.DetailMissed
			case err != nil:
				detailErr = fmt.Errorf("checkpoint %d details: %w", cp.ID, err)
				continue
			}
			full.Cluster, full.JobID, full.Pipeline = j.c.target.Name, j.job.ID, p
			toStore = append(toStore, full)
			newFinal[p] = append(newFinal[p], cp.ID)
			delete(j.deferred[p], cp.ID)
		}
		newMax[p] = max(prev, top)
	}

	if len(toStore) > 0 {
		if err := sink.PutCheckpoints(ctx, toStore); err != nil {
			return 0, fmt.Errorf("store checkpoints: %w", err)
		}
	}
	// Deferring is routine while the budget is the limit; losing details is
	// worth a line in the log the UI shows.
	switch {
	case missed > 0:
		opts.Logger.Info("details missed: checkpoints left the engine's history before their details were fetched (request budget or a slow engine)",
			append(j.log(), "missed", missed, "fetched", fetched, "deferred", deferred)...)
	case deferred > 0:
		opts.Logger.Debug("details deferred to the next poll to keep polls on time",
			append(j.log(), "fetched", fetched, "deferred", deferred)...)
	}
	if len(gaps) > 0 {
		if err := sink.PutGaps(ctx, gaps); err != nil {
			return 0, fmt.Errorf("store gaps: %w", err)
		}
		for _, g := range gaps {
			opts.Logger.Warn("checkpoints missed", append(j.log(), "pipeline", g.Pipeline, "from", g.FromID, "to", g.ToID)...)
		}
	}
	// Only now is it safe to never look at them again.
	for p, ids := range newFinal {
		for _, id := range ids {
			j.final[p][id] = true
		}
	}
	if detailErr == nil {
		for p, m := range newMax {
			j.maxID[p] = m
		}
	}
	for p := range j.final {
		j.forgetBelow(p, j.maxID[p]-int64(4*capacity))
	}
	for p, cps := range j.deferred {
		// A pipeline the engine stopped listing: nothing will ask for them again.
		for id := range cps {
			if id < j.maxID[p]-int64(4*capacity) {
				delete(cps, id)
			}
		}
	}
	if len(h.InFlight) > 0 {
		acks := make([]model.AckSample, 0, len(h.InFlight))
		for _, s := range h.InFlight {
			s.Cluster, s.JobID = j.c.target.Name, j.job.ID
			if s.TimeMs == 0 {
				s.TimeMs = nowMs
			}
			acks = append(acks, s)
		}
		if err := sink.PutAckSamples(ctx, acks); err != nil {
			return 0, fmt.Errorf("store ack samples: %w", err)
		}
	}
	if len(toStore) > 0 || len(gaps) > 0 {
		opts.OnStored(j.c.target.Name, j.job.ID)
	}
	metricsErr := j.sampleMetrics(ctx, traits)
	if detailErr != nil {
		return 0, detailErr
	}
	return j.nextInterval(h, capacity, fresh, traits), metricsErr
}

// deferDetails remembers that checkpoint cp of pipeline p was stored as a
// summary and still waits for its details.
func (j *jobPoller) deferDetails(p int, cp model.Checkpoint) {
	if j.deferred == nil {
		j.deferred = map[int]map[int64]model.Checkpoint{}
	}
	if j.deferred[p] == nil {
		j.deferred[p] = map[int64]model.Checkpoint{}
	}
	j.deferred[p][cp.ID] = cp
}

// forgetBelow drops remembered final ids far below the newest: the engine no
// longer lists them, so the set stays bounded.
func (j *jobPoller) forgetBelow(p int, floor int64) {
	for id := range j.final[p] {
		if id < floor {
			delete(j.final[p], id)
		}
	}
}

func (j *jobPoller) sampleMetrics(ctx context.Context, traits Traits) error {
	now := j.c.opts.Now()
	// An ended job has no live backpressure to sample.
	if traits.MetricsEvery <= 0 || now.Sub(j.lastMetrics) < traits.MetricsEvery || terminalState(j.currentState()) {
		return nil
	}
	j.lastMetrics = now
	samples, err := j.src.Metrics(ctx, &j.job, j.metricsSince)
	if err != nil {
		return fmt.Errorf("metrics of %s: %w", j.job.ID, err)
	}
	if len(samples) == 0 {
		return nil
	}
	for i := range samples {
		samples[i].Cluster, samples[i].JobID = j.c.target.Name, j.job.ID
		j.metricsSince = max(j.metricsSince, samples[i].TimeMs)
	}
	if err := j.c.opts.Sink.PutMetricSamples(ctx, samples); err != nil {
		return fmt.Errorf("store metrics: %w", err)
	}
	return nil
}

// nextInterval polls often enough that the engine's bounded history cannot
// roll over between two polls: a third of the time it takes to fill it.
func (j *jobPoller) nextInterval(h model.History, capacity, fresh int, traits Traits) time.Duration {
	opts := j.c.opts
	d := opts.MaxPoll
	if h.IntervalMs > 0 {
		d = time.Duration(h.IntervalMs) * time.Millisecond * time.Duration(capacity) / 3
	}
	if fresh >= capacity/2 {
		// The history filled faster than planned (short checkpoints, manual triggers).
		d /= 2
	}
	if traits.SampleInFlight && len(h.InFlight) > 0 {
		d = min(d, time.Second)
	}
	return max(opts.MinPoll, min(d, opts.MaxPoll))
}
