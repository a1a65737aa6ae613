package serve

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"checkpoint-explorer/app"
)

// The browser door under abuse, over loopback against the real server
// (ListenAndServe, its http.Server and its limits): missing tokens, foreign
// Hosts and Origins, huge and slow bodies, slow headers, stalled and
// numerous event streams. After each, and during the slow ones, a normal
// request is still answered.

const abuseToken = "abuse-token"

type abuseServer struct {
	s    *Server
	a    *app.Service
	addr string // 127.0.0.1:port
	url  string // http://127.0.0.1:port
	stop func() time.Duration
}

// startAbuse serves a test app on loopback; tune may shorten the limits.
func startAbuse(t *testing.T, opts Options, tune func(*limits)) *abuseServer {
	t.Helper()
	return serveApp(t, testApp(t, nil), opts, tune)
}

// serveApp serves a on loopback with the test token.
func serveApp(t *testing.T, a *app.Service, opts Options, tune func(*limits)) *abuseServer {
	t.Helper()
	opts.Token = abuseToken
	ready := make(chan string, 1)
	opts.Ready = func(u string) { ready <- u }
	s, err := New(a, opts)
	if err != nil {
		t.Fatal(err)
	}
	if tune != nil {
		tune(&s.limits)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.ListenAndServe(ctx) }()
	var u string
	select {
	case u = <-ready:
	case err := <-done:
		t.Fatalf("serve: %v", err)
	}
	u = strings.TrimSuffix(u, "/?token="+abuseToken)
	as := &abuseServer{s: s, a: a, url: u, addr: strings.TrimPrefix(u, "http://")}
	var stopped time.Duration
	as.stop = func() time.Duration {
		if done == nil {
			return stopped
		}
		began := time.Now()
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("serve: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Error("serve did not return 10 s after its context ended")
		}
		done, stopped = nil, time.Since(began)
		return stopped
	}
	t.Cleanup(func() { as.stop() })
	return as
}

// normal is an ordinary call of the page; it must be answered promptly.
func (as *abuseServer) normal(t *testing.T, when string) {
	t.Helper()
	// A new connection each time: the idle timeout may have closed a kept one.
	c := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	req, _ := http.NewRequest("POST", as.url+"/api/app.App.Version", strings.NewReader("[]"))
	req.Header.Set("Authorization", "Bearer "+abuseToken)
	began := time.Now()
	res, err := c.Do(req)
	if err != nil {
		t.Errorf("normal call %s: %v", when, err)
		return
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !strings.Contains(string(b), "go_version") {
		t.Errorf("normal call %s: %d %s", when, res.StatusCode, b)
	}
	if d := time.Since(began); d > 2*time.Second {
		t.Errorf("normal call %s took %s", when, d)
	}
}

// dial opens a raw connection and writes head (the request line and
// headers, "\r\n"-separated, without the blank line unless given).
func (as *abuseServer) dial(t *testing.T, head string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", as.addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if _, err := io.WriteString(c, head); err != nil {
		t.Fatal(err)
	}
	return c
}

// readUntil reads from c until the text read contains want, within d.
func readUntil(c net.Conn, want string, d time.Duration) (string, error) {
	c.SetReadDeadline(time.Now().Add(d))
	defer c.SetReadDeadline(time.Time{})
	var got []byte
	buf := make([]byte, 4096)
	for !bytes.Contains(got, []byte(want)) {
		n, err := c.Read(buf)
		got = append(got, buf[:n]...)
		if err != nil {
			return string(got), err
		}
	}
	return string(got), nil
}

// closedWithin reports how long until the server closed c (reading past
// any answer), or an error if it did not within d.
func closedWithin(c net.Conn, d time.Duration) (time.Duration, error) {
	began := time.Now()
	c.SetReadDeadline(began.Add(d))
	buf := make([]byte, 4096)
	for {
		_, err := c.Read(buf)
		if err == nil {
			continue
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return 0, fmt.Errorf("still open after %s", d)
		}
		return time.Since(began), nil
	}
}

func status(resp string) string {
	line, _, _ := strings.Cut(resp, "\r\n")
	return line
}

