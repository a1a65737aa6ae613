package prometheus

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"mime"
	"net/http"
	"sync"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	pmodel "github.com/prometheus/common/model"

	"checkpoint-explorer/backend/model"
)

// ReporterSource is the Source of every sample a Scraper returns.
const ReporterSource = "reporter"

// DefaultScrapeConcurrency caps reporter requests in flight when no Budget does.
const DefaultScrapeConcurrency = 4

// Budget is what every reporter request is spent against; *collect.Budget is one.
type Budget interface {
	Acquire(ctx context.Context) (release func(), err error)
}

// Scraper reads Flink's Prometheus reporter endpoints (JobManager and TaskManagers) directly,
// for clusters without a Prometheus server. The zero value works. It is safe for concurrent use
// once configured.
type Scraper struct {
	// HTTP does the requests; nil means a client with DefaultTimeout.
	HTTP *http.Client
	// Budget, when set, is acquired for every request.
	Budget Budget
	// Names are the names to read; empty fields take DefaultNames(). Reporters are not relabelled,
	// so this rarely needs setting.
	Names MetricNames
	// Cluster, when set, is stamped on every sample.
	Cluster string
	// MaxBodyBytes refuses larger reporter pages; default DefaultMaxBodyBytes.
	MaxBodyBytes int64
	// Now stamps the samples; default time.Now.
	Now func() time.Time
}

// Scrape fetches every url (reporter endpoints, e.g. http://tm:9249/metrics), keeps the job's
// series of the metrics Client reads, and returns per vertex the max and avg over subtasks
// across all endpoints (the subtasks of a vertex are spread over TaskManagers), plus the
// JobManager's job-level gauges, all stamped with the time the last answer arrived. Units are
// converted as Client converts them; NaN values are skipped.
//
// If some endpoints fail, the samples from the others are returned with an error naming each
// failed URL: aggregates over fewer subtasks are real but incomplete.
func (s *Scraper) Scrape(ctx context.Context, jobID string, urls ...string) ([]model.MetricSample, error) {
	if err := checkJobID(jobID); err != nil {
		return nil, err
	}
	if err := s.Names.Validate(); err != nil {
		return nil, err
	}
	if len(urls) == 0 {
		return nil, errors.New("prometheus: scrape: no reporter URLs")
	}
	targets := make([]string, len(urls))
	for i, u := range urls {
		norm, err := parseURL("reporter URL", u, "http://127.0.0.1:9249/metrics")
		if err != nil {
			return nil, err
		}
		targets[i] = norm
	}
	names := s.Names.withDefaults()
	want := scrapeIndex(names)

	agg := newAggregator(names)
	var (
		mu   sync.Mutex
		errs = make([]error, len(targets))
		wg   sync.WaitGroup
		sem  = make(chan struct{}, DefaultScrapeConcurrency)
	)
	for i, u := range targets {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			families, err := s.fetch(ctx, u, want)
			if err != nil {
				errs[i] = err
				return
			}
			mu.Lock()
			defer mu.Unlock()
			agg.add(families, want, jobID)
		}()
	}
	wg.Wait()

	now := time.Now
	if s.Now != nil {
		now = s.Now
	}
	out := agg.samples(s.Cluster, jobID, now().UnixMilli())
	if err := errors.Join(errs...); err != nil {
		if len(out) == 0 {
			return nil, err
		}
		return out, err
	}
	return out, nil
}

// Scrape is (&Scraper{HTTP: hc}).Scrape(ctx, jobID, urls...).
func Scrape(ctx context.Context, hc *http.Client, jobID string, urls ...string) ([]model.MetricSample, error) {
	s := Scraper{HTTP: hc}
	return s.Scrape(ctx, jobID, urls...)
}

// scrapeIndex maps every Prometheus name to read to its series.
func scrapeIndex(n MetricNames) map[string]series {
	idx := map[string]series{}
	for _, s := range n.series() {
		for _, p := range s.prom {
			idx[p] = s
		}
	}
	return idx
}

