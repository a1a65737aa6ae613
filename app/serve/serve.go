// Package serve is the browser door: the UI and the methods of app.App over
// HTTP on loopback (docs/api.md), with the token, Host and Origin checks,
// server-sent events, uploads and the app's own metrics.
package serve

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"path"
	"reflect"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"checkpoint-explorer/app"
)

// Options configure the browser door.
type Options struct {
	// Addr is host:port to listen on; the default binds loopback on a free port.
	Addr string
	// Assets is the built frontend (index.html at its root).
	Assets fs.FS
	// AllowNonLoopback must be set to listen on anything but a loopback address.
	AllowNonLoopback bool
	// Token is the per-run secret; empty means a random one.
	Token string
	// MaxUploadBytes caps an uploaded capture (default 4 GiB).
	MaxUploadBytes int64
	// Ready is called once the listener is up, with the URL to open.
	Ready func(url string)
	// Metrics, when set, is served at /metrics behind the token.
	Metrics http.Handler
}

const tokenCookie = "ce_token"

// Server is the browser door: the embedded UI, the facade's methods as JSON
// POST endpoints, server-sent events, capture upload.
type Server struct {
	svc     *app.Service
	opts    Options
	token   string
	methods map[string]reflect.Method
	log     *slog.Logger
	// hosts are the Host header values accepted (DNS-rebinding defence).
	hosts map[string]bool
	index []byte
	// bridge is bridgeJS with the facade's method names filled in.
	bridge string

	// limits bound what one client may hold (tests shorten them).
	limits limits
	// streams counts the event streams open now.
	streams atomic.Int32
}

// serveLimits bound the time and the number of things a client may hold, so
// that a slow or greedy client (slowloris, a tab left open, a runaway
// script) cannot exhaust the server.
type limits struct {
	// readHeader bounds reading a request's headers, read the whole
	// request (an upload instead must keep up uploadMinRate after
	// uploadGrace; an event stream has no body and no read deadline).
	readHeader, read time.Duration
	// write bounds writing a response once the work is done; an event
	// stream gets it anew for every write, so that it lives on while a
	// client that stopped reading is dropped.
	write time.Duration
	// idle bounds a kept-alive connection between requests.
	idle time.Duration
	// uploadGrace and uploadMinRate: an upload may take uploadGrace plus
	// one second per uploadMinRate bytes.
	uploadGrace   time.Duration
	uploadMinRate int64
	// maxStreams bounds the event streams open at once; one more is a 503.
	maxStreams int
}

var defaultLimits = limits{
	readHeader: 10 * time.Second, read: time.Minute, write: time.Minute, idle: 2 * time.Minute,
	uploadGrace: time.Minute, uploadMinRate: 256 << 10,
	maxStreams: 32,
}

// New prepares the browser door for a started Service.
func New(svc *app.Service, opts Options) (*Server, error) {
	if opts.Addr == "" {
		opts.Addr = "127.0.0.1:0"
	}
	if opts.MaxUploadBytes <= 0 {
		opts.MaxUploadBytes = 4 << 30
	}
	tok := opts.Token
	if tok == "" {
		b := make([]byte, 24)
		if _, err := rand.Read(b); err != nil {
			return nil, fmt.Errorf("serve: token: %w", err)
		}
		tok = hex.EncodeToString(b)
	}
	s := &Server{svc: svc, opts: opts, token: tok, methods: facadeMethods(), log: svc.Logger(), limits: defaultLimits}
	var names []string
	for n := range s.methods {
		names = append(names, strings.TrimPrefix(n, "app.App."))
	}
	sort.Strings(names)
	list, _ := json.Marshal(names)
	s.bridge = strings.Replace(bridgeJS, "__METHODS__", string(list), 1)
	if opts.Assets != nil {
		idx, err := fs.ReadFile(opts.Assets, "index.html")
		if err != nil {
			return nil, fmt.Errorf("serve: the frontend is not built (index.html missing): %w", err)
		}
		s.index = injectBridge(idx)
	}
	return s, nil
}