func TestServeAbuseTokenHostOrigin(t *testing.T) {
	as := startAbuse(t, Options{}, nil)
	port := strings.Split(as.addr, ":")[1]
	for _, tc := range []struct {
		name   string
		header string
		want   int
	}{
		{"no token", "", 401},
		{"wrong token", "Authorization: Bearer nope\r\n", 401},
		{"wrong cookie", "Cookie: ce_token=nope\r\n", 401},
		{"token as cookie", "Cookie: ce_token=" + abuseToken + "\r\n", 200},
		{"foreign Host", "Host: evil.example\r\nAuthorization: Bearer " + abuseToken + "\r\n", 403},
		{"rebinding Host", "Host: attacker.test:" + port + "\r\nAuthorization: Bearer " + abuseToken + "\r\n", 403},
		{"foreign Origin", "Origin: http://evil.example\r\nAuthorization: Bearer " + abuseToken + "\r\n", 403},
		{"null Origin", "Origin: null\r\nAuthorization: Bearer " + abuseToken + "\r\n", 403},
		{"https Origin of our host", "Origin: https://" + as.addr + "\r\nAuthorization: Bearer " + abuseToken + "\r\n", 403},
		{"cross-site fetch", "Sec-Fetch-Site: cross-site\r\nAuthorization: Bearer " + abuseToken + "\r\n", 403},
		{"own Origin", "Origin: http://" + as.addr + "\r\nAuthorization: Bearer " + abuseToken + "\r\n", 200},
		{"localhost Host", "Host: localhost:" + port + "\r\nAuthorization: Bearer " + abuseToken + "\r\n", 200},
	} {
		host := "Host: " + as.addr + "\r\n"
		if strings.Contains(tc.header, "Host: ") {
			host = ""
		}
		c := as.dial(t, "POST /api/app.App.Version HTTP/1.1\r\n"+host+tc.header+"Content-Length: 2\r\nConnection: close\r\n\r\n[]")
		resp, err := readUntil(c, "\r\n\r\n", 3*time.Second)
		if err != nil && !errors.Is(err, io.EOF) {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if want := fmt.Sprintf("HTTP/1.1 %d ", tc.want); !strings.HasPrefix(resp, want) {
			t.Errorf("%s: %q, want %s", tc.name, status(resp), want)
		}
		c.Close()
	}
	as.normal(t, "after the refusals")
}

// countingReader is an endless body that counts what was read of it.
type countingReader struct{ n atomic.Int64 }

func (r *countingReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
	}
	r.n.Add(int64(len(p)))
	return len(p), nil
}

func uploadTemps(t *testing.T) int {
	m, err := filepath.Glob(filepath.Join(os.TempDir(), "checkpoint-explorer-upload-*"))
	if err != nil {
		t.Fatal(err)
	}
	return len(m)
}

