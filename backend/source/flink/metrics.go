package flink

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"strconv"
	"strings"
	"time"

	"checkpoint-explorer/backend/model"
)

// restAggs are the aggregations requested from Flink, in model names.
var restAggs = []string{model.AggMax, model.AggAvg}

// VertexMetrics returns the max and avg over a vertex's subtasks of each named metric from
// GET /jobs/:jid/vertices/:vid/subtasks/metrics, stamped nowMs (Flink gives no time; 0 = now).
//
// Flink refreshes these values every metrics.fetcher.update-interval (10 s by default), and
// answers an empty list if any requested name is unknown to it. Missing, null and NaN values are
// skipped: the result never holds NaN or Inf.
func (c *Client) VertexMetrics(ctx context.Context, jid, vid string, metrics []string, nowMs int64) ([]model.MetricSample, error) {
	if err := checkID("job id", jid); err != nil {
		return nil, err
	}
	if err := checkID("vertex id", vid); err != nil {
		return nil, err
	}
	if len(metrics) == 0 {
		return nil, nil
	}
	for _, m := range metrics {
		if m == "" || strings.Contains(m, ",") {
			return nil, fmt.Errorf("flink: bad metric name %q", m)
		}
	}
	if nowMs == 0 {
		nowMs = time.Now().UnixMilli()
	}
	q := url.Values{}
	q.Set("get", strings.Join(metrics, ","))
	q.Set("agg", strings.Join(restAggs, ","))
	path := "/jobs/" + url.PathEscape(jid) + "/vertices/" + url.PathEscape(vid) + "/subtasks/metrics"
	var entries []map[string]json.RawMessage
	if err := c.getLenient(ctx, "/jobs/:jid/vertices/:vid/subtasks/metrics", path, q, &entries); err != nil {
		return nil, err
	}
	var out []model.MetricSample
	for _, e := range entries {
		var id string
		if err := json.Unmarshal(e["id"], &id); err != nil || id == "" {
			continue
		}
		for _, agg := range restAggs {
			v, ok := finite(e[agg])
			if !ok {
				continue
			}
			out = append(out, model.MetricSample{
				Cluster: c.cluster(), JobID: jid, VertexID: vid, Subtask: -1,
				Metric: id, Agg: agg, TimeMs: nowMs, Value: v, Source: "rest",
			})
		}
	}
	return out, nil
}

// VertexMetricNames lists the metrics a vertex's subtasks have (GET
// /jobs/:jid/vertices/:vid/subtasks/metrics without get): task metrics by
// their name, operator metrics as "<operator>.<group>.<name>" (the
// operator's name with spaces as "_"). Flink lists a metric once its
// subtasks registered it, some seconds after the job started.
func (c *Client) VertexMetricNames(ctx context.Context, jid, vid string) ([]string, error) {
	if err := checkID("job id", jid); err != nil {
		return nil, err
	}
	if err := checkID("vertex id", vid); err != nil {
		return nil, err
	}
	path := "/jobs/" + url.PathEscape(jid) + "/vertices/" + url.PathEscape(vid) + "/subtasks/metrics"
	var entries []struct {
		ID string `json:"id"`
	}
	if err := c.get(ctx, "/jobs/:jid/vertices/:vid/subtasks/metrics", path, nil, &entries); err != nil {
		return nil, err
	}
	out := make([]string, 0, len(entries))
	for _, e := range entries {
		if e.ID != "" && !strings.Contains(e.ID, ",") {
			out = append(out, e.ID)
		}
	}
	return out, nil
}

// BackpressureInfo is GET /jobs/:jid/vertices/:vid/backpressure. Since Flink 1.13 it is derived
// from backPressuredTimeMsPerSecond, idleTimeMsPerSecond and busyTimeMsPerSecond as last fetched
// by the metric fetcher, so it is no fresher than VertexMetrics.
type BackpressureInfo struct {
	// Status is "ok", or "deprecated" when Flink has no (fresh) data yet.
	Status string
	// Level is "ok" (ratio ≤ 0.10), "low" (≤ 0.5) or "high".
	Level    string
	EndMs    int64
	Subtasks []BackpressureSubtask
}

// Available reports whether Flink had data for this vertex.
func (b BackpressureInfo) Available() bool { return b.Status == "ok" }

