package prometheus_test

// Fault injection: httptest servers that misbehave the ways a Prometheus (or whatever sits at
// the configured URL) can. The behaviour of a healthy server is tested against the real one.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/source/prometheus"
	"checkpoint-explorer/backend/source/restclient/restclienttest"
)

const testJob = "0123456789abcdef0123456789abcdef"

func serve(t *testing.T, h http.HandlerFunc) string {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

// slow answers after d, or not at all if the client gives up first.
func slow(d time.Duration) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		// Read the body, so the server watches the connection and cancels r.Context() when the
		// client hangs up.
		io.Copy(io.Discard, r.Body)
		select {
		case <-r.Context().Done():
		case <-time.After(d):
			fmt.Fprint(w, `{"status":"success","data":{"resultType":"vector","result":[]}}`)
		}
	}
}

func answer(status int, contentType, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentType)
		w.WriteHeader(status)
		fmt.Fprint(w, body)
	}
}

// matrixFor answers a range query with one series per tag, value v at every step.
func matrixFor(tags map[string]string, v float64, warnings ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseForm(); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		start, _ := strconv.ParseFloat(r.Form.Get("start"), 64)
		end, _ := strconv.ParseFloat(r.Form.Get("end"), 64)
		step, _ := strconv.ParseFloat(r.Form.Get("step"), 64)
		var values [][2]any
		for ts := start; ts <= end && step > 0; ts += step {
			values = append(values, [2]any{ts, strconv.FormatFloat(v, 'f', -1, 64)})
		}
		var result []map[string]any
		for tag, vertex := range tags {
			metric := map[string]string{"ce_series": tag}
			if vertex != "" {
				metric["task_id"] = vertex
			}
			result = append(result, map[string]any{"metric": metric, "values": values})
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"status": "success", "warnings": warnings,
			"data": map[string]any{"resultType": "matrix", "result": result},
		})
	}
}

