// Command otlpsink is the OTLP endpoint of the export part of `make soak`
// (testenv/soak.sh): an OTLP/HTTP receiver that takes POST /v1/traces
// (protobuf, gzip or not), answers 200 and counts what it was sent: requests,
// spans, distinct trace ids (the export gives each checkpoint a trace of its
// own) and checkpoints received more than once. It keeps nothing else, so
// that the receiver, not the collector, is never the bottleneck (a real
// Jaeger's in-memory store is, at 2,000 jobs).
//
// A control listener, apart from the OTLP one, cuts the endpoint for an
// outage and brings it back on the same port, the counts kept:
//
//	POST /down  closes the OTLP listener and its connections (connections are refused)
//	POST /up    listens again on the same address
//	GET  /stats the counts, as JSON
//
//	otlpsink -ports-file F   # writes "otlp URL" and "control URL" lines
package main

import (
	"compress/gzip"
	"encoding/json"
	"flag"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"
)

// checkpointSpan is the root span of a checkpoint's trace (interop.SpanCheckpoint).
const checkpointSpan = "Checkpoint"

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "OTLP/HTTP listen address")
	control := flag.String("control", "127.0.0.1:0", "control listen address (/down, /up, /stats)")
	portsFile := flag.String("ports-file", "", `write "otlp URL" and "control URL" lines here once listening`)
	flag.Parse()

	s := &sink{traces: map[[16]byte]bool{}, started: time.Now()}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	s.addr = ln.Addr().String()
	s.serve(ln)

	cln, err := net.Listen("tcp", *control)
	if err != nil {
		log.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /down", func(w http.ResponseWriter, _ *http.Request) { s.down(); w.WriteHeader(http.StatusNoContent) })
	mux.HandleFunc("POST /up", func(w http.ResponseWriter, _ *http.Request) {
		if err := s.up(); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("GET /stats", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(s.stats())
	})
	go func() { log.Fatal((&http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}).Serve(cln)) }()

	if *portsFile != "" {
		lines := "otlp http://" + s.addr + "\ncontrol http://" + cln.Addr().String() + "\n"
		if err := os.WriteFile(*portsFile+".tmp", []byte(lines), 0o644); err != nil {
			log.Fatal(err)
		}
		if err := os.Rename(*portsFile+".tmp", *portsFile); err != nil {
			log.Fatal(err)
		}
	}
	log.Printf("otlpsink: OTLP/HTTP on http://%s/v1/traces, control on http://%s", s.addr, cln.Addr())
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	<-sig
}

// sink counts what it receives; srv is nil while the endpoint is cut.
type sink struct {
	addr    string
	started time.Time

	mu                               sync.Mutex
	srv                              *http.Server
	requests, spans, checkpoints     int64
	duplicates, badRequests, bytesIn int64
	traces                           map[[16]byte]bool // trace id → its Checkpoint span came
	firstMs, lastMs                  int64
	newestEndMs                      int64 // the latest end of a Checkpoint span received
	downs                            int
}

// Stats is GET /stats.
type Stats struct {
	Up             bool  `json:"up"`
	Downs          int   `json:"downs"`
	Requests       int64 `json:"requests"`
	BadRequests    int64 `json:"bad_requests"`
	Bytes          int64 `json:"bytes"`
	Spans          int64 `json:"spans"`
	DistinctTraces int64 `json:"distinct_traces"`
	// CheckpointSpans counts the Checkpoint spans received; Duplicates those of a trace whose
	// Checkpoint span had come before (a checkpoint sent again: at least once).
	CheckpointSpans int64 `json:"checkpoint_spans"`
	Duplicates      int64 `json:"duplicates"`
	// NewestEndMs is the latest end time of a Checkpoint span received: the export sends the
	// oldest first, so now − NewestEndMs is how far behind the endpoint is.
	NewestEndMs    int64 `json:"newest_checkpoint_end_ms"`
	FirstRequestMs int64 `json:"first_request_ms"`
	LastRequestMs  int64 `json:"last_request_ms"`
	NowMs          int64 `json:"now_ms"`
}

func (s *sink) stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return Stats{Up: s.srv != nil, Downs: s.downs, Requests: s.requests, BadRequests: s.badRequests, Bytes: s.bytesIn,
		Spans: s.spans, DistinctTraces: int64(len(s.traces)), CheckpointSpans: s.checkpoints, Duplicates: s.duplicates,
		NewestEndMs: s.newestEndMs, FirstRequestMs: s.firstMs, LastRequestMs: s.lastMs, NowMs: time.Now().UnixMilli()}
}

// serve starts the OTLP server on ln.
func (s *sink) serve(ln net.Listener) {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/traces", s.receive)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	s.mu.Lock()
	s.srv = srv
	s.mu.Unlock()
	go func() {
		if err := srv.Serve(ln); err != http.ErrServerClosed {
			log.Fatal(err)
		}
	}()
}

// down cuts the endpoint: the listener and every open connection are closed, so that the
// exporter sees connections refused, as when the endpoint's host is gone.
func (s *sink) down() {
	s.mu.Lock()
	srv := s.srv
	s.srv = nil
	if srv != nil {
		s.downs++
	}
	s.mu.Unlock()
	if srv != nil {
		srv.Close()
		log.Printf("otlpsink: down")
	}
}

// up listens again on the same address.
func (s *sink) up() error {
	s.mu.Lock()
	running := s.srv != nil
	s.mu.Unlock()
	if running {
		return nil
	}
	ln, err := net.Listen("tcp", s.addr)
	if err != nil {
		return err
	}
	s.serve(ln)
	log.Printf("otlpsink: up")
	return nil
}

// receive counts one OTLP/HTTP export request and answers it as taken.
func (s *sink) receive(w http.ResponseWriter, r *http.Request) {
	var body io.Reader = r.Body
	if strings.EqualFold(r.Header.Get("Content-Encoding"), "gzip") {
		zr, err := gzip.NewReader(r.Body)
		if err != nil {
			s.bad(w, err)
			return
		}
		defer zr.Close()
		body = zr
	}
	b, err := io.ReadAll(body)
	if err != nil {
		s.bad(w, err)
		return
	}
	var req coltrace.ExportTraceServiceRequest
	if err := proto.Unmarshal(b, &req); err != nil {
		s.bad(w, err)
		return
	}
	now := time.Now().UnixMilli()
	s.mu.Lock()
	if s.requests == 0 {
		s.firstMs = now
	}
	s.lastMs = now
	s.requests++
	s.bytesIn += int64(len(b))
	for _, rs := range req.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			for _, sp := range ss.Spans {
				s.spans++
				var id [16]byte
				copy(id[:], sp.TraceId)
				seen, known := s.traces[id]
				if sp.Name == checkpointSpan {
					s.checkpoints++
					if seen {
						s.duplicates++
					}
					s.traces[id] = true
					s.newestEndMs = max(s.newestEndMs, int64(sp.EndTimeUnixNano/1e6))
				} else if !known {
					s.traces[id] = false
				}
			}
		}
	}
	s.mu.Unlock()
	out, _ := proto.Marshal(&coltrace.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.Write(out)
}

func (s *sink) bad(w http.ResponseWriter, err error) {
	s.mu.Lock()
	s.badRequests++
	s.mu.Unlock()
	http.Error(w, err.Error(), http.StatusBadRequest)
}
