package collect

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
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
	// recon is the latest reconciliation (for health and the sink).
	recon model.Reconciliation

	// final holds, per pipeline, the ids stored in their final state: never fetched again.
	final map[int]map[int64]bool
	// maxID is, per pipeline, the highest id accounted for (stored or gapped); -1 = none yet.
	maxID map[int]int64
	// listed is, per pipeline, whether a list of this run has shown its checkpoints.
	listed map[int]bool
	// deferred holds, per pipeline, the final checkpoints stored as
	// summaries (or with part of their details) whose details a later poll
	// fetches: the tick ran out of time for them, or their requests failed.
	deferred map[int]map[int64]model.Checkpoint
	// accounts keeps, per pipeline, what this run accounted for.
	accounts map[int]*account
	// forgotMs is when the engine was first seen answering with no
	// checkpoint history for a job this run had stored checkpoints of (a
	// SeaTunnel job stopped without a savepoint drops it at once); 0 before.
	forgotMs int64
	// window is the engine's history span (capacity × interval), 0 if unknown:
	// retries and timeouts stay well inside it.
	window             time.Duration
	polls, failedPolls int64
	lastMetrics        time.Time
	metricsSince       int64
	// endedAt is when the poller first saw the job ended; endPolls counts
	// the polls since (a stale list may still lack its last checkpoints).
	endedAt  time.Time
	endPolls int
	// durations are the end-to-end times of the latest completed checkpoints;
	// gotMetrics is set once the engine answered with values, emptyMetrics
	// counts its empty answers before that.
	durations    []int64
	gotMetrics   bool
	emptyMetrics int

	// logState is the engine log reader's latest state (nil: no reader);
	// forceLog asks the next poll to read the log now (the final poll).
	logState *model.LogState
	// polledOnce: Options.OnFirstPoll was called.
	polledOnce bool
	forceLog   bool
	// logRead carries a log read started in the background (a log of up to
	// 16 MiB must not hold the poll up); logBusy is set while one runs.
	logRead chan logResult
	logBusy bool
	// triggerFailures are this run's triggers that failed before their
	// checkpoint got an id, as the engine's log last told (failuresRead:
	// it has told, at least once).
	triggerFailures []model.TriggerFailure
	failuresRead    bool

	// diskFull is set while the cache's disk is full (the last poll's
	// writes failed with model.ErrDiskFull): polls go on, to store what the
	// engine still lists once there is room, but fetch no details meanwhile.
	diskFull bool

	// cfgAt is when the job's configuration was last read (zero: not yet),
	// cfgStart the job's start time then; cfgRetryAt holds a re-read back
	// after a failure, cfgFailed says the failure was logged.
	cfgAt      time.Time
	cfgStart   int64
	cfgRetryAt time.Time
	cfgFailed  bool

	// exited is set when run returns.
	exited atomic.Bool
	// startMs is the followed run's start; replaced is set when a new run
	// took the job id (its own poller follows it).
	startMs  atomic.Int64
	replaced atomic.Bool
	// prevRun is the stored record of an earlier run of the job id, until
	// the first list tells whether this run continues it (ids go on, a
	// restore) or starts again (then it is kept apart).
	prevRun *model.Job
}

// account is one pipeline's reconciliation: every id from first to latest
// is stored or a gap; the engine's counters are followed across polls.
type account struct {
	first, latest int64 // -1: nothing accounted for yet
	stored, gaps  int64
	// counted follows the engine's trigger counter over the span; -1 unknown.
	counted, lastTriggered int64
	counts                 *model.EngineCounts
	// sinceMs is when the counter started to be followed: the job's start
	// when the span starts at its first id, else the first counted poll.
	// The trigger failures the engine's log gives from then on are the
	// counted ones.
	sinceMs int64
	// fromLog and earlier count ids stored from the engine's log: inside
	// the span (gaps filled) and before it.
	fromLog, earlier int64
}

