// Package jaeger reads a Flink job's checkpoints from the spans Flink's trace reporter sent to a
// Jaeger: the query service's HTTP API (GET /api/traces, the API Jaeger's own UI uses, in Jaeger
// v1 and v2), converted into OTLP JSON and read by interop.ReadOTLP, so the spans map to
// model.Checkpoint exactly as an OTLP file of them does.
//
// Every request is bounded (docs/interop.md, "Tracing backends: Jaeger"): at most PageSize
// traces per answer, at most MaxBodyBytes per body, at most MaxRequests per Checkpoints call. A
// time window whose answer is full (PageSize traces) or too large is split in two and both
// halves asked again, down to MinWindow; what could not be read whole is reported, never
// silently dropped.
//
// Like the engine sources, the client is stateless: no polling, caching or retries.
package jaeger

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"checkpoint-explorer/backend/source/restclient"
)

// Defaults applied by New to zero Config fields (restclient's for the settings of every REST
// source: DefaultTimeout, DefaultMaxBodyBytes, DefaultUserAgent).
const (
	// DefaultPageSize is the traces asked per request (Jaeger's limit): one trace is one
	// checkpoint with its task and subtask spans.
	DefaultPageSize = 50
	// MaxPageSize caps PageSize.
	MaxPageSize = 1000
	// DefaultMaxRequests bounds the requests of one Checkpoints call.
	DefaultMaxRequests = 64
	// DefaultMinWindow is the narrowest window a full answer is split down to.
	DefaultMinWindow = time.Second
	// DefaultOperation is the name of Flink's job-level checkpoint span.
	DefaultOperation = "Checkpoint"
)

// Config says how to reach one Jaeger query service and which spans are Flink's: the REST
// settings every source has (BaseURL is the query service's HTTP root, e.g.
// http://127.0.0.1:16686, a path prefix such as Jaeger's query.base-path kept; Cluster is stamped
// on every returned checkpoint, Flink's spans not naming it) and the search's own.
type Config struct {
	restclient.EngineConfig
	// Service is the service.name Flink's trace reporter sends
	// (traces.reporter.<name>.service.name); required: Jaeger searches by service.
	Service string
	// PageSize is Jaeger's limit per request, in traces; default DefaultPageSize, at most MaxPageSize.
	PageSize int
	// MaxRequests bounds the requests of one Checkpoints call; default DefaultMaxRequests.
	MaxRequests int
	// MinWindow is the narrowest window a full answer is split down to; default DefaultMinWindow.
	MinWindow time.Duration
}

// RequestInfo describes one finished request, for counting load per endpoint.
type RequestInfo = restclient.RequestInfo

// Client talks to one Jaeger query service. It is safe for concurrent use.
type Client struct {
	cfg  Config
	rest *restclient.Engine
}

// New validates cfg and builds a client. It does not contact Jaeger.
func New(cfg Config) (*Client, error) {
	if cfg.Service == "" {
		return nil, errors.New("jaeger: no service name (the service.name of Flink's trace reporter, traces.reporter.<name>.service.name)")
	}
	switch {
	case cfg.PageSize == 0:
		cfg.PageSize = DefaultPageSize
	case cfg.PageSize < 0 || cfg.PageSize > MaxPageSize:
		return nil, fmt.Errorf("jaeger: PageSize %d: want 1..%d", cfg.PageSize, MaxPageSize)
	}
	switch {
	case cfg.MaxRequests == 0:
		cfg.MaxRequests = DefaultMaxRequests
	case cfg.MaxRequests < 0:
		return nil, fmt.Errorf("jaeger: MaxRequests %d: want > 0", cfg.MaxRequests)
	}
	switch {
	case cfg.MinWindow == 0:
		cfg.MinWindow = DefaultMinWindow
	case cfg.MinWindow < time.Millisecond:
		return nil, fmt.Errorf("jaeger: MinWindow %s: want >= 1ms", cfg.MinWindow)
	}
	rest, err := restclient.OpenEngine(cfg.EngineConfig)
	if err != nil {
		return nil, fmt.Errorf("jaeger: %w", err)
	}
	cfg.EngineConfig = rest.Config()
	return &Client{cfg: cfg, rest: rest}, nil
}

// BaseURL returns the normalised query root the client talks to.
func (c *Client) BaseURL() string { return c.cfg.BaseURL }

// errBodyTooLarge marks an answer over MaxBodyBytes: the window is split, not the call failed.
var errBodyTooLarge = errors.New("body too large")

// Error is a failed request: restclient.RequestError with "jaeger" as its source; it never
// contains credentials.
type Error struct {
	restclient.RequestError
	cause error
}

// Unwrap exposes the transport error (context.Canceled, net.Error, ...).
func (e *Error) Unwrap() error { return e.cause }

const maxMessage = 200

func newError(where string, status int, msg string, cause error) *Error {
	endpoint := where
	if i := strings.IndexByte(endpoint, '?'); i >= 0 {
		endpoint = endpoint[:i]
	}
	e := &Error{RequestError: restclient.RequestError{Source: "jaeger", Method: http.MethodGet, Path: where,
		Endpoint: endpoint, Status: status, Message: msg}, cause: cause}
	if status != 0 {
		e.StatusText = http.StatusText(status)
	}
	return e
}

const endpointTraces = "/api/traces"

// getTraces runs one GET /api/traces and returns its body (JSON, checked to be within
// MaxBodyBytes and a 2xx).
func (c *Client) getTraces(ctx context.Context, query url.Values) ([]byte, error) {
	return c.get(ctx, endpointTraces, query)
}

// get runs one GET of endpoint and returns its body (checked to be within MaxBodyBytes and a 2xx).
func (c *Client) get(ctx context.Context, endpoint string, query url.Values) (data []byte, err error) {
	err = c.rest.Get(ctx, endpoint, endpoint, query, func(a restclient.Answer) error {
		var tooLarge *restclient.BodyTooLargeError
		switch {
		case errors.As(a.Err, &tooLarge):
			return newError(a.Where, a.Status, tooLarge.Error(), errBodyTooLarge)
		case a.Err != nil:
			return newError(a.Where, a.Status, c.rest.Redact(a.Err.Error()), a.Err)
		case !a.OK():
			return newError(a.Where, a.Status, c.rest.Redact(errorMessage(a.Body)), nil)
		}
		data = a.Body
		return nil
	})
	return data, err
}

// errorMessage extracts Jaeger's error text: {"errors":[{"code":400,"msg":"..."}]}; anything
// else is quoted raw, shortened.
func errorMessage(body []byte) string {
	var je struct {
		Errors []struct {
			Msg string `json:"msg"`
		} `json:"errors"`
	}
	if json.Unmarshal(body, &je) == nil && len(je.Errors) > 0 && je.Errors[0].Msg != "" {
		return restclient.Snippet([]byte(je.Errors[0].Msg), maxMessage)
	}
	return restclient.Snippet(body, maxMessage)
}

// micros is t as Jaeger's query parameters want it: microseconds since the epoch.
func micros(t time.Time) string { return strconv.FormatInt(t.UnixMicro(), 10) }
