package record

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"checkpoint-explorer/backend/capture"
	"checkpoint-explorer/backend/capture/capturetest"
	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/source/prometheus"
	"checkpoint-explorer/testenv/flinkenv"
	"checkpoint-explorer/testenv/promenv"
)

// recordAsync runs Record in the background and returns its result, failing
// the test if it runs far past the duration.
func recordAsync(t *testing.T, o Options) (Progress, error) {
	t.Helper()
	type result struct {
		p   Progress
		err error
	}
	done := make(chan result, 1)
	go func() {
		p, err := Record(context.Background(), o)
		done <- result{p, err}
	}()
	select {
	case r := <-done:
		return r.p, r.err
	case <-time.After(o.Duration + time.Minute):
		t.Fatalf("recording of %s still running a minute past its end", o.Duration)
	}
	return Progress{}, nil
}

// readCapture returns what a recorded file holds.
type recorded struct {
	sum         capture.Summary
	jobs        []model.Job
	checkpoints int
	prom        []model.MetricSample
}

func readCapture(t *testing.T, path string) recorded {
	t.Helper()
	rec := capturetest.Read(t, path)
	r := recorded{sum: rec.Summary, jobs: rec.Jobs, checkpoints: len(rec.Checkpoints)}
	for _, m := range rec.MetricSamples {
		if m.Source == prometheus.SourceName {
			r.prom = append(r.prom, m)
		}
	}
	return r
}

// noDuplicates fails on a (vertex, subtask, metric, agg, time) written twice.
func noDuplicates(t *testing.T, ms []model.MetricSample) {
	t.Helper()
	type key struct {
		job, vertex, metric, agg string
		subtask                  int
		time                     int64
	}
	seen := map[key]bool{}
	for _, m := range ms {
		k := key{m.JobID, m.VertexID, m.Metric, m.Agg, m.Subtask, m.TimeMs}
		if seen[k] {
			t.Errorf("sample written twice: %+v", m)
		}
		seen[k] = true
	}
}

