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

// receiver is an in-process OTLP receiver (HTTP or gRPC) that keeps every request and its
// headers; with refuse set it refuses each one with a message echoing the headers, as a careless
// proxy would.
type receiver struct {
	// endpoint is what Options.Endpoint is given.
	endpoint string
	refuse   bool

	mu       sync.Mutex
	requests []*coltracepb.ExportTraceServiceRequest
	headers  []map[string]string // keys lower-case
}

func (r *receiver) take(req *coltracepb.ExportTraceServiceRequest, headers map[string]string) (refused string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.refuse {
		var echo []string
		for k, v := range headers {
			echo = append(echo, k+"="+v)
		}
		return "refused, you sent " + strings.Join(echo, " ")
	}
	r.requests = append(r.requests, req)
	r.headers = append(r.headers, headers)
	return ""
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
	r := &receiver{refuse: refuse}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, hr *http.Request) {
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
		if refused := r.take(req, headers); refused != "" {
			http.Error(w, refused, http.StatusUnauthorized)
			return
		}
		out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
		w.Header().Set("Content-Type", "application/x-protobuf")
		_, _ = w.Write(out)
	}))
	t.Cleanup(srv.Close)
	r.endpoint = srv.URL
	return r
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
	if refused := s.r.take(req, headers); refused != "" {
		return nil, status.Error(codes.Unauthenticated, refused)
	}
	return &coltracepb.ExportTraceServiceResponse{}, nil
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
