package fleet

import (
	"context"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"time"

	"checkpoint-explorer/backend/analyze"
	"checkpoint-explorer/backend/store"
)

// CacheOptions tune a Cache.
type CacheOptions struct {
	// FullEvery is how old the last whole read may grow before a Read starts
	// another, in the background (default 30 s): it catches what no stored
	// checkpoint tells of (a job that stopped checkpointing, samples, retention)
	// and slides every row's window. A large fleet's whole read waits longer:
	// at least wholeReadShare times its last one's length, so that whole reads
	// take a fifth of the time at most (2,000 jobs: about every 2 minutes).
	FullEvery time.Duration
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// Dir, when set, is where each window's last whole read is kept (a
	// file per window and cluster filter), for the next start.
	Dir string
	// FromDir lets the first Read of a window after the start answer at once
	// from Dir's file, its rows marked as of that read (analyze.Fleet.AsOfMs),
	// while the whole fleet is read again in the background: the first screen
	// does not wait for a whole read (2,000 jobs: 25 s). Without it the first
	// Read waits for its whole read.
	FromDir bool
	// Logger hears of a kept read that could not be written or read (discarded when nil).
	Logger *slog.Logger
}

// Cache answers Read from the last answer per window and cluster: after the
// first whole read, a Read re-reads only the rows of the jobs Touched since
// (a live update costs those rows, not the fleet's; docs/fleet.md, "Cost"),
// and the whole fleet is read again in the background once the last whole
// read is FullEvery old. Safe for concurrent use; Touched never waits for a
// read.
type Cache struct {
	st   *store.Store
	opts CacheOptions

	ctx    context.Context // the background reads'; Close ends it
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu      sync.Mutex // guards entries, every entry's dirty and loaded
	entries map[cacheKey]*cacheEntry
	// loaded is the windows whose kept read a Read has tried: once per
	// start, not again after a Reset (the sources changed since).
	loaded map[cacheKey]bool
}

type cacheKey struct {
	only     string
	windowMs int64
}

type cacheEntry struct {
	// dirty is the jobs touched since their rows were last read; the
	// Cache's mu guards it.
	dirty map[JobKey]bool

	mu      sync.Mutex // guards what follows; held through a Read's reads
	fleet   *analyze.Fleet
	fullAt  time.Time     // when the last whole read began
	took    time.Duration // how long it took
	running bool          // a whole read in the background
	// readMeanwhile is the jobs whose rows were re-read while the
	// background read ran: its rows may be older than theirs.
	readMeanwhile map[JobKey]bool
}

// wholeReadShare: a whole read comes at most once per this many times its
// own length.
const wholeReadShare = 5

// NewCache makes a Cache over st; Close ends its background reads.
func NewCache(st *store.Store, opts CacheOptions) *Cache {
	if opts.FullEvery <= 0 {
		opts.FullEvery = 30 * time.Second
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Cache{st: st, opts: opts, ctx: ctx, cancel: cancel, entries: map[cacheKey]*cacheEntry{}, loaded: map[cacheKey]bool{}}
}

// Close cancels the background reads and waits for them to end.
func (c *Cache) Close() {
	c.cancel()
	c.wg.Wait()
}

// Touched tells that checkpoints of a job were stored: the next Read of any
// window re-reads its row.
func (c *Cache) Touched(cluster, jobID string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, e := range c.entries {
		if k.only == "" || k.only == cluster {
			e.dirty[JobKey{cluster, jobID}] = true
		}
	}
}

// Reset forgets every answer: the next Read reads the whole fleet (the
// sources changed: a cluster added or removed, a capture opened).
func (c *Cache) Reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	clear(c.entries)
}