// A real Flink job with backpressure, recorded with the real Prometheus that
// scrapes the cluster's reporters: the capture holds Prometheus backpressure
// for the job's vertices over the whole recording, each point once, within
// one range query per period.
func TestRecordReadsBackpressureFromARealPrometheus(t *testing.T) {
	pe := promenv.Ensure(t)
	fe := flinkenv.Ensure(t)
	jid := flinkenv.SubmitJob(t, "--name", "ce-record-prom", "--interval-ms", "1000", "--rate", "0", "--sleep-ms", "5")
	out := filepath.Join(t.TempDir(), "rec.ckpt.gz")
	const dur, every = 25 * time.Second, 5 * time.Second
	var mu sync.Mutex
	var during []Progress
	before := time.Now()
	res, err := recordAsync(t, Options{
		Cluster: model.Cluster{Name: "lab", Engine: model.EngineFlink, BaseURL: fe.RESTURL, PrometheusURL: pe.URL},
		JobID:   jid, Duration: dur, Out: out, Every: 500 * time.Millisecond, JobsEvery: time.Second, PromEvery: every,
		Progress: func(p Progress) {
			mu.Lock()
			during = append(during, p)
			mu.Unlock()
		},
	})
	after := time.Now()
	if err != nil {
		t.Fatal(err)
	}
	if res.Checkpoints == 0 || res.PromSamples == 0 || res.PromError != "" || res.MetricSamples < int64(res.PromSamples) {
		t.Fatalf("result %+v", res)
	}
	// Budget: the check, the scrape interval, at most one range query per period, and the final read.
	if most := 2 + int(dur/every) + 1; res.PromRequests < 4 || res.PromRequests > most {
		t.Errorf("%d Prometheus requests for a %s recording read every %s, want 3..%d", res.PromRequests, dur, every, most)
	}
	mu.Lock()
	shown := slices.ContainsFunc(during, func(p Progress) bool { return p.PromSamples > 0 && p.PromRequests > 1 })
	mu.Unlock()
	if !shown {
		t.Error("no progress report showed Prometheus samples while recording")
	}

	rec := readCapture(t, out)
	if len(rec.prom) != res.PromSamples || rec.checkpoints != int(res.Checkpoints) {
		t.Fatalf("read back %d Prometheus samples and %d checkpoints, recorded %+v", len(rec.prom), rec.checkpoints, res)
	}
	noDuplicates(t, rec.prom)
	vertices := map[string]string{}
	for _, j := range rec.jobs {
		for _, v := range j.Vertices {
			vertices[v.ID] = v.Name
		}
	}
	if len(vertices) == 0 {
		t.Fatal("no job graph in the capture")
	}
	type series struct{ vertex, metric, agg string }
	times := map[series][]int64{}
	var srcPeak float64
	for _, m := range rec.prom {
		if m.JobID != jid || m.Cluster != "lab" || m.Subtask != -1 {
			t.Fatalf("sample of another job, cluster or subtask: %+v", m)
		}
		if _, ok := vertices[m.VertexID]; !ok {
			t.Fatalf("sample of vertex %q, not in the job's graph", m.VertexID)
		}
		times[series{m.VertexID, m.Metric, m.Agg}] = append(times[series{m.VertexID, m.Metric, m.Agg}], m.TimeMs)
		if strings.Contains(vertices[m.VertexID], "Numbers") && m.Metric == model.MetricBackPressuredMsPerSec && m.Agg == model.AggMax {
			srcPeak = max(srcPeak, m.Value)
		}
	}
	// Read at the server's scrape interval, which it reports (the test server: every 1 s).
	step := pe.ScrapeInterval.Milliseconds()
	pc, err := prometheus.New(prometheus.Config{URL: pe.URL, MinStep: pe.ScrapeInterval})
	if err != nil {
		t.Fatal(err)
	}
	for id, name := range vertices {
		ts := times[series{id, model.MetricBackPressuredMsPerSec, model.AggMax}]
		if len(ts) == 0 {
			t.Errorf("no Prometheus backpressure for vertex %s (%s)", id, name)
			continue
		}
		// Windows tile the recording: the points start within a step of the start, end
		// within a step of the stop, and follow each other a step apart (no hole, no repeat).
		if ts[0] < before.UnixMilli() || ts[0] > before.UnixMilli()+step+2_000 {
			t.Errorf("%s: first point %s, recording started %s", name, time.UnixMilli(ts[0]), before)
		}
		// The final read keeps the point past the stop: it summarises the tail. The
		// recording stops at its duration; Record returns later (the collector's
		// final poll waits out Flink's statistics cache).
		if last, stop := ts[len(ts)-1], before.Add(dur); last < stop.UnixMilli()-2_000 || last > after.UnixMilli()+step {
			t.Errorf("%s: last point %s, recording stopped %s (returned %s): want the point after the stop, for the tail",
				name, time.UnixMilli(last), stop, after)
		}
		for i := 1; i < len(ts); i++ {
			switch gap := ts[i] - ts[i-1]; {
			case gap <= 0 || gap%step != 0:
				t.Errorf("%s: points %s and %s are not on one step grid (%d ms)", name, time.UnixMilli(ts[i-1]), time.UnixMilli(ts[i]), step)
			case gap > step:
				// A hole is Prometheus's own when a busy machine made it miss scrapes:
				// asked alone, it has no point there either.
				if n := pointsBetween(t, pc, jid, id, ts[i-1], ts[i]); n > 0 {
					t.Errorf("%s: no points recorded between %s and %s, where Prometheus has %d", name,
						time.UnixMilli(ts[i-1]), time.UnixMilli(ts[i]), n)
				} else {
					t.Logf("%s: Prometheus itself has no point between %s and %s (scrapes missed)", name,
						time.UnixMilli(ts[i-1]), time.UnixMilli(ts[i]))
				}
			}
		}
	}
	t.Logf("recorded %d checkpoints, %d Prometheus samples of %d series in %d requests; source backpressure peak %.0f ms/s",
		res.Checkpoints, res.PromSamples, len(times), res.PromRequests, srcPeak)
	if srcPeak < 500 {
		t.Errorf("source backpressure from Prometheus peaks at %.0f ms/s, want > 500 (Slow Map sleeps 5 ms a record)", srcPeak)
	}
}

