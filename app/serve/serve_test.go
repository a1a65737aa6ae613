package serve

import (
	"bufio"
	"bytes"
	"checkpoint-explorer/app/apptest"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"checkpoint-explorer/app"
	"checkpoint-explorer/backend/capture"
	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/model/modeltest"
	"checkpoint-explorer/backend/store"
)

// cookieJar keeps the cookies a response sets.
type cookieJar struct{ cs []*http.Cookie }

func (j *cookieJar) SetCookies(_ *url.URL, cs []*http.Cookie) { j.cs = append(j.cs, cs...) }
func (j *cookieJar) Cookies(*url.URL) []*http.Cookie          { return j.cs }

// contentDigest is everything the cache holds, to see that a refused upload
// changed nothing.
func contentDigest(t *testing.T, a *app.Service) string {
	t.Helper()
	ctx := context.Background()
	st := a.Store()
	var b strings.Builder
	clusters, _ := st.Clusters(ctx)
	jobs, _ := st.Jobs(ctx, "")
	json.NewEncoder(&b).Encode(clusters)
	json.NewEncoder(&b).Encode(jobs)
	for _, j := range jobs {
		q := store.Query{Cluster: j.Cluster, JobID: j.ID}
		st.ScanCheckpoints(ctx, q, true, func(c *model.Checkpoint) error { return json.NewEncoder(&b).Encode(c) })
	}
	return b.String()
}

func TestServeRefusesWithoutTokenAndForeignHostOrOrigin(t *testing.T) {
	a := testApp(t, nil)
	srv, err := New(a, Options{Token: "secret-token"})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	host := strings.TrimPrefix(ts.URL, "http://")
	srv.hosts = map[string]bool{host: true}
	call := func(method, path, hostHdr, origin, auth string) (int, string) {
		req, _ := http.NewRequest(method, ts.URL+path, strings.NewReader("[]"))
		if hostHdr != "" {
			req.Host = hostHdr
		}
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		if auth != "" {
			req.Header.Set("Authorization", "Bearer "+auth)
		}
		return do(t, req)
	}
	for _, tc := range []struct {
		name, method, path, host, origin, auth string
		want                                   int
	}{
		{"no token", "POST", "/api/app.App.ListClusters", "", "", "", 401},
		{"wrong token", "POST", "/api/app.App.ListClusters", "", "", "nope", 401},
		{"no token, page", "GET", "/", "", "", "", 401},
		{"foreign host", "POST", "/api/app.App.ListClusters", "evil.example:80", "", "secret-token", 403},
		{"rebinding host", "POST", "/api/app.App.ListClusters", "attacker.test:" + strings.Split(host, ":")[1], "", "secret-token", 403},
		{"foreign origin", "POST", "/api/app.App.ListClusters", "", "http://evil.example", "secret-token", 403},
		{"good", "POST", "/api/app.App.ListClusters", "", "", "secret-token", 200},
		{"good with own origin", "POST", "/api/app.App.ListClusters", "", "http://" + host, "secret-token", 200},
		{"token in query", "POST", "/api/app.App.Version?token=secret-token", "", "", "", 200},
		{"unknown method", "POST", "/api/app.App.Nope", "", "", "secret-token", 404},
	} {
		code, body := call(tc.method, tc.path, tc.host, tc.origin, tc.auth)
		if code != tc.want {
			t.Errorf("%s: %d %s, want %d", tc.name, code, body, tc.want)
		}
	}
	// A call with bad arguments is a 400 naming the problem.
	if code, b := send(t, "POST", ts.URL+"/api/app.App.Checkpoints", "secret-token", strings.NewReader(`["x"]`)); code != 400 || !strings.Contains(b, "takes 4 arguments") {
		t.Errorf("bad arity: %d %s", code, b)
	}
	// The token cookie set by the page URL lets later requests through.
	jar := &cookieJar{}
	cl := &http.Client{Jar: jar}
	req, _ := http.NewRequest("POST", ts.URL+"/api/app.App.Version?token=secret-token", nil)
	res, err := cl.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	req, _ = http.NewRequest("POST", ts.URL+"/api/app.App.ListJobs", strings.NewReader(`[""]`))
	if res, err = cl.Do(req); err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !strings.Contains(string(b), "result") {
		t.Errorf("cookie call: %d %s", res.StatusCode, b)
	}
}

func TestServeRefusesNonLoopbackAddress(t *testing.T) {
	a := testApp(t, nil)
	srv, err := New(a, Options{Addr: "0.0.0.0:0"})
	if err != nil {
		t.Fatal(err)
	}
	err = srv.ListenAndServe(context.Background())
	if err == nil || !strings.Contains(err.Error(), "not a loopback address") {
		t.Errorf("listening on 0.0.0.0: %v", err)
	}
}

