// Package prometheus reads the history of a Flink job's backpressure and checkpoint metrics
// from a Prometheus server (or anything serving its HTTP API: Thanos, Mimir, VictoriaMetrics),
// and scrapes Flink's Prometheus reporter endpoints directly when there is no server.
//
// Samples come out as model.MetricSample under the same metric names and aggregations the REST
// collector stores (per vertex, max and avg over subtasks), so the same analysis and views work
// whichever source filled the cache. Like the other sources it does not poll, cache or retry.
package prometheus

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/api"
	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	pmodel "github.com/prometheus/common/model"

	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/source/restclient"
)

// Defaults applied by New to zero Config fields.
const (
	DefaultTimeout = 10 * time.Second
	// DefaultMinStep is Prometheus' default scrape interval.
	DefaultMinStep      = 15 * time.Second
	DefaultMaxBodyBytes = 64 << 20
	DefaultUserAgent    = "checkpoint-explorer"
)

// MaxPoints is the most points per series Range asks for: window/MaxPoints is the step, unless
// that is shorter than MinStep.
const MaxPoints = 600

// SourceName is the Source of every sample Client returns.
const SourceName = "prometheus"

// seriesLabel tags each sub-query's result with "metric/agg", so one request carries many series.
const seriesLabel = "ce_series"

// Config says how to reach one Prometheus HTTP API.
type Config struct {
	// URL is the server's root, e.g. http://127.0.0.1:9090 (a path prefix behind a proxy is kept).
	URL  string
	Auth model.Auth
	// CAFile is a PEM bundle trusted instead of the system roots.
	CAFile             string
	InsecureSkipVerify bool
	// Timeout bounds each request and is sent as the query's own timeout; default DefaultTimeout.
	Timeout time.Duration
	// Names are the metric and label names to query; empty fields take DefaultNames().
	Names MetricNames

	// MinStep is the smallest step (the scrape interval: a shorter step only repeats samples),
	// at least 1s; default DefaultMinStep.
	MinStep time.Duration
	// Cluster, when set, is stamped on every sample.
	Cluster string
	// MaxBodyBytes refuses larger responses; default DefaultMaxBodyBytes.
	MaxBodyBytes int64
	UserAgent    string
	// Headers are sent with every request (e.g. X-Scope-OrgID for a multi-tenant Mimir).
	Headers map[string]string
	// OnRequest, when set, is called after every request (from the calling goroutine).
	OnRequest func(RequestInfo)
}

// RequestInfo describes one finished request, for the app's own metrics.
type RequestInfo struct {
	// Endpoint is the API path, e.g. "/api/v1/query_range".
	Endpoint string
	// Status is the HTTP status, 0 when no response arrived.
	Status   int
	Duration time.Duration
	Bytes    int64
	Err      error
}

// Client queries one Prometheus server. It is safe for concurrent use.
type Client struct {
	cfg    Config
	raw    api.Client // for endpoints whose fields v1.API does not decode
	api    v1.API
	names  MetricNames
	redact restclient.Secrets
}

