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
	"net/url"

	"checkpoint-explorer/backend/source/restclient"
)

// Config says how to reach one Flink REST endpoint; Cluster, when set, is stamped on every
// returned Job, Checkpoint and MetricSample.
type Config = restclient.EngineConfig

// RequestInfo describes one finished request, for counting load per endpoint.
type RequestInfo = restclient.RequestInfo

// Client talks to one Flink cluster. It is safe for concurrent use.
type Client struct {
	// rest holds the Config, its defaults filled in.
	rest *restclient.Engine
}

// New validates cfg and builds a client. It does not contact the cluster.
func New(cfg Config) (*Client, error) {
	rest, err := restclient.OpenEngine(cfg)
	if err != nil {
		return nil, fmt.Errorf("flink: %w", err)
	}
	return &Client{rest: rest}, nil
}

// BaseURL returns the normalised REST root the client talks to.
func (c *Client) BaseURL() string { return c.rest.Config().BaseURL }

// cluster is the name stamped on what the client returns (Config.Cluster).
func (c *Client) cluster() string { return c.rest.Config().Cluster }

// get fetches endpoint (a template such as "/jobs/:jid") at path and decodes the JSON body
// into out. Every error names the method and path, never a credential.
func (c *Client) get(ctx context.Context, endpoint, path string, query url.Values, out any) error {
	return c.do(ctx, endpoint, path, query, out, false)
}

// getJob is get for an endpoint under /jobs/:jid (sub, e.g. "/checkpoints/config", follows
// it): an empty job id is refused before asking. It returns the path asked, for errors about
// the answer to name.
func (c *Client) getJob(ctx context.Context, jid, sub string, out any) (path string, err error) {
	if err := checkID("job id", jid); err != nil {
		return "", err
	}
	path = "/jobs/" + url.PathEscape(jid) + sub
	return path, c.get(ctx, "/jobs/:jid"+sub, path, nil, out)
}

// getLenient is get for bodies that may carry bare NaN/Infinity (metric values): those become
// null before decoding instead of failing the whole response.
func (c *Client) getLenient(ctx context.Context, endpoint, path string, query url.Values, out any) error {
	return c.do(ctx, endpoint, path, query, out, true)
}

func (c *Client) do(ctx context.Context, endpoint, path string, query url.Values, out any, lenient bool) error {
	return c.rest.Get(ctx, endpoint, path, query, func(a restclient.Answer) error {
		var tooLarge *restclient.BodyTooLargeError
		switch {
		case errors.As(a.Err, &tooLarge):
			return newError(a.Where, endpoint, a.Status, tooLarge.Error(), nil)
		case a.Err != nil:
			return c.transportError(a.Where, a.Err)
		case !a.OK():
			return newError(a.Where, endpoint, a.Status, c.redact(errorMessage(a.Body)), nil)
		}
		data := a.Body
		if lenient {
			data = restclient.NonFiniteToNull(data)
		}
		if err := json.Unmarshal(data, out); err != nil {
			return newError(a.Where, endpoint, a.Status, c.redact(decodeProblem(data, err)), nil)
		}
		return nil
	})
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