func TestCheckAndRangeFaults(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		url     func(t *testing.T) string
		timeout time.Duration
		maxBody int64
		want    error
		says    []string
	}{
		{name: "down", url: closedPort, want: prometheus.ErrUnreachable, says: []string{"connection refused"}},
		{name: "slow", url: func(t *testing.T) string { return serve(t, slow(5*time.Second)) }, timeout: 200 * time.Millisecond,
			want: prometheus.ErrTimeout, says: []string{"no answer within 200ms"}},
		{name: "not found", url: func(t *testing.T) string { return serve(t, http.NotFound) },
			want: prometheus.ErrNotPrometheus, says: []string{"HTTP 404", "no Prometheus query API"}},
		{name: "HTML page", url: func(t *testing.T) string {
			return serve(t, answer(200, "text/html; charset=utf-8", "<html><body>Sign in</body></html>"))
		}, want: prometheus.ErrNotPrometheus, says: []string{"HTML page"}},
		{name: "JSON of another API", url: func(t *testing.T) string {
			return serve(t, answer(200, "application/json", `{"taskmanagers":1,"flink-version":"2.3.0"}`))
		}, want: prometheus.ErrNotPrometheus},
		{name: "bad query", url: func(t *testing.T) string {
			return serve(t, answer(400, "application/json",
				`{"status":"error","errorType":"bad_data","error":"invalid parameter \"query\": 1:1: parse error: unexpected end of input"}`))
		}, want: prometheus.ErrQuery, says: []string{"HTTP 400", "bad_data", "parse error: unexpected end of input"}},
		{name: "execution error", url: func(t *testing.T) string {
			return serve(t, answer(422, "application/json",
				`{"status":"error","errorType":"execution","error":"query processing would load too many samples into memory"}`))
		}, want: prometheus.ErrQuery, says: []string{"execution", "too many samples"}},
		{name: "query timed out on the server", url: func(t *testing.T) string {
			return serve(t, answer(503, "application/json",
				`{"status":"error","errorType":"timeout","error":"query timed out in expression evaluation"}`))
		}, want: prometheus.ErrTimeout, says: []string{"timed the query out", "expression evaluation"}},
		{name: "proxy error", url: func(t *testing.T) string {
			return serve(t, answer(502, "text/plain", "upstream connect error or disconnect/reset before headers"))
		}, want: prometheus.ErrQuery, says: []string{"HTTP 502 Bad Gateway", "upstream connect error"}},
		{name: "unauthorised", url: func(t *testing.T) string { return serve(t, answer(401, "text/plain", "no")) },
			want: prometheus.ErrAuth, says: []string{"HTTP 401", "credentials"}},
		{name: "too large", url: func(t *testing.T) string {
			return serve(t, answer(200, "application/json", `{"status":"success","data":{"resultType":"vector","result":[]},"pad":"`+
				strings.Repeat("x", 4096)+`"}`))
		}, maxBody: 1024, want: prometheus.ErrTooLarge, says: []string{"1024"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url := tc.url(t)
			c := newClient(t, prometheus.Config{URL: url, Timeout: tc.timeout, MaxBodyBytes: tc.maxBody})
			start := time.Now()
			checkErr := c.Check(ctx)
			samples, rangeErr := c.Backpressure(ctx, testJob, 1_700_000_000_000, 1_700_000_060_000)
			if tc.timeout > 0 && time.Since(start) > 10*tc.timeout {
				t.Errorf("took %s with a %s timeout", time.Since(start), tc.timeout)
			}
			for op, err := range map[string]error{"Check": checkErr, "Backpressure": rangeErr} {
				if !errors.Is(err, tc.want) {
					t.Errorf("%s = %v, want %v", op, err, tc.want)
					continue
				}
				msg := err.Error()
				t.Logf("%s: %s", op, msg)
				if !strings.Contains(msg, url) {
					t.Errorf("%s error %q does not name the URL", op, msg)
				}
				for _, s := range tc.says {
					if !strings.Contains(msg, s) {
						t.Errorf("%s error %q does not say %q", op, msg, s)
					}
				}
			}
			if samples != nil {
				t.Errorf("Backpressure returned %d samples with %v", len(samples), rangeErr)
			}
		})
	}
}

func TestRangePartialDataKeepsSamples(t *testing.T) {
	url := serve(t, matrixFor(map[string]string{
		model.MetricBackPressuredMsPerSec + "/max": "v1",
		prometheus.MetricAlignmentTime + "/avg":    "v1",
	}, 2.5e6, "partial response: store 10.0.0.7:10901 unavailable"))
	c := newClient(t, prometheus.Config{URL: url, MinStep: time.Second})
	got, err := c.Range(context.Background(), testJob, 1_700_000_000_000, 1_700_000_010_000, prometheus.SeriesAll)
	if !errors.Is(err, prometheus.ErrPartial) || !strings.Contains(err.Error(), "store 10.0.0.7:10901 unavailable") {
		t.Fatalf("err = %v, want ErrPartial quoting the warning", err)
	}
	if len(got) != 22 { // 11 steps × 2 series
		t.Fatalf("got %d samples, want the 22 that came with the warning", len(got))
	}
	for _, s := range got {
		switch s.Metric {
		case model.MetricBackPressuredMsPerSec:
			if s.Value != 2.5e6 || s.Agg != model.AggMax {
				t.Errorf("%+v", s)
			}
		case prometheus.MetricAlignmentTime:
			if s.Value != 2.5 || s.Agg != model.AggAvg { // nanoseconds → milliseconds
				t.Errorf("alignment %+v, want 2.5 ms", s)
			}
		}
		if s.VertexID != "v1" || s.JobID != testJob || s.Subtask != -1 || s.Source != "prometheus" {
			t.Errorf("%+v", s)
		}
	}
}