// Token is the per-run secret every request must carry.
func (s *Server) Token() string { return s.token }

// facadeMethods maps Wails' names ("app.App.Method") to the facade's methods.
func facadeMethods() map[string]reflect.Method {
	t := reflect.TypeOf(&app.App{})
	m := map[string]reflect.Method{}
	for i := 0; i < t.NumMethod(); i++ {
		meth := t.Method(i)
		m["app.App."+meth.Name] = meth
	}
	return m
}

// ListenAndServe serves until ctx is done.
func (s *Server) ListenAndServe(ctx context.Context) error {
	host, _, err := net.SplitHostPort(s.opts.Addr)
	if err != nil {
		return fmt.Errorf("serve: --addr %q: %w", s.opts.Addr, err)
	}
	if !s.opts.AllowNonLoopback && !isLoopbackHost(host) {
		return fmt.Errorf("serve: --addr %q is not a loopback address; the local API is for this machine only", s.opts.Addr)
	}
	ln, err := net.Listen("tcp", s.opts.Addr)
	if err != nil {
		return fmt.Errorf("serve: listen %s: %w", s.opts.Addr, err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	s.hosts = map[string]bool{}
	for _, h := range []string{host, "127.0.0.1", "localhost", "[::1]"} {
		if h == "" {
			continue
		}
		if strings.Contains(h, ":") && !strings.HasPrefix(h, "[") {
			h = "[" + h + "]"
		}
		s.hosts[fmt.Sprintf("%s:%d", h, port)] = true
	}
	urlHost := host
	if urlHost == "" || urlHost == "0.0.0.0" || urlHost == "::" {
		urlHost = "127.0.0.1"
	}
	u := fmt.Sprintf("http://%s/?token=%s", net.JoinHostPort(urlHost, fmt.Sprint(port)), s.token)
	srv := s.httpServer(ctx)
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	if s.opts.Ready != nil {
		s.opts.Ready(u)
	}
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve: %w", err)
	}
	return nil
}

// httpServer is the http.Server of ListenAndServe. Requests' contexts end
// with ctx, so that open event streams let a shutdown finish.
func (s *Server) httpServer(ctx context.Context) *http.Server {
	return &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: s.limits.readHeader,
		ReadTimeout:       s.limits.read,
		WriteTimeout:      s.limits.write,
		IdleTimeout:       s.limits.idle,
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
}

func isLoopbackHost(h string) bool {
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(strings.Trim(h, "[]"))
	return ip != nil && ip.IsLoopback()
}

// Handler is the whole browser door behind the Host, Origin and token checks.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/{method}", s.handleCall)
	mux.HandleFunc("GET /events", s.handleEvents)
	mux.HandleFunc("POST /upload", s.handleUpload)
	mux.HandleFunc("GET /bridge.js", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		io.WriteString(w, s.bridge)
	})
	if s.opts.Metrics != nil {
		mux.Handle("GET /metrics", s.opts.Metrics)
	}
	mux.HandleFunc("GET /", s.handleAsset)
	return s.guard(mux)
}

// guard refuses foreign Hosts and Origins (DNS rebinding, cross-site requests)
// and requests without the token.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.hosts != nil && !s.hosts[strings.ToLower(r.Host)] {
			refuse(w, http.StatusForbidden, fmt.Sprintf("foreign Host %q refused", r.Host))
			return
		}
		if o := r.Header.Get("Origin"); o != "" {
			ou, err := url.Parse(o)
			if err != nil || ou.Scheme != "http" || (s.hosts != nil && !s.hosts[strings.ToLower(ou.Host)]) || (s.hosts == nil && ou.Host != r.Host) {
				refuse(w, http.StatusForbidden, fmt.Sprintf("foreign Origin %q refused", o))
				return
			}
		}
		if r.Header.Get("Sec-Fetch-Site") == "cross-site" {
			refuse(w, http.StatusForbidden, "cross-site request refused")
			return
		}
		if q := r.URL.Query().Get("token"); q != "" && s.tokenOK(q) {
			// The cookie lets the page's own scripts and assets through.
			http.SetCookie(w, &http.Cookie{Name: tokenCookie, Value: s.token, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
			next.ServeHTTP(w, r)
			return
		}
		if c, err := r.Cookie(tokenCookie); err == nil && s.tokenOK(c.Value) {
			next.ServeHTTP(w, r)
			return
		}
		if h := r.Header.Get("Authorization"); strings.HasPrefix(h, "Bearer ") && s.tokenOK(strings.TrimPrefix(h, "Bearer ")) {
			next.ServeHTTP(w, r)
			return
		}
		refuse(w, http.StatusUnauthorized, "missing or wrong token: open the URL that `checkpoint-explorer serve` printed")
	})
}