// New validates cfg and builds a client. It does not contact the server (see Check).
func New(cfg Config) (*Client, error) {
	cfg.Timeout = cmp.Or(cfg.Timeout, DefaultTimeout)
	cfg.MinStep = cmp.Or(cfg.MinStep, DefaultMinStep)
	cfg.MaxBodyBytes = cmp.Or(cfg.MaxBodyBytes, DefaultMaxBodyBytes)
	cfg.UserAgent = cmp.Or(cfg.UserAgent, DefaultUserAgent)
	switch {
	case cfg.Timeout < 0:
		return nil, errors.New("prometheus: negative Timeout")
	case cfg.MaxBodyBytes < 0:
		return nil, errors.New("prometheus: negative MaxBodyBytes")
	case cfg.MinStep < time.Second || cfg.MinStep%time.Second != 0:
		return nil, fmt.Errorf("prometheus: MinStep %s: want whole seconds, at least 1s (the scrape interval)", cfg.MinStep)
	}
	base, err := parseURL("Prometheus URL", cfg.URL, "http://127.0.0.1:9090")
	if err != nil {
		return nil, err
	}
	cfg.URL = base
	if err := cfg.Names.Validate(); err != nil {
		return nil, err
	}

	header := http.Header{}
	header.Set("User-Agent", cfg.UserAgent)
	for k, v := range cfg.Headers {
		header.Set(k, v)
	}
	authorization, secrets, err := restclient.Authorization(cfg.Auth)
	if err != nil {
		return nil, fmt.Errorf("prometheus: %w", err)
	}
	if authorization != "" {
		header.Set("Authorization", authorization)
	}

	base0, err := baseTransport(cfg.CAFile, cfg.InsecureSkipVerify)
	if err != nil {
		return nil, err
	}
	hc := &http.Client{
		Timeout:   cfg.Timeout,
		Transport: &transport{next: base0, header: header, maxBody: cfg.MaxBodyBytes},
	}
	ac, err := api.NewClient(api.Config{Address: cfg.URL, Client: hc})
	if err != nil {
		return nil, fmt.Errorf("prometheus: %w", err)
	}
	return &Client{cfg: cfg, raw: ac, api: v1.NewAPI(ac), names: cfg.Names.withDefaults(), redact: secrets}, nil
}

// URL returns the normalised server root the client talks to.
func (c *Client) URL() string { return c.cfg.URL }

// MinStep returns the smallest step the client queries with.
func (c *Client) MinStep() time.Duration { return c.cfg.MinStep }

// Check asks the server for vector(1) and says, if it cannot, whether it is down, slow,
// refusing the credentials, failing, or not a Prometheus API at all.
func (c *Client) Check(ctx context.Context) error {
	var val pmodel.Value
	err := c.call(ctx, "check", "/api/v1/query", func(ctx context.Context) (v1.Warnings, error) {
		v, w, _, err := c.api.Query(ctx, "vector(1)", time.Time{}, v1.WithTimeout(c.cfg.Timeout))
		val = v
		return w, err
	})
	if err != nil {
		return err
	}
	if vec, ok := val.(pmodel.Vector); !ok || len(vec) != 1 || vec[0].Value != 1 {
		return &Error{Op: "check", URL: c.cfg.URL, Kind: ErrNotPrometheus,
			Msg: fmt.Sprintf("vector(1) evaluated to %s, not 1: not a Prometheus API (want the server's root, e.g. http://127.0.0.1:9090)", cleanText(fmt.Sprint(val)))}
	}
	return nil
}

// Backpressure returns, per vertex, backPressuredTimeMsPerSecond, busyTimeMsPerSecond,
// idleTimeMsPerSecond and isBackPressured in [fromMs, toMs] (epoch ms), each as max and avg over
// the vertex's subtasks (Subtask -1, VertexID = task_id), one point per step (StepFor).
func (c *Client) Backpressure(ctx context.Context, jobID string, fromMs, toMs int64) ([]model.MetricSample, error) {
	return c.Range(ctx, jobID, fromMs, toMs, SeriesBackpressure)
}

// Range returns the selected series of the job in [fromMs, toMs] (epoch ms) in one request, one
// point per step (StepFor), sorted by vertex, metric, aggregation and time. Each point is the
// max (or avg) over the step, so short peaks between points are not lost.
//
// With ErrPartial (the server sent warnings) the samples are returned with the error: they are
// real, but may miss series. With any other error there are no samples.
func (c *Client) Range(ctx context.Context, jobID string, fromMs, toMs int64, set Series) ([]model.MetricSample, error) {
	if err := checkJobID(jobID); err != nil {
		return nil, err
	}
	if err := checkWindow(fromMs, toMs); err != nil {
		return nil, err
	}
	step := StepFor(time.Duration(toMs-fromMs)*time.Millisecond, c.cfg.MinStep)
	return c.rangeQuery(ctx, jobID, fromMs, toMs, step, set)
}

