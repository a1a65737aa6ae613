package flink_test

// Fault injection: an httptest server plays a misbehaving Flink (or a proxy in front of one) for
// what a healthy real cluster cannot be made to do. Everything else is tested against the real
// cluster in real_test.go.

import (
	"context"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"log"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/source/flink"
	"checkpoint-explorer/backend/source/restclient/restclienttest"
)

func newClient(t *testing.T, cfg flink.Config) *flink.Client {
	t.Helper()
	c, err := flink.New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return c
}

func serve(t *testing.T, h http.HandlerFunc) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

func TestHugeBodyRefused(t *testing.T) {
	const limit = 4096
	big := `{"jobs":[` + strings.Repeat(`{"jid":"x","name":"padding"},`, 1000) + `{"jid":"y"}]}`
	tests := []struct {
		name    string
		chunked bool // no Content-Length: the limit must hold while reading
	}{
		{"with content-length", false},
		{"chunked", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
				if !tt.chunked {
					w.Header().Set("Content-Length", fmt.Sprint(len(big)))
				}
				w.Header().Set("Content-Type", "application/json")
				for i := 0; i < len(big); i += 1000 {
					_, _ = w.Write([]byte(big[i:min(i+1000, len(big))]))
					if tt.chunked {
						w.(http.Flusher).Flush()
					}
				}
			})
			var infos []flink.RequestInfo
			c := newClient(t, flink.Config{BaseURL: srv.URL, MaxBodyBytes: limit,
				OnRequest: func(ri flink.RequestInfo) { infos = append(infos, ri) }})
			jobs, err := c.Jobs(context.Background())
			if err == nil {
				t.Fatalf("Jobs returned %d jobs from a %d byte body, want an error", len(jobs), len(big))
			}
			if !strings.Contains(err.Error(), "GET /jobs/overview") || !strings.Contains(err.Error(), "4096 byte limit (MaxBodyBytes)") {
				t.Errorf("error %q does not name the endpoint and the limit", err)
			}
			if len(infos) != 1 || infos[0].Bytes > limit+1 || infos[0].Endpoint != "/jobs/overview" || infos[0].Err == nil {
				t.Errorf("OnRequest got %+v, want one failed /jobs/overview having read at most %d bytes", infos, limit+1)
			}
		})
	}

	t.Run("default limit is 32 MiB", func(t *testing.T) {
		srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", fmt.Sprint(32<<20+1))
			_, _ = w.Write([]byte(`{`))
		})
		_, err := newClient(t, flink.Config{BaseURL: srv.URL}).Version(context.Background())
		if err == nil || !strings.Contains(err.Error(), "33554432 byte limit") {
			t.Fatalf("err = %v, want the 32 MiB limit", err)
		}
	})
}

func TestMetricsSkipNaN(t *testing.T) {
	var query string
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		query = r.URL.RawQuery
		// Bare NaN is not JSON, but a Jackson without quoting of non-numeric numbers writes it.
		fmt.Fprint(w, `[{"id":"busyTimeMsPerSecond","max":NaN,"avg":"NaN"},
			{"id":"backPressuredTimeMsPerSecond","max":12.5,"avg":null,"extra":{"x":[1,"NaN"]}},
			{"id":"idleTimeMsPerSecond","max":"Infinity","avg":3},
			{"id":"note \"NaN\" in a string","max":-Infinity,"avg":"1.5"},
			{"max":1}]`)
	})
	c := newClient(t, flink.Config{BaseURL: srv.URL, Cluster: "c1"})
	got, err := c.VertexMetrics(context.Background(), "j1", "v1",
		[]string{"busyTimeMsPerSecond", "backPressuredTimeMsPerSecond", "idleTimeMsPerSecond"}, 1234)
	if err != nil {
		t.Fatalf("VertexMetrics: %v", err)
	}
	want := []model.MetricSample{
		{Cluster: "c1", JobID: "j1", VertexID: "v1", Subtask: -1, Metric: "backPressuredTimeMsPerSecond", Agg: "max", TimeMs: 1234, Value: 12.5, Source: "rest"},
		{Cluster: "c1", JobID: "j1", VertexID: "v1", Subtask: -1, Metric: "idleTimeMsPerSecond", Agg: "avg", TimeMs: 1234, Value: 3, Source: "rest"},
		{Cluster: "c1", JobID: "j1", VertexID: "v1", Subtask: -1, Metric: `note "NaN" in a string`, Agg: "avg", TimeMs: 1234, Value: 1.5, Source: "rest"},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("samples\n got %+v\nwant %+v", got, want)
	}
	for _, s := range got {
		if math.IsNaN(s.Value) || math.IsInf(s.Value, 0) {
			t.Errorf("non-finite sample %+v", s)
		}
	}
	if query != "agg=max%2Cavg&get=busyTimeMsPerSecond%2CbackPressuredTimeMsPerSecond%2CidleTimeMsPerSecond" {
		t.Errorf("query = %q", query)
	}
}

