package publish

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/model/modeltest"
	"checkpoint-explorer/backend/otlpexport"
	"checkpoint-explorer/backend/store"
)

// receiver is an in-process OTLP/HTTP receiver counting the Checkpoint spans it took, by
// checkpoint id. down refuses requests (503, which the SDK retries until its timeout); hold
// makes each request wait until the channel is closed; refuse answers that status to the
// requests holding a checkpoint of refuseIDs (nil: every request); a request holding one of
// partialIDs is taken with that checkpoint's spans rejected (an OTLP partial success).
type receiver struct {
	url string

	mu         sync.Mutex
	down       bool
	hold       chan struct{}
	held       chan struct{} // a request is waiting on hold
	refuse     int
	refuseIDs  map[int64]bool
	partialIDs map[int64]bool
	refused    int // requests refused
	requests   int
	spans      int
	byID       map[int64]int
	attrs      map[int64]map[string]bool // the Checkpoint span's attribute keys
}

func newReceiver(t *testing.T) *receiver {
	r := &receiver{byID: map[int64]int{}, attrs: map[int64]map[string]bool{}, held: make(chan struct{}, 1)}
	srv := httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(srv.Close)
	r.url = srv.URL
	return r
}

func (r *receiver) serve(w http.ResponseWriter, hr *http.Request) {
	body, _ := io.ReadAll(hr.Body)
	req := &coltracepb.ExportTraceServiceRequest{}
	if err := proto.Unmarshal(body, req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	r.mu.Lock()
	down, hold := r.down, r.hold
	r.mu.Unlock()
	if down {
		http.Error(w, "down", http.StatusServiceUnavailable)
		return
	}
	if hold != nil {
		select {
		case r.held <- struct{}{}:
		default:
		}
		<-hold
	}
	spans, held := checkpointsIn(req)
	r.mu.Lock()
	defer r.mu.Unlock()
	var resp coltracepb.ExportTraceServiceResponse
	for id, c := range held {
		if r.refuse != 0 && (r.refuseIDs == nil || r.refuseIDs[id]) {
			r.refused++
			http.Error(w, fmt.Sprintf("checkpoint %d: attribute value too long", id), r.refuse)
			return
		}
		if r.partialIDs[id] {
			resp.PartialSuccess = &coltracepb.ExportTracePartialSuccess{RejectedSpans: int64(c.spans),
				ErrorMessage: fmt.Sprintf("checkpoint %d: attribute value too long", id)}
		}
	}
	r.requests++
	r.spans += spans
	for id, c := range held {
		r.byID[id]++
		r.attrs[id] = c.keys
	}
	out, _ := proto.Marshal(&resp)
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.Write(out)
}

// heldCheckpoint is a checkpoint whose Checkpoint span a request holds: its spans there, and the
// Checkpoint span's attribute keys.
type heldCheckpoint struct {
	spans int
	keys  map[string]bool
}

// checkpointsIn counts the spans of req and tells the checkpoints it holds, by id (the trace id
// says which checkpoint a span is of).
func checkpointsIn(req *coltracepb.ExportTraceServiceRequest) (spans int, byID map[int64]*heldCheckpoint) {
	var all []*tracepb.Span
	for _, rs := range req.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			all = append(all, ss.Spans...)
		}
	}
	byID = map[int64]*heldCheckpoint{}
	byTrace := map[string]*heldCheckpoint{}
	for _, sp := range all {
		if sp.Name != "Checkpoint" {
			continue
		}
		c := &heldCheckpoint{keys: map[string]bool{}}
		for _, a := range sp.Attributes {
			c.keys[a.Key] = true
			if a.Key == "checkpointId" {
				byID[a.Value.GetIntValue()] = c
			}
		}
		byTrace[string(sp.TraceId)] = c
	}
	for _, sp := range all {
		if c := byTrace[string(sp.TraceId)]; c != nil {
			c.spans++
		}
	}
	return len(all), byID
}

func (r *receiver) setDown(down bool) {
	r.mu.Lock()
	r.down = down
	r.mu.Unlock()
}

// counts returns a copy of the Checkpoint spans taken by id.
func (r *receiver) counts() map[int64]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[int64]int, len(r.byID))
	for id, n := range r.byID {
		out[id] = n
	}
	return out
}

