package backfill

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"checkpoint-explorer/backend/analyze"
	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/source/prometheus"
	"checkpoint-explorer/backend/source/restclient"
	"checkpoint-explorer/backend/store"
)

// BackpressureResult says what a backfill from Prometheus added (app.BackfillResult).
type BackpressureResult struct {
	Checkpoints int // cached checkpoints that lacked backpressure samples
	Ranges      int
	Samples     int
	Warning     string // partial data: stored, with what Prometheus said
}

// backfillSlackMs widens each checkpoint's window so a sample at either edge counts.
const backfillSlackMs = 15_000

// Backpressure reads, from the cluster's Prometheus, backpressure for the
// job's cached checkpoints that have none in their window, and stores it.
// open opens the client when some checkpoint lacks samples; its error is
// returned as it is. Nothing already cached is touched.
func Backpressure(ctx context.Context, st *store.Store, c model.Cluster, job string, open func(context.Context) (*prometheus.Client, error)) (BackpressureResult, error) {
	q := store.Query{Cluster: c.Name, JobID: job}
	cps, err := st.Checkpoints(ctx, q)
	if err != nil {
		return BackpressureResult{}, err
	}
	var have []int64
	if err := st.ScanMetricSamples(ctx, q, func(s model.MetricSample) error {
		if analyze.IsBackpressureMetric(s.Metric) {
			have = append(have, s.TimeMs)
		}
		return nil
	}); err != nil {
		return BackpressureResult{}, err
	}
	ranges, missing := lackingRanges(cps, have)
	res := BackpressureResult{Checkpoints: missing, Ranges: len(ranges)}
	if len(ranges) == 0 {
		return res, nil
	}
	pc, err := open(ctx)
	if err != nil {
		return res, err
	}
	samples, err := prometheus.Backfill(ctx, pc, job, ranges)
	if err != nil && !errors.Is(err, prometheus.ErrPartial) {
		return res, fmt.Errorf("backfill from %s: %w", restclient.RedactURL(c.PrometheusURL), err)
	}
	if err != nil {
		res.Warning = err.Error()
	}
	for i := range samples {
		samples[i].Cluster, samples[i].JobID = c.Name, job
	}
	if err := st.PutMetricSamples(ctx, samples); err != nil {
		return res, err
	}
	res.Samples = len(samples)
	return res, nil
}

// lackingRanges returns the windows of checkpoints with no backpressure sample
// in [trigger − slack, end + slack], merged where they overlap, and how many
// checkpoints lacked one. have must hold the sample times (any order).
func lackingRanges(cps []model.Checkpoint, have []int64) ([][2]int64, int) {
	times := append([]int64(nil), have...)
	slices.Sort(times)
	var out [][2]int64
	missing := 0
	for i := range cps {
		c := &cps[i]
		from, to := c.TriggerMs-backfillSlackMs, max(c.EndMs(), c.TriggerMs+c.EndToEndMs)+backfillSlackMs
		if anyIn(times, from, to) {
			continue
		}
		missing++
		if n := len(out); n > 0 && from <= out[n-1][1] {
			out[n-1][1] = max(out[n-1][1], to)
			continue
		}
		out = append(out, [2]int64{from, to})
	}
	return out, missing
}

func anyIn(sorted []int64, from, to int64) bool {
	lo, hi := 0, len(sorted)
	for lo < hi {
		m := (lo + hi) / 2
		if sorted[m] < from {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo < len(sorted) && sorted[lo] <= to
}