// Read is the package's Read, answered from the cache when it can be.
func (c *Cache) Read(ctx context.Context, configured func(cluster string) bool, only string, windowMs, nowMs int64) (analyze.Fleet, error) {
	if windowMs <= 0 {
		windowMs = DefaultWindowMs
	}
	k := cacheKey{only, windowMs}
	e := c.entry(k)
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.fleet == nil && c.opts.FromDir && c.firstLoad(k) {
		f, ok, err := c.load(ctx, k)
		if err != nil {
			c.opts.Logger.Warn("fleet: the last run's rows are not shown first", "err", err)
		}
		if ok {
			e.fleet = &f
			c.readWholeInBackground(e, k, configured)
			return copyFleet(f), nil
		}
	}
	if e.fleet == nil {
		dirty := c.takeDirty(e)
		began := c.opts.Now()
		f, err := Read(ctx, c.st, configured, only, windowMs, nowMs)
		if err != nil {
			c.giveBackDirty(e, dirty)
			return f, err
		}
		e.fleet, e.fullAt, e.took = &f, began, c.opts.Now().Sub(began)
		c.keep(k, f, began)
		return copyFleet(f), nil
	}
	dirty := c.takeDirty(e)
	if len(dirty) > 0 {
		keys := slices.Collect(maps.Keys(dirty))
		// Light rows: a job's verdict stays the last whole read's.
		verdicts := map[JobKey]analyze.Verdict{}
		for _, r := range e.fleet.Jobs {
			verdicts[JobKey{r.Cluster, r.JobID}] = r.Verdict
		}
		fresh, err := readJobs(ctx, c.st, configured, keys, verdicts, windowMs, nowMs)
		if err != nil {
			c.giveBackDirty(e, dirty)
			return analyze.Fleet{}, err
		}
		e.fleet.Jobs = mergeRows(e.fleet.Jobs, fresh.Jobs)
		if e.running {
			for k := range dirty {
				e.readMeanwhile[k] = true
			}
		}
	}
	if !e.running && c.opts.Now().Sub(e.fullAt) >= max(c.opts.FullEvery, wholeReadShare*e.took) {
		c.readWholeInBackground(e, k, configured)
	}
	return copyFleet(*e.fleet), nil
}

// entry is the entry of k, made when there is none.
func (c *Cache) entry(k cacheKey) *cacheEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[k]
	if !ok {
		e = &cacheEntry{dirty: map[JobKey]bool{}}
		c.entries[k] = e
	}
	return e
}

// firstLoad says whether k's kept read is yet to be tried, and marks it tried.
func (c *Cache) firstLoad(k cacheKey) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	first := !c.loaded[k]
	c.loaded[k] = true
	return first
}

// keep saves f, a whole read begun at began, as k's kept read, in the
// background (Close waits for it).
func (c *Cache) keep(k cacheKey, f analyze.Fleet, began time.Time) {
	if c.opts.Dir == "" {
		return
	}
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		if err := c.save(k, f, began.UnixMilli()); err != nil {
			c.opts.Logger.Warn("fleet: the rows are not kept for the next start", "err", err)
		}
	}()
}

func (c *Cache) takeDirty(e *cacheEntry) map[JobKey]bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	d := e.dirty
	e.dirty = map[JobKey]bool{}
	return d
}

// giveBackDirty marks keys dirty again: the read that took them failed.
func (c *Cache) giveBackDirty(e *cacheEntry, keys map[JobKey]bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k := range keys {
		e.dirty[k] = true
	}
}

// readWholeInBackground reads the whole fleet of e while Reads go on
// answering from the rows they re-read; e.mu is held by the caller.
func (c *Cache) readWholeInBackground(e *cacheEntry, k cacheKey, configured func(cluster string) bool) {
	e.running, e.readMeanwhile = true, map[JobKey]bool{}
	// What was touched before the read began is in its rows.
	dirty := c.takeDirty(e)
	began := c.opts.Now()
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		f, err := Read(c.ctx, c.st, configured, k.only, k.windowMs, began.UnixMilli())
		if err == nil {
			c.keep(k, f, began)
		}
		e.mu.Lock()
		defer e.mu.Unlock()
		e.running = false
		// Failed: the rows at hand stay, and the next try waits FullEvery
		// rather than coming at every Read.
		e.fullAt, e.took = began, c.opts.Now().Sub(began)
		if err != nil {
			c.giveBackDirty(e, dirty)
			return
		}
		e.fleet = &f
		// Rows re-read while this read ran may be newer than its own.
		c.giveBackDirty(e, e.readMeanwhile)
		e.readMeanwhile = nil
	}()
}

// mergeRows puts the fresh rows in place of the rows of the same logical
// jobs (a fresh row's runs name every job id it stands for) and ranks them
// again.
func mergeRows(rows, fresh []analyze.FleetJob) []analyze.FleetJob {
	replaced := map[JobKey]bool{}
	for _, r := range fresh {
		replaced[JobKey{r.Cluster, r.JobID}] = true
		for _, run := range r.Runs {
			replaced[JobKey{r.Cluster, run.JobID}] = true
		}
	}
	out := slices.DeleteFunc(slices.Clone(rows), func(r analyze.FleetJob) bool { return replaced[JobKey{r.Cluster, r.JobID}] })
	out = append(out, fresh...)
	analyze.SortFleet(out)
	return out
}

// copyFleet is f with a slice of rows of its own: the caller may sort or
// filter it while the cache merges into its own.
func copyFleet(f analyze.Fleet) analyze.Fleet {
	f.Jobs = slices.Clone(f.Jobs)
	if f.Jobs == nil {
		f.Jobs = []analyze.FleetJob{}
	}
	return f
}