func TestRangeWithoutTaskLabelSaysWhichLabel(t *testing.T) {
	url := serve(t, matrixFor(map[string]string{model.MetricBusyMsPerSec + "/max": ""}, 10))
	c := newClient(t, prometheus.Config{URL: url})
	_, err := c.Backpressure(context.Background(), testJob, 1_700_000_000_000, 1_700_000_060_000)
	if err == nil || !strings.Contains(err.Error(), `"task_id"`) || !strings.Contains(err.Error(), "TaskLabel") {
		t.Fatalf("err = %v, want one naming the task label", err)
	}
}

func TestAuthAndRedaction(t *testing.T) {
	for _, cred := range append([]restclienttest.Credential{{Name: "none"}}, restclienttest.Credentials()...) {
		t.Run(cred.Name, func(t *testing.T) {
			var got atomic.Value
			url := serve(t, func(w http.ResponseWriter, r *http.Request) {
				got.Store(r.Header.Get("Authorization"))
				// A careless proxy echoing the request headers into its error page.
				http.Error(w, "bad gateway; request had Authorization: "+r.Header.Get("Authorization"), http.StatusBadGateway)
			})
			c := newClient(t, prometheus.Config{URL: url, Auth: cred.Auth, Headers: map[string]string{"X-Scope-OrgID": "team-a"}})
			err := c.Check(context.Background())
			if h, _ := got.Load().(string); h != cred.Header {
				t.Errorf("Authorization = %q, want %q", h, cred.Header)
			}
			if err == nil || restclienttest.Leak(err) != "" {
				t.Errorf("err = %v: want an error without the secret", err)
			}
		})
	}
}

func TestCancelledContext(t *testing.T) {
	url := serve(t, slow(5*time.Second))
	c := newClient(t, prometheus.Config{URL: url})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	_, err := c.Backpressure(ctx, testJob, 1_700_000_000_000, 1_700_000_060_000)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestOnRequest(t *testing.T) {
	url := serve(t, matrixFor(map[string]string{model.MetricIdleMsPerSec + "/avg": "v"}, 1))
	var infos []prometheus.RequestInfo
	c := newClient(t, prometheus.Config{URL: url, OnRequest: func(ri prometheus.RequestInfo) { infos = append(infos, ri) }})
	if _, err := c.Backpressure(context.Background(), testJob, 1_700_000_000_000, 1_700_000_060_000); err != nil {
		t.Fatal(err)
	}
	if len(infos) != 1 || infos[0].Endpoint != "/api/v1/query_range" || infos[0].Status != 200 || infos[0].Bytes == 0 || infos[0].Err != nil {
		t.Errorf("OnRequest got %+v", infos)
	}
}

func TestBackfillKeepsWhatItGotBeforeAnError(t *testing.T) {
	var n atomic.Int32
	ok := matrixFor(map[string]string{model.MetricBackPressuredMsPerSec + "/max": "v"}, 700)
	url := serve(t, func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) > 1 {
			http.Error(w, "Prometheus is shutting down", http.StatusServiceUnavailable)
			return
		}
		ok(w, r)
	})
	c := newClient(t, prometheus.Config{URL: url, MinStep: time.Second})
	// Two ranges far apart (more than 60 steps): two requests, the second fails.
	const t0 = 1_700_000_000_000
	got, err := prometheus.Backfill(context.Background(), c, testJob, [][2]int64{{t0, t0 + 5000}, {t0 + 600_000, t0 + 605_000}})
	if !errors.Is(err, prometheus.ErrQuery) || !strings.Contains(err.Error(), "window 2 of 2") ||
		!strings.Contains(err.Error(), "shutting down") {
		t.Fatalf("err = %v", err)
	}
	if len(got) != 6 {
		t.Fatalf("got %d samples, want the 6 points of the first range", len(got))
	}
	for _, s := range got {
		if s.TimeMs < t0 || s.TimeMs > t0+5000 || s.Value != 700 {
			t.Errorf("%+v", s)
		}
	}
}