// A Prometheus that cannot be read is refused before anything is recorded,
// with an error naming Prometheus and its address; no file is left behind.
func TestRecordRefusesAPrometheusItCannotRead(t *testing.T) {
	closed := func(t *testing.T) string {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		l.Close()
		return "http://" + addr
	}
	notProm := func(t *testing.T) string {
		srv := httptest.NewServer(http.HandlerFunc(http.NotFound))
		t.Cleanup(srv.Close)
		return srv.URL
	}
	for _, tc := range []struct {
		name   string
		engine model.Engine
		url    func(*testing.T) string
		says   []string
	}{
		{"closed port", model.EngineFlink, closed, []string{"Prometheus", "connection refused"}},
		{"not Prometheus", model.EngineFlink, notProm, []string{"Prometheus", "HTTP 404"}},
		{"SeaTunnel", model.EngineSeaTunnel, closed, []string{"Prometheus", "SeaTunnel"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			url := tc.url(t)
			jobID := "0123456789abcdef0123456789abcdef"
			if tc.engine == model.EngineSeaTunnel {
				jobID = "1179461284375298049"
			}
			start := time.Now()
			_, err := Record(context.Background(), Options{
				Cluster: model.Cluster{Name: "lab", Engine: tc.engine, BaseURL: "http://127.0.0.1:1", PrometheusURL: url},
				JobID:   jobID, Duration: time.Minute, Out: filepath.Join(dir, "rec.ckpt.gz"),
			})
			if err == nil {
				t.Fatal("recorded with a Prometheus that cannot be read")
			}
			for _, want := range append(tc.says, strings.TrimPrefix(url, "http://")) {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("refused after %s, not before recording", d)
			}
			if left, _ := os.ReadDir(dir); len(left) != 0 {
				t.Errorf("left behind: %v", left)
			}
		})
	}
}

// fakeProm answers the check, then range queries with one point a second for
// one vertex until ok queries were answered; after that every query fails
// with 503. It records each range query's start.
type fakeProm struct {
	ok     int
	mu     sync.Mutex
	starts []float64
}

func (f *fakeProm) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	if strings.HasSuffix(r.URL.Path, "/api/v1/targets") {
		fmt.Fprint(w, `{"status":"success","data":{"activeTargets":[{"scrapeInterval":"1s","health":"up"}],"droppedTargets":[]}}`)
		return
	}
	if strings.HasSuffix(r.URL.Path, "/api/v1/query") {
		fmt.Fprintf(w, `{"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[%d,"1"]}]}}`, time.Now().Unix())
		return
	}
	start, _ := strconv.ParseFloat(r.Form.Get("start"), 64)
	end, _ := strconv.ParseFloat(r.Form.Get("end"), 64)
	f.mu.Lock()
	f.starts = append(f.starts, start)
	n := len(f.starts)
	f.mu.Unlock()
	if n > f.ok {
		w.WriteHeader(http.StatusServiceUnavailable)
		fmt.Fprint(w, `{"status":"error","errorType":"unavailable","error":"fake: storage overloaded"}`)
		return
	}
	var values [][2]any
	for ts := start; ts <= end; ts++ {
		values = append(values, [2]any{ts, "250"})
	}
	json.NewEncoder(w).Encode(map[string]any{"status": "success", "data": map[string]any{"resultType": "matrix",
		"result": []map[string]any{{"metric": map[string]string{"ce_series": model.MetricBackPressuredMsPerSec + "/max", "task_id": "v1"}, "values": values}}}})
}