func TestBackpressureNaN(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"status":"ok","backpressureLevel":"high","end-timestamp":77,"subtasks":[
			{"subtask":0,"backpressureLevel":"high","ratio":0.9,"idleRatio":NaN,"busyRatio":"NaN"},
			{"subtask":1,"backpressure-level":"low","ratio":null,"idleRatio":0.5,"busyRatio":0.25}]}`)
	})
	bp, err := newClient(t, flink.Config{BaseURL: srv.URL}).Backpressure(context.Background(), "j", "v")
	if err != nil {
		t.Fatalf("Backpressure: %v", err)
	}
	if !bp.Available() || bp.Level != "high" || bp.EndMs != 77 || len(bp.Subtasks) != 2 {
		t.Fatalf("got %+v", bp)
	}
	s0, s1 := bp.Subtasks[0], bp.Subtasks[1]
	if s0.Ratio == nil || *s0.Ratio != 0.9 || s0.IdleRatio != nil || s0.BusyRatio != nil {
		t.Errorf("subtask 0 = %+v", s0)
	}
	if s1.Level != "low" || s1.Ratio != nil || *s1.IdleRatio != 0.5 || *s1.BusyRatio != 0.25 {
		t.Errorf("subtask 1 = %+v", s1)
	}
	samples := bp.Samples("c", "j", "v", 5)
	var names []string
	for _, s := range samples {
		names = append(names, fmt.Sprintf("%d/%s=%g", s.Subtask, s.Metric, s.Value))
	}
	want := "0/backPressuredTimeMsPerSecond=900 1/idleTimeMsPerSecond=500 1/busyTimeMsPerSecond=250"
	if strings.Join(names, " ") != want {
		t.Errorf("samples %v, want %s", names, want)
	}
}

func TestErrorStatusWithBody(t *testing.T) {
	long := strings.Repeat("x", 150) + "\n" + strings.Repeat("y", 150)
	tests := []struct {
		name, body string
		status     int
		want       string
		notFound   bool
	}{
		{"503 raw body cut at 200 bytes", long, 503,
			"flink: GET /jobs/abc/checkpoints: 503 Service Unavailable: " + strings.Repeat("x", 150) + " " + strings.Repeat("y", 49), false},
		{"500 flink errors json", `{"errors":["java.lang.IllegalStateException: boom\n\tat a.b.C(C.java:1)"]}`, 500,
			"flink: GET /jobs/abc/checkpoints: 500 Internal Server Error: boom", false},
		{"404 evicted checkpoint", `{"errors":["org.apache.flink.runtime.rest.handler.RestHandlerException: Could not find checkpointing statistics for checkpoint 1.\n\tat org.apache.flink.runtime.rest.handler.job.checkpoints.AbstractCheckpointHandler.handleCheckpointStatsRequest(AbstractCheckpointHandler.java:95)\n"]}`, 404,
			"flink: GET /jobs/abc/checkpoints: 404 Not Found: Could not find checkpointing statistics for checkpoint 1.", true},
		{"404 no stats for task", `{"errors":["org.apache.flink.runtime.rest.NotFoundException: There is no checkpoint statistics for task 0a448493b4782967b150582570326227.\n\tat x"]}`, 404,
			"flink: GET /jobs/abc/checkpoints: 404 Not Found: There is no checkpoint statistics for task 0a448493b4782967b150582570326227.", true},
		{"404 unknown path", `{"errors":["Not found: /jobs/abc/checkpoints"]}`, 404,
			"flink: GET /jobs/abc/checkpoints: 404 Not Found: Not found: /jobs/abc/checkpoints", true},
		{"404 plain text from a proxy", "404 page not found\n", 404,
			"flink: GET /jobs/abc/checkpoints: 404 Not Found: 404 page not found", true},
		{"502 empty body", "", 502, "flink: GET /jobs/abc/checkpoints: 502 Bad Gateway", false},
		{"200 json cut in half", `{"counts":{"restored":0,"total":12,"in_prog`, 200,
			"flink: GET /jobs/abc/checkpoints: 200 OK: truncated JSON: the body ends after 43 bytes in the middle of a value", false},
		{"200 html login page", "<html><body>Please log in</body></html>", 200,
			"flink: GET /jobs/abc/checkpoints: 200 OK: response is HTML, not JSON (a proxy or login page?): <html><body>Please log in</body></html>", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(tt.status)
				fmt.Fprint(w, tt.body)
			})
			_, err := newClient(t, flink.Config{BaseURL: srv.URL}).Checkpoints(context.Background(), "abc")
			if err == nil {
				t.Fatal("no error")
			}
			if err.Error() != tt.want {
				t.Errorf("error\n got %q\nwant %q", err, tt.want)
			}
			if errors.Is(err, flink.ErrNotFound) != tt.notFound {
				t.Errorf("errors.Is(err, ErrNotFound) = %v, want %v", !tt.notFound, tt.notFound)
			}
			var fe *flink.Error
			if !errors.As(err, &fe) || fe.Status != tt.status || fe.Endpoint != "/jobs/:jid/checkpoints" {
				t.Errorf("errors.As *Error = %+v", fe)
			}
		})
	}
}