// fixture is a cache with one Flink job's checkpoints (ids 0, 2, 4, …) and a publisher of it.
type fixture struct {
	path  string
	st    *store.Store
	rcv   *receiver
	log   *bytes.Buffer
	logMu *sync.Mutex
}

func newFixture(t *testing.T, r store.Retention) *fixture {
	t.Helper()
	path := filepath.Join(t.TempDir(), "cache.db")
	return &fixture{path: path, st: openStore(t, path, r), rcv: newReceiver(t), log: &bytes.Buffer{}}
}

func openStore(t *testing.T, path string, r store.Retention) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), path, r)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// fill stores n checkpoints from id 2*first, 2 vertices of 3 subtasks each.
func (f *fixture) fill(t *testing.T, st *store.Store, first, n int) {
	t.Helper()
	ctx := context.Background()
	job := model.Job{Cluster: "c", ID: "j", Name: "orders", Engine: model.EngineFlink, State: "RUNNING", StartMs: 1_700_000_000_000,
		Vertices: []model.Vertex{{ID: modeltest.VertexID(0), Name: "Source", Parallelism: 3}, {ID: modeltest.VertexID(1), Name: "Sink", Parallelism: 3}},
		Edges:    []model.Edge{{Source: modeltest.VertexID(0), Target: modeltest.VertexID(1)}}}
	if err := st.PutJob(ctx, job); err != nil {
		t.Fatal(err)
	}
	var cps []model.Checkpoint
	for i := first; i < first+n; i++ {
		cps = append(cps, modeltest.Checkpoint("c", "j", int64(2*i), 1_700_000_000_000+int64(i)*1000, 2, 3))
	}
	if err := st.PutCheckpoints(ctx, cps); err != nil {
		t.Fatal(err)
	}
}

// start runs a publisher of st until the test ends or stop is called; stop waits for Run to return.
func (f *fixture) start(t *testing.T, st *store.Store, o Options) (p *Publisher, stop func()) {
	t.Helper()
	o.Export.Endpoint = f.rcv.url
	o.Export.Timeout = cmpOr(o.Export.Timeout, 300*time.Millisecond)
	o.Every = cmpOr(o.Every, 20*time.Millisecond)
	o.MaxBackoff = cmpOr(o.MaxBackoff, 100*time.Millisecond)
	o.Logger = slog.New(slog.NewTextHandler(f.log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	p, err := New(context.Background(), st, o)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("Run: %v", err)
			}
		})
	}
	t.Cleanup(stop)
	return p, stop
}

// waitFor polls cond until it holds, failing the test after a minute.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("waited a minute for %s", what)
		}
	}
}

// checkOnce fails unless the receiver took each of the n checkpoints from id 0 exactly once.
func checkOnce(t *testing.T, got map[int64]int, n int) {
	t.Helper()
	for i := range n {
		if got[int64(2*i)] != 1 {
			t.Errorf("checkpoint %d taken %d times, want once", 2*i, got[int64(2*i)])
		}
	}
	if len(got) != n {
		t.Errorf("the receiver took %d checkpoints, want %d", len(got), n)
	}
}

// Every stored checkpoint arrives once, whole, with its causes; the status counts it and, once
// drained, nothing pending.
func TestPublishDeliversEachCheckpointOnce(t *testing.T) {
	f := newFixture(t, store.Retention{})
	f.fill(t, f.st, 0, 12)
	p, stop := f.start(t, f.st, Options{Batch: 5})
	waitFor(t, "the drain to be counted", func() bool {
		s := p.Status()
		return s.Exported == 12 && !s.CountedAt.IsZero() && s.Pending == 0
	})
	stop()
	checkOnce(t, f.rcv.counts(), 12)
	f.rcv.mu.Lock()
	spans, causes := f.rcv.spans, f.rcv.attrs[4][otlpexport.AttrCauses]
	f.rcv.mu.Unlock()
	if want := 12 * (1 + 2 + 2*3); spans != want {
		t.Errorf("%d spans, want %d (a checkpoint, 2 tasks and 6 subtasks each)", spans, want)
	}
	if !causes {
		t.Errorf("checkpoint 4's span has no %s attribute", otlpexport.AttrCauses)
	}
	if s := p.Status(); s.Spans != int64(spans) || s.LastSuccess.IsZero() || s.Errors != 0 || s.Target != f.rcv.url+"/v1/traces" {
		t.Errorf("status %+v", s)
	}
}

