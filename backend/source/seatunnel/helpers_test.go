package seatunnel

import (
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"
)

// readTestdata reads testdata/name.
func readTestdata(tb testing.TB, name string) []byte {
	tb.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// serveFiles answers each path with the bytes of a testdata file (or a literal body when the
// value does not end in .json; the files are read first), 404 for anything else.
func serveFiles(t *testing.T, routes map[string]string) *httptest.Server {
	t.Helper()
	bodies := map[string][]byte{}
	for path, body := range routes {
		bodies[path] = []byte(body)
		if strings.HasSuffix(body, ".json") {
			bodies[path] = readTestdata(t, body)
		}
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := bodies[r.URL.Path]
		if !ok {
			jetty404(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// newClient is a client of base for the cluster "st", reading times as UTC, with mod applied
// to its Config.
func newClient(t testing.TB, base string, mod ...func(*Config)) *Client {
	t.Helper()
	cfg := Config{BaseURL: base, Cluster: "st"}
	for _, m := range mod {
		m(&cfg)
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return c.WithLocation(time.UTC)
}