func TestServeAbuseHugeBodies(t *testing.T) {
	as := startAbuse(t, Options{MaxUploadBytes: 1 << 20}, nil)
	auth := "Authorization: Bearer " + abuseToken + "\r\n"
	temps := uploadTemps(t)
	// A declared size beyond the limit is refused before the body is sent.
	for _, tc := range []struct {
		name, path, header, want string
	}{
		{"call of 1 GiB", "/api/app.App.Version", auth, "HTTP/1.1 413 "},
		{"upload of 1 GiB", "/upload?name=big.ckpt.gz", auth, "HTTP/1.1 413 "},
		{"call of 1 GiB without token", "/api/app.App.Version", "", "HTTP/1.1 401 "},
	} {
		c := as.dial(t, "POST "+tc.path+" HTTP/1.1\r\nHost: "+as.addr+"\r\n"+tc.header+"Content-Length: 1073741824\r\n\r\n")
		resp, err := readUntil(c, "\r\n\r\n", 3*time.Second)
		if !strings.HasPrefix(resp, tc.want) {
			t.Errorf("%s with no body sent yet: %q (%v), want %s", tc.name, status(resp), err, tc.want)
		}
		if tc.want == "HTTP/1.1 413 " {
			if !strings.Contains(resp, "larger than") {
				more, _ := readUntil(c, "larger than", time.Second)
				resp += more
			}
			if !strings.Contains(resp, "larger than") {
				t.Errorf("%s: 413 without saying why: %q", tc.name, resp)
			}
		}
		c.Close()
		as.normal(t, "after "+tc.name)
	}
	// Without a declared size, the body is read up to the limit, no further.
	for _, tc := range []struct {
		name, path string
		limit      int64
	}{
		{"endless call", "/api/app.App.Version", maxCallBody},
		{"endless upload", "/upload?name=endless.ckpt.gz", 1 << 20},
	} {
		body := &countingReader{}
		req, _ := http.NewRequest("POST", as.url+tc.path, body)
		req.Header.Set("Authorization", "Bearer "+abuseToken)
		c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
		res, err := c.Do(req)
		sent := body.n.Load()
		switch {
		case err != nil:
			// The server closed as it answered; the client may see only that.
			t.Logf("%s: %v after %d bytes", tc.name, err, sent)
		case res.StatusCode != http.StatusRequestEntityTooLarge:
			t.Errorf("%s: %d, want 413", tc.name, res.StatusCode)
		}
		if err == nil {
			res.Body.Close()
		}
		// What the client got to send: the limit plus socket buffers.
		if sent > tc.limit+16<<20 {
			t.Errorf("%s: the client sent %d bytes before the refusal (limit %d)", tc.name, sent, tc.limit)
		}
		t.Logf("%s: refused after the client sent %.1f MiB (limit %.1f MiB)", tc.name, float64(sent)/(1<<20), float64(tc.limit)/(1<<20))
		as.normal(t, "after "+tc.name)
	}
	if n := uploadTemps(t); n != temps {
		t.Errorf("%d upload temp files left behind", n-temps)
	}
}

// shortLimits make slow clients meet the limits within a second.
func shortLimits(l *limits) {
	l.readHeader = 300 * time.Millisecond
	l.read = 600 * time.Millisecond
	l.write = 300 * time.Millisecond
	l.idle = 500 * time.Millisecond
	l.uploadGrace = 300 * time.Millisecond
	l.uploadMinRate = 64 << 10
}

// trickle writes a byte of s every 50 ms until done or an error.
func trickle(c net.Conn, s string, done <-chan struct{}) {
	for i := 0; ; i++ {
		select {
		case <-done:
			return
		case <-time.After(50 * time.Millisecond):
		}
		if _, err := c.Write([]byte{s[i%len(s)]}); err != nil {
			return
		}
	}
}

func TestServeAbuseSlowClients(t *testing.T) {
	as := startAbuse(t, Options{}, shortLimits)
	t.Logf("limits: read header %s, read %s, write %s, idle %s, upload %s + 1 s per %d KiB",
		as.s.limits.readHeader, as.s.limits.read, as.s.limits.write, as.s.limits.idle, as.s.limits.uploadGrace, as.s.limits.uploadMinRate>>10)
	host := "Host: " + as.addr + "\r\n"
	auth := "Authorization: Bearer " + abuseToken + "\r\n"
	for _, tc := range []struct {
		name, head, trickle, want string
	}{
		// Headers that never end (slowloris).
		{"trickled headers", "GET / HTTP/1.1\r\n" + host, "X-Slow: y\r\n", ""},
		// A body that never ends, without the token: 401 at once, then the connection goes.
		{"trickled body without token", "POST /api/app.App.Version HTTP/1.1\r\n" + host + "Content-Length: 100000\r\n\r\n", "[", "HTTP/1.1 401 "},
		{"trickled call", "POST /api/app.App.Version HTTP/1.1\r\n" + host + auth + "Content-Length: 100000\r\n\r\n", " ", "HTTP/1.1 408 "},
		{"trickled upload", "POST /upload?name=slow.ckpt.gz HTTP/1.1\r\n" + host + auth + "Content-Length: 100000\r\n\r\n", "x", "HTTP/1.1 408 "},
		// A kept-alive connection that sends nothing more.
		{"idle keep-alive", "POST /api/app.App.Version HTTP/1.1\r\n" + host + auth + "Content-Length: 2\r\n\r\n[]", "", "HTTP/1.1 200 "},
	} {
		began := time.Now()
		c := as.dial(t, tc.head)
		done := make(chan struct{})
		if tc.trickle != "" {
			go trickle(c, tc.trickle, done)
		}
		time.Sleep(100 * time.Millisecond)
		as.normal(t, "during "+tc.name)
		answer := "no answer"
		if tc.want != "" {
			resp, err := readUntil(c, "\r\n\r\n", 5*time.Second)
			if !strings.HasPrefix(resp, tc.want) {
				t.Errorf("%s: %q (%v), want %s", tc.name, status(resp), err, tc.want)
			}
			answer = fmt.Sprintf("%q after %s", status(resp), time.Since(began).Round(time.Millisecond))
		}
		_, err := closedWithin(c, 5*time.Second)
		close(done)
		if err != nil {
			t.Errorf("%s: the server held the connection: %v", tc.name, err)
		} else {
			t.Logf("%s: %s, connection closed by the server after %s", tc.name, answer, time.Since(began).Round(time.Millisecond))
		}
		as.normal(t, "after "+tc.name)
	}
}