// The checkpoints of many jobs, interleaved as a fleet's arrive, share requests: each request
// holds whole checkpoints of any job up to the batch size, rather than one job's each (a fleet
// of 2,000 jobs sent one checkpoint a request and drained a backlog slowly). One the endpoint
// refuses for good holds up none of the other jobs'.
func TestPublishSendsManyJobsCheckpointsInSharedRequests(t *testing.T) {
	const jobs = 40
	for _, tc := range []struct {
		name     string
		refuse   []int64
		requests int // taken
	}{
		// 9 spans a checkpoint, at most 100 a request: 11 checkpoints a request.
		{"all taken", nil, 4},
		// The first request (ids 0–20) is refused; its 11 go one at a time (10 taken, job j07's
		// refused alone and set aside); then the 29 after it in 3.
		{"one refused", []int64{14}, 13},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, store.Retention{})
			ctx := context.Background()
			var cps []model.Checkpoint
			for k := range jobs {
				id := fmt.Sprintf("j%02d", k)
				if err := f.st.PutJob(ctx, model.Job{Cluster: "c", ID: id, Name: "job " + id, Engine: model.EngineFlink, State: "RUNNING"}); err != nil {
					t.Fatal(err)
				}
				cps = append(cps, modeltest.Checkpoint("c", id, int64(2*k), 1_700_000_000_000+int64(k)*1000, 2, 3))
			}
			if err := f.st.PutCheckpoints(ctx, cps); err != nil {
				t.Fatal(err)
			}
			if tc.refuse != nil {
				f.rcv.setRefuse(http.StatusBadRequest, tc.refuse...)
			}
			// A request of 11 checkpoints takes longer than the fixture's 300 ms on a loaded
			// machine: timed out after the receiver took it, it would be sent again (at least once).
			p, stop := f.start(t, f.st, Options{Batch: 200, Export: otlpexport.Options{BatchSize: 100, Timeout: 30 * time.Second}})
			waitFor(t, "every job's checkpoint", func() bool {
				s := p.Status()
				return s.Exported+s.Refused == jobs
			})
			stop()
			got := f.rcv.counts()
			for k := range jobs {
				if want := map[bool]int{true: 0, false: 1}[slices.Contains(tc.refuse, int64(2*k))]; got[int64(2*k)] != want {
					t.Errorf("checkpoint of job j%02d taken %d times, want %d", k, got[int64(2*k)], want)
				}
			}
			f.rcv.mu.Lock()
			requests, spans := f.rcv.requests, f.rcv.spans
			f.rcv.mu.Unlock()
			if want := (jobs - len(tc.refuse)) * 9; spans != want || requests != tc.requests {
				t.Errorf("%d spans in %d requests taken, want %d in %d", spans, requests, want, tc.requests)
			}
			if s := p.Status(); int(s.Refused) != len(tc.refuse) {
				t.Errorf("refused %v, want %v", s.RefusedKeys, tc.refuse)
			}
		})
	}
}

// With the endpoint down the checkpoints wait in the cache, the failures are counted and told
// without the token; once it is back they drain, each once.
func TestPublishDrainsOnceTheEndpointIsBack(t *testing.T) {
	f := newFixture(t, store.Retention{})
	f.rcv.setDown(true)
	f.fill(t, f.st, 0, 10)
	p, stop := f.start(t, f.st, Options{Batch: 3, Export: otlpexport.Options{BearerToken: "s3cret-token"}})
	waitFor(t, "failed rounds", func() bool { return p.Status().Errors >= 3 })
	f.fill(t, f.st, 10, 10) // collection goes on meanwhile
	if s := p.Status(); s.Exported != 0 || s.LastError == "" || strings.Contains(s.LastError, "s3cret") {
		t.Errorf("while down: status %+v", s)
	}
	f.rcv.setDown(false)
	waitFor(t, "the drain", func() bool { return p.Status().Exported == 20 })
	stop()
	checkOnce(t, f.rcv.counts(), 20)
	if log := f.log.String(); strings.Contains(log, "s3cret") || !strings.Contains(log, "the endpoint takes checkpoints again") {
		t.Errorf("the log holds the token, or does not tell the recovery:\n%s", log)
	}
}

