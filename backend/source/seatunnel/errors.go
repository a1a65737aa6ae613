package seatunnel

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"checkpoint-explorer/backend/source/restclient"
)

// ErrNotFound matches (errors.Is) an unknown job: SeaTunnel answers /job-info for a job it does
// not know with 200 and {"jobId":""} (v2) or {"jobId":"<id>"} (v1) and nothing else; a 404
// from an endpoint that exists matches too.
var ErrNotFound = errors.New("seatunnel: not found")

// ErrNoCheckpointAPI matches a cluster without GET /jobs/checkpoints/:jobId.
var ErrNoCheckpointAPI = errors.New("this SeaTunnel version has no checkpoint REST API (added in 2.3.13 / PR #10065, REST API v2 only)")

// ErrNoRealtimeAPI matches a cluster without GET /metrics/realtime/jobs/:jobId/{vertices,edges}.
var ErrNoRealtimeAPI = errors.New("this SeaTunnel version has no realtime metrics REST API (added by PR #10572, after 2.3.13)")

// ErrRealtimeDisabled matches a 503 from the realtime endpoints: the active master does not
// collect realtime metrics (the job lacks env engine.observability.enabled=true, or the
// collector is off).
var ErrRealtimeDisabled = errors.New("seatunnel: realtime metrics disabled for this job (set env engine.observability.enabled=true)")

// maxMessage bounds the part of an error body quoted in an error.
const maxMessage = 200

// Error is a failed request: restclient.RequestError with "seatunnel" as
// its source, and the kind it matches; it never contains credentials.
type Error struct {
	restclient.RequestError
	kind  error
	cause error
}

// newError is a failed GET of where (endpoint its template); status 0 when
// no response arrived.
func newError(where, endpoint string, status int, msg string, cause error) *Error {
	return &Error{RequestError: restclient.RequestError{Source: "seatunnel", Method: http.MethodGet, Path: where,
		Endpoint: endpoint, Status: status, Message: msg}, cause: cause}
}

// Is matches the error's kind (ErrNotFound, ErrNoCheckpointAPI, ...); a plain 404 matches
// ErrNotFound.
func (e *Error) Is(target error) bool {
	if e.kind != nil {
		return target == e.kind
	}
	return target == ErrNotFound && e.Status == 404
}

// Unwrap exposes the transport error (context.Canceled, net.Error, ...).
func (e *Error) Unwrap() error { return e.cause }

// errorMessage extracts the useful part of an error body. SeaTunnel's v2 servlets answer
// {"status":"fail","message":"..."}; v1 and containers answer other shapes or HTML, quoted raw.
func errorMessage(body []byte) string {
	var se struct {
		Message  string `json:"message"`
		ErrorMsg string `json:"errorMsg"`
		Error    string `json:"error"`
	}
	if json.Unmarshal(body, &se) == nil {
		for _, m := range []string{se.Message, se.ErrorMsg, se.Error} {
			if m = strings.TrimSpace(m); m != "" {
				if i := strings.IndexByte(m, '\n'); i >= 0 {
					m = m[:i]
				}
				return snippet([]byte(m))
			}
		}
	}
	return snippet(body)
}

// snippet returns the first maxMessage bytes of b as printable, valid UTF-8 on one line.
func snippet(b []byte) string { return restclient.Snippet(b, maxMessage) }

// redact removes the client's credentials from s, in case a server or proxy echoed a request
// header into its error body.
func (c *Client) redact(s string) string { return c.rest.Redact(s) }
