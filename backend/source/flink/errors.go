package flink

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"checkpoint-explorer/backend/source/restclient"
)

// ErrNotFound matches (errors.Is) a 404 from Flink: a job it does not know, a checkpoint evicted
// from its history ("Could not find checkpointing statistics for checkpoint N"), or a vertex
// without statistics yet ("There is no checkpoint statistics for task ...").
var ErrNotFound = errors.New("flink: not found")

// maxMessage bounds the part of an error body quoted in an error.
const maxMessage = 200

// Error is a failed request: restclient.RequestError with "flink" as its
// source; it never contains credentials.
type Error struct {
	restclient.RequestError
	cause error
}

// newError is a failed GET of where (endpoint its template); status 0 when
// no response arrived.
func newError(where, endpoint string, status int, msg string, cause error) *Error {
	e := &Error{RequestError: restclient.RequestError{Source: "flink", Method: http.MethodGet, Path: where,
		Endpoint: endpoint, Status: status, Message: msg}, cause: cause}
	if status != 0 {
		e.StatusText = http.StatusText(status)
	}
	return e
}

// Is makes a 404 match ErrNotFound.
func (e *Error) Is(target error) bool { return target == ErrNotFound && e.Status == 404 }

// Unwrap exposes the transport error (context.Canceled, net.Error, ...).
func (e *Error) Unwrap() error { return e.cause }

// errorMessage extracts the useful part of an error body: Flink answers {"errors": ["<exception
// class>: <message>\n\tat ..."]}; anything else is quoted raw, shortened.
func errorMessage(body []byte) string {
	var fe struct {
		Errors []string `json:"errors"`
	}
	if json.Unmarshal(body, &fe) == nil && len(fe.Errors) > 0 {
		msg := fe.Errors[0]
		if i := strings.IndexByte(msg, '\n'); i >= 0 {
			msg = msg[:i]
		}
		return snippet([]byte(stripExceptionClass(strings.TrimSpace(msg))))
	}
	return snippet(body)
}

// stripExceptionClass turns "org.apache.flink...RestHandlerException: Could not find ..." into
// "Could not find ...": the class name says nothing to a user.
func stripExceptionClass(msg string) string {
	i := strings.Index(msg, ": ")
	if i <= 0 {
		return msg
	}
	class := msg[:i]
	if strings.ContainsAny(class, " \t") || !strings.Contains(class, ".") {
		return msg
	}
	return msg[i+2:]
}

// snippet returns the first maxMessage bytes of b as printable, valid UTF-8 on one line.
func snippet(b []byte) string { return restclient.Snippet(b, maxMessage) }

// redact removes the client's credentials from s, in case a server or proxy echoed a request
// header into its error body.
func (c *Client) redact(s string) string { return c.rest.Redact(s) }
