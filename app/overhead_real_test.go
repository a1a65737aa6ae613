package app

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"checkpoint-explorer/backend/collect"
	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/store"
)

// countingProxy sits between the app and the real Flink REST API and counts
// requests per endpoint template.
type countingProxy struct {
	mu     sync.Mutex
	counts map[string]int
	total  int
	only   string // job id whose requests count
	// details counts fetches of each checkpoint's details, by id.
	details map[string]int
	// perCheckpoint counts every request about one checkpoint (its details
	// and its subtask details), by id; detailOrder lists ids in the order
	// their details were first fetched.
	perCheckpoint map[string]int
	detailOrder   []string
}

var (
	detailPath        = regexp.MustCompile(`/checkpoints/details/([0-9]+)$`)
	checkpointReqPath = regexp.MustCompile(`/checkpoints/details/([0-9]+)(/|$)`)
)

var idInPath = regexp.MustCompile(`/[0-9a-f]{32}|/[0-9]+(/|$)`)

func (p *countingProxy) endpoint(path string) string {
	return idInPath.ReplaceAllStringFunc(path, func(m string) string {
		if strings.HasSuffix(m, "/") {
			return "/:id/"
		}
		return "/:id"
	})
}

func (p *countingProxy) snapshot() (map[string]int, int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	c := make(map[string]int, len(p.counts))
	for k, v := range p.counts {
		c[k] = v
	}
	return c, p.total
}

// fetchedCheckpoints is how many checkpoints have had their details fetched.
func (p *countingProxy) fetchedCheckpoints() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.detailOrder)
}

// requestsPerCheckpoint sums, over the checkpoints whose details were first
// fetched in [from, to) of detailOrder, every request made about them — also
// those made outside the window, so a window edge falling between a
// checkpoint's detail and its subtask requests does not skew the figure.
func (p *countingProxy) requestsPerCheckpoint(from, to int) (sum, most int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, id := range p.detailOrder[from:to] {
		n := p.perCheckpoint[id]
		sum += n
		if n > most {
			most = n
		}
	}
	return sum, most
}