// fetch GETs one reporter page and parses the families in want.
func (s *Scraper) fetch(ctx context.Context, url string, want map[string]series) (map[string]*dto.MetricFamily, error) {
	fail := func(kind error, status int, msg string, cause error) error {
		return &Error{Op: "scrape", URL: url, Kind: kind, Status: status, Msg: msg, cause: cause}
	}
	hc := s.HTTP
	if hc == nil {
		hc = &http.Client{Timeout: DefaultTimeout}
	}
	timeout := "the time allowed"
	if hc.Timeout > 0 {
		timeout = hc.Timeout.String() + " (the HTTP client's Timeout)"
	}
	if s.Budget != nil {
		release, err := s.Budget.Acquire(ctx)
		if err != nil {
			return nil, fmt.Errorf("prometheus: scrape %s: request budget: %w", url, err)
		}
		defer release()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, fail(ErrUnreachable, 0, "bad request: "+err.Error(), err)
	}
	// The classic text format: what Flink's reporter speaks, and what we parse.
	req.Header.Set("Accept", "text/plain;version=0.0.4;q=1,*/*;q=0.1")
	req.Header.Set("User-Agent", DefaultUserAgent)
	resp, err := hc.Do(req)
	if err != nil {
		return nil, transportError("scrape", url, timeout, err)
	}
	defer resp.Body.Close()

	limit := s.MaxBodyBytes
	if limit <= 0 {
		limit = DefaultMaxBodyBytes
	}
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, maxMessage))
		kind := ErrNotPrometheus
		if resp.StatusCode/100 == 5 {
			kind = ErrQuery
		} else if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden {
			kind = ErrAuth
		}
		return nil, fail(kind, resp.StatusCode, fmt.Sprintf("HTTP %d %s: %s", resp.StatusCode,
			http.StatusText(resp.StatusCode), cleanText(string(body))), nil)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "" {
		mt, _, _ := mime.ParseMediaType(ct)
		if mt != "text/plain" {
			return nil, fail(ErrNotPrometheus, resp.StatusCode,
				fmt.Sprintf("Content-Type %q, want the Prometheus text format (text/plain): is this a Flink reporter endpoint?", ct), nil)
		}
	}
	filtered, err := filterExposition(io.LimitReader(resp.Body, limit+1), limit, want)
	if err != nil {
		if errors.Is(err, errTooLarge) {
			return nil, fail(ErrTooLarge, resp.StatusCode, err.Error(), err)
		}
		if errors.Is(err, errNotText) {
			return nil, fail(ErrNotPrometheus, resp.StatusCode, err.Error(), err)
		}
		return nil, transportError("scrape", url, timeout, err)
	}
	parser := expfmt.NewTextParser(pmodel.UTF8Validation)
	families, err := parser.TextToMetricFamilies(bytes.NewReader(filtered))
	if err != nil {
		return nil, fail(ErrNotPrometheus, resp.StatusCode, "not the Prometheus text format: "+cleanText(err.Error()), err)
	}
	return families, nil
}

var errNotText = errors.New("not the Prometheus text format")

