// Package toxienv gives tests a real Toxiproxy server (testenv/toxiproxy/start.sh, the server
// pinned in testenv/tools/go.mod) and proxies on loopback ports between the code under test and a
// real service (the Flink test cluster's REST API, Prometheus, an httptest server), with toxics:
// latency with jitter, a bandwidth limit, reset_peer, timeout, slicer, and cutting the connection
// for a while (the proxy disabled, then enabled again on the same port).
//
//	tp := toxienv.Ensure(t)
//	p := tp.NewProxy(t, "127.0.0.1:8081") // deleted when the test ends
//	restURL := p.URL()                    // give the code under test this URL
//	p.Latency(t, toxienv.Downstream, 300*time.Millisecond, 50*time.Millisecond)
//	p.CutFor(t, 20*time.Second)
//
// Ensure starts the server once per test binary (or uses TOXIPROXY_URL's) and skips the test when
// CE_SKIP_REAL=1. Start does the same for code that has a context and no testing.TB.
package toxienv

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	toxiproxy "github.com/Shopify/toxiproxy/v2/client"

	"checkpoint-explorer/testenv/envscript"
)

// Env is a running Toxiproxy server.
type Env struct {
	// URL is its API, http://127.0.0.1:PORT.
	URL string
	// PID is the server's process; 0 for an external server (TOXIPROXY_URL).
	PID int
	// RunDir holds its pid, port, env and log files; "" for an external server.
	RunDir string
	// Version is what GET /version answers.
	Version string
	// Client is the maintained Toxiproxy API client, for what this package does not wrap.
	Client *toxiproxy.Client
}

const startTimeout = 5 * time.Minute // the first start builds the server (about 20-30 s)

var shared = envscript.Shared[*Env]{Pkg: "toxienv", What: "a real Toxiproxy server", Timeout: startTimeout}

// Ensure returns the shared server, starting it on first use in this test binary. It skips the
// test when CE_SKIP_REAL=1 and fails it when the server cannot start.
func Ensure(t testing.TB) *Env {
	t.Helper()
	return shared.Get(t, func(ctx context.Context) (*Env, error) { return Start(ctx) })
}

// Start runs testenv/toxiproxy/start.sh (idempotent: a running server of ours is reused) and
// returns the server; with TOXIPROXY_URL set it uses that server instead, which must be on a
// loopback address. extraEnv is passed to the script (e.g. TOXIPROXY_RUN_DIR=... for a server of
// one's own).
func Start(ctx context.Context, extraEnv ...string) (*Env, error) {
	if u := os.Getenv("TOXIPROXY_URL"); u != "" && len(extraEnv) == 0 {
		return external(ctx, u)
	}
	vars, err := envscript.Start(ctx, extraEnv, "toxiproxy", "TOXIPROXY_URL")
	if err != nil {
		return nil, fmt.Errorf("toxienv: %w", err)
	}
	pid, _ := strconv.Atoi(vars["TOXIPROXY_PID"])
	return &Env{
		URL:     vars["TOXIPROXY_URL"],
		PID:     pid,
		RunDir:  vars["TOXIPROXY_RUN_DIR"],
		Version: vars["TOXIPROXY_VERSION"],
		Client:  toxiproxy.NewClient(vars["TOXIPROXY_URL"]),
	}, nil
}

// Stop runs testenv/toxiproxy/stop.sh with extraEnv (normally TOXIPROXY_RUN_DIR=... of a server
// started with the same). The shared server is left to testenv/stop-all.sh.
func Stop(ctx context.Context, extraEnv ...string) error {
	if _, err := envscript.RunScript(ctx, extraEnv, "toxiproxy", "stop.sh"); err != nil {
		return fmt.Errorf("toxienv: %w", err)
	}
	return nil
}