// TestErrorsHideSecrets forces every kind of error with credentials set, including servers that
// echo the request's Authorization header back, and checks no secret appears in the text.
func TestErrorsHideSecrets(t *testing.T) {
	echo := func(w http.ResponseWriter, r *http.Request, status int) {
		u, p, _ := r.BasicAuth()
		w.WriteHeader(status)
		fmt.Fprintf(w, "denied: Authorization=%s user=%s password=%s", r.Header.Get("Authorization"), u, p)
	}
	handlers := map[string]http.HandlerFunc{
		"401 echoing the header": func(w http.ResponseWriter, r *http.Request) { echo(w, r, 401) },
		"500 flink json echoing": func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(500)
			fmt.Fprintf(w, `{"errors":["x.Y: bad header %s"]}`, r.Header.Get("Authorization"))
		},
		"200 not json echoing": func(w http.ResponseWriter, r *http.Request) { echo(w, r, 200) },
		"200 html echoing": func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprintf(w, "<html>%s</html>", r.Header.Get("Authorization"))
		},
	}
	check := func(t *testing.T, err error) {
		t.Helper()
		if err == nil {
			t.Fatal("no error")
		}
		if s := restclienttest.Leak(err); s != "" {
			t.Errorf("error leaks secret %q: %v", s, err)
		}
	}
	for _, cred := range restclienttest.Credentials() {
		for name, h := range handlers {
			t.Run(cred.Name+"/"+name, func(t *testing.T) {
				var gotAuth string
				srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
					gotAuth = r.Header.Get("Authorization")
					h(w, r)
				})
				c := newClient(t, flink.Config{BaseURL: srv.URL, Auth: cred.Auth})
				_, err := c.Jobs(context.Background())
				check(t, err)
				if gotAuth != cred.Header {
					t.Errorf("server got Authorization %q, want %q", gotAuth, cred.Header)
				}
			})
		}
		t.Run(cred.Name+"/connection refused", func(t *testing.T) {
			srv := httptest.NewServer(http.NotFoundHandler())
			url := srv.URL
			srv.Close()
			_, err := newClient(t, flink.Config{BaseURL: url, Auth: cred.Auth}).Version(context.Background())
			check(t, err)
		})
	}
	t.Run("credentials in the URL are refused without echoing them", func(t *testing.T) {
		basic := restclienttest.Basic().Auth
		userinfo := basic.Username + ":" + basic.Password
		_, err := flink.New(flink.Config{BaseURL: "http://" + userinfo + "@127.0.0.1:1"})
		check(t, err)
		_, err = flink.New(flink.Config{BaseURL: "http://" + userinfo + "@127.0.0.1:1/%zz"})
		check(t, err)
	})
}