func TestUploadOfABadFileIsRefusedWhole(t *testing.T) {
	a := testApp(t, nil)
	srv, _ := New(a, Options{Token: "t"})
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	before := contentDigest(t, a)
	if code, b := send(t, "POST", ts.URL+"/upload?name=broken.ckpt.gz", "t", strings.NewReader("\x1f\x8b\x08garbage")); code != 400 || !strings.Contains(b, "broken.ckpt.gz") {
		t.Errorf("bad upload: %d %s", code, b)
	}
	if contentDigest(t, a) != before {
		t.Error("a refused upload changed the cache")
	}
	// A good upload adds a source.
	var buf bytes.Buffer
	w, _ := capture.NewWriter(&buf, capture.Header{RecordedBy: "test"})
	w.Cluster(model.Cluster{Name: "up", Engine: model.EngineFlink})
	w.Job(model.Job{Cluster: "up", ID: "j", Name: "J", Engine: model.EngineFlink, State: "RUNNING"})
	w.Checkpoint(&model.Checkpoint{Cluster: "up", JobID: "j", ID: 1, Kind: model.KindCheckpoint, Status: model.StatusCompleted, TriggerMs: 1000, EndToEndMs: 5})
	w.Close()
	code, b := send(t, "POST", ts.URL+"/upload?name=good.ckpt.gz", "t", &buf)
	var ir app.ImportResult
	json.Unmarshal([]byte(b), &ir)
	if code != 200 || ir.Checkpoints != 1 || len(ir.Sources) != 1 || ir.Sources[0] != "capture: up" {
		t.Errorf("good upload: %d %+v", code, ir)
	}
}

// The app's own metrics are served behind the token like everything else
// (their content is app's MetricsHandler's, tested there).
func TestServeExportsTheAppsOwnMetricsBehindTheToken(t *testing.T) {
	a := testApp(t, nil)
	srv, _ := New(a, Options{Token: "t", Metrics: a.Metrics()})
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	res, err := http.Get(ts.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 401 {
		t.Errorf("/metrics without the token: %d", res.StatusCode)
	}
	if code, body := send(t, "GET", ts.URL+"/metrics", "t", nil); code != 200 || !strings.Contains(body, "checkpoint_explorer_store_checkpoints 0") {
		t.Errorf("/metrics with the token: %d\n%s", code, body)
	}
}

// writeBigCapture writes a capture (gzip, as the app writes them) of n checkpoints (4 vertices × 16
// subtasks each) of one job.
func writeBigCapture(t *testing.T, n int) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "big.ckpt")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	bw := bufio.NewWriter(f)
	w, err := capture.NewWriter(bw, capture.Header{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Cluster(model.Cluster{Name: "big", Engine: model.EngineFlink, BaseURL: "http://127.0.0.1:9"}); err != nil {
		t.Fatal(err)
	}
	if err := w.Job(model.Job{Cluster: "big", ID: "job", Name: "big", Engine: model.EngineFlink}); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		c := modeltest.Checkpoint("big", "job", int64(i+1), 1_700_000_000_000+int64(i)*1000, 4, 16)
		if err := w.Checkpoint(&c); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := bw.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return p
}

// An import through the browser whose tab goes away (the connection closes)
// stops, and leaves the cache as it was; the app keeps serving.
func TestUploadCancelledByTheClientLeavesTheCache(t *testing.T) {
	logs := &apptest.Buffer{}
	a := testApp(t, slog.New(slog.NewTextHandler(logs, nil)))
	as := serveApp(t, a, Options{MaxUploadBytes: 1 << 30}, nil)
	file := writeBigCapture(t, 6000)
	body, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	progress := make(chan struct{}, 1)
	defer a.Subscribe(func(name string, _ any) {
		if name == (app.ImportProgressEvent{}).EventName() {
			select {
			case progress <- struct{}{}:
			default:
			}
		}
	})()

	c := as.dial(t, fmt.Sprintf("POST /upload?name=big.ckpt HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\n"+
		"Content-Type: application/octet-stream\r\nContent-Length: %d\r\n\r\n", as.addr, abuseToken, len(body)))
	if _, err := c.Write(body); err != nil {
		t.Fatal(err)
	}
	select {
	case <-progress: // the import is under way
	case <-time.After(60 * time.Second):
		t.Fatal("no import progress within 60 s")
	}
	c.Close()
	deadline := time.Now().Add(60 * time.Second)
	for !strings.Contains(logs.String(), "import cancelled, the client went away") {
		if time.Now().After(deadline) {
			t.Fatalf("the import was not cancelled 60 s after the client left; log:\n%s", logs.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	st, err := a.App().Retention()
	if err != nil {
		t.Fatal(err)
	}
	if st.Checkpoints != 0 || st.Jobs != 0 {
		t.Errorf("after the cancelled import the cache holds %d checkpoints of %d jobs; want it as it was (empty)", st.Checkpoints, st.Jobs)
	}
	srcs, err := a.App().ListClusters()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range srcs {
		if s.Kind == "capture" {
			t.Errorf("the cancelled import left a source %q", s.Name)
		}
	}
	as.normal(t, "after the cancelled import")
}