// filterExposition copies the lines of the families in want (samples, HELP and TYPE), so the
// parser builds only what is used: a TaskManager page holds hundreds of families per task. Lines
// are self-contained in the text format (newlines in label values are escaped), so this is exact.
func filterExposition(r io.Reader, limit int64, want map[string]series) ([]byte, error) {
	var out bytes.Buffer
	br := bufio.NewReaderSize(r, 64<<10)
	var read int64
	first := true
	for {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// A line longer than the buffer: keep reading it whole.
			long := append([]byte(nil), line...)
			for errors.Is(err, bufio.ErrBufferFull) {
				line, err = br.ReadSlice('\n')
				long = append(long, line...)
			}
			line = long
		}
		read += int64(len(line))
		if read > limit {
			return nil, fmt.Errorf("%w of %d bytes (MaxBodyBytes)", errTooLarge, limit)
		}
		if first && len(bytes.TrimSpace(line)) > 0 {
			first = false
			if t := bytes.TrimSpace(line); t[0] == '<' || t[0] == '{' || t[0] == '[' {
				return nil, fmt.Errorf("%w: the page starts with %q (HTML or JSON?)", errNotText, cleanText(string(t[:min(len(t), 40)])))
			}
		}
		if name := lineMetric(line); name != "" {
			if _, ok := want[name]; ok {
				out.Write(line)
				if line[len(line)-1] != '\n' {
					out.WriteByte('\n')
				}
			}
		}
		if err == io.EOF {
			return out.Bytes(), nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// lineMetric returns the metric name a sample, HELP or TYPE line is about, or "".
func lineMetric(line []byte) string {
	if bytes.HasPrefix(line, []byte("# HELP ")) || bytes.HasPrefix(line, []byte("# TYPE ")) {
		rest := line[len("# HELP "):]
		if i := bytes.IndexAny(rest, " \t\n"); i >= 0 {
			rest = rest[:i]
		}
		return string(rest)
	}
	if len(line) == 0 || line[0] == '#' {
		return ""
	}
	i := bytes.IndexAny(line, "{ \t\n")
	if i < 0 {
		return string(line)
	}
	return string(line[:i])
}

// aggregator folds reporter series into per-vertex max and avg over subtasks.
type aggregator struct {
	names MetricNames
	// task[metric][vertex][subtask] = value (max over duplicates of one subtask)
	task map[string]map[string]map[string]float64
	// job[metric] = value
	job map[string]float64
}

func newAggregator(n MetricNames) *aggregator {
	return &aggregator{names: n, task: map[string]map[string]map[string]float64{}, job: map[string]float64{}}
}

func (a *aggregator) add(families map[string]*dto.MetricFamily, want map[string]series, jobID string) {
	for name, fam := range families {
		spec, ok := want[name]
		if !ok {
			continue
		}
		for _, m := range fam.GetMetric() {
			v, ok := value(fam.GetType(), m)
			if !ok || v < 0 { // NaN, or Flink's -1 for "none yet"
				continue
			}
			v *= spec.scale
			labels := map[string]string{}
			for _, lp := range m.GetLabel() {
				labels[lp.GetName()] = lp.GetValue()
			}
			if labels[a.names.JobLabel] != jobID {
				continue
			}
			if spec.scope == scopeJob {
				if old, ok := a.job[spec.metric]; !ok || v > old {
					a.job[spec.metric] = v
				}
				continue
			}
			vertex := labels[a.names.TaskLabel]
			if vertex == "" {
				continue
			}
			byVertex := a.task[spec.metric]
			if byVertex == nil {
				byVertex = map[string]map[string]float64{}
				a.task[spec.metric] = byVertex
			}
			bySubtask := byVertex[vertex]
			if bySubtask == nil {
				bySubtask = map[string]float64{}
				byVertex[vertex] = bySubtask
			}
			sub := labels[a.names.SubtaskLabel]
			if old, ok := bySubtask[sub]; !ok || v > old {
				bySubtask[sub] = v
			}
		}
	}
}

func (a *aggregator) samples(cluster, jobID string, nowMs int64) []model.MetricSample {
	var out []model.MetricSample
	for metric, byVertex := range a.task {
		for vertex, bySubtask := range byVertex {
			hi, sum := math.Inf(-1), 0.0
			for _, v := range bySubtask {
				hi = max(hi, v)
				sum += v
			}
			base := model.MetricSample{Cluster: cluster, JobID: jobID, VertexID: vertex, Subtask: -1,
				Metric: metric, TimeMs: nowMs, Source: ReporterSource}
			n := float64(len(bySubtask))
			mean := sum / n
			if math.IsInf(sum, 0) {
				// Values near the float64 limit overflow the sum, not the mean.
				mean = 0
				for _, v := range bySubtask {
					mean += v / n
				}
			}
			mx, avg := base, base
			mx.Agg, mx.Value = model.AggMax, hi
			avg.Agg, avg.Value = model.AggAvg, mean
			out = append(out, mx, avg)
		}
	}
	for metric, v := range a.job {
		out = append(out, model.MetricSample{Cluster: cluster, JobID: jobID, Subtask: -1,
			Metric: metric, Agg: model.AggNone, TimeMs: nowMs, Value: v, Source: ReporterSource})
	}
	sortSamples(out)
	return out
}

// value reads a gauge, untyped or counter value; false for other types and non-finite values.
func value(t dto.MetricType, m *dto.Metric) (float64, bool) {
	var v float64
	switch t {
	case dto.MetricType_GAUGE:
		v = m.GetGauge().GetValue()
	case dto.MetricType_UNTYPED:
		v = m.GetUntyped().GetValue()
	case dto.MetricType_COUNTER:
		v = m.GetCounter().GetValue()
	default:
		return 0, false
	}
	return v, !math.IsNaN(v) && !math.IsInf(v, 0)
}