func (s *Server) tokenOK(t string) bool {
	return subtle.ConstantTimeCompare([]byte(t), []byte(s.token)) == 1
}

func writeError(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(map[string]string{"error": msg})
}

// refuse answers a request that will not be served and closes the
// connection: a body the client may still be sending is not read.
func refuse(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Connection", "close")
	writeError(w, code, msg)
}

func writeResult(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	json.NewEncoder(w).Encode(map[string]any{"result": v})
}

var errorType = reflect.TypeOf((*error)(nil)).Elem()

// maxCallBody caps the JSON arguments of one call.
const maxCallBody = 4 << 20

func (s *Server) handleCall(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("method")
	meth, ok := s.methods[name]
	if !ok {
		writeError(w, http.StatusNotFound, fmt.Sprintf("no method %q", name))
		return
	}
	if r.ContentLength > maxCallBody {
		// Refused before a byte of it is read.
		refuse(w, http.StatusRequestEntityTooLarge, "arguments larger than 4 MiB")
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxCallBody))
	if err != nil {
		s.writeBodyError(w, "arguments larger than 4 MiB", err)
		return
	}
	var raw []json.RawMessage
	if len(bytes.TrimSpace(body)) > 0 {
		if err := json.Unmarshal(body, &raw); err != nil {
			writeError(w, http.StatusBadRequest, fmt.Sprintf("%s: arguments must be a JSON array: %v", name, err))
			return
		}
	}
	ft := meth.Type
	nargs := ft.NumIn() - 1
	if len(raw) != nargs {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("%s takes %d arguments, got %d", name, nargs, len(raw)))
		return
	}
	// The call ends with the request: a closed tab cancels it.
	args := []reflect.Value{reflect.ValueOf(s.svc.Call(r.Context()))}
	for i := 0; i < nargs; i++ {
		v := reflect.New(ft.In(i + 1))
		if err := json.Unmarshal(raw[i], v.Interface()); err != nil {
			writeError(w, http.StatusBadRequest, fmt.Sprintf("%s: argument %d: %v", name, i+1, err))
			return
		}
		args = append(args, v.Elem())
	}
	out := meth.Func.Call(args)
	// The call may have taken longer than the write timeout: it bounds the
	// writing of the answer, not the work.
	extendWrite(w, s.limits.write)
	var result any
	for _, o := range out {
		if o.Type().Implements(errorType) && o.Type() == errorType {
			if !o.IsNil() {
				err := o.Interface().(error)
				code := http.StatusInternalServerError
				if app.IsBadRequest(err) {
					code = http.StatusBadRequest
				}
				writeError(w, code, err.Error())
				return
			}
			continue
		}
		result = o.Interface()
	}
	writeResult(w, result)
}