func TestBackfillReportsPartialWindowsAndGoesOn(t *testing.T) {
	url := serve(t, matrixFor(map[string]string{model.MetricBackPressuredMsPerSec + "/max": "v"}, 1, "result truncated"))
	c := newClient(t, prometheus.Config{URL: url, MinStep: time.Second})
	const t0 = 1_700_000_000_000
	got, err := prometheus.Backfill(context.Background(), c, testJob, [][2]int64{{t0, t0 + 2000}, {t0 + 600_000, t0 + 602_000}})
	if !errors.Is(err, prometheus.ErrPartial) || strings.Count(err.Error(), "result truncated") != 2 {
		t.Fatalf("err = %v, want both windows' warnings", err)
	}
	if len(got) != 6 {
		t.Fatalf("got %d samples, want 3 points per range", len(got))
	}
}

func TestNewRejectsBadConfig(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  prometheus.Config
		says string
	}{
		{"empty URL", prometheus.Config{}, "empty Prometheus URL"},
		{"credentials in URL", prometheus.Config{URL: "http://u:p@127.0.0.1:9090"}, "must not contain credentials"},
		{"scheme", prometheus.Config{URL: "ftp://127.0.0.1:9090"}, `scheme "ftp"`},
		{"no host", prometheus.Config{URL: "http://"}, "no host"},
		{"query", prometheus.Config{URL: "http://127.0.0.1:9090/?x=1"}, "query or fragment"},
		{"MinStep", prometheus.Config{URL: "http://127.0.0.1:9090", MinStep: 500 * time.Millisecond}, "MinStep 500ms"},
		{"negative timeout", prometheus.Config{URL: "http://127.0.0.1:9090", Timeout: -1}, "negative Timeout"},
		{"metric name", prometheus.Config{URL: "http://127.0.0.1:9090", Names: prometheus.MetricNames{Busy: `busy"}`}}, `busy "busy\"}" is not a valid metric name`},
		{"label name", prometheus.Config{URL: "http://127.0.0.1:9090", Names: prometheus.MetricNames{TaskLabel: "task-id"}}, `task_label "task-id" is not a valid label name`},
		{"label disabled", prometheus.Config{URL: "http://127.0.0.1:9090", Names: prometheus.MetricNames{JobLabel: prometheus.Disabled}}, "job_label"},
		{"basic without user", prometheus.Config{URL: "http://127.0.0.1:9090", Auth: model.Auth{Kind: model.AuthBasic}}, "needs a username"},
		{"bearer without token", prometheus.Config{URL: "http://127.0.0.1:9090", Auth: model.Auth{Kind: model.AuthBearer}}, "needs a token"},
		{"auth kind", prometheus.Config{URL: "http://127.0.0.1:9090", Auth: model.Auth{Kind: "kerberos"}}, `unknown auth kind "kerberos"`},
		{"CA file", prometheus.Config{URL: "https://127.0.0.1:9090", CAFile: "/nonexistent/ca.pem"}, "read CA file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := prometheus.New(tc.cfg)
			if err == nil || !strings.Contains(err.Error(), tc.says) {
				t.Errorf("New = %v, want an error saying %q", err, tc.says)
			}
		})
	}
	c := newClient(t, prometheus.Config{URL: " http://127.0.0.1:9090/prom/ "})
	if c.URL() != "http://127.0.0.1:9090/prom" || c.MinStep() != prometheus.DefaultMinStep {
		t.Errorf("URL = %q, MinStep = %s", c.URL(), c.MinStep())
	}
}

