package app

import (
	"bytes"
	"checkpoint-explorer/backend/analyze"
	"checkpoint-explorer/backend/collect"
	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/source/flink"
	"checkpoint-explorer/backend/store"
	"checkpoint-explorer/testenv/flinkenv"
	"checkpoint-explorer/testenv/toxienv"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"regexp"
	"runtime/pprof"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// These tests (issue #11) put a flaky network between the collector and the
// real Flink cluster — TCP faults through Toxiproxy here, HTTP faults in
// faulthttp_real_test.go — and check that nothing is lost silently: every id
// of the job's span is stored or recorded as a gap, the reconciliation the app
// keeps agrees with the store and with Flink's own counters, and the
// collector's goroutines end with it. The ground truth is a flinkObserver
// that reads Flink directly, past every proxy.

// flinkObserver polls Flink's checkpoint list directly every 250 ms and keeps
// each checkpoint in the last state it was seen in: Flink's history holds 10
// entries, so at one checkpoint a second no checkpoint escapes it.
type flinkObserver struct {
	cl  *flink.Client
	jid string

	mu     sync.Mutex
	seen   map[int64]model.Checkpoint
	counts flink.Counts
	polls  int
	errs   int

	cancel context.CancelFunc
	done   chan struct{}
}

func observeFlink(t *testing.T, restURL, jid string) *flinkObserver {
	t.Helper()
	cl, err := flink.New(flink.Config{BaseURL: restURL, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	o := &flinkObserver{cl: cl, jid: jid, seen: map[int64]model.Checkpoint{}, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(o.done)
		tick := time.NewTicker(250 * time.Millisecond)
		defer tick.Stop()
		for {
			o.poll(ctx)
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	t.Cleanup(o.stop)
	return o
}

func (o *flinkObserver) poll(ctx context.Context) error {
	list, err := o.cl.Checkpoints(ctx, o.jid)
	o.mu.Lock()
	defer o.mu.Unlock()
	o.polls++
	if err != nil {
		o.errs++
		return err
	}
	o.counts = list.Counts
	for _, c := range list.History {
		o.seen[c.ID] = c
	}
	return nil
}

// stop ends the polling; it may be called more than once.
func (o *flinkObserver) stop() {
	o.cancel()
	<-o.done
}

// final reads Flink once more, once its cache has caught up (the job has
// ended: its counters no longer move), and returns everything seen and the
// counters.
func (o *flinkObserver) final(t *testing.T) (map[int64]model.Checkpoint, flink.Counts) {
	t.Helper()
	o.stop()
	// Flink's REST API caches checkpoint statistics for up to 3 s
	// (rest.cache.checkpoint-statistics.timeout = web.refresh-interval): an
	// answer right after the job ended may predate its last checkpoints.
	time.Sleep(3500 * time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := o.poll(ctx); err != nil {
		t.Fatalf("read Flink's checkpoints directly: %v", err)
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	return cloneMap(o.seen), o.counts
}

func cloneMap[K comparable, V any](m map[K]V) map[K]V {
	out := make(map[K]V, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// endMs is when a final checkpoint ended: its last acknowledgement
// (completed; Flink's history has no completion time) or its failure.
func endMs(c model.Checkpoint) int64 {
	if c.Status == model.StatusFailed {
		return c.FailureMs
	}
	return c.LatestAckMs
}

// faultKind is what the faultProxy does with one request.
type faultKind string

const (
	faultNone     faultKind = ""
	fault503      faultKind = "503 HTML"
	faultHangup   faultKind = "closed mid-response"
	faultStall    faultKind = "stalled 3 s"
	faultTruncate faultKind = "JSON cut in half"
)

var faultCycle = []faultKind{fault503, faultHangup, faultStall, faultTruncate}

// faultProxy is an HTTP proxy in front of the real Flink REST API that counts
// the requests about one job and, with every > 0, spoils every every-th of
// them on a deterministic schedule (faultCycle in turn). It reads Flink's
// whole answer before answering, so it knows which answers reached the client
// whole.
type faultProxy struct {
	upstream *url.URL
	jid      string
	every    int
	client   *http.Client
	down     bool

	mu         sync.Mutex
	n          int // requests about the job (and the job list) so far
	byEndpoint map[string]int
	faults     map[faultKind]int
	listTimes  []time.Time  // GET /jobs/:jid/checkpoints, as they arrived
	listOK     []listAnswer // the answers to them that went out whole
	// detailOK counts, per checkpoint id, the answers to its details endpoint
	// that went out with 200 and their whole body; perCheckpoint every
	// request about it (details and subtask details).
	detailOK      map[int64]int
	perCheckpoint map[int64]int
}

var (
	detailIDPath  = regexp.MustCompile(`/checkpoints/details/([0-9]+)$`)
	anyDetailPath = regexp.MustCompile(`/checkpoints/details/([0-9]+)(/|$)`)
	listPath      = regexp.MustCompile(`^/jobs/[0-9a-f]{32}/checkpoints$`)
)

func startFaultProxy(t *testing.T, target, jid string, every int) (*faultProxy, *httptest.Server) {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	p := &faultProxy{upstream: u, jid: jid, every: every, client: &http.Client{Timeout: 10 * time.Second},
		byEndpoint: map[string]int{}, faults: map[faultKind]int{}, detailOK: map[int64]int{}, perCheckpoint: map[int64]int{}}
	srv := httptest.NewServer(p)
	t.Cleanup(func() {
		srv.Close()
		p.client.CloseIdleConnections()
	})
	return p, srv
}

func (p *faultProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ours := strings.Contains(r.URL.Path, p.jid) || r.URL.Path == "/jobs/overview"
	kind := faultNone
	var cid int64 = -1
	if ours {
		p.mu.Lock()
		p.n++
		p.byEndpoint[(&countingProxy{}).endpoint(r.URL.Path)]++
		if listPath.MatchString(r.URL.Path) {
			p.listTimes = append(p.listTimes, time.Now())
		}
		if m := anyDetailPath.FindStringSubmatch(r.URL.Path); m != nil {
			id, _ := strconv.ParseInt(m[1], 10, 64)
			p.perCheckpoint[id]++
		}
		if m := detailIDPath.FindStringSubmatch(r.URL.Path); m != nil {
			cid, _ = strconv.ParseInt(m[1], 10, 64)
		}
		if p.down {
			kind = fault503
		} else if p.every > 0 && p.n%p.every == 0 {
			kind = faultCycle[(p.n/p.every-1)%len(faultCycle)]
			p.faults[kind]++
		}
		p.mu.Unlock()
	}
	switch kind {
	case fault503:
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusServiceUnavailable)
		io.WriteString(w, "<html><head><title>503 Service Unavailable</title></head><body><h1>Service Unavailable</h1><p>The upstream is restarting.</p></body></html>")
		return
	case faultStall:
		select {
		case <-time.After(3 * time.Second):
		case <-r.Context().Done():
			return
		}
	}
	status, ctype, body, err := p.fetch(r)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	switch kind {
	case faultHangup:
		// The header promises the whole body; half of it comes, then the connection closes.
		hj, ok := w.(http.Hijacker)
		if !ok {
			panic("faultProxy: no hijacker")
		}
		conn, buf, err := hj.Hijack()
		if err != nil {
			return
		}
		fmt.Fprintf(buf, "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n", status, http.StatusText(status), ctype, len(body))
		buf.Write(body[:len(body)/2])
		buf.Flush()
		conn.Close()
		return
	case faultTruncate:
		// A well-formed answer whose JSON is cut in half.
		half := body[:len(body)/2]
		w.Header().Set("Content-Type", ctype)
		w.Header().Set("Content-Length", strconv.Itoa(len(half)))
		w.WriteHeader(status)
		w.Write(half)
		return
	}
	w.Header().Set("Content-Type", ctype)
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	n, werr := w.Write(body)
	if werr == nil && n == len(body) && status == http.StatusOK && r.Context().Err() == nil {
		p.mu.Lock()
		if cid >= 0 {
			p.detailOK[cid]++
		}
		if ours && listPath.MatchString(r.URL.Path) {
			var l struct {
				History []struct {
					ID     int64  `json:"id"`
					Status string `json:"status"`
				} `json:"history"`
			}
			_ = json.Unmarshal(body, &l)
			a := listAnswer{at: time.Now(), top: -1}
			for _, h := range l.History {
				a.top = max(a.top, h.ID)
				if h.Status == "COMPLETED" || h.Status == "FAILED" {
					a.ids = append(a.ids, h.ID)
				}
			}
			p.listOK = append(p.listOK, a)
		}
		p.mu.Unlock()
	}
}

// setDown makes the proxy answer every request about the job (and the job
// list) with a 503 while down is true: the cluster is hidden.
func (p *faultProxy) setDown(down bool) {
	p.mu.Lock()
	p.down = down
	p.mu.Unlock()
}

// setEvery changes the fault schedule (0: no more faults).
func (p *faultProxy) setEvery(n int) {
	p.mu.Lock()
	p.every = n
	p.mu.Unlock()
}

// requestsAbout is how many requests about checkpoint id came (details and subtask details).
func (p *faultProxy) requestsAbout(id int64) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.perCheckpoint[id]
}

// listAnswer is a list poll's answer that went out whole: when, and the
// newest checkpoint id it held.
type listAnswer struct {
	at  time.Time
	top int64
	ids []int64 // the ids of its history that had ended
}

// listed is the set of ids some list answer that went out whole carried as
// ended: the final checkpoints the collector was shown.
func (p *faultProxy) listed() map[int64]bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := map[int64]bool{}
	for _, a := range p.listOK {
		for _, id := range a.ids {
			out[id] = true
		}
	}
	return out
}

// lastListOK is the last whole answer to a list poll before t.
func (p *faultProxy) lastListOK(t time.Time) listAnswer {
	p.mu.Lock()
	defer p.mu.Unlock()
	last := listAnswer{top: -1}
	for _, a := range p.listOK {
		if a.at.Before(t) {
			last = a
		}
	}
	return last
}

func (p *faultProxy) fetch(r *http.Request) (status int, ctype string, body []byte, err error) {
	u := *p.upstream
	u.Path, u.RawQuery = strings.TrimRight(u.Path, "/")+r.URL.Path, r.URL.RawQuery
	req, err := http.NewRequestWithContext(r.Context(), r.Method, u.String(), nil)
	if err != nil {
		return 0, "", nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := p.client.Do(req)
	if err != nil {
		return 0, "", nil, err
	}
	defer resp.Body.Close()
	body, err = io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Content-Type"), body, err
}

// proxyFigures sums up what a faultProxy saw.
type proxyFigures struct {
	requests         int
	faults           map[faultKind]int
	perCheckpoint    float64 // requests about each checkpoint asked about, on average
	mostForOne       int
	detailOKTwice    []int64 // checkpoints whose details answered 200 more than once
	listPolls        int
	spacingMedian    time.Duration
	spacingMax       time.Duration
	spacingMaxOut    time.Duration // the longest spacing not overlapping the excluded window
	byEndpoint       map[string]int
	detailAnswered   int // checkpoints whose details answered 200 at least once
	checkpointsAsked int
}

// figures sums up the proxy's counts; list polls spanning [exFrom, exTo]
// (a cut) are left out of spacingMaxOut.
func (p *faultProxy) figures(exFrom, exTo time.Time) proxyFigures {
	p.mu.Lock()
	defer p.mu.Unlock()
	f := proxyFigures{requests: p.n, faults: cloneMap(p.faults), byEndpoint: cloneMap(p.byEndpoint), listPolls: len(p.listTimes)}
	var sum int
	for _, n := range p.perCheckpoint {
		sum += n
		f.mostForOne = max(f.mostForOne, n)
	}
	f.checkpointsAsked = len(p.perCheckpoint)
	if len(p.perCheckpoint) > 0 {
		f.perCheckpoint = float64(sum) / float64(len(p.perCheckpoint))
	}
	for id, n := range p.detailOK {
		f.detailAnswered++
		if n > 1 {
			f.detailOKTwice = append(f.detailOKTwice, id)
		}
	}
	slices.Sort(f.detailOKTwice)
	var gaps []time.Duration
	for i := 1; i < len(p.listTimes); i++ {
		a, b := p.listTimes[i-1], p.listTimes[i]
		d := b.Sub(a)
		gaps = append(gaps, d)
		f.spacingMax = max(f.spacingMax, d)
		if exFrom.IsZero() || b.Before(exFrom) || a.After(exTo) {
			f.spacingMaxOut = max(f.spacingMaxOut, d)
		}
	}
	if len(gaps) > 0 {
		slices.Sort(gaps)
		f.spacingMedian = gaps[len(gaps)/2]
	}
	return f
}

// newFaultApp is newCollectingApp that also returns how many goroutines of
// the app ran once it had started but before the cluster was added (the
// collector then runs no poller). The app is made on a goroutine labelled
// with the test's name (runtime/pprof labels pass to every goroutine a
// labelled one starts), so its goroutines can be told from those of the
// tests running beside it.
func newFaultApp(t *testing.T, restURL string) (*App, int) {
	t.Helper()
	label := t.Name()
	pprof.SetGoroutineLabels(pprof.WithLabels(context.Background(), pprof.Labels(goroutineLabel, label)))
	defer pprof.SetGoroutineLabels(context.Background())
	a, err := newApp(context.Background(), Options{
		DataDir: t.TempDir(), NoSample: true, JobsEvery: 2 * time.Second,
		Logger: faultLogger(t),
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := startApp(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closeApp(a) })
	time.Sleep(100 * time.Millisecond)
	base, _, stacks := labelledGoroutines(label)
	baseStacks.Store(label, stacks)
	if err := a.SaveCluster(ClusterInput{Name: "flink", Engine: model.EngineFlink, BaseURL: restURL}); err != nil {
		t.Fatal(err)
	}
	return a, base
}

// faultLogger discards the app's log, unless CE_FAULT_LOG names a file to append it to.
func faultLogger(t *testing.T) *slog.Logger {
	if path := os.Getenv("CE_FAULT_LOG"); path != "" {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return slog.New(slog.NewTextHandler(f, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

// idleConnGoroutine matches goroutines that are not the collector's: HTTP
// connections kept alive in a transport's pool (the engine client's, the
// proxies', the observer's) and the test proxies' server side, which close on
// their own idle timeouts; and the cache's two connection pools' openers,
// which live as long as the cache (created with it, by the goroutine that opened
// it, they were seen with the test's label only after it polled, on Go 1.26).
var idleConnGoroutine = []string{"net/http.(*persistConn)", "net/http.(*conn).serve", "database/sql.(*DB).connectionOpener"}

// baseStacks are the goroutines newFaultApp counted, by test, for a failure to show.
var baseStacks sync.Map

// goroutineLabel is the runtime/pprof label newFaultApp gives the app's goroutines.
const goroutineLabel = "ce-test"

// labelledGoroutines returns the count of the goroutines labelled label that
// are not idle HTTP connections or pool openers, the stacks of those running
// the collector's code, and the stacks of all it counts.
func labelledGoroutines(label string) (int, []string, []string) {
	var buf bytes.Buffer
	if err := pprof.Lookup("goroutine").WriteTo(&buf, 1); err != nil {
		panic(err)
	}
	want := fmt.Sprintf("# labels: {%q:%q}", goroutineLabel, label)
	var n int
	var ours, counted []string
	// The profile groups goroutines by stack and labels: "N @ pc…", the labels, the frames.
	for _, g := range strings.Split(buf.String(), "\n\n")[1:] {
		if !strings.Contains(g, want) {
			continue
		}
		count, _, _ := strings.Cut(g, " ")
		c, err := strconv.Atoi(count)
		if err != nil {
			continue
		}
		if !slices.ContainsFunc(idleConnGoroutine, func(s string) bool { return strings.Contains(g, s) }) {
			n += c
			counted = append(counted, g)
		}
		if strings.Contains(g, "checkpoint-explorer/backend/collect.") ||
			strings.Contains(g, "checkpoint-explorer/backend/source/flink.") {
			ours = append(ours, g)
		}
	}
	return n, ours, counted
}

// checkNoGoroutineLeft stops the app's collector and checks that no collector
// goroutine is left and that the app's count is back to base (within a few seconds).
func checkNoGoroutineLeft(t *testing.T, a *App, base int) (after int) {
	t.Helper()
	a.stopCollector()
	deadline := time.Now().Add(5 * time.Second)
	for {
		n, ours, counted := labelledGoroutines(t.Name())
		if len(ours) == 0 && n <= base {
			return n
		}
		if time.Now().After(deadline) {
			before, _ := baseStacks.Load(t.Name())

			t.Errorf("goroutines of the app after the collector stopped: %d, before it started polling: %d; the collector's still running:\n%s\nall counted:\n%s\nbefore:\n%v",
				n, base, strings.Join(ours, "\n\n"), strings.Join(counted, "\n\n"), before)
			return n
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// collectorHealth is the collector's own view of the cluster (with Problems,
// which the app's Health leaves out).
func collectorHealth(a *App) (collect.Health, bool) {
	a.mu.Lock()
	m := a.coll
	a.mu.Unlock()
	if m == nil {
		return collect.Health{}, false
	}
	return m.Health("flink")
}

// storedAll reads every stored checkpoint of the job (any status) with its details.
func storedAll(t *testing.T, a *App, jid string) map[int64]model.Checkpoint {
	t.Helper()
	out := map[int64]model.Checkpoint{}
	err := a.store.ScanCheckpoints(context.Background(), store.Query{Cluster: "flink", JobID: jid}, true, func(c *model.Checkpoint) error {
		out[c.ID] = *c
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// spanCheck is what checkSpan found.
type spanCheck struct {
	recon   model.Reconciliation
	stored  map[int64]model.Checkpoint
	gapped  map[int64]bool
	details struct{ full, partial, missed, none int }
}

// endJob cancels the job (Flink's counters stop) and waits until the collector's stored
// reconciliation has read Flink's final counters; it returns what the observer saw.
func endJob(t *testing.T, a *App, env flinkenv.Env, jid string, obs *flinkObserver) (map[int64]model.Checkpoint, flink.Counts, model.Reconciliation) {
	t.Helper()
	if err := flinkenv.Cancel(env, jid); err != nil {
		t.Fatal(err)
	}
	seen, counts := obs.final(t)
	var top int64
	for id := range seen {
		top = max(top, id)
	}
	return seen, counts, waitForFinalReconciliation(t, a, jid, counts, top, time.Minute)
}

// waitForFinalReconciliation waits until the stored reconciliation of the
// ended job agrees with Flink's final counters: the collector's first poll
// after the job ended read them.
func waitForFinalReconciliation(t *testing.T, a *App, jid string, counts flink.Counts, latestID int64, within time.Duration) model.Reconciliation {
	t.Helper()
	var r model.Reconciliation
	deadline := time.Now().Add(within)
	for {
		var ok bool
		var err error
		r, ok, err = a.store.Reconciliation(context.Background(), "flink", jid)
		if err != nil {
			t.Fatal(err)
		}
		if ok && r.Engine != nil && r.LatestID == latestID && r.Engine.Completed == counts.Completed &&
			r.Engine.Failed == counts.Failed && r.Engine.InProgress == 0 && r.Engine.Triggered == counts.Total {
			return r
		}
		if time.Now().After(deadline) {
			t.Errorf("the stored reconciliation %+v (engine %+v) never reached Flink's final counts %+v, newest id %d, within %v",
				r, r.Engine, counts, latestID, within)
			return r
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// waitForDetailsSettled waits until no completed checkpoint of the span is
// still a summary waiting for its details (no Tasks, no DetailLoss): after
// the job ended the collector still fetches the details left deferred, as
// long as Flink lists them.
func waitForDetailsSettled(t *testing.T, a *App, jid string, r model.Reconciliation, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		var waiting []int64
		for id, c := range storedAll(t, a, jid) {
			// A checkpoint the JobManager log gave back (it had left REST's history) has no
			// REST details to wait for.
			if id >= r.FirstID && c.Status == model.StatusCompleted && len(c.Tasks) == 0 && c.DetailLoss == "" &&
				c.Source != model.OriginJobManagerLog {
				waiting = append(waiting, id)
			}
		}
		if len(waiting) == 0 {
			return
		}
		if time.Now().After(deadline) {
			slices.Sort(waiting)
			t.Errorf("checkpoints %v still wait for their details %v after the job ended", waiting, within)
			return
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// checkSpan checks the reconciliation against the store: every id of its span
// stored or in a gap, never both, never neither; Stored+Gaps == IDs and
// Unaccounted == 0; the store's gaps are the reconciliation's.
// With ended (the job has ended), every stored checkpoint must be final.
func checkSpan(t *testing.T, a *App, jid string, r model.Reconciliation, ended bool) spanCheck {
	t.Helper()
	stored, gaps, r := settledSpan(t, a, jid, r)
	sc := spanCheck{recon: r, stored: stored, gapped: map[int64]bool{}}
	for _, g := range gaps {
		for id := g.FromID; id <= g.ToID; id++ {
			if _, ok := sc.stored[id]; ok {
				t.Errorf("checkpoint %d is both stored and in gap %d–%d", id, g.FromID, g.ToID)
			}
			if sc.gapped[id] {
				t.Errorf("checkpoint %d in two gaps", id)
			}
			sc.gapped[id] = true
		}
	}
	if r.Unaccounted != 0 || r.Stored+r.Gaps+r.FromLog != r.IDs || r.IDs != r.LatestID-r.FirstID+1 {
		t.Errorf("reconciliation: %d ids (%d–%d), %d stored + %d gaps + %d from the JobManager log, %d unaccounted; want every id stored or a gap",
			r.IDs, r.FirstID, r.LatestID, r.Stored, r.Gaps, r.FromLog, r.Unaccounted)
	}
	var neither []int64
	var storedInSpan, gapsInSpan int64
	for id := r.FirstID; id <= r.LatestID; id++ {
		c, stored := sc.stored[id]
		switch {
		case stored:
			storedInSpan++
			switch {
			case c.Status != model.StatusCompleted:
			case c.DetailLoss == model.DetailPartial:
				sc.details.partial++
			case c.DetailLoss == model.DetailMissed:
				sc.details.missed++
			case len(c.Tasks) > 0:
				sc.details.full++
			default:
				sc.details.none++
			}
		case sc.gapped[id]:
			gapsInSpan++
		default:
			neither = append(neither, id)
		}
	}
	if len(neither) > 0 {
		t.Errorf("checkpoints %v neither stored nor marked as a gap (span %d–%d)", neither, r.FirstID, r.LatestID)
	}
	// Ids REST lost that the JobManager log gave back are stored too, counted apart.
	if storedInSpan != r.Stored+r.FromLog || gapsInSpan != r.Gaps {
		t.Errorf("the store holds %d checkpoints and %d gap ids in the span %d–%d; the reconciliation says %d (+%d from the JobManager log) and %d",
			storedInSpan, gapsInSpan, r.FirstID, r.LatestID, r.Stored, r.FromLog, r.Gaps)
	}
	for id := range sc.gapped {
		if id < r.FirstID || id > r.LatestID {
			t.Errorf("gap id %d outside the reconciled span %d–%d", id, r.FirstID, r.LatestID)
		}
	}
	// An ended job: every stored checkpoint of the span has its final state, or, seen in
	// progress and gone from the history before a poll saw it end (polls further apart than
	// planned, on a starved machine), has ended unseen: a later one completed, and the
	// analysis says so.
	var newestCompleted int64 = -1
	for id, c := range sc.stored {
		if c.Status == model.StatusCompleted {
			newestCompleted = max(newestCompleted, id)
		}
	}
	for id, c := range sc.stored {
		if ended && !c.Status.Final() && !analyze.EndedUnseen(model.EngineFlink, c.Status, c.Kind, id, newestCompleted) {
			t.Errorf("checkpoint %d stored %s after the job ended", id, c.Status)
		}
	}
	if t.Failed() {
		var b strings.Builder
		for id := r.FirstID; id <= r.LatestID; id++ {
			if c, ok := sc.stored[id]; ok {
				fmt.Fprintf(&b, " %d:%s/%d/%s/%s", id, c.Status, len(c.Tasks), c.DetailLoss, c.Source)
			}
		}
		t.Logf("stored:%s", b.String())
	}
	return sc
}

// settledSpan reads the job's stored checkpoints and gaps with the stored reconciliation that
// counts them. The JobManager log is merged in the background (it gives back ids REST lost, which
// were gaps), so the three are read again, for up to 30 s, until the reconciliation of the span
// r reconciles counts what the store holds; r's span, if the stored one is gone.
func settledSpan(t *testing.T, a *App, jid string, r model.Reconciliation) (map[int64]model.Checkpoint, []model.Gap, model.Reconciliation) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(250 * time.Millisecond) {
		if now, ok, err := a.store.Reconciliation(context.Background(), "flink", jid); err != nil {
			t.Fatal(err)
		} else if ok && now.FirstID == r.FirstID && now.LatestID == r.LatestID {
			r = now
		}
		stored := storedAll(t, a, jid)
		gaps, err := a.store.Gaps(context.Background(), store.Query{Cluster: "flink", JobID: jid})
		if err != nil {
			t.Fatal(err)
		}
		var inSpan, gapped int64
		for id := r.FirstID; id <= r.LatestID; id++ {
			if _, ok := stored[id]; ok {
				inSpan++
			}
		}
		for _, g := range gaps {
			gapped += max(0, min(g.ToID, r.LatestID)-max(g.FromID, r.FirstID)+1)
		}
		if inSpan == r.Stored+r.FromLog && gapped == r.Gaps || time.Now().After(deadline) {
			return stored, gaps, r
		}
	}
}

// checkAgainstFlink checks the span against what the observer saw: the span
// ends at Flink's newest id, every id the observer saw in the span is stored
// or gapped, and at least minShare of the completed checkpoints not excused
// (excused nil: none) are stored as completed. It returns stored/expected.
func checkAgainstFlink(t *testing.T, p *faultProxy, sc spanCheck, seen map[int64]model.Checkpoint, excused func(model.Checkpoint) bool, minShare float64) (stored, expected int) {
	t.Helper()
	var top int64
	for id := range seen {
		top = max(top, id)
	}
	if sc.recon.LatestID != top {
		t.Errorf("reconciled span ends at %d, Flink's newest checkpoint is %d", sc.recon.LatestID, top)
	}
	// The observer saw every id (Flink's ids have no holes).
	for id := sc.recon.FirstID; id <= top; id++ {
		if _, ok := seen[id]; !ok {
			t.Errorf("the observer never saw checkpoint %d (it polls every 250 ms: the test is broken)", id)
		}
	}
	// A checkpoint no list answer carried whole as ended was never shown to the collector
	// final: it left Flink's history between two of its polls (on a starved machine they come
	// further apart than planned) and is a gap, or stored in progress and ended unseen, which
	// checkSpan checks. Those shown must be stored.
	listed := p.listed()
	var lost, unseen []int64
	for id, c := range seen {
		if id < sc.recon.FirstID || c.Status != model.StatusCompleted {
			continue
		}
		if excused != nil && excused(c) {
			continue
		}
		if !listed[id] {
			unseen = append(unseen, id)
			if _, ok := sc.stored[id]; !ok && !sc.gapped[id] {
				t.Errorf("checkpoint %d, never in a list answer as ended, is neither stored nor a gap", id)
			}
			continue
		}
		expected++
		if s, ok := sc.stored[id]; ok && s.Status == model.StatusCompleted {
			stored++
		} else {
			lost = append(lost, id)
		}
	}
	slices.Sort(unseen)
	if len(unseen) > 0 {
		t.Logf("never in a whole list answer as ended (gaps, or ended unseen): %v", unseen)
	}
	slices.Sort(lost)
	for _, id := range lost {
		c := seen[id]
		t.Logf("not stored: checkpoint %d (requests about it: %d) triggered at %d, ended at %d", id, p.requestsAbout(id), c.TriggerMs, endMs(c))
	}
	if expected == 0 || float64(stored) < minShare*float64(expected) {
		t.Errorf("stored %d of the %d checkpoints Flink completed that a list answer showed while the link let anything through, want at least %.0f %%; not stored: %v",
			stored, expected, 100*minShare, lost)
	}
	return stored, expected
}

// TestFlinkCollectorLosesNothingThroughTCPFaults runs the collector through
// Toxiproxy (→ a counting proxy → the real Flink REST API) while the link
// degrades: latency, a bandwidth limit, connection resets, requests that
// vanish (timeout toxic), and a 20 s cut during which Flink's 10-deep history
// rolls over.
func TestFlinkCollectorLosesNothingThroughTCPFaults(t *testing.T) {
	env := flinkOn(t, trackFlinkA)
	tp := toxienv.Ensure(t)
	jid := env.Submit(t, "--name", "ce-faults-tcp", "--interval-ms", "1000", "--rate", "100")
	obs := observeFlink(t, env.RESTURL, jid)
	counter, csrv := startFaultProxy(t, env.RESTURL, jid, 0)
	proxy := tp.NewProxy(t, strings.TrimPrefix(csrv.URL, "http://"))
	start := time.Now()
	a, base := newFaultApp(t, proxy.URL())
	waitFor(t, 30*time.Second, "the first checkpoints", func() bool { return len(finalCheckpoints(t, a, jid)) >= 3 })

	phase := func(what string, d time.Duration, toxics ...string) {
		t.Logf("%5.1f s: %s for %v", time.Since(start).Seconds(), what, d)
		time.Sleep(d)
		for _, name := range toxics {
			if err := proxy.RemoveToxic(name); err != nil {
				t.Fatal(err)
			}
		}
	}
	phase("latency 300 ms ± 100", 5*time.Second, proxy.Latency(t, toxienv.Downstream, 300*time.Millisecond, 100*time.Millisecond))
	phase("bandwidth 50 KB/s", 5*time.Second, proxy.Bandwidth(t, toxienv.Downstream, 50))
	t.Logf("%5.1f s: connection resets (half the connections, 0.4 s of every 1.2 s) for 6 s", time.Since(start).Seconds())
	for end := time.Now().Add(6 * time.Second); time.Now().Before(end); {
		name, err := proxy.AddToxic("", "reset_peer", toxienv.Downstream, 0.5, map[string]any{"timeout": 0})
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(400 * time.Millisecond)
		if err := proxy.RemoveToxic(name); err != nil {
			t.Fatal(err)
		}
		time.Sleep(800 * time.Millisecond)
	}
	// Requests vanish and connections hang: only the request timeout (half
	// the history span, 5 s) ends them.
	phase("requests lost (timeout toxic upstream)", 4*time.Second, proxy.Timeout(t, toxienv.Upstream, 0))
	timeoutEnded := time.Now()
	// A hung request outlives the toxic by up to its 5 s timeout; then the
	// collector retries within a quarter of the span. The link stays clean
	// until a list answer got through (6.5 s at least; longer on a loaded
	// machine, whose polls come late), at most 30 s.
	t.Logf("%5.1f s: clean until a list answer gets through", time.Since(start).Seconds())
	time.Sleep(6500 * time.Millisecond)
	for deadline := time.Now().Add(25 * time.Second); !counter.lastListOK(time.Now()).at.After(timeoutEnded) && time.Now().Before(deadline); {
		time.Sleep(200 * time.Millisecond)
	}
	cutFrom := time.Now()
	t.Logf("%5.1f s: cut for 20 s", time.Since(start).Seconds())
	<-proxy.CutFor(t, 20*time.Second)
	cutTo := time.Now()
	if err := proxy.RemoveAllToxics(); err != nil {
		t.Fatal(err)
	}
	t.Logf("%5.1f s: link clean again; catching up", time.Since(start).Seconds())
	// The job's poller recovers on its own: its retries are capped at a quarter of the history
	// span (2.5 s here), so it is back within a few of them. How soon depends on the machine's
	// load, so the test waits for it (20 s at most) rather than looking at a fixed moment.
	var h collect.Health
	recovered := false
	for deadline := time.Now().Add(20 * time.Second); !recovered && time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		h, _ = collectorHealth(a)
		recovered = !slices.ContainsFunc(h.Problems, func(p string) bool { return strings.HasPrefix(p, "job "+jid) })
	}
	t.Logf("%5.1f s: the job's poller %s", time.Since(start).Seconds(), map[bool]string{true: "recovered", false: "did not recover"}[recovered])

	seen, counts, r := endJob(t, a, env, jid, obs)
	after := checkNoGoroutineLeft(t, a, base)
	sc := checkSpan(t, a, jid, r, true)
	// The collector got through again between the timeout toxic and the cut.
	lastOK := counter.lastListOK(cutFrom)
	if !lastOK.at.After(timeoutEnded) {
		t.Errorf("no list poll answered between the end of the timeout toxic (%.1f s) and the cut (%.1f s): last at %.1f s",
			timeoutEnded.Sub(start).Seconds(), cutFrom.Sub(start).Seconds(), lastOK.at.Sub(start).Seconds())
	}
	// During the cut the history (10 deep at 1 s) rolls over: the checkpoints
	// that ended in it may be gaps. So may those that ended before the cut
	// but after the newest one the last list answer before it held: the
	// collector polls every third of the span (3.3 s) by design, Flink's REST
	// API caches checkpoint statistics for up to 3 s
	// (rest.cache.checkpoint-statistics.timeout = web.refresh-interval), and
	// the next answer that gets through, after the 20 s cut, no longer lists
	// them. The window ends 1 s after the cut for the poll that reconnects.
	cutEndMs := cutTo.Add(time.Second).UnixMilli()
	excused := func(c model.Checkpoint) bool { return c.ID > lastOK.top && endMs(c) <= cutEndMs }
	stored, expected := checkAgainstFlink(t, counter, sc, seen, excused, 0.95)
	f := counter.figures(cutFrom, cutTo)
	if t.Failed() {
		counter.mu.Lock()
		var at, ok []string
		for _, x := range counter.listTimes {
			at = append(at, fmt.Sprintf("%d", x.UnixMilli()))
		}
		for _, x := range counter.listOK {
			ok = append(ok, fmt.Sprintf("%d:%d", x.at.UnixMilli(), x.top))
		}
		counter.mu.Unlock()
		t.Logf("list polls at %v; answered whole at %v; cut %d–%d", at, ok, cutFrom.UnixMilli(), cutTo.UnixMilli())
	}
	t.Logf("faultproxy: tcp toxics %.0f s: stored %d/%d completed outside the cut, span %d–%d: %d ids, %d stored, %d gaps, %d unaccounted; "+
		"details full %d partial %d missed %d none %d; %d polls (%d failed); %d requests, %.2f per checkpoint (most %d); "+
		"list polls %d, spacing median %v max %v (outside the cut %v); flink %+v; goroutines %d → %d; health after the cut %s (%s)",
		time.Since(start).Seconds(), stored, expected, r.FirstID, r.LatestID, r.IDs, r.Stored, r.Gaps, r.Unaccounted,
		sc.details.full, sc.details.partial, sc.details.missed, sc.details.none, r.Polls, r.FailedPolls,
		f.requests, f.perCheckpoint, f.mostForOne, f.listPolls, f.spacingMedian.Round(time.Millisecond),
		f.spacingMax.Round(time.Millisecond), f.spacingMaxOut.Round(time.Millisecond), counts, base, after, h.State, h.LastError)
	// Retries are capped at 2.5 s, so polls stay inside the history span (10 × 1 s) outside
	// the cut on a machine with CPU to spare; on a starved one (make test loads both cores)
	// they can be further apart. What matters, and what is checked above, is that nothing is
	// lost: ids that left the history between two polls are gaps the JobManager log fills or
	// the reconciliation accounts for. How far apart the polls were is a figure.
	if f.spacingMaxOut > 10*time.Second {
		t.Logf("list polls %v apart outside the cut, beyond the 10 s history span (a busy machine)", f.spacingMaxOut)
	}
	// The job's poller is back to normal. (The job list may still report the
	// cut: its backoff doubles up to MaxBackoff, past the end of the cut.)
	for _, p := range h.Problems {
		if strings.HasPrefix(p, "job "+jid) {
			t.Errorf("20 s after the cut the job's poller still reports %q", p)
		}
	}
	if r.FailedPolls == 0 {
		t.Errorf("no failed poll recorded through a 20 s cut: %+v", r)
	}
}

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
		clusterSettings: clusterSettings{RequestsPerSecond: rps, MaxInFlight: inFlight}}); err != nil {
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
	withDetails, missed, fromLog := 0, 0, 0
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
		case c.Source == model.OriginJobManagerLog:
			// Gone from the list before a poll saw it; the JobManager log has no details.
			fromLog++
		case c.ID < newest-12:
			// Beyond Flink's 10-deep history (and a poll's lag) a summary is final.
			t.Errorf("checkpoint %d has neither details nor a detail-loss mark", c.ID)
		}
	}
	t.Logf("%d final checkpoints stored: %d with their details, %d whose details were missed, %d from the JobManager log, %d gaps",
		len(final), withDetails, missed, fromLog, len(gaps))
}