func (s *Server) handleEvents(w http.ResponseWriter, r *http.Request) {
	if _, ok := w.(http.Flusher); !ok {
		writeError(w, http.StatusInternalServerError, "streaming unsupported")
		return
	}
	if n := s.streams.Add(1); int(n) > s.limits.maxStreams {
		s.streams.Add(-1)
		w.Header().Set("Retry-After", "10")
		writeError(w, http.StatusServiceUnavailable, fmt.Sprintf(
			"too many event streams open (%d at most): close other Checkpoint Explorer tabs or windows, then reload", s.limits.maxStreams))
		return
	}
	defer s.streams.Add(-1)
	// A stream outlives the server's read and write timeouts: no read
	// deadline (the request has no body), and each write gets its own, so
	// that a client that stopped reading is let go.
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Time{})
	send := func(format string, args ...any) error {
		_ = rc.SetWriteDeadline(time.Now().Add(s.limits.write))
		if _, err := fmt.Fprintf(w, format, args...); err != nil {
			return err
		}
		return rc.Flush()
	}
	type event struct {
		name string
		data []byte
	}
	ch := make(chan event, 64)
	var once sync.Once
	done := make(chan struct{})
	unsub := s.svc.Subscribe(func(name string, payload any) {
		b, err := json.Marshal(payload)
		if err != nil {
			return
		}
		select {
		case ch <- event{name, b}:
		default: // a slow browser drops events rather than stalling the app
		}
	})
	defer func() {
		unsub()
		once.Do(func() { close(done) })
	}()
	// Subscribed before the client learns it is connected: an event emitted
	// as the stream opened was lost (an abuse test saw it under load).
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	if send(": connected\n\n") != nil {
		return
	}
	tick := time.NewTicker(15 * time.Second)
	defer tick.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case e := <-ch:
			if send("event: %s\ndata: %s\n\n", e.name, e.data) != nil {
				return
			}
		case <-tick.C:
			if send(": keep-alive\n\n") != nil {
				return
			}
		}
	}
}

func (s *Server) handleUpload(w http.ResponseWriter, r *http.Request) {
	name := path.Base(r.URL.Query().Get("name"))
	if name == "." || name == "/" {
		name = "upload"
	}
	tooLarge := fmt.Sprintf("upload %s: larger than %d bytes", name, s.opts.MaxUploadBytes)
	if r.ContentLength > s.opts.MaxUploadBytes {
		refuse(w, http.StatusRequestEntityTooLarge, tooLarge)
		return
	}
	tmp, err := os.CreateTemp("", "checkpoint-explorer-upload-*")
	if err != nil {
		writeError(w, http.StatusInternalServerError, "upload: "+err.Error())
		return
	}
	defer os.Remove(tmp.Name())
	body := &paceReader{r: http.MaxBytesReader(w, r.Body, s.opts.MaxUploadBytes), rc: http.NewResponseController(w),
		start: time.Now(), grace: s.limits.uploadGrace, rate: s.limits.uploadMinRate}
	_, err = io.Copy(tmp, body)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		s.writeBodyError(w, tooLarge, fmt.Errorf("upload %s: %w", name, err))
		return
	}
	res, err := s.svc.ImportUpload(r.Context(), tmp.Name())
	extendWrite(w, s.limits.write)
	if err != nil && r.Context().Err() != nil {
		// Nobody waits for the answer; the cache is as it was.
		s.log.Info("upload: import cancelled, the client went away", "file", name, "err", err)
		return
	}
	if err != nil {
		// Name the user's file, not our temp file.
		msg := strings.ReplaceAll(err.Error(), path.Base(tmp.Name()), name)
		writeError(w, http.StatusBadRequest, msg)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(res)
}

// writeBodyError answers a request whose body could not be read: too large
// (413, with tooLarge), too slow (408), or cut (400).
func (s *Server) writeBodyError(w http.ResponseWriter, tooLarge string, err error) {
	extendWrite(w, s.limits.write) // reading may have taken the write timeout
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe):
		refuse(w, http.StatusRequestEntityTooLarge, tooLarge)
	case errors.Is(err, os.ErrDeadlineExceeded):
		refuse(w, http.StatusRequestTimeout, "request body too slow: "+err.Error())
	default:
		refuse(w, http.StatusBadRequest, "read request: "+err.Error())
	}
}

// extendWrite gives the answer about to be written d from now.
func extendWrite(w http.ResponseWriter, d time.Duration) {
	_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(d))
}

