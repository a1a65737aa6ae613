package otlpexport

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"checkpoint-explorer/backend/interop"
	"checkpoint-explorer/backend/source/restclient"
)

// Protocol is how spans travel to the endpoint.
type Protocol string

// The protocols; ProtocolAuto takes the endpoint URL's scheme (Options.Endpoint).
const (
	ProtocolAuto Protocol = ""
	// ProtocolHTTP is OTLP/HTTP with protobuf bodies (POST <endpoint>/v1/traces).
	ProtocolHTTP Protocol = "http"
	// ProtocolGRPC is OTLP/gRPC (TraceService/Export).
	ProtocolGRPC Protocol = "grpc"
)

// Defaults applied by New to zero Options fields.
const (
	// DefaultTimeout bounds the sending of one batch, retries included (OTLP's own default).
	DefaultTimeout = 10 * time.Second
	// DefaultBatchSize is the spans per request (the SDK batch processor's default); a checkpoint
	// with more spans than that goes alone, over several requests.
	DefaultBatchSize = 512
	// MaxBatchSize caps BatchSize: a request stays well within the receivers' 4 MiB default.
	MaxBatchSize = 8192
	// defaultHTTPPath is where OTLP/HTTP receivers take traces.
	defaultHTTPPath = "/v1/traces"
)

// Options say where and how to send. Credentials (Headers, BearerToken) are sent, never written
// into an error or a log line.
type Options struct {
	// Endpoint is the receiver's URL. http://host:4318 or https://… is OTLP/HTTP (to /v1/traces
	// unless the URL has a path of its own, as in Flink's http://jaeger:4318/v1/traces);
	// grpc://host:4317 is OTLP/gRPC in plain text, grpcs://host:4317 over TLS. Protocol
	// ProtocolGRPC sends gRPC to an http:// (plain text) or https:// (TLS) URL, as OpenTelemetry's
	// own settings write it. No user info and no query: credentials go in Headers or BearerToken.
	Endpoint string
	// Protocol overrides the scheme's choice; ProtocolAuto (the zero value) follows the scheme.
	Protocol Protocol
	// Headers are sent with every request (gRPC metadata for gRPC), e.g. an API key. They replace
	// the SDK's OTEL_EXPORTER_OTLP_HEADERS, which are not read.
	Headers map[string]string
	// BearerToken, when set, is sent as "Authorization: Bearer <token>".
	BearerToken string
	// CAFile is a PEM bundle trusted instead of the system roots (TLS endpoints only).
	CAFile             string
	InsecureSkipVerify bool
	// Timeout bounds the sending of one batch, retries included; default DefaultTimeout.
	Timeout time.Duration
	// BatchSize is the spans per request; default DefaultBatchSize, at most MaxBatchSize.
	BatchSize int
	// ServiceName is the spans' service.name; default interop.ServiceName. A reader of them (the
	// traces source) is given the same.
	ServiceName string
}

// endpoint is Options.Endpoint checked and resolved.
type endpoint struct {
	protocol Protocol
	// hostPort is what the exporters dial; path the OTLP/HTTP path.
	hostPort, path string
	tls            bool
	// shown is the endpoint as errors name it: scheme, host and path, nothing else.
	shown string
}

// parseEndpoint checks raw and picks the protocol. Its errors never echo raw, which may hold
// credentials.
func parseEndpoint(raw string, p Protocol) (endpoint, error) {
	if strings.TrimSpace(raw) == "" {
		return endpoint{}, errors.New("no endpoint (e.g. http://jaeger:4318 or grpc://jaeger:4317)")
	}
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return endpoint{}, errors.New("endpoint does not parse as a URL (e.g. http://jaeger:4318 or grpc://jaeger:4317)")
	}
	if u.User != nil {
		return endpoint{}, errors.New("endpoint must not contain credentials; use the headers or the bearer token")
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return endpoint{}, errors.New("endpoint must not have a query or fragment; use the headers for credentials")
	}
	e := endpoint{hostPort: u.Host, path: u.EscapedPath()}
	switch u.Scheme {
	case "http", "https":
		e.protocol, e.tls = ProtocolHTTP, u.Scheme == "https"
	case "grpc", "grpcs":
		e.protocol, e.tls = ProtocolGRPC, u.Scheme == "grpcs"
	default:
		return endpoint{}, fmt.Errorf("endpoint scheme %q: want http, https (OTLP/HTTP), grpc or grpcs (OTLP/gRPC)", u.Scheme)
	}
	if u.Host == "" {
		return endpoint{}, errors.New("endpoint has no host (e.g. http://jaeger:4318)")
	}
	switch p {
	case ProtocolAuto:
	case ProtocolGRPC:
		e.protocol = ProtocolGRPC
	case ProtocolHTTP:
		if e.protocol != ProtocolHTTP {
			return endpoint{}, fmt.Errorf("protocol %s with a %s:// endpoint: want http:// or https://", p, u.Scheme)
		}
	default:
		return endpoint{}, fmt.Errorf("protocol %q: want %s or %s", p, ProtocolHTTP, ProtocolGRPC)
	}
	switch {
	case e.protocol == ProtocolGRPC && e.path != "" && e.path != "/":
		return endpoint{}, errors.New("an OTLP/gRPC endpoint has no path (e.g. grpc://jaeger:4317)")
	case e.protocol == ProtocolGRPC:
		e.path = ""
	case e.path == "" || e.path == "/":
		e.path = defaultHTTPPath
	}
	e.shown = (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: e.path}).String()
	return e, nil
}

// tlsConfig is the TLS the endpoint is reached with: nil for plain text (a CA file or skipped
// verification is then refused, as a sign of a wrong scheme).
func (o *Options) tlsConfig(e endpoint) (*tls.Config, error) {
	if !e.tls {
		if o.CAFile != "" || o.InsecureSkipVerify {
			return nil, fmt.Errorf("a CA file or skipped verification given for the plain-text endpoint %s: use https:// or grpcs://", e.shown)
		}
		return nil, nil
	}
	t, err := restclient.Transport(o.CAFile, o.InsecureSkipVerify)
	if err != nil {
		return nil, err
	}
	return t.TLSClientConfig, nil
}

// headers are the headers sent, the bearer token among them, and the secrets they hold.
func (o *Options) headers() (map[string]string, restclient.Secrets) {
	h := make(map[string]string, len(o.Headers)+1)
	var secrets restclient.Secrets
	for k, v := range o.Headers {
		h[k] = v
		secrets = append(secrets, v)
	}
	if o.BearerToken != "" {
		h["Authorization"] = "Bearer " + o.BearerToken
		secrets = append(secrets, o.BearerToken)
	}
	return h, secrets
}

// withDefaults fills zero fields and checks the others.
func (o Options) withDefaults() (Options, error) {
	if o.Timeout == 0 {
		o.Timeout = DefaultTimeout
	}
	if o.BatchSize == 0 {
		o.BatchSize = DefaultBatchSize
	}
	if o.ServiceName == "" {
		o.ServiceName = interop.ServiceName
	}
	if o.Timeout < 0 {
		return o, fmt.Errorf("timeout %s: want > 0", o.Timeout)
	}
	if o.BatchSize < 0 || o.BatchSize > MaxBatchSize {
		return o, fmt.Errorf("batch size %d: want 1..%d", o.BatchSize, MaxBatchSize)
	}
	return o, nil
}
