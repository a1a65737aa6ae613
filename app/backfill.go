package app

import (
	"errors"
	"fmt"
	"slices"

	"checkpoint-explorer/backend/analyze"
	"checkpoint-explorer/backend/connect"
	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/source/prometheus"
	"checkpoint-explorer/backend/source/restclient"
	"checkpoint-explorer/backend/store"
)

// BackfillResult says what a backfill from Prometheus added.
type BackfillResult struct {
	Checkpoints int    `json:"checkpoints"` // cached checkpoints that lacked backpressure samples
	Ranges      int    `json:"ranges"`
	Samples     int    `json:"samples"`
	Warning     string `json:"warning,omitempty"` // partial data: stored, with what Prometheus said
}

// backfillSlackMs widens each checkpoint's window so a sample at either edge counts.
const backfillSlackMs = 15_000

// BackfillBackpressure reads, from the cluster's Prometheus, backpressure for
// the cached checkpoints of a job that have none in their window — checkpoints
// seen before the app was connected, or only in a capture — and stores it. A
// Prometheus that is down or answers badly gives an error naming the problem;
// nothing already cached is touched.
func (a *App) BackfillBackpressure(cluster, job string) (BackfillResult, error) {
	c, ok := a.configuredCluster(cluster)
	if !ok {
		ctx, cancel := a.callCtx()
		stored, err := a.store.Clusters(ctx)
		cancel()
		if err != nil {
			return BackfillResult{}, err
		}
		for _, s := range stored {
			if s.Name == cluster {
				c, ok = s, true
			}
		}
	}
	if !ok {
		return BackfillResult{}, badRequest("no cluster or capture named %q", cluster)
	}
	if c.PrometheusURL == "" {
		return BackfillResult{}, badRequest("cluster %q has no Prometheus URL", cluster)
	}
	ctx, cancel := a.callCtx()
	defer cancel()
	q := store.Query{Cluster: cluster, JobID: job}
	cps, err := a.store.Checkpoints(ctx, q)
	if err != nil {
		return BackfillResult{}, err
	}
	var have []int64
	if err := a.store.ScanMetricSamples(ctx, q, func(s model.MetricSample) error {
		if analyze.IsBackpressureMetric(s.Metric) {
			have = append(have, s.TimeMs)
		}
		return nil
	}); err != nil {
		return BackfillResult{}, err
	}
	ranges, missing := lackingRanges(cps, have)
	res := BackfillResult{Checkpoints: missing, Ranges: len(ranges)}
	if len(ranges) == 0 {
		return res, nil
	}
	pc, err := connect.Prometheus(c)
	if err != nil {
		return res, badRequest("%v", err)
	}
	pc = connect.AtScrapeInterval(ctx, pc, a.log)
	samples, err := prometheus.Backfill(ctx, pc, job, ranges)
	if err != nil && !errors.Is(err, prometheus.ErrPartial) {
		return res, fmt.Errorf("backfill from %s: %w", restclient.RedactURL(c.PrometheusURL), err)
	}
	if err != nil {
		res.Warning = err.Error()
	}
	for i := range samples {
		samples[i].Cluster, samples[i].JobID = cluster, job
	}
	if err := a.store.PutMetricSamples(ctx, samples); err != nil {
		return res, err
	}
	res.Samples = len(samples)
	a.log.Info("backfilled backpressure from Prometheus", "cluster", cluster, "job", job, "checkpoints", missing, "samples", len(samples))
	a.emit(CheckpointsEvent{Cluster: cluster, Job: job})
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