func newJobPoller(c *clusterPoller, j model.Job) *jobPoller {
	j.Cluster = c.target.Name
	jp := &jobPoller{
		c: c, src: c.target.Source, job: j, state: j.State,
		final: map[int]map[int64]bool{}, maxID: map[int]int64{}, listed: map[int]bool{}, accounts: map[int]*account{},
	}
	jp.startMs.Store(j.StartMs)
	return jp
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

func (j *jobPoller) reconciliation() model.Reconciliation {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.recon
}

func (j *jobPoller) log() []any {
	return []any{"cluster", j.c.target.Name, "job", j.job.ID}
}

// reporterKey names the job in the cluster's health.
func (j *jobPoller) reporterKey() string { return "job " + j.job.ID }

func (j *jobPoller) run() {
	defer j.exited.Store(true)
	defer j.c.drop(j.reporterKey())
	ctx := j.c.ctx
	opts := j.c.opts
	if model.JobEnded(j.job.State) && j.job.EndMs > 0 && opts.Now().Sub(time.UnixMilli(j.job.EndMs)) > recentlyEnded {
		return // ended long ago: nothing new will come
	}
	var retry retryWait
	for attempt := 1; ; attempt++ {
		if j.replaced.Load() {
			opts.Logger.Info("a new run took the job id; its own poller follows it", j.log()...)
			return
		}
		began := opts.Now()
		wait, err := j.tick(ctx, time.Time{})
		if ctx.Err() != nil {
			j.finalPoll(ctx)
			return
		}
		if errors.Is(err, ErrJobGone) {
			// Not the cluster's fault: stop, and start afresh if the job comes back.
			opts.Logger.Info("job no longer on the cluster; stopped polling", append(j.log(), "err", err)...)
			j.c.forget(j.job.ID)
			return
		}
		var partial *PartialError
		switch {
		case errors.Is(err, model.ErrDiskFull):
			// Collection pauses, polling does not: the first poll that finds
			// room stores what the engine still lists, and the ids it forgot
			// meanwhile become gaps. An ended job is not given up on for it.
			if !j.diskFull {
				opts.Logger.Warn("the cache's disk is full: storing paused; polling goes on and storing resumes once there is room",
					append(j.log(), "err", err)...)
			}
			j.diskFull = true
			j.c.report(j.reporterKey(), &diskFullError{err})
			attempt = 0
			wait = retry.next(j.retryCap(), opts.MaxBackoff)
		case errors.As(err, &partial):
			// The list poll worked: keep the pace, say what failed.
			j.firstPolled()
			j.c.report(j.reporterKey(), err)
			opts.Logger.Warn("poll incomplete", append(j.log(), "err", err)...)
			j.roomAgain()
			retry.reset()
			attempt = 0
			wait = max(wait-opts.Now().Sub(began), opts.MinPoll)
		case err != nil:
			j.c.report(j.reporterKey(), err)
			opts.Logger.Warn("poll failed", append(j.log(), "err", err)...)
			if model.JobEnded(j.currentState()) && attempt >= 3 {
				return // an ended job is not worth retrying for ever
			}
			wait = retry.next(j.retryCap(), opts.MaxBackoff)
		default:
			j.firstPolled()
			j.c.report(j.reporterKey(), nil)
			j.roomAgain()
			retry.reset()
			attempt = 0
			if model.JobEnded(j.currentState()) && j.settled() {
				opts.Logger.Info("job ended; stopped polling", append(j.log(), "state", j.currentState())...)
				return
			}
			// The interval runs from the start of a poll: fetching details takes time too.
			wait = max(wait-opts.Now().Sub(began), opts.MinPoll)
		}
		select {
		case <-ctx.Done():
			j.finalPoll(ctx)
			return
		case <-time.After(wait):
		}
	}
}

// roomAgain ends a pause for a full disk after a poll whose writes went through.
func (j *jobPoller) roomAgain() {
	if j.diskFull {
		j.diskFull = false
		j.c.opts.Logger.Info("the cache has room again: storing resumed", j.log()...)
	}
}

// diskFullError is a poll that failed for want of room in the cache, as the
// cluster's health shows it.
type diskFullError struct{ err error }

func (e *diskFullError) Error() string {
	return "the cache's disk is full: storing is paused and the cluster is still polled; it resumes by itself once there is room " +
		"(free space on that disk, or lower the cache's size limit); checkpoints the engine forgets meanwhile become gaps — " + e.err.Error()
}
func (e *diskFullError) Unwrap() error { return e.err }

// maxEndPolls bounds the polls of a job after it ended, waiting for its
// last checkpoints and details.
const maxEndPolls = 5

// settled reports whether an ended job has nothing more to give: its end is
// older than the engine's list cache and no details are still due. After
// maxEndPolls it gives up, storing what waits as missed.
func (j *jobPoller) settled() bool {
	now := j.c.opts.Now()
	if j.endedAt.IsZero() {
		j.endedAt = now
		if end := time.UnixMilli(j.job.EndMs); j.job.EndMs > 0 && end.Before(now) {
			j.endedAt = end
		}
	}
	j.endPolls++
	if now.Sub(j.endedAt) > j.src.Traits().ListStaleness && j.waiting() == 0 {
		return true
	}
	if j.endPolls < maxEndPolls {
		return false
	}
	j.storeLeft(j.c.ctx, "details missed: the job ended and they could not be fetched")
	return true
}

// finalPoll, when the collector stops with Options.FinalPoll set (the end of
// a capture), polls once more and fetches the details still due within
// FinalPoll; what it could not fetch is stored as missed. It first waits out
// the engine's list cache, which may not show the last checkpoints yet.
func (j *jobPoller) finalPoll(parent context.Context) {
	opts := j.c.opts
	if opts.FinalPoll <= 0 || !j.haveGraph {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(parent), opts.FinalPoll)
	defer cancel()
	deadline, _ := ctx.Deadline()
	if wait := min(j.src.Traits().ListStaleness, opts.FinalPoll/2); wait > 0 {
		select {
		case <-time.After(wait):
		case <-ctx.Done():
		}
	}
	// Leave a quarter of the time to store what is left.
	until := opts.Now().Add(time.Until(deadline) * 3 / 4)
	j.forceLog = true // the last checkpoints' finalize times
	if _, err := j.tick(ctx, until); err != nil {
		opts.Logger.Warn("final poll incomplete", append(j.log(), "err", err)...)
	}
	j.storeLeft(ctx, "details missed: the collector stopped before they could be fetched")
}

// storeLeft stores the checkpoints still waiting for details as they are,
// marked missed (or partial), and forgets them.
func (j *jobPoller) storeLeft(ctx context.Context, why string) {
	opts := j.c.opts
	var left []model.Checkpoint
	for _, cps := range j.deferred {
		for _, c := range cps {
			left = append(left, detailsLost(c))
		}
	}
	if len(left) == 0 {
		return
	}
	sort.Slice(left, func(a, b int) bool { return left[a].ID < left[b].ID })
	if err := opts.Sink.PutCheckpoints(ctx, left); err != nil {
		opts.Logger.Warn("final poll: store checkpoints left without details", append(j.log(), "err", err)...)
		return
	}
	opts.Logger.Info(why, append(j.log(), "missed", len(left))...)
	j.deferred = nil
}

// retryCap bounds the wait after a failed poll: a quarter of the engine's
// history span, so that a poll that fails now and then still sees every
// checkpoint before the engine forgets it.
func (j *jobPoller) retryCap() time.Duration {
	if j.window <= 0 {
		return j.c.opts.MaxBackoff
	}
	return max(j.c.opts.MinPoll, j.window/4)
}

// requestTimeout bounds one call to the engine: half the history span (a
// stalled request must not outlive the history), within the options' bounds.
func (j *jobPoller) requestTimeout() time.Duration {
	opts := j.c.opts
	if j.window <= 0 {
		return opts.RequestTimeout
	}
	return min(opts.RequestTimeout, max(opts.MinRequestTimeout, j.window/2))
}

// call runs one request to the engine under requestTimeout (factor times it,
// for calls made of several requests).
func call[T any](ctx context.Context, j *jobPoller, factor int, fn func(ctx context.Context) (T, error)) (T, error) {
	ctx, cancel := context.WithTimeout(ctx, j.requestTimeout()*time.Duration(factor))
	defer cancel()
	return fn(ctx)
}

// tick polls once and returns how long to wait before the next poll. Errors
// of the list poll (or of storing) fail the poll; a failure of what the list
// led to (details, metrics) comes back as a *PartialError after everything
// that could be kept was stored. detailsUntil, when set, is how long details
// may be fetched (the final poll); otherwise until the next poll is due.
func (j *jobPoller) tick(ctx context.Context, detailsUntil time.Time) (time.Duration, error) {
	opts := j.c.opts
	sink := opts.Sink
	began := opts.Now()
	if !j.haveGraph || j.job.State != j.currentState() {
		g, err := call(ctx, j, 1, func(ctx context.Context) (model.Job, error) { return j.src.Job(ctx, j.job.ID) })
		if err != nil {
			j.failedPoll()
			return 0, fmt.Errorf("job %s: %w", j.job.ID, err)
		}
		g.Cluster = j.c.target.Name
		if !j.haveGraph {
			if prev, err := sink.Job(ctx, g.Cluster, g.ID); err == nil && model.NewRun(prev, g.StartMs) {
				j.prevRun = &prev
			}
		}
		j.startMs.Store(g.StartMs)
		if err := sink.PutJob(ctx, g); err != nil {
			return 0, fmt.Errorf("store job %s: %w", j.job.ID, err)
		}
		j.job, j.haveGraph = g, true
		j.setState(g.State)
	}
	h, err := call(ctx, j, 1, func(ctx context.Context) (model.History, error) { return j.src.History(ctx, &j.job) })
	if err != nil {
		j.failedPoll()
		if !errors.Is(err, ErrJobGone) {
			// How the job is configured does not depend on its checkpoint list (an engine
			// without the checkpoint API still says it); readConfig bounds the tries.
			j.readConfig(ctx)
		}
		return 0, fmt.Errorf("checkpoints of %s: %w", j.job.ID, err)
	}
	j.noteForgotten(h)
	traits := j.src.Traits()
	capacity := h.Capacity
	if capacity <= 0 {
		capacity = traits.DefaultCapacity
	}
	if capacity <= 0 {
		capacity = 10
	}
	if h.IntervalMs > 0 {
		j.window = time.Duration(h.IntervalMs) * time.Millisecond * time.Duration(capacity)
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
	if detailsUntil.IsZero() {
		detailsUntil = began.Add(j.nextInterval(h, capacity, 0, traits))
	}
	fetched, deferred, missed := 0, 0, 0

	var (
		toStore     []model.Checkpoint
		gaps        []model.Gap
		newFinal    = map[int][]int64{}
		newMax      = map[int]int64{}
		fresh       int // ids never accounted for before this tick
		freshByP    = map[int]int64{}
		gapsByP     = map[int]int64{}
		restarted   = map[int]bool{}
		detailErr   error // the detail failures (maxDetailFailures at most), for health
		failures    int   // detail fetches that failed this tick
		stopDetails bool  // too many failures, or one that timed out: no more this tick
	)
	// While the disk is full no details are fetched: they could not be
	// stored, and the summaries show whether there is room again.
	stopDetails = j.diskFull
	// A poll whose checkpoints are not stored must leave the details due as
	// they were: the next poll stores those summaries again.
	deferredBefore := cloneDeferred(j.deferred)
	nowMs := opts.Now().UnixMilli()
	for _, p := range pipes {
		cps := byPipe[p]
		sort.Slice(cps, func(a, b int) bool { return cps[a].ID < cps[b].ID })
		prev, err := j.accountedUpTo(ctx, p)
		if err != nil {
			return 0, err
		}
		if prev, err = j.keepRunApart(ctx, p, prev, cps[0].ID); err != nil {
			return 0, err
		}
		if !j.listed[p] {
			j.listed[p] = true
			// Summaries stored before the app last stopped, still waiting
			// for details the engine no longer lists, will not get them.
			if prev >= 0 && traits.DetailRequests {
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
		top := cps[len(cps)-1].ID
		if prev >= 0 && top < prev-int64(2*capacity) {
			// Ids went back far: a new checkpoint sequence (e.g. a job restarted from scratch).
			opts.Logger.Info("checkpoint ids restarted", append(j.log(), "pipeline", p, "was", prev, "now", top)...)
			prev = -1
			j.final[p] = map[int64]bool{}
			delete(j.deferred, p)
			restarted[p] = true
		}
		// Deferred checkpoints the history no longer lists lost their details
		// for good: their summaries (or partial details) are stored again, marked so.
		for id, sc := range j.deferred[p] {
			if id < cps[0].ID {
				toStore = append(toStore, detailsLost(sc))
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
					g := model.Gap{
						Cluster: j.c.target.Name, JobID: j.job.ID, Pipeline: p,
						FromID: expected, ToID: cp.ID - 1, DetectedMs: nowMs,
						Reason: fmt.Sprintf("evicted from the engine's history (%d deep) before a poll saw them", capacity),
					}
					gaps = append(gaps, g)
					gapsByP[p] += g.Count()
				}
				expected = cp.ID + 1
			}
		}
		for _, cp := range cps {
			if cp.ID > prev {
				fresh++
				freshByP[p]++
			}
			if j.final[p][cp.ID] {
				continue
			}
			if !cp.Status.Final() {
				toStore = append(toStore, cp)
				continue
			}
			pending, waiting := j.deferred[p][cp.ID]
			if !waiting {
				j.noteDuration(cp)
			}
			if traits.DetailRequests && (stopDetails || fetched > 0 && opts.Now().After(detailsUntil)) {
				if !waiting {
					toStore = append(toStore, cp) // its summary, until the details come
					j.deferDetails(p, cp)
				}
				deferred++
				continue
			}
			base := cp
			if waiting && pending.DetailLoss == model.DetailPartial {
				base = pending // fetch only the vertices still missing
			}
			fetched++
			callStart := opts.Now()
			full, err := call(ctx, j, 2, func(ctx context.Context) (model.Checkpoint, error) { return j.src.Detail(ctx, &j.job, base) })
			if err != nil && !errors.Is(err, ErrGone) {
				// An isolated failure (a 503, a cut body) costs one checkpoint's
				// details until the next poll; repeated ones, or one that ran
				// into the timeout (a stalled or cut link), stop the others too.
				failures++
				stopDetails = failures >= maxDetailFailures || opts.Now().Sub(callStart) >= j.requestTimeout() || ctx.Err() != nil
			}
			var incomplete *IncompleteError
			switch {
			case errors.Is(err, ErrGone):
				// Keep the summary: better than nothing, and say so in the log.
				opts.Logger.Info("details evicted before fetch; stored the summary", append(j.log(), "checkpoint", cp.ID)...)
				full = detailsLost(base)
			case errors.As(err, &incomplete):
				// Store what came; the missing vertices are asked for again next poll.
				full.Cluster, full.JobID, full.Pipeline = j.c.target.Name, j.job.ID, p
				full.DetailLoss = model.DetailPartial
				toStore = append(toStore, full)
				j.deferDetails(p, full)
				detailErr = errors.Join(detailErr, fmt.Errorf("checkpoint %d details: %w", cp.ID, err))
				continue
			case err != nil:
				if !waiting {
					toStore = append(toStore, cp)
					j.deferDetails(p, cp)
				}
				detailErr = errors.Join(detailErr, fmt.Errorf("checkpoint %d details: %w", cp.ID, err))
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
			j.deferred = deferredBefore
			return 0, fmt.Errorf("store checkpoints: %w", err)
		}
	}
	// Deferring is routine while the budget is the limit; losing details is
	// worth a line in the log the UI shows.
	switch {
	case missed > 0:
		opts.Logger.Info("details missed: checkpoints left the engine's history before their details were fetched (request budget, a slow engine or failing requests)",
			append(j.log(), "missed", missed, "fetched", fetched, "deferred", deferred)...)
	case deferred > 0:
		opts.Logger.Debug("details deferred to the next poll to keep polls on time",
			append(j.log(), "fetched", fetched, "deferred", deferred)...)
	}
	if len(gaps) > 0 {
		if err := sink.PutGaps(ctx, gaps); err != nil {
			j.deferred = deferredBefore
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
	for _, p := range pipes {
		j.account(p, byPipe[p], newMax[p], freshByP[p], gapsByP[p], restarted[p], h.Counts)
	}
	for p, m := range newMax {
		j.maxID[p] = m
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
	j.polls++
	if len(toStore) > 0 || len(gaps) > 0 {
		opts.OnStored(j.c.target.Name, j.job.ID)
	}
	j.readConfig(ctx)
	// Metrics are sampled before the log is read: they are of this moment,
	// the log (up to 16 MiB) can wait for them.
	metricsErr := j.sampleMetrics(ctx, traits, j.runsLong(h, nowMs))
	logErr := j.readLog(ctx, h, j.polls == 1 || j.forceLog, j.forceLog)
	if err := j.reconcile(ctx, nowMs); err != nil {
		return 0, err
	}
	wait := j.nextInterval(h, capacity, fresh, traits)
	if failures > 0 && j.waiting() > 0 {
		// Details failed and wait: ask again sooner, while the engine lists them.
		wait = max(opts.MinPoll, wait/2)
	}
	if err := errors.Join(detailErr, metricsErr, logErr); err != nil {
		return wait, &PartialError{Err: err}
	}
	return wait, nil
}

// readConfig reads and stores the job's configuration when it is due: the
// first poll, a new start time (the job was resubmitted), or ConfigEvery
// since the last read, when the budget has room for it. A failure is logged
// once and tried again after ConfigRetry; it never fails the poll.
// Checkpoints are polled first: a slow configuration read must not delay them.
func (j *jobPoller) readConfig(ctx context.Context) {
	cr, ok := j.src.(ConfigReader)
	if !ok || j.diskFull {
		return
	}
	opts := j.c.opts
	now := opts.Now()
	fresh := j.cfgAt.IsZero() || j.job.StartMs != j.cfgStart
	if !fresh && now.Sub(j.cfgAt) < opts.ConfigEvery || now.Before(j.cfgRetryAt) {
		return
	}
	if b := j.c.target.Budget; !fresh && b != nil && !b.Spare(configRequests+1) {
		return // a re-read can wait for a quieter moment; the polls cannot
	}
	cfg, err := call(ctx, j, configRequests, func(ctx context.Context) (model.JobConfig, error) {
		return cr.JobConfig(ctx, &j.job)
	})
	if err == nil {
		cfg.Cluster, cfg.JobID, cfg.SeenMs = j.c.target.Name, j.job.ID, now.UnixMilli()
		if err = opts.Sink.PutJobConfig(ctx, cfg); err != nil {
			err = fmt.Errorf("store: %w", err)
		}
	}
	if err != nil {
		if ctx.Err() != nil {
			return
		}
		if !j.cfgFailed {
			opts.Logger.Warn("job configuration not read; polling goes on and it is asked again later",
				append(j.log(), "retry_in", opts.ConfigRetry, "err", err)...)
		} else {
			opts.Logger.Debug("job configuration still not read", append(j.log(), "err", err)...)
		}
		j.cfgFailed, j.cfgRetryAt = true, now.Add(opts.ConfigRetry)
		return
	}
	if j.cfgFailed {
		opts.Logger.Info("job configuration read again", j.log()...)
	}
	j.cfgFailed, j.cfgAt, j.cfgStart, j.cfgRetryAt = false, now, j.job.StartMs, time.Time{}
	if len(cfg.Unknown) > 0 {
		// Part of it did not answer: what did is stored; ask again as soon as after a failed
		// read, so that a fuller answer fills in the rest (store.PutJobConfig) before long.
		j.cfgRetryAt = now.Add(opts.ConfigRetry)
		j.cfgAt = j.cfgRetryAt.Add(-opts.ConfigEvery)
	}
}

// firstPolled calls Options.OnFirstPoll after the job's first poll that stored.
func (j *jobPoller) firstPolled() {
	if j.polledOnce {
		return
	}
	j.polledOnce = true
	if f := j.c.opts.OnFirstPoll; f != nil {
		f(j.c.target.Name, j.job.ID)
	}
}

// logSlack is how much earlier than the job's start a log checkpoint may
// have been triggered and still be this run's (clocks agree: both are the
// JobManager's); older ones belong to an earlier job under the same id.
const logSlack = 1000

// logResult is one LogReader call's answer.
type logResult struct {
	cps []model.Checkpoint
	st  model.LogState
	err error
	// failures are the job's trigger failures in the log (haveFailures: the
	// reader tells them and has read the log).
	failures     []model.TriggerFailure
	haveFailures bool
}

// readLog merges what the engine's log says of the job's checkpoints, when
// the source has a log and read it anew (force: read it now). The read runs
// in the background and is merged by a later poll; wait (the final poll)
// reads and merges now. Checkpoints the API still lists only gain what the
// log adds; older ones not stored (history beyond the API's, or gaps) are
// stored from the log.
func (j *jobPoller) readLog(ctx context.Context, h model.History, force, wait bool) error {
	lr, ok := j.src.(LogReader)
	if !ok {
		return nil
	}
	if j.logRead == nil {
		j.logRead = make(chan logResult, 1)
	}
	if j.logState == nil {
		j.logState = &model.LogState{State: model.LogWaiting}
	}
	// A read in the background waits its turn in the request budget for as
	// long as it takes (behind a poll's detail fetches on a saturated budget
	// a deadline would end it before it started; each request has the
	// client's own timeout). The final poll's waits for it, so it is bounded:
	// a log of 16 MiB takes several request timeouts to come.
	read := func(ctx context.Context, job model.Job) logResult {
		lctx, cancel := ctx, context.CancelFunc(func() {})
		if wait {
			lctx, cancel = context.WithTimeout(ctx, 4*j.requestTimeout())
		}
		defer cancel()
		cps, st, err := lr.LogCheckpoints(lctx, &job, force)
		res := logResult{cps: cps, st: st, err: err}
		if tr, ok := lr.(TriggerFailureReader); ok {
			res.failures, res.haveFailures = tr.LogTriggerFailures(&job)
		}
		return res
	}
	var errs []error
	take := func(res logResult) {
		j.logBusy = false
		j.logState = &res.st
		if res.err != nil {
			errs = append(errs, fmt.Errorf("JobManager log: %w", res.err))
		}
		if res.haveFailures {
			j.triggerFailures, j.failuresRead = j.thisRun(res.failures), true
		}
		if err := j.mergeLog(ctx, h, res.cps); err != nil {
			errs = append(errs, err)
		}
	}
	if wait {
		if j.logBusy {
			take(<-j.logRead)
		}
		take(read(ctx, j.job))
		return errors.Join(errs...)
	}
	select {
	case res := <-j.logRead:
		take(res)
	default:
	}
	if !j.logBusy {
		j.logBusy = true
		job := j.job
		go func() { j.logRead <- read(ctx, job) }()
	}
	return errors.Join(errs...)
}

// thisRun keeps the trigger failures of the job's run: a job id reused
// within the log has older ones (like its checkpoints in mergeLog).
func (j *jobPoller) thisRun(fs []model.TriggerFailure) []model.TriggerFailure {
	out := make([]model.TriggerFailure, 0, len(fs))
	for _, f := range fs {
		if j.job.StartMs > 0 && f.AtMs != 0 && f.AtMs < j.job.StartMs-logSlack {
			continue
		}
		out = append(out, f)
	}
	return out
}

// mergeLog stores what one log read gave for the job.
func (j *jobPoller) mergeLog(ctx context.Context, h model.History, cps []model.Checkpoint) error {
	if len(cps) == 0 {
		return nil
	}
	// This run's checkpoints only, one per id (the latest trigger wins).
	byID := map[int64]model.Checkpoint{}
	for _, c := range cps {
		if j.job.StartMs > 0 && c.TriggerMs < j.job.StartMs-logSlack {
			continue
		}
		if prev, ok := byID[c.ID]; !ok || c.TriggerMs >= prev.TriggerMs {
			byID[c.ID] = c
		}
	}
	keep := make([]model.Checkpoint, 0, len(byID))
	for _, c := range byID {
		keep = append(keep, c)
	}
	sort.Slice(keep, func(a, b int) bool { return keep[a].ID < keep[b].ID })
	insertBelow := int64(math.MaxInt64)
	for _, c := range h.Checkpoints {
		if c.Pipeline == 0 {
			insertBelow = min(insertBelow, c.ID)
		}
	}
	if j.prevRun != nil {
		return nil // until the first list tells whose checkpoints the stored ones are
	}
	if _, err := j.accountedUpTo(ctx, 0); err != nil {
		return err
	}
	m, err := j.c.opts.Sink.MergeLogCheckpoints(ctx, j.c.target.Name, j.job.ID, keep, insertBelow)
	if err != nil {
		return fmt.Errorf("store checkpoints from the JobManager log: %w", err)
	}
	if a := j.accounts[0]; a != nil && len(m.Added) > 0 {
		for _, id := range m.Added {
			if a.first >= 0 && id >= a.first && id <= a.latest {
				a.fromLog++
			} else {
				a.earlier++
			}
		}
		a.gaps = max(0, a.gaps-int64(m.FilledGaps))
	}
	if len(m.Resolved) > 0 {
		j.c.opts.Logger.Info("checkpoints stored in progress, gone from the engine's history, resolved from the JobManager log",
			append(j.log(), "ids", m.Resolved)...)
	}
	if len(m.Added) > 0 || m.Updated > 0 || len(m.Resolved) > 0 {
		j.c.opts.Logger.Debug("checkpoints from the JobManager log", append(j.log(), "added", len(m.Added), "updated", m.Updated, "gaps_filled", m.FilledGaps)...)
		j.c.opts.OnStored(j.c.target.Name, j.job.ID)
	}
	return nil
}

// detailsLost marks a checkpoint whose details will not come any more: what
// came in part stays partial, a summary has missed them.
func detailsLost(c model.Checkpoint) model.Checkpoint {
	if c.DetailLoss != model.DetailPartial {
		c.DetailLoss = model.DetailMissed
	}
	return c
}

// maxDetailFailures is how many detail fetches may fail in one poll before
// the rest wait for the next.
const maxDetailFailures = 3

// waiting counts the checkpoints still waiting for their details.
func (j *jobPoller) waiting() int {
	n := 0
	for _, cps := range j.deferred {
		n += len(cps)
	}
	return n
}

func (j *jobPoller) failedPoll() {
	j.failedPolls++
	j.mu.Lock()
	j.recon.FailedPolls = j.failedPolls
	j.mu.Unlock()
}

// keepRunApart decides, at the first list of this run, whether it continues
// the earlier run of its job id the cache holds (its ids go on) or started
// again (its first listed id is one already stored): then the earlier run is
// kept apart and nothing of it is accounted for here. It returns prev, or -1.
func (j *jobPoller) keepRunApart(ctx context.Context, p int, prev, firstListed int64) (int64, error) {
	if j.prevRun == nil {
		return prev, nil
	}
	old := *j.prevRun
	j.prevRun = nil
	if prev < 0 || firstListed > prev {
		return prev, nil
	}
	kept, err := j.c.opts.Sink.KeepRunApart(ctx, old, j.job.StartMs)
	if err != nil {
		return 0, fmt.Errorf("keep the earlier run apart: %w", err)
	}
	if kept != "" {
		j.c.opts.Logger.Info("the job id was taken by a new run whose checkpoint ids start again; the earlier run is kept apart",
			append(j.log(), "earlier_run", kept, "earlier_start_ms", old.StartMs, "start_ms", j.job.StartMs)...)
	}
	for q := range j.maxID {
		j.maxID[q], j.final[q] = -1, map[int64]bool{}
	}
	j.deferred = nil
	return -1, nil
}

// accountedUpTo returns the highest id of pipeline p accounted for, read from
// the cache the first time (-1: none). It is read before anything of this
// run is stored, the log's checkpoints included: ids between it and the first
// one listed are gaps, and a checkpoint the log gave first must not hide them.
func (j *jobPoller) accountedUpTo(ctx context.Context, p int) (int64, error) {
	if prev, ok := j.maxID[p]; ok {
		return prev, nil
	}
	latest, found, err := j.c.opts.Sink.LatestCheckpointID(ctx, j.c.target.Name, j.job.ID, p)
	if err != nil {
		return 0, fmt.Errorf("read cache: %w", err)
	}
	prev := int64(-1)
	if found {
		prev = latest
	}
	j.maxID[p] = prev
	if j.final[p] == nil {
		j.final[p] = map[int64]bool{}
	}
	return prev, nil
}

// account adds one successful poll of pipeline p to its reconciliation: the
// fresh ids it listed were stored, the gaps were recorded, and the engine's
// trigger counter moved on.
func (j *jobPoller) account(p int, cps []model.Checkpoint, newMax, fresh, gaps int64, restarted bool, counts map[int]model.EngineCounts) {
	a := j.accounts[p]
	if a == nil || restarted {
		a = &account{first: -1, latest: -1, counted: -1, lastTriggered: -1}
		j.accounts[p] = a
	}
	if a.first < 0 && len(cps) > 0 {
		// The span starts at the first id this run saw, or right after the
		// cache's latest (ids between are gaps, already counted).
		if prev := j.maxID[p]; prev >= 0 && !restarted {
			a.first = prev + 1
		} else {
			a.first = cps[0].ID
		}
	}
	if a.first < 0 {
		return
	}
	a.latest = max(a.latest, newMax)
	a.stored += fresh
	a.gaps += gaps
	ids := max(0, a.latest-a.first+1)
	c, ok := counts[p]
	if !ok {
		return
	}
	switch {
	case a.lastTriggered < 0:
		// The first poll: what the engine listed is what it counted, unless
		// the span starts at the job's first id: then the counters cover it
		// whole, the triggers that failed before #1 got an id included
		// (tasks not running yet at the job's start).
		a.counted, a.sinceMs = ids, j.c.opts.Now().UnixMilli()
		if a.first == 1 && len(cps) > 0 && cps[0].ID == 1 && c.Restored == 0 && c.Triggered > ids {
			a.counted, a.sinceMs = c.Triggered, max(0, j.job.StartMs-logSlack)
		}
	case c.Triggered >= a.lastTriggered:
		a.counted += c.Triggered - a.lastTriggered
	default:
		a.counted += c.Triggered // a new JobManager counts from 0
	}
	a.lastTriggered = c.Triggered
	a.counts = &c
}

// noteForgotten marks when the engine's history of the job went empty while
// this run had stored some of it: from then on the cache is the only record,
// and the reconciliation says so. The accounts are kept as they were.
func (j *jobPoller) noteForgotten(h model.History) {
	if len(h.Checkpoints) > 0 || len(h.Counts) > 0 || len(h.InFlight) > 0 {
		j.forgotMs = 0
		return
	}
	if j.forgotMs != 0 {
		return
	}
	for _, a := range j.accounts {
		if a.stored > 0 {
			j.forgotMs = j.c.opts.Now().UnixMilli()
			j.c.opts.Logger.Warn("the engine no longer has the job's checkpoint history; the cache keeps what was seen",
				append(j.log(), "stored", a.stored)...)
			return
		}
	}
}

// reconcile sums the pipelines' accounts into the job's reconciliation and
// hands it to the sink.
func (j *jobPoller) reconcile(ctx context.Context, nowMs int64) error {
	r := model.Reconciliation{Cluster: j.c.target.Name, JobID: j.job.ID, AtMs: nowMs,
		Polls: j.polls, FailedPolls: j.failedPolls, FirstID: -1, LatestID: -1, EngineCounted: -1}
	for _, a := range j.accounts {
		if a.first < 0 {
			continue
		}
		if r.FirstID < 0 || a.first < r.FirstID {
			r.FirstID = a.first
		}
		r.LatestID = max(r.LatestID, a.latest)
		ids := max(0, a.latest-a.first+1)
		r.IDs += ids
		r.Stored += a.stored
		r.Gaps += a.gaps
		r.FromLog += a.fromLog
		r.Earlier += a.earlier
		if a.counts != nil {
			if r.Engine == nil {
				r.Engine = &model.EngineCounts{}
				r.EngineCounted = 0
			}
			r.Engine.Triggered += a.counts.Triggered
			r.Engine.Completed += a.counts.Completed
			r.Engine.Failed += a.counts.Failed
			r.Engine.InProgress += a.counts.InProgress
			r.Engine.Restored += a.counts.Restored
			r.Engine.LastRestoreMs = max(r.Engine.LastRestoreMs, a.counts.LastRestoreMs)
			r.EngineCounted += a.counted
			r.WithoutID += max(0, a.counted-ids)
		}
	}
	if r.FirstID < 0 {
		r.FirstID, r.LatestID = 0, 0
	}
	r.EngineForgotMs = j.forgotMs
	if a := j.accounts[0]; a != nil && a.counts != nil && j.failuresRead {
		r.TriggerFailures = model.GroupTriggerFailures(j.triggerFailures, a.sinceMs)
	}
	r.Unaccounted = r.IDs - r.Stored - r.Gaps - r.FromLog
	if j.logState != nil {
		st := *j.logState
		r.Log = &st
	}
	if r.Unaccounted < 0 {
		// Stored more than the span holds: a bug in the accounting, not in the data.
		j.c.opts.Logger.Warn("reconciliation counted an id twice", append(j.log(), "ids", r.IDs, "stored", r.Stored, "gaps", r.Gaps)...)
		r.Unaccounted = 0
	}
	j.mu.Lock()
	j.recon = r
	j.mu.Unlock()
	if err := j.c.opts.Sink.PutReconciliation(ctx, r); err != nil {
		return fmt.Errorf("store reconciliation: %w", err)
	}
	return nil
}

func cloneDeferred(d map[int]map[int64]model.Checkpoint) map[int]map[int64]model.Checkpoint {
	if d == nil {
		return nil
	}
	out := make(map[int]map[int64]model.Checkpoint, len(d))
	for p, cps := range d {
		out[p] = maps.Clone(cps)
	}
	return out
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

// Metrics sampling beyond the engine's own cadence (Traits.MetricsEvery):
// while a checkpoint runs longer than usual, every longCheckpointEvery, so
// that a slow checkpoint gets samples inside its window; and, until the
// engine first answers with values (Flink's fetcher starts some seconds after
// a job), every emptyRetryEvery, emptyRetries times at most (half a minute).
const (
	longCheckpointEvery = 2 * time.Second
	emptyRetryEvery     = time.Second
	emptyRetries        = 30
	// recentDurations is how many completed checkpoints the usual duration is the median of.
	recentDurations = 20
)

// awaitingMetrics: the engine answered metrics empty so far, and a few more
// early tries are allowed.
func (j *jobPoller) awaitingMetrics() bool {
	return !j.gotMetrics && j.emptyMetrics > 0 && j.emptyMetrics <= emptyRetries
}

// spare reports whether the cluster's budget could take a metrics round (one
// request per vertex) and a list poll now without waiting: extra sampling
// never competes with the polls under a tight budget.
func (j *jobPoller) spare() bool {
	b := j.c.target.Budget
	return b == nil || b.Spare(2*(len(j.job.Vertices)+1))
}

// noteDuration keeps the end-to-end time of a checkpoint seen final for the
// first time.
func (j *jobPoller) noteDuration(c model.Checkpoint) {
	if c.Status != model.StatusCompleted || c.EndToEndMs <= 0 {
		return
	}
	j.durations = append(j.durations, c.EndToEndMs)
	if n := len(j.durations); n > recentDurations {
		j.durations = append(j.durations[:0], j.durations[n-recentDurations:]...)
	}
}

// runsLong reports whether a checkpoint in flight has run longer than the
// usual (twice the median of the recent ones, and at least a second).
func (j *jobPoller) runsLong(h model.History, nowMs int64) bool {
	if len(j.durations) == 0 {
		return false
	}
	sorted := slices.Clone(j.durations)
	slices.Sort(sorted)
	usual := max(2*sorted[len(sorted)/2], 1000)
	for _, c := range h.Checkpoints {
		if c.Status == model.StatusInProgress && c.TriggerMs > 0 && nowMs-c.TriggerMs > usual {
			return true
		}
	}
	return false
}

func (j *jobPoller) sampleMetrics(ctx context.Context, traits Traits, long bool) error {
	now := j.c.opts.Now()
	// An ended job has no live backpressure to sample.
	if traits.MetricsEvery <= 0 || model.JobEnded(j.currentState()) {
		return nil
	}
	since := now.Sub(j.lastMetrics)
	// The early tries are paced by time, not by polls: polls can come faster (in-flight
	// sampling), and fifteen of them could pass before Flink's fetcher has its first values,
	// leaving the first sample to the regular cadence 10 s later.
	extra := long && since >= longCheckpointEvery || j.awaitingMetrics() && since >= emptyRetryEvery
	if since < traits.MetricsEvery && !(extra && j.spare()) {
		return nil
	}
	j.lastMetrics = now
	// One request per vertex, like details: twice the timeout of one call.
	samples, err := call(ctx, j, 2, func(ctx context.Context) ([]model.MetricSample, error) {
		return j.src.Metrics(ctx, &j.job, j.metricsSince)
	})
	if err != nil {
		return fmt.Errorf("metrics of %s: %w", j.job.ID, err)
	}
	if len(samples) == 0 {
		j.emptyMetrics++
		return nil
	}
	j.gotMetrics = true
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
	if traits.SampleInFlight {
		d = min(d, j.inFlightWait(h))
	}
	if traits.MetricsEvery > 0 && j.awaitingMetrics() && j.spare() {
		d = min(d, emptyRetryEvery) // the first values are near
	}
	return max(opts.MinPoll, min(d, opts.MaxPoll))
}

// Ack-progress sampling for engines that show it only as it happens
// (SeaTunnel): every inFlightEvery while a checkpoint runs, and from
// afterTrigger after the next trigger is due (the last trigger plus the
// interval, or the last end if later) until one is seen, for one interval at
// most. So the first sample lands within about half a second of a trigger.
const (
	inFlightEvery = 500 * time.Millisecond
	afterTrigger  = 300 * time.Millisecond
	// lateTrigger is how long after a trigger was due polls still come once
	// an interval (a pipeline restore), before they fall back to the slowest.
	lateTrigger = time.Minute
)

// inFlightWait is how long until the next ack-progress sample is due. An
// engine that refreshes its answer on a period of its own (History.RefreshMs)
// is not asked more often: it would answer the same.
func (j *jobPoller) inFlightWait(h model.History) time.Duration {
	if inFlight(h) {
		return max(inFlightEvery, time.Duration(h.RefreshMs)*time.Millisecond)
	}
	if h.IntervalMs <= 0 {
		return j.c.opts.MaxPoll
	}
	var lastTrigger, lastEnd int64
	for _, c := range h.Checkpoints {
		lastTrigger = max(lastTrigger, c.TriggerMs)
		lastEnd = max(lastEnd, c.EndMs())
	}
	if lastTrigger == 0 {
		return inFlightEvery
	}
	due := max(lastTrigger+h.IntervalMs, lastEnd) + afterTrigger.Milliseconds()
	now := j.c.opts.Now().UnixMilli()
	switch {
	case due > now:
		return time.Duration(due-now) * time.Millisecond
	case now-due <= h.IntervalMs:
		return inFlightEvery // due: look until it shows
	case now-due <= lateTrigger.Milliseconds():
		// Late: an engine restoring a pipeline after a failure takes tens of
		// seconds before it triggers again. Look once an interval meanwhile,
		// so the first checkpoints after it are not missed at the slowest poll.
		return max(time.Duration(h.IntervalMs)*time.Millisecond, time.Second)
	}
	return j.c.opts.MaxPoll
}

// inFlight reports whether a checkpoint runs: it has progress samples, or is
// listed in progress (a source leaves out the samples of an answer it
// already gave).
func inFlight(h model.History) bool {
	if len(h.InFlight) > 0 {
		return true
	}
	for i := range h.Checkpoints {
		if h.Checkpoints[i].Status == model.StatusInProgress {
			return true
		}
	}
	return false
}