// Prometheus failing mid-recording costs backpressure, never checkpoints: the
// recording completes, progress and result say what failed, what was read
// before stays (once), and the failed window is asked for again, not skipped.
func TestRecordKeepsRecordingWhenPrometheusFails(t *testing.T) {
	fe := flinkenv.Ensure(t)
	jid := flinkenv.SubmitJob(t, "--name", "ce-record-promfail", "--interval-ms", "1000", "--rate", "100")
	// Reads every 2 s: the third (6 s in) is the first whose window ends past
	// the settle margin, so it writes points; every later one fails.
	fake := &fakeProm{ok: 3}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	out := filepath.Join(t.TempDir(), "rec.ckpt.gz")
	var mu sync.Mutex
	var sawErr string
	res, err := recordAsync(t, Options{
		Cluster: model.Cluster{Name: "lab", Engine: model.EngineFlink, BaseURL: fe.RESTURL, PrometheusURL: srv.URL},
		JobID:   jid, Duration: 13 * time.Second, Out: out, Every: 250 * time.Millisecond, JobsEvery: time.Second, PromEvery: 2 * time.Second,
		Progress: func(p Progress) {
			mu.Lock()
			if p.PromError != "" {
				sawErr = p.PromError
			}
			mu.Unlock()
		},
	})
	if err != nil {
		t.Fatalf("a failing Prometheus failed the recording: %v", err)
	}
	if res.Checkpoints == 0 {
		t.Fatalf("no checkpoints recorded: %+v", res)
	}
	mu.Lock()
	defer mu.Unlock()
	if !strings.Contains(sawErr, "storage overloaded") || !strings.Contains(res.PromError, "final read") || !strings.Contains(res.PromError, "storage overloaded") {
		t.Errorf("progress showed Prometheus error %q, result %q", sawErr, res.PromError)
	}
	rec := readCapture(t, out)
	if rec.checkpoints != int(res.Checkpoints) || len(rec.prom) == 0 || len(rec.prom) != res.PromSamples {
		t.Fatalf("read back %d checkpoints and %d Prometheus samples; recorded %+v", rec.checkpoints, len(rec.prom), res)
	}
	noDuplicates(t, rec.prom)
	fake.mu.Lock()
	starts := slices.Clone(fake.starts)
	fake.mu.Unlock()
	if res.PromRequests != 2+len(starts) {
		t.Errorf("%d Prometheus requests counted, the server saw the check, the targets and %d range queries", res.PromRequests, len(starts))
	}
	if len(starts) < fake.ok+2 {
		t.Fatalf("%d range queries: want the failing ones retried each period and at the end", len(starts))
	}
	// Every failed read asks again for the window the last good read left off at.
	failed := starts[fake.ok:]
	last := slices.MaxFunc(rec.prom, func(a, b model.MetricSample) int { return int(a.TimeMs - b.TimeMs) }).TimeMs
	for i, s := range failed {
		if s != failed[0] || int64(s*1000) > last {
			t.Errorf("failed read %d started at %.0f, the first at %.0f, the last point written at %d ms: the window moved on", i, s, failed[0], last)
		}
	}
}

// Ctrl-C stops the recording, not the last read: the window since the last
// read (here the whole recording) is still fetched and written. The engine
// is down throughout, which costs checkpoints, not backpressure.
func TestRecordReadsTheTailAfterCtrlC(t *testing.T) {
	fake := &fakeProm{ok: 1000}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	out := filepath.Join(t.TempDir(), "rec.ckpt.gz")
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(1500*time.Millisecond, cancel) // as Ctrl-C would
	before := time.Now()
	res, err := Record(ctx, Options{
		Cluster: model.Cluster{Name: "lab", Engine: model.EngineFlink, BaseURL: "http://127.0.0.1:1", PrometheusURL: srv.URL},
		JobID:   "0123456789abcdef0123456789abcdef", Duration: time.Minute, Out: out, PromEvery: time.Minute,
	})
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(before); d > 15*time.Second {
		t.Errorf("Record returned %s after Ctrl-C", d)
	}
	fake.mu.Lock()
	starts := slices.Clone(fake.starts)
	fake.mu.Unlock()
	// Record takes its start a moment after before (some 600 ms once, under a loaded make
	// test); a window of the last read's would start at the cancel, 1.5 s after before.
	if len(starts) != 1 || int64(starts[0]*1000) > before.UnixMilli()+1000 {
		t.Fatalf("range queries starting at %.3f s, want one, from the recording start (about %d ms)", starts, before.UnixMilli())
	}
	rec := readCapture(t, out)
	if len(rec.prom) == 0 || len(rec.prom) != res.PromSamples || res.PromRequests != 3 || res.PromError != "" {
		t.Fatalf("read back %d Prometheus samples; result %+v", len(rec.prom), res)
	}
	for _, m := range rec.prom {
		if m.TimeMs < before.UnixMilli() || m.JobID != "0123456789abcdef0123456789abcdef" || m.VertexID != "v1" {
			t.Errorf("sample %+v: before the recording started (%d ms), or of another job or vertex", m, before.UnixMilli())
		}
	}
	noDuplicates(t, rec.prom)
}

// pointsBetween counts the points Prometheus has, asked alone, of a vertex's
// max backpressure strictly between two times (epoch ms).
func pointsBetween(t *testing.T, pc *prometheus.Client, jobID, vertexID string, fromMs, toMs int64) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	got, err := pc.Backpressure(ctx, jobID, fromMs, toMs)
	if err != nil {
		t.Fatalf("asking Prometheus about %d..%d: %v", fromMs, toMs, err)
	}
	n := 0
	for _, s := range got {
		if s.VertexID == vertexID && s.Metric == model.MetricBackPressuredMsPerSec && s.Agg == model.AggMax &&
			s.TimeMs > fromMs && s.TimeMs < toMs {
			n++
		}
	}
	return n
}
