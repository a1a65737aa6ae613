package restclient

import (
	"cmp"
	"context"
	"errors"
	"net/http"
	"net/url"
	"time"

	"github.com/go-resty/resty/v2"

	"checkpoint-explorer/backend/model"
)

// Defaults the engine sources apply to zero settings.
const (
	DefaultTimeout      = 10 * time.Second
	DefaultMaxBodyBytes = 32 << 20
	DefaultUserAgent    = "checkpoint-explorer"
)

// RequestInfo describes one finished request to an engine, for counting
// load per endpoint.
type RequestInfo struct {
	// Endpoint is the path template, e.g. "/jobs/:jid/checkpoints".
	Endpoint string
	Method   string
	// Status is the HTTP status, 0 when no response arrived.
	Status   int
	Duration time.Duration
	// Bytes is the size of the body read (up to MaxBodyBytes+1).
	Bytes int64
	Err   error
}

// EngineConfig says how to reach one engine's REST API: what every engine
// source's Config holds (flink.Config and seatunnel.Config are one;
// jaeger.Config adds its search's settings to it).
type EngineConfig struct {
	// BaseURL is the REST root, e.g. http://127.0.0.1:8081 (a path prefix behind a proxy is kept).
	BaseURL string
	Auth    model.Auth
	// CAFile is a PEM bundle trusted instead of the system roots.
	CAFile             string
	InsecureSkipVerify bool
	// Timeout bounds each request (connect to last body byte); default DefaultTimeout.
	Timeout time.Duration
	// MaxBodyBytes refuses larger response bodies; default DefaultMaxBodyBytes.
	MaxBodyBytes int64
	UserAgent    string
	// Cluster, when set, is stamped on everything the source returns (jobs, checkpoints, samples).
	Cluster string
	// OnRequest, when set, is called after every request (from the calling goroutine).
	OnRequest func(RequestInfo)
}

// Budget bounds the requests a source sends (*collect.Budget is one): every
// request waits for Acquire and calls its release when done.
type Budget interface {
	Acquire(ctx context.Context) (release func(), err error)
}

// Engine is an open client of one engine's REST API: the resty client with
// its authentication, the credentials to scrub from error text, and the
// settings with their defaults filled in. It is safe for concurrent use.
type Engine struct {
	cfg     EngineConfig
	http    *resty.Client
	secrets Secrets
	budget  Budget
	// stream is http without its Timeout, for bodies of many megabytes
	// (StreamRequest bounds each by its context instead).
	stream *resty.Client
}

// StreamTimeouts is how many request timeouts a streamed body may take (a
// JobManager log of 16 MiB from a busy JobManager).
const StreamTimeouts = 6

// OpenEngine fills the defaults into cfg, checks it, normalises its BaseURL
// and builds the client (see New). It does not contact the engine.
func OpenEngine(cfg EngineConfig) (*Engine, error) {
	if err := cfg.normalize(); err != nil {
		return nil, err
	}
	transport, err := Transport(cfg.CAFile, cfg.InsecureSkipVerify)
	if err != nil {
		return nil, err
	}
	o := Options{BaseURL: cfg.BaseURL, UserAgent: cfg.UserAgent, Timeout: cfg.Timeout, Transport: transport, Auth: cfg.Auth}
	rc, secrets, err := New(o)
	if err != nil {
		return nil, err
	}
	o.Timeout = 0
	stream, _, err := New(o)
	if err != nil {
		return nil, err
	}
	return &Engine{cfg: cfg, http: rc, secrets: secrets, stream: stream}, nil
}

// normalize fills the defaults into cfg, checks its limits and normalises its BaseURL.
func (cfg *EngineConfig) normalize() error {
	cfg.Timeout = cmp.Or(cfg.Timeout, DefaultTimeout)
	cfg.MaxBodyBytes = cmp.Or(cfg.MaxBodyBytes, DefaultMaxBodyBytes)
	cfg.UserAgent = cmp.Or(cfg.UserAgent, DefaultUserAgent)
	if cfg.Timeout < 0 || cfg.MaxBodyBytes < 0 {
		return errors.New("negative Timeout or MaxBodyBytes")
	}
	base, err := ParseBaseURL(cfg.BaseURL)
	if err != nil {
		return err
	}
	cfg.BaseURL = base
	return nil
}

// Config returns the settings the engine was opened with, defaults filled in.
func (e *Engine) Config() EngineConfig { return e.cfg }

// WithBudget returns a copy of the engine that spends b on every request.
func (e *Engine) WithBudget(b Budget) *Engine {
	c := *e
	c.budget = b
	return &c
}

// Redact removes the engine's credentials from text (see Secrets.Redact).
func (e *Engine) Redact(text string) string { return e.secrets.Redact(text) }

// Answer is what one GET brought back, for a source to judge.
type Answer struct {
	// Where is the request's path with its query, as errors name it.
	Where string
	// Status is the HTTP status, 0 when no response arrived.
	Status int
	// Body is the whole body, nil when Err is set.
	Body []byte
	// Err is why there is no body: the budget's or the transport's error (no
	// answer, a body that could not be read), or a *BodyTooLargeError.
	Err error
}

// OK reports a 2xx status.
func (a Answer) OK() bool { return a.Status >= 200 && a.Status <= 299 }

// Get GETs path with query, spending the budget (WithBudget) and reading the
// body within MaxBodyBytes (see fetch). judge turns the answer into the
// request's outcome: Get returns judge's error and reports it, with the
// status, size and duration, to OnRequest.
func (e *Engine) Get(ctx context.Context, endpoint, path string, query url.Values, judge func(Answer) error) error {
	start := time.Now()
	info := RequestInfo{Endpoint: endpoint, Method: http.MethodGet}
	a := Answer{Where: PathQuery(path, query)}
	a.Body, a.Err = e.spend(ctx, path, query, &info)
	a.Status = info.Status
	err := judge(a)
	Report(e.cfg.OnRequest, info, start, err)
	return err
}

func (e *Engine) spend(ctx context.Context, path string, query url.Values, info *RequestInfo) ([]byte, error) {
	if e.budget != nil {
		release, err := e.budget.Acquire(ctx)
		if err != nil {
			return nil, err
		}
		defer release()
	}
	return fetch(e.Request(ctx), path, query, e.cfg.MaxBodyBytes, info)
}

// Request starts a GET whose body the caller reads itself (piecewise, or
// beyond MaxBodyBytes); it spends no budget and reports nothing.
func (e *Engine) Request(ctx context.Context) *resty.Request {
	return e.http.R().SetContext(ctx).SetDoNotParseResponse(true)
}

// StreamRequest is Request for a body of many megabytes: bounded by
// StreamTimeouts request timeouts instead of one (cancel when the body is read).
func (e *Engine) StreamRequest(ctx context.Context) (*resty.Request, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(ctx, StreamTimeouts*e.cfg.Timeout)
	return e.stream.R().SetContext(ctx).SetDoNotParseResponse(true), cancel
}
