// Package fuzzenv serves fuzz input as the answer of an HTTP server, so that a fuzz target can
// hand it to a real client method and the client's whole decoding path runs on it: status,
// headers, body limit, error text and JSON decoding.
//
// One Server is made per fuzz target (per fuzzing worker process) and reused across
// iterations; iterations of one process run one at a time, so Answer simply replaces what the
// next requests get.
package fuzzenv

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"
)

// Server answers every request with the answer last set by Answer.
type Server struct {
	*httptest.Server
	mu     sync.Mutex
	status int
	ctype  string
	body   []byte
	paths  []string
}

// New starts a loopback server, closed when tb ends.
func New(tb testing.TB) *Server {
	tb.Helper()
	s := &Server{status: http.StatusOK, ctype: "application/json"}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	tb.Cleanup(s.Close)
	return s
}

// Answer sets what every following request gets, and forgets the paths requested so far.
func (s *Server) Answer(status int, contentType string, body []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.status, s.ctype, s.body, s.paths = status, contentType, body, s.paths[:0]
}

// Paths returns the paths (with their query) requested since the last Answer.
func (s *Server) Paths() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.paths...)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	status, ctype, body := s.status, s.ctype, s.body
	s.paths = append(s.paths, r.URL.RequestURI())
	s.mu.Unlock()
	if ctype != "" {
		w.Header().Set("Content-Type", ctype)
	}
	w.WriteHeader(status)
	_, _ = w.Write(body) // a 204 takes no body: the error is expected then
}

// statuses are what Status picks from: mostly 200, so that most inputs reach the decoders,
// and the answers engines and proxies give when something is wrong.
var statuses = []int{200, 200, 200, 200, 200, 200, 204, 400, 401, 404, 500, 503}

// Status maps a fuzzed byte to an HTTP status.
func Status(b uint8) int { return statuses[int(b)%len(statuses)] }

// StatusByte is the byte Status maps to code (a seed's status), 0 for codes it does not give.
func StatusByte(code int) uint8 {
	for i, c := range statuses {
		if c == code {
			return uint8(i)
		}
	}
	return 0
}

// StatsEnv names the directory where Count leaves each process's count of executions, for
// testenv/fuzz.sh: go test's own "execs" line stands still while a worker minimizes an input
// (up to -fuzzminimizetime) and counts none of those runs, which makes it no measure of a
// target's speed.
const StatsEnv = "CE_FUZZ_STATS"

var stats struct {
	sync.Mutex
	dir   string
	once  sync.Once
	n     int64
	saved time.Time
}

// Count notes one execution of a fuzz function: call it first in every f.Fuzz function. Without
// $CE_FUZZ_STATS it does nothing; with it, it writes the count to $CE_FUZZ_STATS/execs.<pid>
// every quarter second.
func Count() {
	stats.once.Do(func() { stats.dir = os.Getenv(StatsEnv) })
	if stats.dir == "" {
		return
	}
	stats.Lock()
	defer stats.Unlock()
	stats.n++
	if now := time.Now(); now.Sub(stats.saved) >= 250*time.Millisecond {
		stats.saved = now
		name := filepath.Join(stats.dir, "execs."+strconv.Itoa(os.Getpid()))
		_ = os.WriteFile(name, []byte(strconv.FormatInt(stats.n, 10)+"\n"), 0o644)
	}
}
