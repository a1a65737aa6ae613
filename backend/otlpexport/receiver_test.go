package otlpexport

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

// receiver is an in-process OTLP receiver (HTTP or gRPC) that keeps every request it takes and
// its headers; with refuse set it refuses each one with a message echoing the headers, as a
// careless proxy would; with judge set it answers each request as judge says.
type receiver struct {
	// endpoint is what Options.Endpoint is given.
	endpoint string
	refuse   bool
	judge    func(*coltracepb.ExportTraceServiceRequest) verdict

	mu       sync.Mutex
	requests []*coltracepb.ExportTraceServiceRequest
	headers  []map[string]string // keys lower-case
}

// verdict is a receiver's answer to one request: refused with an HTTP status or a gRPC code and
// msg, or (both zero) taken, with rejected spans (an OTLP partial success) when not zero.
type verdict struct {
	http     int
	grpc     codes.Code
	msg      string
	rejected int64
}

func (v verdict) partialSuccess() *coltracepb.ExportTraceServiceResponse {
	out := &coltracepb.ExportTraceServiceResponse{}
	if v.rejected != 0 || v.msg != "" {
		out.PartialSuccess = &coltracepb.ExportTracePartialSuccess{RejectedSpans: v.rejected, ErrorMessage: v.msg}
	}
	return out
}

func (r *receiver) take(req *coltracepb.ExportTraceServiceRequest, headers map[string]string) verdict {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.refuse {
		var echo []string
		for k, v := range headers {
			echo = append(echo, k+"="+v)
		}
		return verdict{http: http.StatusUnauthorized, grpc: codes.Unauthenticated, msg: "refused, you sent " + strings.Join(echo, " ")}
	}
	var v verdict
	if r.judge != nil {
		v = r.judge(req)
	}
	if v.http == 0 && v.grpc == codes.OK {
		r.requests = append(r.requests, req)
		r.headers = append(r.headers, headers)
	}
	return v
}

// answerWhen has the receiver answer v to the requests holds says yes to, and take the others.
func (r *receiver) answerWhen(holds func(*coltracepb.ExportTraceServiceRequest) bool, v verdict) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.judge = func(req *coltracepb.ExportTraceServiceRequest) verdict {
		if holds(req) {
			return v
		}
		return verdict{}
	}
}

func (r *receiver) got() ([]*coltracepb.ExportTraceServiceRequest, []map[string]string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.requests, r.headers
}

// receivers start one receiver per protocol, stopped when the test ends.
func receivers(t *testing.T, refuse bool) map[Protocol]*receiver {
	return map[Protocol]*receiver{ProtocolHTTP: httpReceiver(t, refuse), ProtocolGRPC: grpcReceiver(t, refuse)}
}

func httpReceiver(t *testing.T, refuse bool) *receiver {
	r, _ := startHTTP(t, &receiver{refuse: refuse}, httptest.NewServer)
	return r
}

// startHTTP serves r over OTLP/HTTP on the server start starts (httptest.NewServer or
// NewTLSServer), closed when the test ends.
func startHTTP(t *testing.T, r *receiver, start func(http.Handler) *httptest.Server) (*receiver, *httptest.Server) {
	srv := start(http.HandlerFunc(func(w http.ResponseWriter, hr *http.Request) {
		body, err := io.ReadAll(hr.Body)
		req := &coltracepb.ExportTraceServiceRequest{}
		if err != nil || hr.URL.Path != "/v1/traces" || proto.Unmarshal(body, req) != nil {
			http.Error(w, "not an OTLP/HTTP protobuf export to /v1/traces", http.StatusBadRequest)
			return
		}
		headers := map[string]string{}
		for k := range hr.Header {
			headers[strings.ToLower(k)] = hr.Header.Get(k)
		}
		v := r.take(req, headers)
		if v.http != 0 {
			http.Error(w, v.msg, v.http)
			return
		}
		out, _ := proto.Marshal(v.partialSuccess())
		w.Header().Set("Content-Type", "application/x-protobuf")
		_, _ = w.Write(out)
	}))
	t.Cleanup(srv.Close)
	r.endpoint = srv.URL
	return r, srv
}

type grpcService struct {
	coltracepb.UnimplementedTraceServiceServer
	r *receiver
}

func (s grpcService) Export(ctx context.Context, req *coltracepb.ExportTraceServiceRequest) (*coltracepb.ExportTraceServiceResponse, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	headers := map[string]string{}
	for k, v := range md {
		headers[k] = strings.Join(v, ",")
	}
	v := s.r.take(req, headers)
	if v.grpc != codes.OK {
		return nil, status.Error(v.grpc, v.msg)
	}
	return v.partialSuccess(), nil
}

func grpcReceiver(t *testing.T, refuse bool) *receiver {
	r := &receiver{refuse: refuse}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	coltracepb.RegisterTraceServiceServer(srv, grpcService{r: r})
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(srv.Stop)
	r.endpoint = "grpc://" + l.Addr().String()
	return r
}
