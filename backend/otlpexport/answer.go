package otlpexport

import (
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// Refusal is what a failed send says of its batch, and so what the sender is to do with it.
type Refusal int

const (
	// Transient: the endpoint was unreachable, overloaded or slow (HTTP 5xx, 429, a timeout; gRPC
	// Unavailable, ResourceExhausted…): the same batch is to be sent again later.
	Transient Refusal = iota
	// Misconfigured: the endpoint refuses the requests whatever they hold (HTTP 401, 403, 404, 405,
	// 415; gRPC Unauthenticated, PermissionDenied, Unimplemented): its URL, protocol or credentials
	// are wrong. Nothing is wrong with the batch: it is to be sent again once that is fixed.
	Misconfigured
	// Unacceptable: the endpoint refuses the batch's content for good (HTTP 400, 413, 422; gRPC
	// InvalidArgument): a span too large, an attribute it rejects. Sent again it is refused again.
	Unacceptable
)

func (r Refusal) String() string {
	switch r {
	case Misconfigured:
		return "misconfigured"
	case Unacceptable:
		return "unacceptable"
	}
	return "transient"
}

// httpRefusal classifies an HTTP status that is not a success.
func httpRefusal(code int) Refusal {
	switch code {
	case http.StatusBadRequest, http.StatusRequestEntityTooLarge, http.StatusUnprocessableEntity:
		return Unacceptable
	case http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound, http.StatusMethodNotAllowed,
		http.StatusUnsupportedMediaType:
		return Misconfigured
	}
	return Transient
}

// grpcRefusal classifies a gRPC status that is not OK. ResourceExhausted is an overloaded
// endpoint's (a quota, a full queue: sent again later), but for a message over the server's size
// limit ("grpc: received message larger than max"), which gRPC's own server answers with it: as
// HTTP 413, the batch is refused for good at that size.
func grpcRefusal(code codes.Code, message string) Refusal {
	switch {
	case code == codes.ResourceExhausted && strings.Contains(message, "larger than max"):
		return Unacceptable
	}
	switch code {
	case codes.InvalidArgument:
		return Unacceptable
	case codes.Unauthenticated, codes.PermissionDenied, codes.Unimplemented:
		return Misconfigured
	}
	return Transient
}

// answer is what the endpoint answered to the last request of one send, as the transport saw it:
// the SDK exporters give back text for most refusals and keep their partial-success error type
// internal, so the HTTP transport (answerTransport) and a gRPC interceptor (noteGRPCAnswer) note
// it in the answer the send's context carries.
type answer struct {
	mu sync.Mutex
	// taken: the endpoint took the request (HTTP 2xx, gRPC OK), maybe with spans rejected.
	taken bool
	// httpStatus is the last HTTP status; 0 when none came (unreachable) or over gRPC.
	httpStatus int
	// rejected and message are the OTLP partial success of a request taken.
	rejected int64
	message  string
}

type answerKey struct{}

func withAnswer(ctx context.Context, a *answer) context.Context {
	return context.WithValue(ctx, answerKey{}, a)
}

// note records one request's answer, replacing the previous attempt's.
func note(ctx context.Context, taken bool, httpStatus int, partial *coltracepb.ExportTracePartialSuccess) {
	a, _ := ctx.Value(answerKey{}).(*answer)
	if a == nil {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.taken, a.httpStatus = taken, httpStatus
	a.rejected, a.message = partial.GetRejectedSpans(), partial.GetErrorMessage()
}

// get is a copy of what was noted.
func (a *answer) get() (taken bool, httpStatus int, rejected int64, message string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.taken, a.httpStatus, a.rejected, a.message
}

// maxAnswerBody bounds what is read of a 2xx answer's body for its partial success (an
// ExportTraceServiceResponse is a few bytes; the SDK reads the rest).
const maxAnswerBody = 1 << 20

// httpClient is the OTLP/HTTP exporter's client: TLS as the endpoint asks (nil: plain text),
// timeout bounding each request, each answer noted. Given to the SDK through WithHTTPClient,
// which overrides its WithTimeout and WithTLSClientConfig.
func httpClient(tlsCfg *tls.Config, timeout time.Duration) *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.TLSClientConfig = tlsCfg
	return &http.Client{Transport: answerTransport{t}, Timeout: timeout}
}

// answerTransport notes each response's status, and a 2xx's partial success, in the answer its
// request's context carries.
type answerTransport struct{ base http.RoundTripper }

func (t answerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(r)
	if err != nil {
		note(r.Context(), false, 0, nil)
		return resp, err
	}
	ok := resp.StatusCode >= 200 && resp.StatusCode <= 299
	var partial *coltracepb.ExportTracePartialSuccess
	if ok {
		partial = readPartialSuccess(resp)
	}
	note(r.Context(), ok, resp.StatusCode, partial)
	return resp, nil
}

// readPartialSuccess decodes the partial success of a 2xx answer (nil: none, or unreadable) and
// leaves the body whole for the SDK.
func readPartialSuccess(resp *http.Response) *coltracepb.ExportTracePartialSuccess {
	if resp.Body == nil {
		return nil
	}
	head, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswerBody))
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(head), resp.Body), resp.Body}
	if err != nil || len(head) == 0 {
		return nil
	}
	var out coltracepb.ExportTraceServiceResponse
	mediaType, _, _ := strings.Cut(resp.Header.Get("Content-Type"), ";")
	switch strings.TrimSpace(mediaType) {
	case "application/x-protobuf":
		err = proto.Unmarshal(head, &out)
	case "application/json":
		err = protojson.UnmarshalOptions{DiscardUnknown: true}.Unmarshal(head, &out)
	default:
		return nil
	}
	if err != nil {
		return nil
	}
	return out.PartialSuccess
}

// noteGRPCAnswer is the OTLP/gRPC exporter's interceptor: it notes whether the endpoint took the
// request, and its partial success.
func noteGRPCAnswer(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker,
	opts ...grpc.CallOption) error {
	err := invoker(ctx, method, req, reply, cc, opts...)
	var partial *coltracepb.ExportTracePartialSuccess
	if r, ok := reply.(*coltracepb.ExportTraceServiceResponse); ok && err == nil {
		partial = r.PartialSuccess
	}
	note(ctx, err == nil, 0, partial)
	return err
}

// refusal classifies a send the endpoint did not take: by the HTTP status noted, or the gRPC
// code in err. what names the answer ("HTTP 400 Bad Request", "gRPC InvalidArgument"), "" when
// there was none (unreachable, timed out).
func (e *Exporter) refusal(err error, httpStatus int) (r Refusal, what string) {
	if e.ep.protocol == ProtocolGRPC {
		code := status.Code(err)
		if code == codes.Unknown {
			return Transient, ""
		}
		return grpcRefusal(code, status.Convert(err).Message()), "gRPC " + code.String()
	}
	if httpStatus == 0 {
		return Transient, ""
	}
	return httpRefusal(httpStatus), fmt.Sprintf("HTTP %d %s", httpStatus, http.StatusText(httpStatus))
}