// openStream opens /events on a raw connection and returns the status line
// and what came with it.
func (as *abuseServer) openStream(t *testing.T) (net.Conn, string) {
	t.Helper()
	c := as.dial(t, "GET /events HTTP/1.1\r\nHost: "+as.addr+"\r\nAuthorization: Bearer "+abuseToken+"\r\n\r\n")
	got, err := readUntil(c, "\r\n\r\n", 5*time.Second)
	if err != nil {
		t.Fatalf("open stream: %q %v", got, err)
	}
	if strings.HasPrefix(got, "HTTP/1.1 200 ") && !strings.Contains(got, ": connected") {
		more, err := readUntil(c, ": connected", 5*time.Second)
		if err != nil {
			t.Fatalf("open stream: %q %v", got+more, err)
		}
		got += more
	}
	return c, got
}

func (as *abuseServer) waitStreams(t *testing.T, want int32, within time.Duration) time.Duration {
	t.Helper()
	began := time.Now()
	for as.s.streams.Load() != want {
		if time.Since(began) > within {
			t.Fatalf("%d event streams still held after %s, want %d", as.s.streams.Load(), within, want)
		}
		time.Sleep(5 * time.Millisecond)
	}
	return time.Since(began)
}

// An event stream lives on past the read and write timeouts while its
// client reads; one whose client stopped reading is let go.
func TestServeAbuseStalledAndLongStreams(t *testing.T) {
	as := startAbuse(t, Options{}, shortLimits)
	c, _ := as.openStream(t)
	for i := 0; i < 15; i++ { // 1.5 s: past read (600 ms), write (300 ms) and idle (500 ms)
		time.Sleep(100 * time.Millisecond)
		as.a.Emit(app.ImportProgressEvent{File: fmt.Sprint("tick-", i)})
		if _, err := readUntil(c, fmt.Sprintf(`"file":"tick-%d"`, i), 2*time.Second); err != nil {
			t.Fatalf("event %d on a stream open %s: %v", i, time.Duration(i+1)*100*time.Millisecond, err)
		}
	}
	c.Close()
	as.waitStreams(t, 0, 5*time.Second)

	// A client that opens a stream and never reads: big events fill the
	// socket buffers, the write deadline lets the stream go.
	s, _ := as.openStream(t)
	if tc, ok := s.(*net.TCPConn); ok {
		tc.SetReadBuffer(4096)
	}
	big := strings.Repeat("x", 32<<10)
	stop := make(chan struct{})
	go func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
				as.a.Emit(app.ImportErrorEvent{File: "big", Error: big})
			}
		}
	}()
	time.Sleep(200 * time.Millisecond)
	as.normal(t, "while a stalled stream is fed")
	took := as.waitStreams(t, 0, 10*time.Second)
	close(stop)
	t.Logf("a stream whose client stopped reading was let go %s after it was fed 32 KiB events (write timeout %s)",
		(took + 200*time.Millisecond).Round(10*time.Millisecond), as.s.limits.write)
	as.normal(t, "after the stalled stream")
}

func heapAndStacks() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse + m.StackInuse
}

