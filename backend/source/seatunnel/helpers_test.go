package seatunnel

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// serveFiles answers each path with the bytes of a testdata file (or a literal body when the
// value does not end in .json), 404 for anything else.
func serveFiles(t *testing.T, routes map[string]string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := routes[r.URL.Path]
		if !ok {
			jetty404(w, r)
			return
		}
		if strings.HasSuffix(body, ".json") {
			b, err := os.ReadFile(filepath.Join("testdata", body))
			if err != nil {
				t.Errorf("testdata: %v", err)
			}
			body = string(b)
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	return srv
}

func newClient(t *testing.T, base string, mod ...func(*Config)) *Client {
	t.Helper()
	cfg := Config{BaseURL: base, Cluster: "st", Location: time.UTC}
	for _, m := range mod {
		m(&cfg)
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return c
}