func TestClockSkewAndUnknownFields(t *testing.T) {
	// A history entry whose ack precedes its trigger (clock skew on the JobManager host) plus
	// fields this client has never heard of at every level.
	const checkpoints = `{"counts":{"restored":0,"total":2,"in_progress":0,"completed":1,"failed":1,"future":7},
	"summary":{"end_to_end_duration":{"min":0,"p50":"NaN"}},
	"latest":{"completed":null,"savepoint":null,"failed":{"id":2,"new_field":{"a":1}},"restored":null},
	"history":[
	 {"className":"failed","id":2,"status":"FAILED","is_savepoint":false,"trigger_timestamp":1000,"latest_ack_timestamp":-1,
	  "end_to_end_duration":-5,"failure_timestamp":1200,"failure_message":"Checkpoint expired before completing.",
	  "num_subtasks":4,"num_acknowledged_subtasks":0,"checkpoint_type":"CHECKPOINT","tasks":{},"brand_new":[1,2]},
	 {"className":"completed","id":1,"status":"COMPLETED","trigger_timestamp":5000,"latest_ack_timestamp":4990,
	  "end_to_end_duration":-10,"state_size":10,"checkpointed_size":4,"num_subtasks":4,"num_acknowledged_subtasks":4,
	  "checkpoint_type":"UNALIGNED_CHECKPOINT","external_path":"file:/x","discarded":false,"tasks":{},"v3_only":"x"}]}`
	const subtasks = `{"id":1,"status":"COMPLETED","latest_ack_timestamp":4990,"end_to_end_duration":-10,"num_subtasks":2,
	"num_acknowledged_subtasks":1,"state_size":10,"summary":{"x":"NaN"},"new":true,
	"subtasks":[
	 {"className":"pending","index":1,"status":"pending_or_failed","whatever":1},
	 {"className":"completed","index":0,"ack_timestamp":4990,"end_to_end_duration":-10,"checkpointed_size":4,"state_size":10,
	  "checkpoint":{"sync":3,"async":4,"phase3":9},"alignment":{"buffered":0,"processed":5,"persisted":6,"duration":7},
	  "start_delay":-2,"unaligned_checkpoint":true,"aborted":false,"status":"completed","new_field":"x"}]}`
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/jobs/j/checkpoints":
			fmt.Fprint(w, checkpoints)
		case "/jobs/j/checkpoints/details/1/subtasks/v":
			fmt.Fprint(w, subtasks)
		default:
			http.NotFound(w, r)
		}
	})
	c := newClient(t, flink.Config{BaseURL: srv.URL})
	list, err := c.Checkpoints(context.Background(), "j")
	if err != nil {
		t.Fatalf("Checkpoints: %v", err)
	}
	if list.LatestCompletedID != 0 || list.LatestFailedID != 2 || list.Counts.Total != 2 || len(list.History) != 2 {
		t.Fatalf("list = %+v", list)
	}
	failed, done := list.History[0], list.History[1]
	if failed.Status != model.StatusFailed || failed.EndToEndMs != 0 || failed.LatestAckMs != 0 ||
		failed.TriggerMs != 1000 || failed.FailureMs != 1200 || failed.FailureMessage != "Checkpoint expired before completing." {
		t.Errorf("failed = %+v", failed)
	}
	if done.Status != model.StatusCompleted || done.Kind != model.KindUnaligned || done.EndToEndMs != 0 ||
		done.TriggerMs != 5000 || done.LatestAckMs != 4990 || done.CheckpointedSize != 4 || done.StateSize != 10 {
		t.Errorf("completed = %+v (want raw timestamps, end-to-end clamped to 0)", done)
	}

	ts, err := c.SubtaskStats(context.Background(), "j", 1, "v")
	if err != nil {
		t.Fatalf("SubtaskStats: %v", err)
	}
	want := []model.SubtaskStats{
		{Index: 0, Status: "completed", AckMs: 4990, EndToEndMs: 0, StartDelayMs: 0, AlignmentMs: 7, SyncMs: 3, AsyncMs: 4,
			StateSize: 10, CheckpointedSize: 4, ProcessedData: 5, PersistedData: 6, Unaligned: true},
		{Index: 1, Status: "pending_or_failed"},
	}
	if fmt.Sprint(ts.Subtasks) != fmt.Sprint(want) || ts.VertexID != "v" || ts.EndToEndMs != 0 || ts.NumAcknowledged != 1 {
		t.Errorf("task stats\n got %+v\nwant subtasks %+v", ts, want)
	}
}

