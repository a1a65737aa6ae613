package seatunnel_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/source/seatunnel"
	"checkpoint-explorer/backend/store"
	"checkpoint-explorer/testenv/seatunnelenv"
)

// countingProxy forwards to a real node and counts the requests per endpoint (ids replaced).
type countingProxy struct {
	mu     sync.Mutex
	counts map[string]int
}

var idInPath = regexp.MustCompile(`/[0-9]{6,}`)

func newCountingProxy(t *testing.T, target string) (*countingProxy, string) {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	p := &countingProxy{counts: map[string]int{}}
	rp := httputil.NewSingleHostReverseProxy(u)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		p.counts[idInPath.ReplaceAllString(r.URL.Path, "/:id")]++
		p.mu.Unlock()
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return p, srv.URL
}

// take returns the counts since the last take, and resets them.
func (p *countingProxy) take() map[string]int {
	p.mu.Lock()
	defer p.mu.Unlock()
	c := p.counts
	p.counts = map[string]int{}
	return c
}

func rates(c map[string]int, d time.Duration) (total float64, text string) {
	var keys []string
	for k := range c {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		r := float64(c[k]) / d.Seconds()
		total += r
		parts = append(parts, fmt.Sprintf("%s %.2f", k, r))
	}
	return total, strings.Join(parts, ", ")
}

// TestSeaTunnelOverhead measures, on the real 2.3.13 node, the requests per second the collector
// sends for one job: with quick checkpoints (none runs long), and behind a slow sink while
// checkpoints run for seconds (ack progress sampled every 0.5 s, /job-info every second while
// one runs long). It prints the figures for `make bench`; CE_BENCH_OVERHEAD=1 runs it.
func TestSeaTunnelOverhead(t *testing.T) {
	if os.Getenv("CE_BENCH_OVERHEAD") != "1" {
		t.Skip("a figure for make bench: CE_BENCH_OVERHEAD=1")
	}
	e := checkpointNode(t)
	const window = 60 * time.Second
	for _, tc := range []struct {
		name  string
		knobs []string
	}{
		{"quick checkpoints (2 s interval, ~20 ms each)", []string{"SEATUNNEL_JOB_NAME=ce-bench-quick", "SEATUNNEL_CHECKPOINT_INTERVAL_MS=2000"}},
		{"long checkpoints (slow sink: 1–20 s each)", []string{"SEATUNNEL_JOB_NAME=ce-bench-slow", "SEATUNNEL_SLOW_MS=20", "SEATUNNEL_CHECKPOINT_INTERVAL_MS=2000"}},
	} {
		id := seatunnelenv.SubmitJob(t, e, tc.knobs...)
		proxy, url := newCountingProxy(t, e.RESTURL)
		c, err := seatunnel.New(seatunnel.Config{BaseURL: url, Cluster: "real"})
		if err != nil {
			t.Fatal(err)
		}
		h := newRealCollector(t, c)
		q := store.Query{Cluster: "real", JobID: id}
		h.wait(t, "the first checkpoint", time.Minute, func() bool { return len(h.checkpoints(t, q)) > 0 })
		proxy.take()
		time.Sleep(window)
		total, text := rates(proxy.take(), window)
		n := 0
		for _, cp := range h.checkpoints(t, q) {
			if cp.Status != model.StatusInProgress {
				n++
			}
		}
		fmt.Printf("seatunnel overhead, %s: %.2f requests/s for 1 job (%s); %d checkpoints stored\n", tc.name, total, text, n)
		if err := seatunnelenv.Cancel(e, id); err != nil {
			t.Log(err)
		}
	}
}
