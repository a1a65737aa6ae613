// Package flink reads checkpoint statistics, job graphs and live vertex metrics from the
// REST API of an Apache Flink JobManager and returns them as backend/model values.
//
// The client is stateless apart from its HTTP connection pool: it does not poll, cache or
// retry. Scheduling, retention and gap detection belong to the collector.
package flink

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/go-resty/resty/v2"

	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/source/restclient"
)

// Defaults applied by New to zero Config fields.
const (
	DefaultTimeout      = restclient.DefaultTimeout
	DefaultMaxBodyBytes = restclient.DefaultMaxBodyBytes
	DefaultUserAgent    = restclient.DefaultUserAgent
)

// Config says how to reach one Flink REST endpoint.
type Config struct {
	// BaseURL is the REST root, e.g. http://127.0.0.1:8081 (a path prefix behind a proxy is kept).
	BaseURL string
	Auth    model.Auth
	// CAFile is a PEM bundle trusted in addition to nothing else (it replaces the system roots).
	CAFile             string
	InsecureSkipVerify bool
	// Timeout bounds each request (connect to last body byte); default DefaultTimeout.
	Timeout time.Duration
	// MaxBodyBytes refuses larger response bodies; default DefaultMaxBodyBytes.
	MaxBodyBytes int64
	UserAgent    string
	// Cluster, when set, is stamped on every returned Job, Checkpoint and MetricSample.
	Cluster string
	// OnRequest, when set, is called after every request (from the calling goroutine).
	OnRequest func(RequestInfo)
}

// RequestInfo describes one finished request, for counting load per endpoint.
type RequestInfo = restclient.RequestInfo

// Client talks to one Flink cluster. It is safe for concurrent use.
type Client struct {
	cfg     Config
	http    *resty.Client
	secrets restclient.Secrets
}

// New validates cfg and builds a client. It does not contact the cluster.
func New(cfg Config) (*Client, error) {
	st := restclient.EngineSettings{BaseURL: cfg.BaseURL, Auth: cfg.Auth, CAFile: cfg.CAFile,
		InsecureSkipVerify: cfg.InsecureSkipVerify, Timeout: cfg.Timeout, MaxBodyBytes: cfg.MaxBodyBytes, UserAgent: cfg.UserAgent}
	rc, secrets, err := restclient.OpenEngine(&st)
	if err != nil {
		return nil, fmt.Errorf("flink: %w", err)
	}
	cfg.BaseURL, cfg.Timeout, cfg.MaxBodyBytes, cfg.UserAgent = st.BaseURL, st.Timeout, st.MaxBodyBytes, st.UserAgent
	return &Client{cfg: cfg, http: rc, secrets: secrets}, nil
}

// BaseURL returns the normalised REST root the client talks to.
func (c *Client) BaseURL() string { return c.cfg.BaseURL }

// get fetches endpoint (a template such as "/jobs/:jid") at path and decodes the JSON body
// into out. Every error names the method and path, never a credential.
func (c *Client) get(ctx context.Context, endpoint, path string, query url.Values, out any) error {
	return c.do(ctx, endpoint, path, query, out, false)
}

// getLenient is get for bodies that may carry bare NaN/Infinity (metric values): those become
// null before decoding instead of failing the whole response.
func (c *Client) getLenient(ctx context.Context, endpoint, path string, query url.Values, out any) error {
	return c.do(ctx, endpoint, path, query, out, true)
}

func (c *Client) do(ctx context.Context, endpoint, path string, query url.Values, out any, lenient bool) (err error) {
	start := time.Now()
	info := RequestInfo{Endpoint: endpoint, Method: http.MethodGet}
	defer func() { restclient.Report(c.cfg.OnRequest, info, start, err) }()
	where := restclient.PathQuery(path, query)
	data, err := restclient.Fetch(ctx, c.http, path, query, c.cfg.MaxBodyBytes, &info)
	var tooLarge *restclient.BodyTooLargeError
	switch {
	case errors.As(err, &tooLarge):
		return newError(where, endpoint, info.Status, tooLarge.Error(), nil)
	case err != nil:
		return c.transportError(where, err)
	}
	if info.Status < 200 || info.Status > 299 {
		return newError(where, endpoint, info.Status, c.redact(errorMessage(data)), nil)
	}
	if lenient {
		data = nonFiniteToNull(data)
	}
	if err := json.Unmarshal(data, out); err != nil {
		return newError(where, endpoint, info.Status, c.redact(decodeProblem(data, err)), nil)
	}
	return nil
}

func (c *Client) transportError(where string, err error) error {
	// Keep the chain (context.Canceled, net errors) but scrub the text, in case a proxy or a
	// transport echoed a header into it.
	return newError(where, "", 0, c.redact(err.Error()), err)
}

// decodeProblem explains a body that is not the JSON we expected.
func decodeProblem(data []byte, err error) string {
	return restclient.DecodeProblem(data, err, maxMessage)
}