func external(ctx context.Context, raw string) (*Env, error) {
	u, err := url.Parse(strings.TrimRight(raw, "/"))
	if err != nil || u.Scheme != "http" || !loopback(u.Hostname()) {
		return nil, fmt.Errorf("toxienv: TOXIPROXY_URL=%s: want http:// on a loopback address", raw)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String()+"/version", nil)
	if err != nil {
		return nil, fmt.Errorf("toxienv: %w", err)
	}
	resp, err := (&http.Client{Timeout: 5 * time.Second}).Do(req)
	if err != nil {
		return nil, fmt.Errorf("toxienv: TOXIPROXY_URL: %w", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 256))
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("toxienv: %s/version: %s", u, resp.Status)
	}
	return &Env{URL: u.String(), Version: strings.TrimSpace(string(body)), Client: toxiproxy.NewClient(u.String())}, nil
}

func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Proxy is a TCP proxy of the server: connections to Listen go to Upstream, through its toxics.
type Proxy struct {
	Name string
	// Listen is the proxy's address, 127.0.0.1:PORT (a free port chosen when it was created; kept
	// when it is disabled and enabled again).
	Listen string
	// Upstream is where it forwards to, host:port on a loopback address.
	Upstream string

	p       *toxiproxy.Proxy
	mu      sync.Mutex // p.Enabled, toggled by Disable/Enable
	toxicN  atomic.Int64
	deleted atomic.Bool
}

// URL is "http://" + Listen: the base URL of an HTTP upstream seen through the proxy.
func (p *Proxy) URL() string { return "http://" + p.Listen }

// CreateProxy creates a proxy named name, listening on a free port of 127.0.0.1, towards
// upstream ("127.0.0.1:8081"; only loopback upstreams are accepted). A proxy of that name left by
// an earlier run is replaced. The caller deletes it (Delete).
func (e *Env) CreateProxy(name, upstream string) (*Proxy, error) {
	host, port, err := net.SplitHostPort(upstream)
	if err != nil || port == "" {
		return nil, fmt.Errorf("toxienv: upstream %q: want host:port", upstream)
	}
	if !loopback(host) {
		return nil, fmt.Errorf("toxienv: upstream %q is not a loopback address", upstream)
	}
	if old, err := e.Client.Proxy(name); err == nil {
		_ = old.Delete()
	}
	p, err := e.Client.CreateProxy(name, "127.0.0.1:0", upstream)
	if err != nil {
		return nil, fmt.Errorf("toxienv: create proxy %s → %s: %w", name, upstream, err)
	}
	if _, port, err := net.SplitHostPort(p.Listen); err != nil || port == "0" {
		_ = p.Delete()
		return nil, fmt.Errorf("toxienv: proxy %s got no port (listen %q)", name, p.Listen)
	}
	return &Proxy{Name: name, Listen: p.Listen, Upstream: p.Upstream, p: p}, nil
}

var proxySeq atomic.Int64

// NewProxy creates a proxy towards upstream named after the test (unique in the server: test
// name, process id, a counter) and deletes it when the test ends. It fails the test on error.
func (e *Env) NewProxy(t testing.TB, upstream string) *Proxy {
	t.Helper()
	p, err := e.CreateProxy(ProxyName(t), upstream)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := p.Delete(); err != nil {
			t.Errorf("toxienv: %v", err)
		}
	})
	return p
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// ProxyName is a proxy name unique to this call: the test's name (made URL-safe), the process id
// and a counter, so parallel tests and concurrent test binaries never share one.
func ProxyName(t testing.TB) string {
	n := strings.Trim(unsafeName.ReplaceAllString(t.Name(), "_"), "_")
	if len(n) > 80 {
		n = n[len(n)-80:]
	}
	return fmt.Sprintf("%s-%d-%d", n, os.Getpid(), proxySeq.Add(1))
}

// Delete deletes the proxy: its listener and connections close. Deleting twice is not an error.
func (p *Proxy) Delete() error {
	if p.deleted.Swap(true) {
		return nil
	}
	if err := p.p.Delete(); err != nil {
		return fmt.Errorf("delete proxy %s: %w", p.Name, err)
	}
	return nil
}

