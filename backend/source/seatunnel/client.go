// Package seatunnel reads jobs, job graphs, checkpoint overviews and history, and realtime
// busyness/backpressure windows from the REST API of an Apache SeaTunnel Zeta cluster and
// returns them as backend/model values.
//
// The same paths are served by the REST API v2 (Jetty, e.g. http://host:8080) and, for the job
// endpoints, by the deprecated v1 (Hazelcast port, prefix /hazelcast/rest/maps): BaseURL is the
// root the paths hang from, prefix included. The checkpoint endpoints exist only in v2 of
// SeaTunnel 2.3.13 and later (apache/seatunnel PR #10065), the realtime metrics only in versions
// with PR #10572; older engines answer with ErrNoCheckpointAPI / ErrNoRealtimeAPI.
//
// The client is stateless apart from its HTTP connection pool: it does not poll, cache or retry.
package seatunnel

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"checkpoint-explorer/backend/source/restclient"
)

// Config says how to reach one SeaTunnel REST endpoint: BaseURL is the REST root, e.g.
// http://127.0.0.1:8080 (v2, with its context-path if one is configured) or
// http://127.0.0.1:5801/hazelcast/rest/maps (v1); Cluster, when set, is stamped on every returned
// Job, Checkpoint, AckSample and MetricSample.
type Config = restclient.EngineConfig

// RequestInfo describes one finished request, for counting load per endpoint.
type RequestInfo = restclient.RequestInfo

// Budget is what every request is spent against; *collect.Budget is one.
type Budget = restclient.Budget

// Client talks to one SeaTunnel cluster. It is safe for concurrent use.
type Client struct {
	// rest holds the Config, its defaults filled in; it spends a request budget when
	// NewSource set one on its own copy of the client.
	rest *restclient.Engine
	// location is the time zone of the engine's createTime/finishTime strings
	// ("2006-01-02 15:04:05", the server's local time).
	location *time.Location
}

// New validates cfg and builds a client that reads the engine's times in time.Local (see
// WithLocation). It does not contact the cluster.
func New(cfg Config) (*Client, error) {
	rest, err := restclient.OpenEngine(cfg)
	if err != nil {
		return nil, fmt.Errorf("seatunnel: %w", err)
	}
	return &Client{rest: rest, location: time.Local}, nil
}

// WithLocation returns a copy of the client that reads the engine's createTime/finishTime
// strings as times in loc (nil: time.Local): the time zone of the SeaTunnel servers, when it
// is not this machine's.
func (c *Client) WithLocation(loc *time.Location) *Client {
	cc := *c
	cc.location = cmp.Or(loc, time.Local)
	return &cc
}

// BaseURL returns the normalised REST root the client talks to.
func (c *Client) BaseURL() string { return c.rest.Config().BaseURL }

// cluster is the name stamped on what the client returns (Config.Cluster).
func (c *Client) cluster() string { return c.rest.Config().Cluster }

// response is a finished request's status and body, for methods that must judge the status
// themselves (a 404 means "no such API" on some endpoints and "no such job" on others).
type response struct {
	status int
	body   []byte
	where  string
	ep     string
}

// fetch GETs endpoint (a template such as "/job-info/:jobId") at path and returns the body of
// any HTTP answer; only transport failures, the budget's and oversized bodies are errors here.
func (c *Client) fetch(ctx context.Context, endpoint, path string, query url.Values) (r response, err error) {
	err = c.rest.Get(ctx, endpoint, path, query, func(a restclient.Answer) error {
		r = response{status: a.Status, body: a.Body, where: a.Where, ep: endpoint}
		var tooLarge *restclient.BodyTooLargeError
		switch {
		case errors.As(a.Err, &tooLarge):
			return r.fail(tooLarge.Error())
		case a.Err != nil:
			return c.transportError(r.where, endpoint, a.Err)
		}
		return nil
	})
	return r, err
}

// get is fetch for endpoints where any non-2xx is an error and the body must be JSON.
func (c *Client) get(ctx context.Context, endpoint, path string, query url.Values, out any) error {
	r, err := c.fetch(ctx, endpoint, path, query)
	if err != nil {
		return err
	}
	if !r.ok() {
		return c.statusError(r, nil)
	}
	return c.decode(r, out)
}

func (r response) ok() bool { return r.status >= 200 && r.status <= 299 }

// empty reports a body with nothing in it: what SeaTunnel's REST v1 answers (204) for a path
// it does not know.
func (r response) empty() bool { return len(bytes.TrimSpace(r.body)) == 0 }

// isJSON reports a body that starts like a JSON object or array (an engine's own error answer,
// as opposed to a servlet container's or proxy's HTML page).
func (r response) isJSON() bool {
	b := bytes.TrimSpace(r.body)
	return len(b) > 0 && (b[0] == '{' || b[0] == '[')
}

func (r response) fail(msg string) *Error {
	return newError(r.where, r.ep, r.status, msg, nil)
}

// statusError describes a non-2xx answer; kind (a sentinel such as ErrNotFound) is what
// errors.Is matches, nil to let the status decide.
func (c *Client) statusError(r response, kind error) *Error {
	e := r.fail(c.redact(errorMessage(r.body)))
	e.StatusText = http.StatusText(r.status)
	e.kind = kind
	return e
}

func (c *Client) decode(r response, out any) error {
	if err := json.Unmarshal(r.body, out); err != nil {
		return r.fail(c.redact(decodeProblem(r.body, err)))
	}
	return nil
}

// decodeLenient is decode for bodies that may carry bare NaN/Infinity (realtime ratios over an
// empty bucket): those become null before decoding instead of failing the whole response.
func (c *Client) decodeLenient(r response, out any) error {
	r.body = restclient.NonFiniteToNull(r.body)
	return c.decode(r, out)
}

func (c *Client) transportError(where, endpoint string, err error) error {
	// Keep the chain (context.Canceled, net errors) but scrub the text, in case a proxy or a
	// transport echoed a header into it.
	return newError(where, endpoint, 0, c.redact(err.Error()), err)
}

// decodeProblem explains a body that is not the JSON we expected.
func decodeProblem(data []byte, err error) string {
	return restclient.DecodeProblem(data, err, maxMessage)
}
