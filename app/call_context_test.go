package app

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"checkpoint-explorer/backend/capture"
	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/model/modeltest"
)

// lockedBuffer is a log destination safe for the app's goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
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
	logs := &lockedBuffer{}
	a := newTestApp(t, Options{NoSample: true, Logger: slog.New(slog.NewTextHandler(logs, nil))})
	as := serveApp(t, a, ServeOptions{MaxUploadBytes: 1 << 30}, nil)
	file := writeBigCapture(t, 6000)
	body, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	progress := make(chan struct{}, 1)
	defer Subscribe(a, func(name string, _ any) {
		if name == (ImportProgressEvent{}).EventName() {
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
	st, err := a.store.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st.Checkpoints != 0 || st.Jobs != 0 {
		t.Errorf("after the cancelled import the cache holds %d checkpoints of %d jobs; want it as it was (empty)", st.Checkpoints, st.Jobs)
	}
	srcs, err := a.ListClusters()
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

// A call made through the window or the CLI ends when the app closes, and has
// no deadline of its own (an import may take as long as the file needs).
func TestCallsEndWithTheAppAndHaveNoDeadline(t *testing.T) {
	a := newTestApp(t, Options{NoSample: true})
	ctx, cancel := a.callCtx()
	defer cancel()
	if _, ok := ctx.Deadline(); ok {
		t.Error("a call has a deadline; user-started work must have none")
	}
	req, cancelReq := context.WithCancel(context.Background())
	rctx, rcancel := withCallContext(a, req).callCtx()
	defer rcancel()
	if _, ok := rctx.Deadline(); ok {
		t.Error("a request's call has a deadline of its own")
	}
	cancelReq()
	select {
	case <-rctx.Done():
	case <-time.After(time.Second):
		t.Error("a request's call did not end when the request did")
	}
	rctx2, rcancel2 := withCallContext(a, context.Background()).callCtx()
	defer rcancel2()
	if err := Close(a); err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]context.Context{"window": ctx, "request": rctx2} {
		select {
		case <-c.Done():
		case <-time.After(time.Second):
			t.Errorf("a %s call did not end when the app closed", name)
		}
	}
}