func TestEmptyHistory(t *testing.T) {
	// A job just (re)started, or a fresh JobManager after failover.
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"counts":{"restored":0,"total":0,"in_progress":0,"completed":0,"failed":0},
			"summary":{},"latest":{"completed":null,"savepoint":null,"failed":null,"restored":null},"history":[]}`)
	})
	list, err := newClient(t, flink.Config{BaseURL: srv.URL}).Checkpoints(context.Background(), "j")
	if err != nil {
		t.Fatalf("Checkpoints: %v", err)
	}
	if len(list.History) != 0 || list.LatestCompletedID != 0 || list.RestoredID != 0 || list.Counts != (flink.Counts{}) {
		t.Errorf("list = %+v", list)
	}
}

// TestNewNamesItself: the checks of Config are restclient's (TestOpenEngineRejectsBadConfig);
// New's errors say they are Flink's.
func TestNewNamesItself(t *testing.T) {
	if _, err := flink.New(flink.Config{}); err == nil || err.Error() != "flink: empty base URL" {
		t.Errorf("err = %v, want %q", err, "flink: empty base URL")
	}
}

func TestCAFile(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"flink-version":"2.3.0"}`)
	}))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the rejected handshake is expected
	srv.StartTLS()
	t.Cleanup(srv.Close)
	ca := filepath.Join(t.TempDir(), "ca.pem")
	pemBytes := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	if err := os.WriteFile(ca, pemBytes, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := newClient(t, flink.Config{BaseURL: srv.URL}).Version(ctx); err == nil {
		t.Error("untrusted self-signed server accepted without CAFile")
	}
	if v, err := newClient(t, flink.Config{BaseURL: srv.URL, CAFile: ca}).Version(ctx); err != nil || v != "2.3.0" {
		t.Errorf("with CAFile: %q, %v", v, err)
	}
	if v, err := newClient(t, flink.Config{BaseURL: srv.URL, InsecureSkipVerify: true}).Version(ctx); err != nil || v != "2.3.0" {
		t.Errorf("with InsecureSkipVerify: %q, %v", v, err)
	}
}
