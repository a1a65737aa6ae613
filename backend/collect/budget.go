package collect

import (
	"context"
	"fmt"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Budget bounds the requests one cluster receives: a rate (token bucket) and
// a cap on requests in flight. Every request a source makes goes through it.
type Budget struct {
	lim *rate.Limiter
	sem chan struct{}

	mu     sync.Mutex
	total  int64
	recent []time.Time // request times within the rate window, oldest first
	window time.Duration
	now    func() time.Time
}

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

// NewBudget builds a budget.
func NewBudget(o BudgetOptions) *Budget {
	d := DefaultBudget()
	if o.RequestsPerSecond <= 0 {
		o.RequestsPerSecond = d.RequestsPerSecond
	}
	if o.Burst <= 0 {
		o.Burst = d.Burst
	}
	if o.Concurrency <= 0 {
		o.Concurrency = d.Concurrency
	}
	return &Budget{
		lim:    rate.NewLimiter(rate.Limit(o.RequestsPerSecond), o.Burst),
		sem:    make(chan struct{}, o.Concurrency),
		window: time.Minute,
		now:    time.Now,
	}
}

// Acquire waits for a slot and returns the function that frees it.
func (b *Budget) Acquire(ctx context.Context) (release func(), err error) {
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
	b.trimLocked(now)
	b.mu.Unlock()
	return func() { <-b.sem }, nil
}

func (b *Budget) trimLocked(now time.Time) {
	cut := 0
	for cut < len(b.recent) && now.Sub(b.recent[cut]) > b.window {
		cut++
	}
	if cut > 0 {
		b.recent = append(b.recent[:0], b.recent[cut:]...)
	}
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
