package collect

import (
	"context"
	"fmt"
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Budget bounds the requests one cluster receives: a rate (token bucket) and
// a cap on requests in flight. Every request a source makes goes through it.
type Budget struct {
	lim  *rate.Limiter
	sem  chan struct{}
	opts BudgetOptions

	mu     sync.Mutex
	total  int64
	recent []time.Time // request times within the rate window, oldest first
	held   []time.Time // times of the requests the budget held back, oldest first
	window time.Duration
	now    func() time.Time
}

// heldBackAfter is how long a request must wait for the budget to count as
// held back: shorter waits are bursts smoothing out.
const heldBackAfter = 100 * time.Millisecond

// BudgetLimited is the share of held-back requests (Budget.HeldBack) from
// which the budget, not the engine, sets the collector's pace: the UI then
// suggests raising it.
const BudgetLimited = 0.3

// Budget limits accepted from a user's settings.
const (
	MinRequestsPerSecond = 0.1
	MaxRequestsPerSecond = 1000
	MaxConcurrency       = 64
)

// BudgetOptions configure a Budget; zero values take the documented defaults.
type BudgetOptions struct {
	// RequestsPerSecond is the sustained rate (default 20: a Flink job of V
	// vertices checkpointing every second needs 1 + V per second for details).
	RequestsPerSecond float64
	// Burst is how many requests may go at once after a quiet spell (default 40).
	Burst int
	// Concurrency caps requests in flight (default 4).
	Concurrency int
}

// DefaultBudget is what a cluster gets unless configured otherwise.
func DefaultBudget() BudgetOptions {
	return BudgetOptions{RequestsPerSecond: 20, Burst: 40, Concurrency: 4}
}

// BudgetFor gives the options for a rate and a cap on requests in flight as a
// user sets them (0: the default); bursts are two seconds' worth.
func BudgetFor(requestsPerSecond float64, maxInFlight int) BudgetOptions {
	o := BudgetOptions{RequestsPerSecond: requestsPerSecond, Concurrency: maxInFlight}
	if requestsPerSecond > 0 {
		o.Burst = max(1, int(math.Ceil(2*requestsPerSecond)))
	}
	return o
}

// CheckBudget says what is wrong with a user's rate and cap (0 is the default).
func CheckBudget(requestsPerSecond float64, maxInFlight int) error {
	if requestsPerSecond != 0 && (math.IsNaN(requestsPerSecond) || requestsPerSecond < MinRequestsPerSecond || requestsPerSecond > MaxRequestsPerSecond) {
		return fmt.Errorf("requests per second %g: give %g to %g, or 0 for the default (%g)",
			requestsPerSecond, MinRequestsPerSecond, float64(MaxRequestsPerSecond), DefaultBudget().RequestsPerSecond)
	}
	if maxInFlight < 0 || maxInFlight > MaxConcurrency {
		return fmt.Errorf("requests in flight %d: give 1 to %d, or 0 for the default (%d)", maxInFlight, MaxConcurrency, DefaultBudget().Concurrency)
	}
	return nil
}

// WithDefaults fills the documented defaults into the zero fields.
func (o BudgetOptions) WithDefaults() BudgetOptions {
	d := DefaultBudget()
	o.RequestsPerSecond = positiveOr(o.RequestsPerSecond, d.RequestsPerSecond)
	o.Burst = positiveOr(o.Burst, d.Burst)
	o.Concurrency = positiveOr(o.Concurrency, d.Concurrency)
	return o
}

// NewBudget builds a budget.
func NewBudget(o BudgetOptions) *Budget {
	o = o.WithDefaults()
	return &Budget{
		lim:    rate.NewLimiter(rate.Limit(o.RequestsPerSecond), o.Burst),
		sem:    make(chan struct{}, o.Concurrency),
		opts:   o,
		window: time.Minute,
		now:    time.Now,
	}
}

// Acquire waits for a slot and returns the function that frees it.
func (b *Budget) Acquire(ctx context.Context) (release func(), err error) {
	asked := b.now()
	if err := b.lim.Wait(ctx); err != nil {
		return nil, fmt.Errorf("request budget: %w", err)
	}
	select {
	case b.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, fmt.Errorf("request budget: %w", ctx.Err())
	}
	b.mu.Lock()
	b.total++
	now := b.now()
	b.recent = append(b.recent, now)
	if now.Sub(asked) >= heldBackAfter {
		b.held = append(b.held, now)
	}
	b.trimLocked(now)
	b.mu.Unlock()
	return func() { <-b.sem }, nil
}

func (b *Budget) trimLocked(now time.Time) {
	b.recent = trimBefore(b.recent, now.Add(-b.window))
	b.held = trimBefore(b.held, now.Add(-b.window))
}

// trimBefore drops the times before cut from the front of ts (oldest first).
func trimBefore(ts []time.Time, cut time.Time) []time.Time {
	n := 0
	for n < len(ts) && ts[n].Before(cut) {
		n++
	}
	if n == 0 {
		return ts
	}
	return append(ts[:0], ts[n:]...)
}

// Options are the budget's settings, defaults filled in.
func (b *Budget) Options() BudgetOptions { return b.opts }

// Spare reports whether n requests could go now without waiting: sampling
// beyond the engine's cadence only spends what the budget has to spare, so
// it never holds back the polls that keep checkpoints from being missed.
func (b *Budget) Spare(n int) bool { return b.lim.Tokens() >= float64(n) }

// HeldBack is the share of the last minute's requests that waited at least
// 100 ms for the budget: near 0 the budget is not in the way; a large share
// means the collector wants more than the cluster's budget allows.
func (b *Budget) HeldBack() float64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.trimLocked(b.now())
	if len(b.recent) == 0 {
		return 0
	}
	return float64(len(b.held)) / float64(len(b.recent))
}

// Total is the number of requests made so far.
func (b *Budget) Total() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.total
}

// Rate is the requests per second over the last minute (or since the first request).
func (b *Budget) Rate() float64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.now()
	b.trimLocked(now)
	if len(b.recent) == 0 {
		return 0
	}
	span := now.Sub(b.recent[0])
	if span < time.Second {
		span = time.Second
	}
	return float64(len(b.recent)) / span.Seconds()
}
