package prometheus_test

// Tests against the real Prometheus from testenv/prometheus scraping the real Flink test
// cluster (testenv/flink) every second. Skipped only with CE_SKIP_REAL=1.

import (
	"context"
	"errors"
	"math"
	"net"
	"strings"
	"testing"
	"time"

	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/source/flink"
	"checkpoint-explorer/backend/source/prometheus"
	"checkpoint-explorer/testenv/promenv"
)

// observeFor is how long the backpressured job runs under observation.
const observeFor = 32 * time.Second

// restPoint is one REST subtasks/metrics reading.
type restPoint struct {
	ms    int64
	value float64
}

func TestRealPrometheus(t *testing.T) {
	pe := promenv.Ensure(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	fl, err := flink.New(flink.Config{BaseURL: pe.Flink.RESTURL})
	if err != nil {
		t.Fatal(err)
	}
	c := newClient(t, prometheus.Config{URL: pe.URL, MinStep: pe.ScrapeInterval, Cluster: "test"})
	if err := c.Check(ctx); err != nil {
		t.Fatalf("Check on the real server: %v", err)
	}
	// The server says how often it scrapes (the test server: every PROMETHEUS_SCRAPE_INTERVAL).
	if iv, err := c.ScrapeInterval(ctx); err != nil || iv != pe.ScrapeInterval {
		t.Errorf("ScrapeInterval on the real server = %s, %v; want %s", iv, err, pe.ScrapeInterval)
	}

	// "Slow Map" sleeps 5 ms per record behind an unthrottled source: it is busy all the time and
	// "Source: Numbers" is backpressured all the time.
	jid := submit(t, pe)
	job, err := fl.Job(ctx, jid)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]string{}
	for _, v := range job.Vertices {
		ids[v.Name] = v.ID
	}
	source, slowMap := ids["Source: Numbers"], ids["Slow Map"]
	if source == "" || slowMap == "" {
		t.Fatalf("vertices %+v lack Source: Numbers or Slow Map", job.Vertices)
	}

	// Watch REST while Prometheus scrapes, and scrape the reporters directly once midway.
	rest := map[string][]restPoint{} // "vertex/metric" → readings of the max over subtasks
	var scraped []model.MetricSample
	var scrapeErr error
	start := time.Now()
	// Let backpressure build, and Flink's metric fetcher (10 s) drop what it fetched at start-up.
	warm := start.Add(12 * time.Second)
	for time.Since(start) < observeFor {
		if time.Since(start) > observeFor/2 && scraped == nil && scrapeErr == nil {
			var s prometheus.Scraper
			scraped, scrapeErr = s.Scrape(ctx, jid, pe.Flink.JMPromURL, pe.Flink.TMPromURL)
		}
		if time.Now().After(warm) {
			for _, vid := range []string{source, slowMap} {
				ms, err := fl.VertexMetrics(ctx, jid, vid,
					[]string{model.MetricBackPressuredMsPerSec, model.MetricBusyMsPerSec}, 0)
				if err != nil {
					t.Fatal(err)
				}
				for _, m := range ms {
					if m.Agg == model.AggMax {
						rest[vid+"/"+m.Metric] = append(rest[vid+"/"+m.Metric], restPoint{m.TimeMs, m.Value})
					}
				}
			}
		}
		select {
		case <-ctx.Done():
			t.Fatal(ctx.Err())
		case <-time.After(2 * time.Second):
		}
	}
	// The last few seconds may still see a scrape land: leave them out, so repeated queries agree.
	fromMs, toMs := warm.UnixMilli(), time.Now().Add(-3*pe.ScrapeInterval).UnixMilli()

	var bp []model.MetricSample
	t.Run("backpressure range matches REST", func(t *testing.T) {
		// From the submission on: a REST reading can be up to 10 s old (Flink's metric fetcher),
		// so the first ones after warm-up compare with points from before it.
		bp, err = c.Backpressure(ctx, jid, start.UnixMilli(), toMs)
		if err != nil {
			t.Fatal(err)
		}
		warmed := func(s []model.MetricSample) []model.MetricSample {
			var out []model.MetricSample
			for _, x := range s {
				if x.TimeMs >= fromMs {
					out = append(out, x)
				}
			}
			return out
		}
		// Every vertex of the job, nothing of other jobs, as REST names them.
		for _, v := range job.Vertices {
			if len(pick(bp, v.ID, model.MetricBackPressuredMsPerSec, model.AggMax)) == 0 {
				t.Errorf("no backpressure series for vertex %s (%s)", v.Name, v.ID)
			}
		}
		for _, s := range bp {
			if _, ok := ids2names(job)[s.VertexID]; !ok || s.JobID != jid || s.Subtask != -1 ||
				s.Source != prometheus.SourceName || s.Cluster != "test" {
				t.Fatalf("sample %+v is not a per-vertex aggregate of job %s", s, jid)
			}
		}
		for _, tc := range []struct {
			vertex, metric string
		}{
			{source, model.MetricBackPressuredMsPerSec},
			{slowMap, model.MetricBusyMsPerSec},
		} {
			all := pick(bp, tc.vertex, tc.metric, model.AggMax)
			prom := warmed(all)
			restPts := rest[tc.vertex+"/"+tc.metric]
			if len(restPts) == 0 {
				t.Fatalf("REST gave no %s for %s", tc.metric, tc.vertex)
			}
			// One point per step over the window: the step is the scrape interval here.
			if want := int((toMs - fromMs) / pe.ScrapeInterval.Milliseconds()); len(prom) < want*8/10 {
				t.Errorf("%s %s: %d points over %d ms, want about %d", tc.vertex, tc.metric, len(prom), toMs-fromMs, want)
			}
			promAvg, restAvg := mean(values(prom)), mean(restValues(restPts))
			t.Logf("%s %s max over subtasks: Prometheus mean %.0f over %d points, REST mean %.0f over %d readings",
				ids2names(job)[tc.vertex], tc.metric, promAvg, len(prom), restAvg, len(restPts))
			if promAvg < 500 || restAvg < 500 {
				t.Errorf("%s: Prometheus %.0f, REST %.0f ms/s; want both > 500", tc.metric, promAvg, restAvg)
			}
			// Each REST reading is a value Flink's metric fetcher took in the 10 s before it, and
			// each Prometheus point the max or mean over a step: the reading lies within the
			// Prometheus points of those seconds (with a tolerance for the sampling instants).
			for _, r := range restPts {
				lo, hi, ok := between(all, r.ms-11_000, r.ms)
				if !ok || r.value < lo-100 || r.value > hi+100 {
					t.Errorf("%s: REST %.0f at %d outside the Prometheus points [%.0f, %.0f] of the 11 s before",
						tc.metric, r.value, r.ms, lo, hi)
				}
			}
		}
		// The idle source and sink are not backpressured: the signal is the source's own.
		sink := ids["Sink: Discard"]
		if hi := maxOf(values(warmed(pick(bp, sink, model.MetricBackPressuredMsPerSec, model.AggMax)))); hi > 100 {
			t.Errorf("sink backpressured %.0f ms/s, want ~0", hi)
		}
		if hi := maxOf(values(warmed(pick(bp, source, prometheus.MetricIsBackPressured, model.AggMax)))); hi != 1 {
			t.Errorf("source isBackPressured max = %v, want 1", hi)
		}
	})

	t.Run("all series", func(t *testing.T) {
		all, err := c.Range(ctx, jid, fromMs, toMs, prometheus.SeriesAll)
		if err != nil {
			t.Fatal(err)
		}
		// The source's output buffers are full: that is its backpressure.
		if hi := maxOf(values(pick(all, source, prometheus.MetricOutPoolUsage, model.AggMax))); hi < 0.5 || hi > 1 {
			t.Errorf("source outPoolUsage max = %v, want in (0.5, 1]", hi)
		}
		if in := values(pick(all, slowMap, prometheus.MetricInPoolUsage, model.AggAvg)); len(in) == 0 || maxOf(in) > 1 {
			t.Errorf("Slow Map inPoolUsage = %v, want fractions", in)
		}
		// Barriers wait in Slow Map's full input queue: a start delay, in ms (not ns).
		delay := values(pick(all, slowMap, prometheus.MetricStartDelayMs, model.AggMax))
		if len(delay) == 0 || maxOf(delay) <= 0 || maxOf(delay) > 600_000 {
			t.Errorf("Slow Map start delay = %v ms, want > 0 and plausible milliseconds", delay)
		}
		if len(pick(all, slowMap, prometheus.MetricAlignmentTime, model.AggMax)) == 0 {
			t.Error("no alignment time for Slow Map")
		}
		total := values(pick(all, "", prometheus.MetricTotalNumberOfCheckpoints, model.AggNone))
		completed := values(pick(all, "", prometheus.MetricNumberOfCompletedCheckpoints, model.AggNone))
		if len(total) == 0 || len(completed) == 0 || maxOf(completed) > maxOf(total) || maxOf(total) < 1 {
			t.Errorf("job gauges: total %v, completed %v", total, completed)
		}
		// The backpressure series are the same query: identical to Backpressure's.
		for _, s := range bp {
			if s.TimeMs < fromMs/1000*1000 || s.TimeMs > toMs {
				continue
			}
			if !contains(all, s) {
				t.Fatalf("Range(SeriesAll) lacks %+v from Backpressure", s)
			}
		}
	})

	t.Run("backfill fetches only the ranges, same points", func(t *testing.T) {
		mid := fromMs + (toMs-fromMs)/2
		ranges := [][2]int64{{mid, mid + 4000}, {fromMs, fromMs + 3000}} // out of order on purpose
		got, err := prometheus.Backfill(ctx, c, jid, ranges)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) == 0 {
			t.Fatal("backfill returned nothing")
		}
		step := pe.ScrapeInterval.Milliseconds()
		for _, s := range got {
			in := false
			for _, r := range ranges {
				in = in || (s.TimeMs >= r[0]/step*step && s.TimeMs <= r[1]+step)
			}
			if !in {
				t.Fatalf("sample at %d outside the ranges %v", s.TimeMs, ranges)
			}
			if !contains(bp, s) {
				t.Fatalf("backfill sample %+v differs from the live range query's point", s)
			}
		}
		if n := len(pick(got, source, model.MetricBackPressuredMsPerSec, model.AggMax)); n < 6 {
			t.Errorf("backfill: %d source backpressure points over 7 s of ranges", n)
		}
	})

	t.Run("relabelled names", func(t *testing.T) {
		// The "flink_relabelled" scrape job renames the series and the job and task labels.
		rc := newClient(t, prometheus.Config{URL: pe.URL, MinStep: pe.ScrapeInterval, Names: prometheus.MetricNames{
			JobLabel:        "flink_job",
			TaskLabel:       "vertex_id",
			BackPressured:   "relabelled_flink_taskmanager_job_task_backPressuredTimeMsPerSecond",
			Busy:            "relabelled_flink_taskmanager_job_task_busyTimeMsPerSecond",
			Idle:            "relabelled_flink_taskmanager_job_task_idleTimeMsPerSecond",
			IsBackPressured: prometheus.Disabled,
		}})
		got, err := rc.Backpressure(ctx, jid, fromMs, toMs)
		if err != nil {
			t.Fatal(err)
		}
		if len(pick(got, "", prometheus.MetricIsBackPressured, model.AggMax)) != 0 {
			t.Error("a disabled series was queried")
		}
		if m := mean(values(pick(got, source, model.MetricBackPressuredMsPerSec, model.AggMax))); m < 500 {
			t.Errorf("relabelled source backpressure mean %.0f, want > 500", m)
		}
		if m := mean(values(pick(got, slowMap, model.MetricBusyMsPerSec, model.AggMax))); m < 500 {
			t.Errorf("relabelled Slow Map busy mean %.0f, want > 500", m)
		}
	})

	t.Run("direct scrape of the real reporters", func(t *testing.T) {
		if scrapeErr != nil {
			t.Fatal(scrapeErr)
		}
		for _, s := range scraped {
			if s.JobID != jid || s.Source != prometheus.ReporterSource {
				t.Fatalf("scraped %+v", s)
			}
		}
		if v := values(pick(scraped, source, model.MetricBackPressuredMsPerSec, model.AggMax)); len(v) != 1 || v[0] < 500 {
			t.Errorf("scraped source backpressure %v, want one value > 500", v)
		}
		if v := values(pick(scraped, slowMap, model.MetricBusyMsPerSec, model.AggAvg)); len(v) != 1 || v[0] < 500 {
			t.Errorf("scraped Slow Map busy %v, want one value > 500", v)
		}
		if v := values(pick(scraped, "", prometheus.MetricTotalNumberOfCheckpoints, model.AggNone)); len(v) != 1 || v[0] < 1 {
			t.Errorf("scraped totalNumberOfCheckpoints %v from the JobManager", v)
		}
		vertices := map[string]bool{}
		for _, s := range scraped {
			vertices[s.VertexID] = true
		}
		for _, v := range job.Vertices {
			if !vertices[v.ID] {
				t.Errorf("scrape found nothing for vertex %s", v.Name)
			}
		}
	})

	t.Run("unknown job is empty, not an error", func(t *testing.T) {
		got, err := c.Backpressure(ctx, "00000000000000000000000000000000", fromMs, toMs)
		if err != nil || len(got) != 0 {
			t.Errorf("= %d samples, %v; want none and no error", len(got), err)
		}
	})

	t.Run("wrong URLs give clear errors", func(t *testing.T) {
		closed := closedPort(t)
		for _, tc := range []struct {
			name, url string
			want      error
			text      string
		}{
			{"Flink REST API", pe.Flink.RESTURL, prometheus.ErrNotPrometheus, "no Prometheus query API"},
			{"Flink reporter", strings.TrimSuffix(pe.Flink.TMPromURL, "/metrics"), prometheus.ErrNotPrometheus, "not Prometheus API JSON"},
			{"closed port", closed, prometheus.ErrUnreachable, "connection refused"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				wc := newClient(t, prometheus.Config{URL: tc.url, Timeout: 5 * time.Second})
				err := wc.Check(ctx)
				if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.text) || !strings.Contains(err.Error(), tc.url) {
					t.Errorf("Check = %v; want %v mentioning %q and the URL", err, tc.want, tc.text)
				}
				if _, err := wc.Backpressure(ctx, jid, fromMs, toMs); !errors.Is(err, tc.want) {
					t.Errorf("Backpressure = %v; want %v", err, tc.want)
				}
			})
		}
	})
}

