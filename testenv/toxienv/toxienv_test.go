package toxienv

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"checkpoint-explorer/testenv/envscript"
)

// upstream is a local HTTP server: /ok answers "ok", /bytes?n=N answers N bytes.
func upstream(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/ok":
			io.WriteString(w, "ok")
		case "/bytes":
			n, _ := strconv.Atoi(r.URL.Query().Get("n"))
			w.Header().Set("Content-Length", strconv.Itoa(n))
			w.Write([]byte(strings.Repeat("x", n)))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "http://")
}

// client opens a new connection per request, so every request meets the proxy's current state.
var client = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 5 * time.Second}

// get fetches url, returning the body and how long it took.
func get(url string) (string, time.Duration, error) {
	start := time.Now()
	resp, err := client.Get(url)
	if err != nil {
		return "", time.Since(start), err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("status %s", resp.Status)
	}
	return string(body), time.Since(start), err
}

func mustGet(t *testing.T, url, want string) time.Duration {
	t.Helper()
	body, d, err := get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	if body != want {
		t.Fatalf("GET %s = %q, want %q", url, body, want)
	}
	return d
}

func TestProxyAndToxics(t *testing.T) {
	tp := Ensure(t)
	if !strings.HasPrefix(tp.URL, "http://127.0.0.1:") {
		t.Fatalf("URL = %q, want http://127.0.0.1:PORT", tp.URL)
	}
	up := upstream(t)
	p := tp.NewProxy(t, up)
	if !strings.HasPrefix(p.Listen, "127.0.0.1:") || p.Listen == up || p.Upstream != up {
		t.Fatalf("proxy listen %q upstream %q (real upstream %s)", p.Listen, p.Upstream, up)
	}
	ok := p.URL() + "/ok"
	if d := mustGet(t, ok, "ok"); d > 250*time.Millisecond {
		t.Fatalf("a request without toxics took %v", d)
	}

	t.Run("latency", func(t *testing.T) {
		name := p.Latency(t, Downstream, 400*time.Millisecond, 0)
		if d := mustGet(t, ok, "ok"); d < 400*time.Millisecond {
			t.Errorf("with 400ms latency the request took %v", d)
		}
		if err := p.RemoveToxic(name); err != nil {
			t.Fatal(err)
		}
		if d := mustGet(t, ok, "ok"); d > 250*time.Millisecond {
			t.Errorf("after removing the latency the request took %v", d)
		}
		// With jitter: 500ms ± 100ms, both ways.
		p.Latency(t, Downstream, 500*time.Millisecond, 100*time.Millisecond)
		p.Latency(t, Upstream, 500*time.Millisecond, 100*time.Millisecond)
		if d := mustGet(t, ok, "ok"); d < 800*time.Millisecond {
			t.Errorf("with 500±100ms latency on both streams the request took %v", d)
		}
		ts, err := p.Toxics()
		if err != nil || len(ts) != 2 {
			t.Fatalf("toxics = %v, %v; want 2", ts, err)
		}
		if err := p.RemoveAllToxics(); err != nil {
			t.Fatal(err)
		}
		if ts, err := p.Toxics(); err != nil || len(ts) != 0 {
			t.Fatalf("after RemoveAllToxics: %v, %v", ts, err)
		}
	})

	t.Run("bandwidth", func(t *testing.T) {
		url := p.URL() + "/bytes?n=60000"
		want := strings.Repeat("x", 60000)
		if d := mustGet(t, url, want); d > 250*time.Millisecond {
			t.Fatalf("60 KB without toxics took %v", d)
		}
		name := p.Bandwidth(t, Downstream, 100) // 100 KB/s: 60 KB in 0.6 s
		if d := mustGet(t, url, want); d < 450*time.Millisecond {
			t.Errorf("60 KB at 100 KB/s took %v", d)
		}
		if err := p.RemoveToxic(name); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("slicer", func(t *testing.T) {
		name := p.Slicer(t, Downstream, 100, 20, 5*time.Millisecond)
		defer p.RemoveToxic(name)
		conn, err := net.DialTimeout("tcp", p.Listen, 2*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		conn.SetDeadline(time.Now().Add(10 * time.Second))
		start := time.Now()
		fmt.Fprintf(conn, "GET /bytes?n=4000 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
		buf := make([]byte, 64<<10)
		reads, total := 0, 0
		for {
			n, err := conn.Read(buf)
			if n > 0 {
				reads++
				total += n
			}
			if err != nil {
				if !errors.Is(err, io.EOF) {
					t.Fatalf("read: %v", err)
				}
				break
			}
		}
		d := time.Since(start)
		if total < 4000 || reads < 10 || d < 150*time.Millisecond {
			t.Errorf("sliced response: %d bytes in %d reads, %v; want ≥ 4000 bytes in ≥ 10 reads over ≥ 150ms", total, reads, d)
		}
	})

	t.Run("reset_peer", func(t *testing.T) {
		name := p.ResetPeer(t, Downstream, 0)
		_, _, err := get(ok)
		if err == nil {
			t.Fatal("request passed through reset_peer")
		}
		if !errors.Is(err, syscall.ECONNRESET) {
			t.Errorf("error = %v, want connection reset", err)
		}
		if err := p.RemoveToxic(name); err != nil {
			t.Fatal(err)
		}
		mustGet(t, ok, "ok")
	})

	t.Run("timeout", func(t *testing.T) {
		// Upstream: the request never reaches the server. (Downstream, the response is dropped but
		// the server's close after a Connection: close response passes at once.)
		name := p.Timeout(t, Upstream, 500*time.Millisecond)
		_, d, err := get(ok)
		if err == nil {
			t.Fatal("request passed through a timeout toxic")
		}
		// The proxy closed the connection after 500ms, long before the client's 5s timeout.
		if d < 500*time.Millisecond || d > 3*time.Second {
			t.Errorf("failed after %v (%v); want the proxy to close it after 500ms", d, err)
		}
		if err := p.RemoveToxic(name); err != nil {
			t.Fatal(err)
		}
		mustGet(t, ok, "ok")
	})

	refused := func(t *testing.T) {
		t.Helper()
		_, _, err := get(ok)
		if !errors.Is(err, syscall.ECONNREFUSED) {
			t.Fatalf("request to a disabled proxy: %v, want connection refused", err)
		}
	}

	t.Run("disable_enable", func(t *testing.T) {
		listen := p.Listen
		if err := p.Disable(); err != nil {
			t.Fatal(err)
		}
		refused(t)
		if err := p.Enable(); err != nil {
			t.Fatal(err)
		}
		if p.Listen != listen {
			t.Errorf("listen after enable = %s, want %s", p.Listen, listen)
		}
		mustGet(t, ok, "ok")
	})

	t.Run("cut", func(t *testing.T) {
		start := time.Now()
		done := p.CutFor(t, time.Second)
		refused(t)
		<-done
		if d := time.Since(start); d < time.Second {
			t.Errorf("cut ended after %v, want 1s", d)
		}
		mustGet(t, ok, "ok")

		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		errc := make(chan error, 1)
		go func() { errc <- p.Cut(ctx, 700*time.Millisecond) }()
		time.Sleep(200 * time.Millisecond)
		refused(t)
		if err := <-errc; err != nil {
			t.Fatal(err)
		}
		mustGet(t, ok, "ok")
	})
}

func TestDeleteAndNames(t *testing.T) {
	tp := Ensure(t)
	up := upstream(t)
	if _, err := tp.CreateProxy(ProxyName(t), "192.0.2.1:80"); err == nil {
		t.Error("a proxy towards a non-loopback upstream was created")
	}
	a, b := ProxyName(t), ProxyName(t)
	if a == b || strings.ContainsAny(a, "/ ") {
		t.Errorf("proxy names %q, %q: want distinct and URL-safe", a, b)
	}
	p, err := tp.CreateProxy(a, up)
	if err != nil {
		t.Fatal(err)
	}
	mustGet(t, p.URL()+"/ok", "ok")
	if _, err := tp.Client.Proxy(a); err != nil {
		t.Fatalf("proxy %s not on the server: %v", a, err)
	}
	if err := p.Delete(); err != nil {
		t.Fatal(err)
	}
	if _, err := tp.Client.Proxy(a); err == nil {
		t.Errorf("proxy %s still on the server after Delete", a)
	}
	if _, _, err := get(p.URL() + "/ok"); !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("request to a deleted proxy: %v, want connection refused", err)
	}
	if err := p.Delete(); err != nil {
		t.Errorf("second Delete: %v", err)
	}
}

// The scripts on a dedicated server (own run dir), so the shared one is never disturbed: start,
// idempotent restart, env.sh, stop of only its own pid.
func TestScriptsOnADedicatedServer(t *testing.T) {
	shared := Ensure(t)
	runDir := filepath.Join(t.TempDir(), "toxiproxy")
	vars := []string{"TOXIPROXY_RUN_DIR=" + runDir, "TOXIPROXY_PORT="}
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	t.Cleanup(func() { Stop(context.Background(), vars...) })

	first, err := Start(ctx, vars...)
	if err != nil {
		t.Fatal(err)
	}
	if first.PID == 0 || first.RunDir != runDir || first.URL == shared.URL || !strings.HasSuffix(first.Version, "+checkpoint-explorer") {
		t.Fatalf("dedicated env = %+v (shared %s)", first, shared.URL)
	}
	again, err := Start(ctx, vars...)
	if err != nil {
		t.Fatal(err)
	}
	if again.PID != first.PID || again.URL != first.URL {
		t.Errorf("second start: pid %d at %s, want the running %d at %s", again.PID, again.URL, first.PID, first.URL)
	}
	p, err := first.CreateProxy(ProxyName(t), upstream(t))
	if err != nil {
		t.Fatal(err)
	}
	mustGet(t, p.URL()+"/ok", "ok")

	if err := Stop(ctx, vars...); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(first.PID, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("pid %d still alive after stop.sh (%v)", first.PID, err)
	}
	if _, _, err := get(p.URL() + "/ok"); err == nil {
		t.Error("the dedicated server's proxy still answers after stop.sh")
	}
	if shared.PID != 0 {
		if err := syscall.Kill(shared.PID, 0); err != nil {
			t.Errorf("the shared server (pid %d) is gone after stopping the dedicated one: %v", shared.PID, err)
		}
	}
	if _, err := (&http.Client{Timeout: 2 * time.Second}).Get(shared.URL + "/version"); err != nil {
		t.Errorf("the shared server does not answer after stopping the dedicated one: %v", err)
	}
	envScript, err := envscript.Path("toxiproxy", "env.sh")
	if err != nil {
		t.Fatal(err)
	}
	if out, err := envscript.Run(ctx, vars, envScript); err == nil {
		t.Errorf("env.sh after stop.sh succeeded: %s", out)
	}
}