// A new process on the same cache (the old one killed) sends what the old one had not marked,
// and nothing it had.
func TestPublishResumesFromTheMarksAfterAKill(t *testing.T) {
	f := newFixture(t, store.Retention{})
	f.fill(t, f.st, 0, 40)
	p, stop := f.start(t, f.st, Options{Batch: 4})
	waitFor(t, "some batches sent", func() bool { return p.Status().Exported >= 8 })
	stop()
	second := openStore(t, f.path, store.Retention{}) // as another process would open it
	left, err := second.ExportSpool(p.Target()).Next(context.Background(), 100)
	if err != nil {
		t.Fatal(err)
	}
	unmarked := map[int64]bool{}
	for _, c := range left {
		unmarked[c.ID] = true
	}
	if len(unmarked) == 0 || len(unmarked) > 32 {
		t.Fatalf("the first run left %d of 40 unmarked", len(unmarked))
	}
	p2, _ := f.start(t, second, Options{Batch: 4})
	waitFor(t, "the rest", func() bool { return p2.Status().Exported >= int64(len(unmarked)) })
	got := f.rcv.counts()
	for id, n := range got {
		// One the first run sent without marking (its request out when it stopped) comes twice.
		if n != 1 && !(unmarked[id] && n == 2) {
			t.Errorf("checkpoint %d (marked by the first run: %v) taken %d times", id, !unmarked[id], n)
		}
	}
	if len(got) != 40 || p2.Status().Exported != int64(len(unmarked)) {
		t.Errorf("the receiver took %d checkpoints, want 40; the second run sent %d, want the %d unmarked",
			len(got), p2.Status().Exported, len(unmarked))
	}
}

// While a request hangs at a slow endpoint the collector's writes go on: the loop holds no
// transaction while it sends.
func TestSlowEndpointDoesNotBlockTheStoreWriter(t *testing.T) {
	f := newFixture(t, store.Retention{})
	hold := make(chan struct{})
	f.rcv.mu.Lock()
	f.rcv.hold = hold
	f.rcv.mu.Unlock()
	f.fill(t, f.st, 0, 3)
	_, stop := f.start(t, f.st, Options{Export: otlpexport.Options{Timeout: time.Minute}})
	select {
	case <-f.rcv.held:
	case <-time.After(time.Minute):
		t.Fatal("no request reached the endpoint")
	}
	start := time.Now()
	for i := range 20 {
		f.fill(t, f.st, 3+i, 1)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("20 writes took %s while a request hung", took)
	}
	select {
	case <-f.rcv.held:
		t.Error("a second request came while the first hung")
	default:
	}
	close(hold)
	stop()
}

// Retention removing checkpoints not yet sent (the endpoint down too long) counts them and names
// each in the log.
func TestPublishTellsWhatRetentionDroppedUnsent(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, store.Retention{MaxCheckpointsPerJob: 5})
	f.rcv.setDown(true)
	f.fill(t, f.st, 0, 8)
	p, stop := f.start(t, f.st, Options{})
	waitFor(t, "a failed round", func() bool { return p.Status().Errors >= 1 })
	if _, err := f.st.ApplyRetention(ctx); err != nil {
		t.Fatal(err)
	}
	s := p.Status()
	want := []model.Key{{Cluster: "c", JobID: "j", ID: 0}, {Cluster: "c", JobID: "j", ID: 2}, {Cluster: "c", JobID: "j", ID: 4}}
	if s.Dropped != 3 || fmt.Sprint(s.DroppedKeys) != fmt.Sprint(want) {
		t.Errorf("dropped %d %v, want %v", s.Dropped, s.DroppedKeys, want)
	}
	f.rcv.setDown(false)
	waitFor(t, "the rest", func() bool { return p.Status().Exported == 5 })
	stop()
	if !strings.Contains(f.log.String(), `checkpoints="c/j: 0, 2, 4"`) {
		t.Errorf("the log does not name the drops:\n%s", f.log.String())
	}
}