func startCountingProxy(t *testing.T, target, onlyJob string) (*countingProxy, string) {
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	p := &countingProxy{counts: map[string]int{}, only: onlyJob, details: map[string]int{}, perCheckpoint: map[string]int{}}
	rp := httputil.NewSingleHostReverseProxy(u)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Only the job under test (and the job list) counts: the cluster also
		// holds jobs of other tests, which the app reads once each.
		if p.only == "" || strings.Contains(r.URL.Path, p.only) || r.URL.Path == "/jobs/overview" {
			p.mu.Lock()
			p.counts[p.endpoint(r.URL.Path)]++
			p.total++
			if m := detailPath.FindStringSubmatch(r.URL.Path); m != nil {
				if p.details[m[1]] == 0 {
					p.detailOrder = append(p.detailOrder, m[1])
				}
				p.details[m[1]]++
			}
			if m := checkpointReqPath.FindStringSubmatch(r.URL.Path); m != nil {
				p.perCheckpoint[m[1]]++
			}
			p.mu.Unlock()
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return p, srv.URL
}

// overheadRun collects one knob job through the counting proxy for d and
// returns the figures of the steady state (after the first poll's backfill).
type overheadFigures struct {
	Seconds          float64
	Requests         int
	NewCheckpoints   int
	Vertices         int
	PerSecond        float64
	PerCheckpoint    float64 // detail requests per checkpoint whose details were fetched
	MostForOne       int     // the most detail requests made about one checkpoint
	DetailFetches    int
	ListPerSecond    float64
	MetricsPerSecond float64
	ByEndpoint       map[string]int
}

func (f overheadFigures) String() string {
	keys := make([]string, 0, len(f.ByEndpoint))
	for k := range f.ByEndpoint {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	fmt.Fprintf(&b, "%.0f s, %d new checkpoints, V=%d: %.2f requests/s in all (list %.2f/s, metrics %.2f/s), %.2f detail requests per new checkpoint, at most %d for one (bound 1+V = %d)\n",
		f.Seconds, f.NewCheckpoints, f.Vertices, f.PerSecond, f.ListPerSecond, f.MetricsPerSecond, f.PerCheckpoint, f.MostForOne, 1+f.Vertices)
	for _, k := range keys {
		fmt.Fprintf(&b, "    %-55s %d\n", k, f.ByEndpoint[k])
	}
	return b.String()
}

func measureOverhead(t *testing.T, d time.Duration, jobArgs ...string) (overheadFigures, *countingProxy) {
	env := flinkOn(t, trackFlinkA)
	jid := env.Submit(t, jobArgs...)
	proxy, proxyURL := startCountingProxy(t, env.RESTURL, jid)
	a := newCollectingApp(t, proxyURL)
	// Let the first poll backfill the history, then measure from a clean start.
	waitFor(t, time.Minute, "the first checkpoints", func() bool { return len(finalCheckpoints(t, a, jid)) >= 3 })
	time.Sleep(2 * time.Second)
	c0, n0 := proxy.snapshot()
	d0 := proxy.fetchedCheckpoints()
	f0 := len(finalCheckpoints(t, a, jid))
	start := time.Now()
	time.Sleep(d)
	c1, n1 := proxy.snapshot()
	d1 := proxy.fetchedCheckpoints()
	f1 := len(finalCheckpoints(t, a, jid))
	a.stopCollector()
	j, _ := a.store.Job(context.Background(), "flink", jid)
	fig := overheadFigures{Seconds: time.Since(start).Seconds(), Requests: n1 - n0, NewCheckpoints: f1 - f0, Vertices: len(j.Vertices), ByEndpoint: map[string]int{}}
	var list, metrics int
	for k, v := range c1 {
		dv := v - c0[k]
		if dv == 0 {
			continue
		}
		fig.ByEndpoint[k] = dv
		switch {
		case strings.HasSuffix(k, "/checkpoints"):
			list += dv
		case strings.Contains(k, "/subtasks/metrics"):
			metrics += dv
		}
	}
	fig.PerSecond = float64(fig.Requests) / fig.Seconds
	fig.DetailFetches = c1["/jobs/:id/checkpoints/details/:id"] - c0["/jobs/:id/checkpoints/details/:id"]
	fig.ListPerSecond = float64(list) / fig.Seconds
	fig.MetricsPerSecond = float64(metrics) / fig.Seconds
	// Per checkpoint whose details were first fetched in the window, counting
	// all its requests: the window's edges can fall between a checkpoint's
	// detail fetch and its subtask fetches.
	if d1 > d0 {
		sum, most := proxy.requestsPerCheckpoint(d0, d1)
		fig.PerCheckpoint = float64(sum) / float64(d1-d0)
		fig.MostForOne = most
	}
	return fig, proxy
}

// TestFlinkOverheadStaysWithinTheDocumentedBoundary measures, through a
// counting proxy, what the collector asks of a real Flink cluster: at most one
// list request per poll plus backpressure sampling, and at most 1 + V detail
// requests per new checkpoint (docs/collector.md).
func TestFlinkOverheadStaysWithinTheDocumentedBoundary(t *testing.T) {
	d := 30 * time.Second
	if os.Getenv("CE_BENCH_OVERHEAD") != "" {
		d = 2 * time.Minute
	}
	f, proxy := measureOverhead(t, d, "--name", "ce-overhead", "--interval-ms", "1000", "--rate", "100")
	t.Logf("overhead: %s", f)
	if f.NewCheckpoints < 10 {
		t.Fatalf("only %d new checkpoints in %.0f s", f.NewCheckpoints, f.Seconds)
	}
	proxy.mu.Lock()
	for id, n := range proxy.details {
		if n > 1 {
			t.Errorf("details of checkpoint %s fetched %d times, want once", id, n)
		}
	}
	proxy.mu.Unlock()
	if f.MostForOne > 1+f.Vertices {
		t.Errorf("%d detail requests about one checkpoint, over the 1 + V = %d bound", f.MostForOne, 1+f.Vertices)
	}
	// Polls: interval × history / 3 = 3.3 s at a 1 s interval, i.e. ≤ 0.3 list requests/s (halved when the history filled fast: 0.6).
	if f.ListPerSecond > 0.65 {
		t.Errorf("%.2f list requests per second, more than one per planned poll", f.ListPerSecond)
	}
	// Backpressure: one request per vertex every 10 s.
	if max := float64(f.Vertices)/10*1.2 + 0.05; f.MetricsPerSecond > max {
		t.Errorf("%.2f metrics requests per second, over V/10 s = %.2f", f.MetricsPerSecond, max)
	}
	_ = model.StatusCompleted
}

// TestFlinkRequestBudgetFromTheClusterSettings sets a small request budget on
// a cluster, as the cluster form does, and checks through the counting proxy
// that a job checkpointing every second (which would want about 8 requests/s)
// gets no more, and that the cluster's health says the budget held it back.
func TestFlinkRequestBudgetFromTheClusterSettings(t *testing.T) {
	env := flinkOn(t, trackFlinkA)
	jid := env.Submit(t, "--name", "ce-budget", "--interval-ms", "1000", "--rate", "100")
	// A few checkpoints for the first poll to read; from then on the job alone
	// wants about 8 requests/s.
	time.Sleep(4 * time.Second)
	// Every request counts here: the budget covers the whole cluster, and the
	// shared test cluster holds other tests' jobs, which the app reads too.
	proxy, proxyURL := startCountingProxy(t, env.RESTURL, "")
	a := newCollectingApp(t, "http://127.0.0.1:1") // a placeholder, replaced below
	const rps, inFlight = 4, 1
	if err := a.SaveCluster(ClusterInput{Name: "flink", Engine: model.EngineFlink, BaseURL: proxyURL,
		RequestsPerSecond: rps, MaxInFlight: inFlight}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, n0 := proxy.snapshot()
	time.Sleep(15 * time.Second)
	_, n1 := proxy.snapshot()
	el := time.Since(start).Seconds()
	var h collect.Health
	list, err := a.ListClusters()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range list {
		if s.Name == "flink" {
			h = s.Health
			if s.RequestsPerSecond != rps || s.MaxInFlight != inFlight {
				t.Errorf("the cluster lists budget %g/s, %d in flight; want %d/s, %d", s.RequestsPerSecond, s.MaxInFlight, rps, inFlight)
			}
		}
	}
	a.stopCollector()
	bound := rps*el + 2*rps + 1 // the rate, the burst, one request in flight
	t.Logf("budget %d/s: %d requests in %.1f s (%.2f/s), health %+v", rps, n1-n0, el, float64(n1-n0)/el, h)
	if float64(n1-n0) > bound {
		t.Errorf("%d requests in %.1f s under a budget of %d/s (at most %.0f with the burst)", n1-n0, el, rps, bound)
	}
	if float64(n1-n0) < rps*el/2 {
		t.Errorf("only %d requests in %.1f s: the test did not make the collector want more than its budget", n1-n0, el)
	}
	if h.BudgetPerSec != rps {
		t.Errorf("health shows a budget of %g/s, want %d", h.BudgetPerSec, rps)
	}
	if h.HeldBack < collect.BudgetLimited || !h.BudgetLimited {
		t.Errorf("health says %.2f of the requests waited for the budget; a 1 s job on a %d/s budget should wait most of the time", h.HeldBack, rps)
	}
	// Under the small budget the poller defers details rather than letting
	// checkpoints leave Flink's 10-deep history unseen.
	final := finalCheckpoints(t, a, jid)
	// How many the job made depends on the machine's load; the point is that
	// the collector kept storing them, without gaps.
	if len(final) < 3 {
		t.Errorf("%d checkpoints stored in %.0f s of a job checkpointing every second", len(final), el)
	}
	gaps, err := a.store.Gaps(context.Background(), store.Query{Cluster: "flink", JobID: jid})
	if err != nil {
		t.Fatal(err)
	}
	if len(gaps) > 0 {
		t.Errorf("gaps %+v under a budget the collector should have worked within", gaps)
	}
	withDetails, missed := 0, 0
	var newest int64
	for _, c := range final {
		newest = max(newest, c.ID)
	}
	for _, c := range final {
		switch {
		case len(c.Tasks) > 0:
			withDetails++
		case c.DetailLoss == model.DetailMissed:
			missed++
		case c.ID < newest-12:
			// Beyond Flink's 10-deep history (and a poll's lag) a summary is final.
			t.Errorf("checkpoint %d has neither details nor a detail-loss mark", c.ID)
		}
	}
	t.Logf("%d final checkpoints stored: %d with their details, %d whose details were missed, %d gaps", len(final), withDetails, missed, len(gaps))
}