// Value evaluates a user's PromQL expression at a moment and returns the
// largest value of the series it gives (false when it gives none, or only
// NaN). It is how a custom lane of a job's timeline is sampled.
func (c *Client) Value(ctx context.Context, query string, at time.Time) (float64, bool, error) {
	if strings.TrimSpace(query) == "" {
		return 0, false, errors.New("prometheus: empty query")
	}
	var val pmodel.Value
	err := c.call(ctx, "query", "/api/v1/query", func(ctx context.Context) (v1.Warnings, error) {
		v, w, _, err := c.api.Query(ctx, query, at, v1.WithTimeout(c.cfg.Timeout))
		val = v
		return w, err
	})
	if err != nil && !errors.Is(err, ErrPartial) {
		return 0, false, err
	}
	best, ok := math.Inf(-1), false
	take := func(v pmodel.SampleValue) {
		f := float64(v)
		if !math.IsNaN(f) && !math.IsInf(f, 0) && f > best {
			best, ok = f, true
		}
	}
	switch v := val.(type) {
	case pmodel.Vector:
		for _, s := range v {
			take(s.Value)
		}
	case *pmodel.Scalar:
		take(v.Value)
	case pmodel.Matrix:
		return 0, false, fmt.Errorf("prometheus: query %q gives a range vector; give an instant one (drop the [range], or wrap it in a function such as rate)", query)
	}
	if !ok {
		return 0, false, err
	}
	return best, true, err
}

// StepFor returns the step for a window: window/MaxPoints rounded up to whole seconds, and never
// below minStep.
func StepFor(window, minStep time.Duration) time.Duration {
	step := (window + MaxPoints - 1) / MaxPoints
	if r := step % time.Second; r != 0 {
		step += time.Second - r
	}
	return max(step, minStep)
}

func checkWindow(fromMs, toMs int64) error {
	if fromMs <= 0 || toMs <= fromMs {
		return fmt.Errorf("prometheus: bad time range [%d, %d] ms: want 0 < from < to", fromMs, toMs)
	}
	return nil
}

// rangeQuery runs the query for set over [fromMs, toMs] widened to multiples of step, so
// repeated and neighbouring windows ask for the same points (and caching front ends hit).
func (c *Client) rangeQuery(ctx context.Context, jobID string, fromMs, toMs int64, step time.Duration, set Series) ([]model.MetricSample, error) {
	specs := c.pick(set)
	if len(specs) == 0 {
		return nil, nil
	}
	stepMs := step.Milliseconds()
	start := fromMs / stepMs * stepMs
	end := (toMs + stepMs - 1) / stepMs * stepMs
	// The range covers one scrape interval more than the step, so a sample arriving a little late
	// still falls into some point's window.
	query := buildQuery(c.names, specs, jobID, step+c.cfg.MinStep)

	var val pmodel.Value
	err := c.call(ctx, "query_range", "/api/v1/query_range", func(ctx context.Context) (v1.Warnings, error) {
		r := v1.Range{Start: time.UnixMilli(start), End: time.UnixMilli(end), Step: step}
		v, w, _, err := c.api.QueryRange(ctx, query, r, v1.WithTimeout(c.cfg.Timeout))
		val = v
		return w, err
	})
	if err != nil && !errors.Is(err, ErrPartial) {
		return nil, err
	}
	samples, cerr := c.convert(val, jobID, specs)
	if cerr != nil {
		return nil, cerr
	}
	return samples, err
}

func (c *Client) pick(set Series) []series {
	var out []series
	for _, s := range c.names.series() {
		if s.group&set != 0 {
			out = append(out, s)
		}
	}
	return out
}

