package restclient

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// A body that takes longer than one request timeout (a JobManager log of
// many megabytes from a busy JobManager) comes whole through StreamRequest,
// which takes StreamTimeouts of them; Request gives up after one.
func TestStreamRequestOutlastsOneRequestTimeout(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for range 5 {
			io.WriteString(w, "line of the log\n")
			w.(http.Flusher).Flush()
			time.Sleep(100 * time.Millisecond)
		}
	}))
	defer srv.Close()
	e, err := OpenEngine(EngineConfig{BaseURL: srv.URL, Timeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	read := func(get func() (*http.Response, error)) (int, error) {
		resp, err := get()
		if err != nil {
			return 0, err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return len(b), err
	}
	n, err := read(func() (*http.Response, error) {
		resp, err := e.Request(context.Background()).Get("/log")
		return resp.RawResponse, err
	})
	if err == nil {
		t.Errorf("Request read %d bytes of a 500 ms body within a 200 ms timeout", n)
	}
	req, cancel := e.StreamRequest(context.Background())
	defer cancel()
	n, err = read(func() (*http.Response, error) {
		resp, err := req.Get("/log")
		return resp.RawResponse, err
	})
	if err != nil || n != 5*len("line of the log\n") {
		t.Errorf("StreamRequest: %d bytes, %v; want the whole body", n, err)
	}
}