// paceReader reads an upload under a deadline that moves with the bytes
// read: grace, plus a second per rate bytes. A client that keeps up the rate
// on average never meets it; one that trickles does, soon.
type paceReader struct {
	r     io.Reader
	rc    *http.ResponseController
	start time.Time
	grace time.Duration
	rate  int64
	n     int64
}

func (p *paceReader) Read(b []byte) (int, error) {
	_ = p.rc.SetReadDeadline(p.start.Add(p.grace + time.Duration(float64(p.n)/float64(p.rate)*float64(time.Second))))
	n, err := p.r.Read(b)
	p.n += int64(n)
	return n, err
}

func (s *Server) handleAsset(w http.ResponseWriter, r *http.Request) {
	if s.opts.Assets == nil {
		writeError(w, http.StatusNotFound, "no frontend in this build")
		return
	}
	p := strings.TrimPrefix(path.Clean(r.URL.Path), "/")
	if p == "" || p == "index.html" {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		w.Write(s.index)
		return
	}
	if _, err := fs.Stat(s.opts.Assets, p); err != nil {
		writeError(w, http.StatusNotFound, "not found: "+p)
		return
	}
	http.ServeFileFS(w, r, s.opts.Assets, p)
}

// injectBridge puts the bridge script first in <head>, so window.go exists
// before the app's own scripts run.
func injectBridge(index []byte) []byte {
	tag := []byte(`<script src="./bridge.js"></script>`)
	if i := bytes.Index(index, []byte("<head>")); i >= 0 {
		i += len("<head>")
		return append(append(append([]byte{}, index[:i]...), tag...), index[i:]...)
	}
	return append(tag, index...)
}

// bridgeJS gives a browser the same window.go and window.runtime shapes the
// Wails window has, so the frontend runs unchanged in both doors.
const bridgeJS = `(function () {
  "use strict";
  window.__CE_MODE = "browser";
  async function call(method, args) {
    const res = await fetch("./api/app.App." + method, {
      method: "POST", credentials: "same-origin",
      headers: {"Content-Type": "application/json"},
      body: JSON.stringify(args),
    });
    let body = null;
    try { body = await res.json(); } catch (e) { /* not JSON */ }
    if (!res.ok || body === null) {
      throw new Error(body && body.error ? body.error : ("HTTP " + res.status + " from " + method));
    }
    return body.result;
  }
  // Plain functions, not a Proxy: a Proxy would also answer "then" and make
  // the object look like a promise to await.
  const app = {};
  for (const name of __METHODS__) app[name] = (...args) => call(name, args);
  window.go = { app: { App: app } };
  const listeners = {};
  let source = null;
  function ensureSource() {
    if (source) return;
    source = new EventSource("./events");
    source.onerror = () => { /* EventSource reconnects by itself */ };
  }
  function on(name, cb, max) {
    ensureSource();
    if (!listeners[name]) {
      listeners[name] = [];
      source.addEventListener(name, (e) => {
        let data = null;
        try { data = JSON.parse(e.data); } catch (err) { return; }
        for (const l of listeners[name].slice()) {
          l.cb(data);
          if (l.max > 0 && --l.max === 0) off1(name, l);
        }
      });
    }
    const l = { cb, max: max || -1 };
    listeners[name].push(l);
    return () => off1(name, l);
  }
  function off1(name, l) {
    const ls = listeners[name] || [];
    const i = ls.indexOf(l);
    if (i >= 0) ls.splice(i, 1);
  }
  window.runtime = Object.assign(window.runtime || {}, {
    EventsOn: (name, cb) => on(name, cb, -1),
    EventsOnce: (name, cb) => on(name, cb, 1),
    EventsOnMultiple: (name, cb, n) => on(name, cb, n),
    EventsOff: (name) => { if (listeners[name]) listeners[name].length = 0; },
    BrowserOpenURL: (u) => window.open(u, "_blank", "noopener"),
  });
})();
`