// buildQuery joins one sub-query per metric and aggregation with "or", each tagged with
// seriesLabel. Per task metric:
//
//	max by (task) (max_over_time(m{job="J"}[r]) >= 0)
//	avg by (task) (max by (task, subtask) (avg_over_time(m{job="J"}[r]) >= 0))
//
// ">= 0" drops NaN (busyTimeMsPerSecond can be NaN) and Flink's -1 for "none yet"; the inner max
// by subtask counts a subtask once even if two scrape jobs or attempts export it. Job metrics
// are max by (job) (max_over_time(m{job="J"}[r]) >= 0).
func buildQuery(n MetricNames, specs []series, jobID string, r time.Duration) string {
	rng := pmodel.Duration(r).String()
	over := func(fn string, names []string) string {
		parts := make([]string, len(names))
		for i, name := range names {
			parts[i] = fmt.Sprintf(`%s(%s{%s="%s"}[%s])`, fn, name, n.JobLabel, jobID, rng)
		}
		if len(parts) == 1 {
			return parts[0]
		}
		return "(" + strings.Join(parts, " or ") + ")"
	}
	tag := func(expr, metric, agg string) string {
		return fmt.Sprintf(`label_replace(%s, "%s", "%s/%s", "", "")`, expr, seriesLabel, metric, agg)
	}
	var parts []string
	for _, s := range specs {
		switch s.scope {
		case scopeTask:
			parts = append(parts,
				tag(fmt.Sprintf("max by (%s) (%s >= 0)", n.TaskLabel, over("max_over_time", s.prom)), s.metric, model.AggMax),
				tag(fmt.Sprintf("avg by (%s) (max by (%s, %s) (%s >= 0))", n.TaskLabel, n.TaskLabel, n.SubtaskLabel,
					over("avg_over_time", s.prom)), s.metric, model.AggAvg))
		case scopeJob:
			parts = append(parts, tag(fmt.Sprintf("max by (%s) (%s >= 0)", n.JobLabel, over("max_over_time", s.prom)), s.metric, model.AggNone))
		}
	}
	return strings.Join(parts, "\nor ")
}

// convert turns a range query's matrix into samples.
func (c *Client) convert(val pmodel.Value, jobID string, specs []series) ([]model.MetricSample, error) {
	if val == nil {
		// Prometheus always sends data, if only an empty matrix: this JSON came from another API.
		return nil, &Error{Op: "query_range", URL: c.cfg.URL, Kind: ErrNotPrometheus,
			Msg: "the answer has no data: not a Prometheus API (want the server's root, e.g. http://127.0.0.1:9090)"}
	}
	matrix, ok := val.(pmodel.Matrix)
	if !ok {
		return nil, &Error{Op: "query_range", URL: c.cfg.URL, Kind: ErrNotPrometheus,
			Msg: fmt.Sprintf("range query answered a %s, want a matrix", val.Type())}
	}
	byMetric := make(map[string]series, len(specs))
	for _, s := range specs {
		byMetric[s.metric] = s
	}
	// Prometheus sends each series' points in time order: sorting the series, not the points,
	// gives the sorted result.
	type stream struct {
		vertex, metric, agg string
		spec                series
		values              []pmodel.SamplePair
	}
	streams := make([]stream, 0, len(matrix))
	noVertex, total := 0, 0
	for _, ss := range matrix {
		metric, agg, _ := strings.Cut(string(ss.Metric[seriesLabel]), "/")
		spec, ok := byMetric[metric]
		if !ok {
			continue // not ours: cannot happen with our query, and must not poison the rest
		}
		vertex := ""
		if spec.scope == scopeTask {
			vertex = string(ss.Metric[pmodel.LabelName(c.names.TaskLabel)])
			if vertex == "" {
				noVertex++
				continue
			}
		}
		streams = append(streams, stream{vertex, metric, agg, spec, ss.Values})
		total += len(ss.Values)
	}
	if noVertex > 0 && len(streams) == 0 {
		return nil, fmt.Errorf("prometheus: query_range %s: %d series of job %s have no %q label: set Names.TaskLabel to the label holding the JobVertexID",
			c.cfg.URL, noVertex, jobID, c.names.TaskLabel)
	}
	slices.SortFunc(streams, func(a, b stream) int {
		return cmp.Or(strings.Compare(a.vertex, b.vertex), strings.Compare(a.metric, b.metric), strings.Compare(a.agg, b.agg))
	})
	out := make([]model.MetricSample, 0, total)
	for _, st := range streams {
		for _, p := range st.values {
			v := float64(p.Value) * st.spec.scale
			if math.IsNaN(v) || math.IsInf(v, 0) || p.Timestamp < 0 { // no sample before 1970 can be stored
				continue
			}
			out = append(out, model.MetricSample{
				Cluster: c.cfg.Cluster, JobID: jobID, VertexID: st.vertex, Subtask: -1,
				Metric: st.metric, Agg: st.agg, TimeMs: int64(p.Timestamp), Value: v, Source: SourceName,
			})
		}
	}
	if !slices.IsSortedFunc(out, compareSamples) {
		// Points out of time order (not from Prometheus itself, but the API may be another's).
		sortSamples(out)
	}
	return out, nil
}