// setRefuse has the receiver answer status to the requests holding one of ids (none: every
// request; status 0: take them all).
func (r *receiver) setRefuse(status int, ids ...int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.refuse, r.refuseIDs = status, nil
	if len(ids) > 0 {
		r.refuseIDs = map[int64]bool{}
		for _, id := range ids {
			r.refuseIDs[id] = true
		}
	}
}

func (r *receiver) refusedRequests() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.refused
}

// exportTotal is the cache's count of what the publisher's target has of it.
func exportTotal(t *testing.T, st *store.Store, p *Publisher) store.ExportCount {
	t.Helper()
	_, total, err := st.ExportCounts(context.Background(), p.Target(), store.Query{})
	if err != nil {
		t.Fatal(err)
	}
	return total
}

// metricValues are the publisher's lines on /metrics, by name.
func metricValues(t *testing.T, p *Publisher) map[string]float64 {
	t.Helper()
	reg := prometheus.NewRegistry()
	if err := p.Register(reg); err != nil {
		t.Fatal(err)
	}
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, f := range families {
		for _, m := range f.Metric {
			out[f.GetName()] = m.GetCounter().GetValue() + m.GetGauge().GetValue()
		}
	}
	return out
}

// A checkpoint the endpoint refuses for good (HTTP 400 for any request holding it) holds up
// nothing: its request is sent again a checkpoint at a time, every other checkpoint is taken
// once and marked, and it is marked refused, counted, named in Status, the log and /metrics, and
// not pending any more.
func TestPublishSetsAsideACheckpointRefusedForGood(t *testing.T) {
	f := newFixture(t, store.Retention{})
	f.rcv.setRefuse(http.StatusBadRequest, 4)
	f.fill(t, f.st, 0, 12) // ids 0 to 22; 2 per request: 0 and 2 go, 4 and 6 are refused, 6 goes alone
	p, stop := f.start(t, f.st, Options{Batch: 5, Export: otlpexport.Options{BatchSize: 18, BearerToken: "s3cret-token"}})
	waitFor(t, "the drain to be counted", func() bool {
		s := p.Status()
		return s.Exported == 11 && s.Refused == 1 && !s.CountedAt.IsZero() && s.Pending == 0
	})
	stop()
	got := f.rcv.counts()
	for i := range 12 {
		if id := int64(2 * i); id != 4 && got[id] != 1 {
			t.Errorf("checkpoint %d taken %d times, want once", id, got[id])
		}
	}
	if got[4] != 0 || len(got) != 11 {
		t.Errorf("the receiver took %d checkpoints (4: %d times), want the 11 others", len(got), got[4])
	}
	s := p.Status()
	if want := []model.Key{{Cluster: "c", JobID: "j", ID: 4}}; fmt.Sprint(s.RefusedKeys) != fmt.Sprint(want) || s.Errors != 0 {
		t.Errorf("refused %v, %d errors; want %v and none", s.RefusedKeys, s.Errors, want)
	}
	if total, want := exportTotal(t, f.st, p), (store.ExportCount{Final: 12, Exported: 11, Refused: 1}); total != want {
		t.Errorf("the cache counts %+v, want %+v", total, want)
	}
	if left, err := f.st.ExportSpool(p.Target()).Next(context.Background(), 100); err != nil || len(left) != 0 {
		t.Errorf("the spool still gives %d checkpoints (%v)", len(left), err)
	}
	if m := metricValues(t, p); m["checkpoint_explorer_export_refused_total"] != 1 || m["checkpoint_explorer_export_checkpoints_total"] != 11 {
		t.Errorf("/metrics: %v", m)
	}
	log := f.log.String()
	if strings.Contains(log, "s3cret") || !strings.Contains(log, "the endpoint refused a checkpoint for good") ||
		!strings.Contains(log, "cluster=c job=j pipeline=0 checkpoint=4") || !strings.Contains(log, "checkpoint 4: attribute value too long") {
		t.Errorf("the log does not name the refused checkpoint and the endpoint's reason, or holds the token:\n%s", log)
	}
}