// Disable closes the proxy's listener and drops its connections: new connections are refused.
func (p *Proxy) Disable() error { return p.toggle("disable", p.p.Disable) }

// Enable listens again on the same address.
func (p *Proxy) Enable() error { return p.toggle("enable", p.p.Enable) }

// toggle disables or enables the proxy with set, one toggle at a time.
func (p *Proxy) toggle(verb string, set func() error) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := set(); err != nil {
		return fmt.Errorf("%s proxy %s: %w", verb, p.Name, err)
	}
	return nil
}

// Cut disables the proxy for d (or until ctx ends), then enables it again; it blocks meanwhile
// (run it in a goroutine to act during the cut). The proxy is enabled again even when ctx ends.
func (p *Proxy) Cut(ctx context.Context, d time.Duration) error {
	if err := p.Disable(); err != nil {
		return err
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
	case <-ctx.Done():
	}
	return p.Enable()
}

// CutFor disables the proxy now and enables it again after d, in the background; the test fails
// if either step fails. It returns a channel closed once the proxy is enabled again. If the test
// ends first, the proxy is enabled (and then deleted by NewProxy's cleanup).
func (p *Proxy) CutFor(t testing.TB, d time.Duration) <-chan struct{} {
	t.Helper()
	if err := p.Disable(); err != nil {
		t.Fatalf("toxienv: %v", err)
	}
	done := make(chan struct{})
	stop := make(chan struct{})
	go func() {
		defer close(done)
		timer := time.NewTimer(d)
		defer timer.Stop()
		select {
		case <-timer.C:
		case <-stop:
		}
		if err := p.Enable(); err != nil && !p.deleted.Load() {
			t.Errorf("toxienv: %v", err)
		}
	}()
	t.Cleanup(func() { close(stop); <-done })
	return done
}

// Direction is the stream a toxic acts on.
type Direction string

const (
	// Downstream is upstream → client: responses.
	Downstream Direction = "downstream"
	// Upstream is client → upstream: requests.
	Upstream Direction = "upstream"
)

// Toxic is one toxic; Name is what RemoveToxic takes.
type Toxic = toxiproxy.Toxic

// AddToxic adds a toxic of type typeName ("latency", "bandwidth", "slow_close", "timeout",
// "reset_peer", "slicer", "limit_data") on dir, applied to a share toxicity (0..1] of the
// connections, with the type's attributes. name "" names it typeName_dir_N. It returns the name.
func (p *Proxy) AddToxic(name, typeName string, dir Direction, toxicity float32, attrs map[string]any) (string, error) {
	if name == "" {
		name = fmt.Sprintf("%s_%s_%d", typeName, dir, p.toxicN.Add(1))
	}
	if toxicity <= 0 || toxicity > 1 {
		return "", fmt.Errorf("toxienv: toxicity %v: want (0, 1]", toxicity)
	}
	_, err := p.p.AddToxic(name, typeName, string(dir), toxicity, toxiproxy.Attributes(attrs))
	if errors.Is(err, io.EOF) || err != nil && strings.HasSuffix(err.Error(), ": EOF") {
		// The admin API closed a kept-alive connection as the POST went out on it (seen on a
		// loaded machine), which Go's transport does not send again for a POST. Once more; a
		// toxic the first one made after all is there under its name.
		if _, err = p.p.AddToxic(name, typeName, string(dir), toxicity, toxiproxy.Attributes(attrs)); err != nil && strings.Contains(err.Error(), "already exists") {
			err = nil
		}
	}
	if err != nil {
		return "", fmt.Errorf("toxienv: add %s toxic to proxy %s: %w", typeName, p.Name, err)
	}
	return name, nil
}

// RemoveToxic removes the toxic named name.
func (p *Proxy) RemoveToxic(name string) error {
	if err := p.p.RemoveToxic(name); err != nil {
		return fmt.Errorf("toxienv: remove toxic %s from proxy %s: %w", name, p.Name, err)
	}
	return nil
}