// compareSamples orders samples by vertex, metric, aggregation and time.
func compareSamples(a, b model.MetricSample) int {
	return cmp.Or(strings.Compare(a.VertexID, b.VertexID), strings.Compare(a.Metric, b.Metric),
		strings.Compare(a.Agg, b.Agg), cmp.Compare(a.TimeMs, b.TimeMs))
}

// sortSamples orders samples by vertex, metric, aggregation and time.
func sortSamples(s []model.MetricSample) { slices.SortFunc(s, compareSamples) }

// call runs one API request and turns whatever went wrong into an *Error, warnings included.
func (c *Client) call(ctx context.Context, op, endpoint string, f func(context.Context) (v1.Warnings, error)) (err error) {
	ex := &exchange{}
	start := time.Now()
	defer func() {
		if c.cfg.OnRequest != nil {
			c.cfg.OnRequest(RequestInfo{Endpoint: endpoint, Status: ex.status, Duration: time.Since(start),
				Bytes: ex.bytes.Load(), Err: err})
		}
	}()
	warnings, err := f(context.WithValue(ctx, exchangeKey{}, ex))
	timeout := c.cfg.Timeout.String() + " (Timeout)"
	var apiErr *v1.Error
	switch {
	case err == nil && len(warnings) > 0:
		err = &Error{Op: op, URL: c.cfg.URL, Kind: ErrPartial, Status: ex.status,
			Msg: fmt.Sprintf("partial data, %d warning(s): %s", len(warnings), cleanText(strings.Join(warnings, "; ")))}
	case err == nil:
	case errors.As(err, &apiErr):
		err = apiError(op, c.cfg.URL, ex.respInfo, timeout, apiErr)
	default:
		err = transportError(op, c.cfg.URL, timeout, err)
	}
	return redact(c.redact, err)
}

// exchange records what the transport saw of a request, for error messages and OnRequest.
type exchange struct {
	respInfo
	bytes atomic.Int64 // written by the body reader, which may outlive the call
}

type respInfo struct {
	status      int
	contentType string
	path        string
}

type exchangeKey struct{}

// transport adds headers and bounds response bodies.
type transport struct {
	next    http.RoundTripper
	header  http.Header
	maxBody int64
}

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context()) // a RoundTripper must not change the caller's request
	for k, v := range t.header {
		req.Header[k] = v
	}
	resp, err := t.next.RoundTrip(req)
	ex, _ := req.Context().Value(exchangeKey{}).(*exchange)
	if ex != nil {
		ex.path = req.URL.Path
	}
	if err != nil {
		return nil, err
	}
	if ex != nil {
		ex.status = resp.StatusCode
		ex.contentType = resp.Header.Get("Content-Type")
	}
	if resp.ContentLength > t.maxBody {
		resp.Body.Close()
		return nil, fmt.Errorf("%w: %d bytes announced, limit %d (MaxBodyBytes)", errTooLarge, resp.ContentLength, t.maxBody)
	}
	resp.Body = &limitedBody{rc: resp.Body, left: t.maxBody, limit: t.maxBody, ex: ex}
	return resp, nil
}

// limitedBody fails a read past limit instead of truncating silently.
type limitedBody struct {
	rc          io.ReadCloser
	left, limit int64
	ex          *exchange
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if b.left < 0 {
		return 0, fmt.Errorf("%w of %d bytes (MaxBodyBytes)", errTooLarge, b.limit)
	}
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	if b.ex != nil {
		b.ex.bytes.Add(int64(n))
	}
	if b.left < 0 {
		return n, fmt.Errorf("%w of %d bytes (MaxBodyBytes)", errTooLarge, b.limit)
	}
	return n, err
}

func (b *limitedBody) Close() error { return b.rc.Close() }

