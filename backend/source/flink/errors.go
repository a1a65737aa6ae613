package flink

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"checkpoint-explorer/backend/source/restclient"
)

// ErrNotFound matches (errors.Is) a 404 from Flink: a job it does not know, a checkpoint evicted
// from its history ("Could not find checkpointing statistics for checkpoint N"), or a vertex
// without statistics yet ("There is no checkpoint statistics for task ...").
var ErrNotFound = errors.New("flink: not found")

// maxMessage bounds the part of an error body quoted in an error.
const maxMessage = 200

// Error is a failed request. Its text is "flink: GET /path: 503 Service Unavailable: message";
// it never contains credentials.
type Error struct {
	Method string
	// Path is the request path with query, without the base URL.
	Path string
	// Endpoint is the path template, e.g. "/jobs/:jid/checkpoints".
	Endpoint string
	// Status is the HTTP status, 0 when no response arrived.
	Status     int
	StatusText string
	// Message is Flink's error text (first line), or the first bytes of the body.
	Message string
	cause   error
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "flink: %s %s: ", e.Method, e.Path)
	if e.Status != 0 {
		fmt.Fprintf(&b, "%d", e.Status)
		if e.StatusText != "" {
			b.WriteString(" " + e.StatusText)
		}
		if e.Message != "" {
			b.WriteString(": ")
		}
	}
	b.WriteString(e.Message)
	return b.String()
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
func (c *Client) redact(s string) string { return c.secrets.Redact(s) }