// An endpoint refusing every request, for its configuration (401) or with a 400, sets nothing
// aside: the checkpoints wait, the rounds are retried and say why; once it takes them they drain.
func TestPublishSetsNothingAsideWhenEveryRequestIsRefused(t *testing.T) {
	for _, c := range []struct {
		status int
		says   string
	}{
		{http.StatusUnauthorized, "HTTP 401 Unauthorized, a configuration problem: fix the endpoint's URL, protocol or credentials"},
		{http.StatusBadRequest, "not set aside while the endpoint has taken no checkpoint"},
	} {
		t.Run(fmt.Sprint(c.status), func(t *testing.T) {
			f := newFixture(t, store.Retention{})
			f.rcv.setRefuse(c.status)
			f.fill(t, f.st, 0, 6)
			p, stop := f.start(t, f.st, Options{})
			waitFor(t, "rounds retried", func() bool { return p.Status().Errors >= 3 && f.rcv.refusedRequests() >= 3 })
			if s := p.Status(); s.Refused != 0 || s.Exported != 0 || !strings.Contains(s.LastError, c.says) {
				t.Errorf("status %+v; want nothing refused or sent, the error saying %q", s, c.says)
			}
			if total := exportTotal(t, f.st, p); total.Refused != 0 || total.Pending != 6 {
				t.Errorf("the cache counts %+v, want 6 pending", total)
			}
			f.rcv.setRefuse(0)
			waitFor(t, "the drain", func() bool { return p.Status().Exported == 6 })
			stop()
			checkOnce(t, f.rcv.counts(), 6)
		})
	}
}

// A request the endpoint takes with spans rejected (an OTLP partial success) is sent: marked,
// not sent again, the rejected spans counted and the endpoint's reason logged.
func TestPublishCountsSpansRejectedInAPartialSuccess(t *testing.T) {
	f := newFixture(t, store.Retention{})
	f.rcv.mu.Lock()
	f.rcv.partialIDs = map[int64]bool{2: true}
	f.rcv.mu.Unlock()
	f.fill(t, f.st, 0, 6)
	p, stop := f.start(t, f.st, Options{})
	waitFor(t, "the drain to be counted", func() bool {
		s := p.Status()
		return s.Exported == 6 && !s.CountedAt.IsZero() && s.Pending == 0
	})
	stop()
	checkOnce(t, f.rcv.counts(), 6)
	if s := p.Status(); s.RejectedSpans != 9 || s.Errors != 0 || s.Spans != 6*9-9 {
		t.Errorf("status %+v; want the 9 spans of checkpoint 2 rejected, no error", s)
	}
	if total := exportTotal(t, f.st, p); total != (store.ExportCount{Final: 6, Exported: 6}) {
		t.Errorf("the cache counts %+v, want all 6 exported", total)
	}
	if m := metricValues(t, p); m["checkpoint_explorer_export_rejected_spans_total"] != 9 {
		t.Errorf("/metrics: %v", m)
	}
	if log := f.log.String(); !strings.Contains(log, "OTLP partial success") || !strings.Contains(log, "checkpoint 2: attribute value too long") {
		t.Errorf("the log does not tell the partial success and its reason:\n%s", log)
	}
}

func TestBackoffDoublesUpToItsCap(t *testing.T) {
	st := openStore(t, filepath.Join(t.TempDir(), "c.db"), store.Retention{})
	p, err := New(context.Background(), st, Options{Export: otlpexport.Options{Endpoint: "http://127.0.0.1:1"}})
	if err != nil {
		t.Fatal(err)
	}
	var got []time.Duration
	for range 6 {
		got = append(got, p.failed(fmt.Errorf("refused")))
	}
	want := []time.Duration{5 * time.Second, 10 * time.Second, 20 * time.Second, 40 * time.Second, time.Minute, time.Minute}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("backoff %v, want %v", got, want)
	}
	p.sent(1, 1)
	if w := p.failed(fmt.Errorf("refused")); w != 5*time.Second {
		t.Errorf("after a success the backoff starts over at %s, not %s", w, 5*time.Second)
	}
}

func TestFormatKeys(t *testing.T) {
	keys := []model.Key{{Cluster: "a", JobID: "j", ID: 4}, {Cluster: "a", JobID: "j", ID: 5},
		{Cluster: "a", JobID: "k", Pipeline: 2, ID: 1}, {Cluster: "b", JobID: "j", ID: 9}}
	if got, want := FormatKeys(keys), "a/j: 4, 5; a/k#2: 1; b/j: 9"; got != want {
		t.Errorf("FormatKeys = %q, want %q", got, want)
	}
}