func baseTransport(caFile string, insecure bool) (*http.Transport, error) {
	t, err := restclient.Transport(caFile, insecure)
	if err != nil {
		return nil, fmt.Errorf("prometheus: %w", err)
	}
	return t, nil
}

// parseURL checks an http(s) URL and returns it without a trailing slash.
func parseURL(what, raw, example string) (string, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return "", fmt.Errorf("prometheus: empty %s (want e.g. %s)", what, example)
	}
	u, err := url.Parse(raw)
	if err != nil {
		// url.Parse echoes its input, which may hold credentials: say only what is wrong.
		return "", fmt.Errorf("prometheus: %s does not parse (want e.g. %s)", what, example)
	}
	switch {
	case u.User != nil:
		return "", fmt.Errorf("prometheus: %s must not contain credentials; use Auth", what)
	case u.Scheme != "http" && u.Scheme != "https":
		return "", fmt.Errorf("prometheus: %s scheme %q, want http or https (e.g. %s)", what, u.Scheme, example)
	case u.Host == "":
		return "", fmt.Errorf("prometheus: %s has no host (want e.g. %s)", what, example)
	case u.RawQuery != "" || u.Fragment != "":
		return "", fmt.Errorf("prometheus: %s must not have a query or fragment", what)
	}
	u.Path = strings.TrimRight(u.Path, "/")
	u.RawPath = ""
	return u.String(), nil
}

// WithMinStep returns a copy of the client that queries with step d (whole
// seconds, at least 1s), e.g. the server's ScrapeInterval.
func (c *Client) WithMinStep(d time.Duration) (*Client, error) {
	if d < time.Second || d%time.Second != 0 {
		return nil, fmt.Errorf("prometheus: MinStep %s: want whole seconds, at least 1s (the scrape interval)", d)
	}
	cp := *c
	cp.cfg.MinStep = d
	return &cp, nil
}

// ScrapeInterval asks the server how often it scrapes its active targets
// (/api/v1/targets, whose scrapeInterval Prometheus reports since 2.2x) and
// returns the shortest interval of the targets that are up, rounded up to
// whole seconds: the finest step its data supports. It fails when the server
// does not say — an older Prometheus, or a query front end without targets
// (Thanos Query, Mimir) — and callers keep MinStep then.
func (c *Client) ScrapeInterval(ctx context.Context) (time.Duration, error) {
	var shortest time.Duration
	err := c.call(ctx, "targets", "/api/v1/targets", func(ctx context.Context) (v1.Warnings, error) {
		u := c.raw.URL("/api/v1/targets", nil)
		u.RawQuery = "state=active"
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
		if err != nil {
			return nil, err
		}
		resp, body, err := c.raw.Do(ctx, req)
		if err != nil {
			return nil, err
		}
		if resp.StatusCode/100 != 2 {
			return nil, fmt.Errorf("HTTP %d: %s", resp.StatusCode, restclient.Snippet(body, 200))
		}
		var out struct {
			Status string `json:"status"`
			Data   struct {
				ActiveTargets []struct {
					ScrapeInterval string `json:"scrapeInterval"`
					Health         string `json:"health"`
				} `json:"activeTargets"`
			} `json:"data"`
		}
		if err := json.Unmarshal(body, &out); err != nil || out.Status != "success" {
			return nil, fmt.Errorf("not a targets answer: %s", restclient.Snippet(body, 200))
		}
		for _, t := range out.Data.ActiveTargets {
			if t.Health != "up" || t.ScrapeInterval == "" {
				continue
			}
			d, err := pmodel.ParseDuration(t.ScrapeInterval)
			if err != nil || d <= 0 {
				return nil, fmt.Errorf("target scrape interval %q: %v", t.ScrapeInterval, err)
			}
			if shortest == 0 || time.Duration(d) < shortest {
				shortest = time.Duration(d)
			}
		}
		if shortest == 0 {
			return nil, errors.New("no target that is up reports its scrape interval")
		}
		return nil, nil
	})
	if err != nil {
		return 0, err
	}
	return max(time.Second, (shortest+time.Second-1)/time.Second*time.Second), nil
}