// BackpressureSubtask is one subtask's share of time backpressured, idle and busy (0..1). A
// ratio Flink did not give (or gave as NaN) is nil.
type BackpressureSubtask struct {
	Subtask   int
	Level     string
	Ratio     *float64
	IdleRatio *float64
	BusyRatio *float64
}

// Backpressure returns the vertex's backpressure as Flink's web UI shows it.
func (c *Client) Backpressure(ctx context.Context, jid, vid string) (BackpressureInfo, error) {
	if err := checkID("job id", jid); err != nil {
		return BackpressureInfo{}, err
	}
	if err := checkID("vertex id", vid); err != nil {
		return BackpressureInfo{}, err
	}
	path := "/jobs/" + url.PathEscape(jid) + "/vertices/" + url.PathEscape(vid) + "/backpressure"
	var resp struct {
		Status   string `json:"status"`
		Level    string `json:"backpressureLevel"`
		LevelOld string `json:"backpressure-level"` // the name before 1.13
		EndMs    int64  `json:"end-timestamp"`
		Subtasks []struct {
			Subtask   int             `json:"subtask"`
			Level     string          `json:"backpressureLevel"`
			LevelOld  string          `json:"backpressure-level"`
			Ratio     json.RawMessage `json:"ratio"`
			IdleRatio json.RawMessage `json:"idleRatio"`
			BusyRatio json.RawMessage `json:"busyRatio"`
		} `json:"subtasks"`
	}
	if err := c.getLenient(ctx, "/jobs/:jid/vertices/:vid/backpressure", path, nil, &resp); err != nil {
		return BackpressureInfo{}, err
	}
	out := BackpressureInfo{Status: resp.Status, Level: firstNonEmpty(resp.Level, resp.LevelOld), EndMs: positive(resp.EndMs)}
	for _, s := range resp.Subtasks {
		if s.Subtask < 0 {
			return BackpressureInfo{}, fmt.Errorf("flink: GET %s: negative subtask index %d", path, s.Subtask)
		}
		out.Subtasks = append(out.Subtasks, BackpressureSubtask{
			Subtask:   s.Subtask,
			Level:     firstNonEmpty(s.Level, s.LevelOld),
			Ratio:     finitePtr(s.Ratio),
			IdleRatio: finitePtr(s.IdleRatio),
			BusyRatio: finitePtr(s.BusyRatio),
		})
	}
	return out, nil
}

// Samples turns per-subtask ratios into metric samples in ms per second, the unit of
// backPressuredTimeMsPerSecond, idleTimeMsPerSecond and busyTimeMsPerSecond, so they line up with
// VertexMetrics and the Prometheus reporter.
func (b BackpressureInfo) Samples(cluster, jid, vid string, nowMs int64) []model.MetricSample {
	if !b.Available() {
		return nil
	}
	if nowMs == 0 {
		nowMs = time.Now().UnixMilli()
	}
	var out []model.MetricSample
	add := func(subtask int, metric string, v *float64) {
		if v == nil || math.IsInf(*v*1000, 0) { // a ratio past 1.8e305 overflows in ms
			return
		}
		out = append(out, model.MetricSample{
			Cluster: cluster, JobID: jid, VertexID: vid, Subtask: subtask,
			Metric: metric, TimeMs: nowMs, Value: *v * 1000, Source: "rest",
		})
	}
	for _, s := range b.Subtasks {
		add(s.Subtask, model.MetricBackPressuredMsPerSec, s.Ratio)
		add(s.Subtask, model.MetricIdleMsPerSec, s.IdleRatio)
		add(s.Subtask, model.MetricBusyMsPerSec, s.BusyRatio)
	}
	return out
}

// finite parses a JSON number, or a string holding one, and reports false for null, missing,
// unparsable, NaN and ±Inf values.
func finite(raw json.RawMessage) (float64, bool) {
	s := strings.TrimSpace(string(raw))
	if s == "" || s == "null" {
		return 0, false
	}
	if unq, err := strconv.Unquote(s); err == nil {
		s = unq
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, false
	}
	return v, true
}

func finitePtr(raw json.RawMessage) *float64 {
	if v, ok := finite(raw); ok {
		return &v
	}
	return nil
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