func TestServeAbuseManyStreams(t *testing.T) {
	as := startAbuse(t, Options{}, nil)
	max := as.s.limits.maxStreams
	before := heapAndStacks()
	var conns []net.Conn
	for i := 0; i < max; i++ {
		c, got := as.openStream(t)
		if !strings.HasPrefix(got, "HTTP/1.1 200 ") {
			t.Fatalf("stream %d of %d: %q", i+1, max, status(got))
		}
		conns = append(conns, c)
	}
	per := float64(heapAndStacks()-before) / float64(max) / 1024
	as.a.Emit(app.ImportErrorEvent{File: "all"})
	for i, c := range conns {
		if _, err := readUntil(c, `"all"`, 2*time.Second); err != nil {
			t.Fatalf("stream %d missed an event: %v", i+1, err)
		}
	}
	// One more is refused, clearly, and the rest of the app carries on.
	c, got := as.openStream(t)
	if !strings.HasPrefix(got, "HTTP/1.1 503 ") {
		t.Errorf("stream %d: %q, want 503", max+1, status(got))
	}
	if body, _ := readUntil(c, "tabs", time.Second); !strings.Contains(got+body, "too many event streams open") {
		t.Errorf("stream %d refused without saying why: %q", max+1, got+body)
	}
	c.Close()
	as.normal(t, "with every stream taken")
	t.Logf("%d event streams open at once (the limit): %.1f KiB of heap and stacks per stream (server and raw client in one process); stream %d: %s",
		max, per, max+1, status(got))

	// Closing clients gives their streams back.
	for _, c := range conns[:max/2] {
		c.Close()
	}
	took := as.waitStreams(t, int32(max-max/2), 5*time.Second)
	t.Logf("%d closed streams released within %s", max/2, took.Round(time.Millisecond))
	c, got = as.openStream(t)
	if !strings.HasPrefix(got, "HTTP/1.1 200 ") {
		t.Errorf("a stream after others closed: %q", status(got))
	}
	conns = append(conns[max/2:], c)
	as.normal(t, "after streams were released")

	// Shutting down with streams open does not wait for them.
	stopped := as.stop()
	if stopped > 3*time.Second {
		t.Errorf("shutdown with %d streams open took %s", len(conns), stopped)
	}
	for _, c := range conns {
		if _, err := closedWithin(c, 2*time.Second); err != nil {
			t.Errorf("a stream outlived the server: %v", err)
		}
	}
	t.Logf("shutdown with %d streams open took %s", len(conns), stopped.Round(time.Millisecond))
}

// The http.Server has every timeout set.
func TestServeHTTPServerHasTimeouts(t *testing.T) {
	a := testApp(t, nil)
	s, err := New(a, Options{})
	if err != nil {
		t.Fatal(err)
	}
	hs := s.httpServer(context.Background())
	for name, d := range map[string]time.Duration{
		"ReadHeaderTimeout": hs.ReadHeaderTimeout, "ReadTimeout": hs.ReadTimeout,
		"WriteTimeout": hs.WriteTimeout, "IdleTimeout": hs.IdleTimeout,
	} {
		if d <= 0 || d > 5*time.Minute {
			t.Errorf("%s = %s, want set and at most 5 min", name, d)
		}
	}
	if s.limits.maxStreams <= 0 || s.limits.uploadMinRate <= 0 {
		t.Errorf("limits %+v", s.limits)
	}
}

// An event emitted as soon as a stream says it is connected reaches it: the
// stream subscribes before it answers (it used to answer first, and an event
// in between was lost).
func TestServeStreamGetsTheEventRightAfterItOpens(t *testing.T) {
	as := startAbuse(t, Options{}, nil)
	for i := range 200 {
		c, got := as.openStream(t)
		if !strings.HasPrefix(got, "HTTP/1.1 200 ") {
			t.Fatalf("stream %d: %q", i, status(got))
		}
		file := fmt.Sprintf("first-%d", i)
		as.a.Emit(app.ImportErrorEvent{File: file})
		if _, err := readUntil(c, `"`+file+`"`, 2*time.Second); err != nil {
			t.Fatalf("stream %d missed the event emitted right after it opened: %v", i, err)
		}
		c.Close()
		as.waitStreams(t, 0, 5*time.Second)
	}
}