func TestBadArguments(t *testing.T) {
	c := newClient(t, prometheus.Config{URL: "http://127.0.0.1:1"}) // never contacted
	ctx := context.Background()
	for _, tc := range []struct {
		name     string
		job      string
		from, to int64
		says     string
	}{
		{"job id with a quote", `abc"} or vector(1) #`, 1, 2, "bad job id"},
		{"empty job id", "", 1, 2, "bad job id"},
		{"reversed window", testJob, 2000, 1000, "bad time range [2000, 1000]"},
		{"zero start", testJob, 0, 1000, "bad time range"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := c.Backpressure(ctx, tc.job, tc.from, tc.to); err == nil || !strings.Contains(err.Error(), tc.says) {
				t.Errorf("Backpressure = %v, want %q", err, tc.says)
			}
		})
	}
	if _, err := prometheus.Backfill(ctx, c, testJob, [][2]int64{{5, 1}}); err == nil || !strings.Contains(err.Error(), "backfill range 0 is [5, 1]") {
		t.Errorf("Backfill = %v", err)
	}
	if got, err := prometheus.Backfill(ctx, c, testJob, nil); err != nil || got != nil {
		t.Errorf("Backfill(no ranges) = %v, %v; want nothing, no request", got, err)
	}
}

func TestStepFor(t *testing.T) {
	for _, tc := range []struct {
		window, minStep, want time.Duration
	}{
		{30 * time.Second, time.Second, time.Second},
		{30 * time.Second, 15 * time.Second, 15 * time.Second},
		{time.Hour, 15 * time.Second, 15 * time.Second}, // 6 s < scrape interval
		{time.Hour, time.Second, 6 * time.Second},
		{24 * time.Hour, 15 * time.Second, 144 * time.Second},
		{7*24*time.Hour + time.Millisecond, 15 * time.Second, 1009 * time.Second}, // rounded up to whole seconds
	} {
		got := prometheus.StepFor(tc.window, tc.minStep)
		if got != tc.want {
			t.Errorf("StepFor(%s, %s) = %s, want %s", tc.window, tc.minStep, got, tc.want)
		}
		if points := tc.window / got; points > prometheus.MaxPoints {
			t.Errorf("StepFor(%s, %s) gives %d points", tc.window, tc.minStep, points)
		}
	}
}

// ScrapeInterval reads the shortest interval of the targets that are up, and
// fails with the reason on servers that do not say (fault injection: Thanos-
// or Mimir-like front ends, old versions, errors).
func TestScrapeIntervalFromTargets(t *testing.T) {
	targets := func(list string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/api/v1/targets" || r.URL.Query().Get("state") != "active" {
				http.NotFound(w, r)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"status":"success","data":{"activeTargets":[%s],"droppedTargets":[]}}`, list)
		}
	}
	for _, tc := range []struct {
		name    string
		handler http.HandlerFunc
		want    time.Duration
		says    string
	}{
		{"shortest of those up", targets(`{"scrapeInterval":"30s","health":"up"},{"scrapeInterval":"5s","health":"up"},{"scrapeInterval":"1s","health":"down"}`), 5 * time.Second, ""},
		{"sub-second rounds up", targets(`{"scrapeInterval":"500ms","health":"up"}`), time.Second, ""},
		{"minutes", targets(`{"scrapeInterval":"1m","health":"up"}`), time.Minute, ""},
		{"no interval field (old Prometheus)", targets(`{"health":"up"}`), 0, "no target that is up reports its scrape interval"},
		{"no targets (query front end)", targets(``), 0, "no target that is up"},
		{"bad interval", targets(`{"scrapeInterval":"soon","health":"up"}`), 0, `target scrape interval "soon"`},
		{"not found", http.NotFound, 0, "404"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newClient(t, prometheus.Config{URL: serve(t, tc.handler)})
			got, err := c.ScrapeInterval(context.Background())
			if tc.says != "" {
				if err == nil || !strings.Contains(err.Error(), tc.says) {
					t.Fatalf("ScrapeInterval = %s, %v; want an error saying %q", got, err, tc.says)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("ScrapeInterval = %s, %v; want %s", got, err, tc.want)
			}
			fine, err := c.WithMinStep(got)
			if err != nil || fine.MinStep() != tc.want || c.MinStep() != prometheus.DefaultMinStep {
				t.Errorf("WithMinStep(%s): %v, %v; the original keeps %s", got, fine, err, c.MinStep())
			}
		})
	}
}