// Toxics lists the proxy's toxics.
func (p *Proxy) Toxics() ([]Toxic, error) {
	ts, err := p.p.Toxics()
	if err != nil {
		return nil, fmt.Errorf("toxienv: toxics of proxy %s: %w", p.Name, err)
	}
	return ts, nil
}

// RemoveAllToxics removes every toxic of the proxy.
func (p *Proxy) RemoveAllToxics() error {
	ts, err := p.Toxics()
	if err != nil {
		return err
	}
	var errs []error
	for _, tx := range ts {
		errs = append(errs, p.RemoveToxic(tx.Name))
	}
	return errors.Join(errs...)
}

// The helpers below add one toxic to every connection and fail the test on error; each returns
// the toxic's name for RemoveToxic. Each has an Add* form that returns an error instead.

// Latency delays all data on dir by latency ± jitter (uniformly random per chunk).
func (p *Proxy) Latency(t testing.TB, dir Direction, latency, jitter time.Duration) string {
	t.Helper()
	return must(t)(p.AddLatency(dir, latency, jitter))
}

// AddLatency is Latency returning an error.
func (p *Proxy) AddLatency(dir Direction, latency, jitter time.Duration) (string, error) {
	return p.AddToxic("", "latency", dir, 1, map[string]any{"latency": latency.Milliseconds(), "jitter": jitter.Milliseconds()})
}

// Bandwidth limits dir to kbPerSecond KB/s (1 KB = 1000 bytes).
func (p *Proxy) Bandwidth(t testing.TB, dir Direction, kbPerSecond int64) string {
	t.Helper()
	return must(t)(p.AddBandwidth(dir, kbPerSecond))
}

// AddBandwidth is Bandwidth returning an error.
func (p *Proxy) AddBandwidth(dir Direction, kbPerSecond int64) (string, error) {
	return p.AddToxic("", "bandwidth", dir, 1, map[string]any{"rate": kbPerSecond})
}

// ResetPeer resets connections (TCP RST) once data arrives on dir, after the delay after (0:
// at once).
func (p *Proxy) ResetPeer(t testing.TB, dir Direction, after time.Duration) string {
	t.Helper()
	return must(t)(p.AddResetPeer(dir, after))
}

// AddResetPeer is ResetPeer returning an error.
func (p *Proxy) AddResetPeer(dir Direction, after time.Duration) (string, error) {
	return p.AddToxic("", "reset_peer", dir, 1, map[string]any{"timeout": after.Milliseconds()})
}

// Timeout stops all data on dir and closes connections after after (0: never closes them; the
// peer waits until its own timeout). On Downstream a close from the upstream still passes at once
// (an HTTP server closing after a "Connection: close" response): use Upstream to lose requests.
func (p *Proxy) Timeout(t testing.TB, dir Direction, after time.Duration) string {
	t.Helper()
	return must(t)(p.AddTimeout(dir, after))
}

// AddTimeout is Timeout returning an error.
func (p *Proxy) AddTimeout(dir Direction, after time.Duration) (string, error) {
	return p.AddToxic("", "timeout", dir, 1, map[string]any{"timeout": after.Milliseconds()})
}

// Slicer cuts the data on dir into pieces of averageSize ± sizeVariation bytes (sizeVariation <
// averageSize), delay apart (microsecond resolution).
func (p *Proxy) Slicer(t testing.TB, dir Direction, averageSize, sizeVariation int, delay time.Duration) string {
	t.Helper()
	return must(t)(p.AddSlicer(dir, averageSize, sizeVariation, delay))
}

// AddSlicer is Slicer returning an error.
func (p *Proxy) AddSlicer(dir Direction, averageSize, sizeVariation int, delay time.Duration) (string, error) {
	return p.AddToxic("", "slicer", dir, 1, map[string]any{
		"average_size": averageSize, "size_variation": sizeVariation, "delay": delay.Microseconds(),
	})
}

func must(t testing.TB) func(string, error) string {
	return func(name string, err error) string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return name
	}
}
