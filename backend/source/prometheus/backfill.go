package prometheus

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"checkpoint-explorer/backend/model"
)

// Backfill bounds: ranges closer than mergeGapSteps steps are fetched as one window (a few
// extra points cost less than a request), and a backfill never takes more than
// maxBackfillRequests requests: beyond that the step grows instead.
const (
	mergeGapSteps       = 60
	maxBackfillRequests = 200
)

// Backfill fetches SeriesBackpressure for only the given time ranges ([from, to] epoch ms each,
// e.g. the spans of cached checkpoints that lack samples), at full resolution (MinStep), and
// returns the points within them (widened to the step grid). See BackfillSeries.
func Backfill(ctx context.Context, c *Client, jobID string, ranges [][2]int64) ([]model.MetricSample, error) {
	return BackfillSeries(ctx, c, jobID, ranges, SeriesBackpressure)
}

// BackfillSeries fetches the selected series for the given ranges. Ranges may overlap and come
// in any order. Ranges closer than 60 steps are fetched in one request (points between them are
// dropped), long ones split into windows of MaxPoints steps, one request each. The step is
// MinStep unless that would take more than 200 requests.
//
// Samples are sorted as Range sorts them, each point once. Windows answered with warnings are
// kept and reported together as an ErrPartial error at the end; any other error stops the
// backfill and is returned with the samples of the windows fetched before it.
func BackfillSeries(ctx context.Context, c *Client, jobID string, ranges [][2]int64, set Series) ([]model.MetricSample, error) {
	if err := checkJobID(jobID); err != nil {
		return nil, err
	}
	p, err := planBackfill(ranges, c.cfg.MinStep)
	if err != nil {
		return nil, err
	}
	var out []model.MetricSample
	var partial []error
	for i, w := range p.windows {
		s, err := c.rangeQuery(ctx, jobID, w.from, w.to, w.step, set)
		for _, x := range s {
			if p.wanted(x.TimeMs) {
				out = append(out, x)
			}
		}
		switch {
		case errors.Is(err, ErrPartial):
			partial = append(partial, err)
		case err != nil:
			sortSamples(out)
			return out, fmt.Errorf("prometheus: backfill window %d of %d (%s to %s): %w", i+1, len(p.windows),
				time.UnixMilli(w.from).UTC().Format(time.RFC3339), time.UnixMilli(w.to).UTC().Format(time.RFC3339), err)
		}
	}
	sortSamples(out)
	return out, errors.Join(partial...)
}

// window is one range request: from and to are multiples of step.
type window struct {
	from, to int64
	step     time.Duration
}

// plan is how a backfill is fetched: windows to request, and the ranges (widened to the step
// grid, sorted, disjoint) whose points are returned.
type plan struct {
	windows []window
	keep    [][2]int64
}

// wanted reports whether a point at ms lies in one of the ranges asked for, not merely in the
// gap between two ranges fetched in one window.
func (p plan) wanted(ms int64) bool {
	i := sort.Search(len(p.keep), func(i int) bool { return p.keep[i][1] >= ms })
	return i < len(p.keep) && p.keep[i][0] <= ms
}

// planBackfill merges close ranges into non-overlapping, step-aligned windows of at most
// MaxPoints points.
func planBackfill(ranges [][2]int64, minStep time.Duration) (plan, error) {
	if len(ranges) == 0 {
		return plan{}, nil
	}
	rs := make([][2]int64, len(ranges))
	for i, r := range ranges {
		if r[0] <= 0 || r[1] < r[0] {
			return plan{}, fmt.Errorf("prometheus: backfill range %d is [%d, %d] ms: want 0 < from <= to", i, r[0], r[1])
		}
		rs[i] = r
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i][0] < rs[j][0] })

	// union joins overlapping or close ranges (within gap ms).
	union := func(rs [][2]int64, gap int64) [][2]int64 {
		out := [][2]int64{rs[0]}
		for _, r := range rs[1:] {
			last := &out[len(out)-1]
			if r[0] <= last[1]+gap {
				last[1] = max(last[1], r[1])
				continue
			}
			out = append(out, r)
		}
		return out
	}
	merged := union(rs, mergeGapSteps*minStep.Milliseconds())

	step := minStep
	var span int64
	for _, r := range merged {
		span += r[1] - r[0]
	}
	if need := time.Duration(span) * time.Millisecond / time.Duration(maxBackfillRequests*MaxPoints); need > step {
		step = StepFor(need*MaxPoints, minStep) // rounds up to whole seconds
	}
	stepMs := step.Milliseconds()
	grid := func(r [2]int64) [2]int64 {
		return [2]int64{r[0] / stepMs * stepMs, (r[1] + stepMs - 1) / stepMs * stepMs}
	}

	var p plan
	for _, r := range rs {
		p.keep = append(p.keep, grid(r))
	}
	p.keep = union(p.keep, 0)

	chunk := int64(MaxPoints) * stepMs
	next := int64(0) // the first point not yet covered
	for _, r := range merged {
		g := grid(r)
		for from := max(g[0], next); from <= g[1]; from += chunk {
			p.windows = append(p.windows, window{from: from, to: min(from+chunk-stepMs, g[1]), step: step})
		}
		next = g[1] + stepMs
	}
	return p, nil
}