func submit(t *testing.T, pe promenv.Env) string {
	t.Helper()
	return pe.Flink.Submit(t, "--name", "ce-prometheus-backpressure", "--sleep-ms", "5", "--rate", "0")
}

func newClient(t *testing.T, cfg prometheus.Config) *prometheus.Client {
	t.Helper()
	c, err := prometheus.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func ids2names(j model.Job) map[string]string {
	m := map[string]string{}
	for _, v := range j.Vertices {
		m[v.ID] = v.Name
	}
	return m
}

func pick(s []model.MetricSample, vertex, metric, agg string) []model.MetricSample {
	var out []model.MetricSample
	for _, x := range s {
		if x.VertexID == vertex && x.Metric == metric && x.Agg == agg {
			out = append(out, x)
		}
	}
	return out
}

func values(s []model.MetricSample) []float64 {
	out := make([]float64, len(s))
	for i, x := range s {
		out[i] = x.Value
	}
	return out
}

func restValues(p []restPoint) []float64 {
	out := make([]float64, len(p))
	for i, x := range p {
		out[i] = x.value
	}
	return out
}

func mean(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	sum := 0.0
	for _, x := range v {
		sum += x
	}
	return sum / float64(len(v))
}

func maxOf(v []float64) float64 {
	hi := math.Inf(-1)
	for _, x := range v {
		hi = max(hi, x)
	}
	return hi
}

// between returns the smallest and largest value of the points in [fromMs, toMs].
func between(s []model.MetricSample, fromMs, toMs int64) (lo, hi float64, ok bool) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, x := range s {
		if x.TimeMs >= fromMs && x.TimeMs <= toMs {
			lo, hi, ok = min(lo, x.Value), max(hi, x.Value), true
		}
	}
	return lo, hi, ok
}

func contains(s []model.MetricSample, want model.MetricSample) bool {
	for _, x := range s {
		if x == want {
			return true
		}
	}
	return false
}

// closedPort returns the URL of a loopback port nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + l.Addr().String()
	l.Close()
	return url
}
