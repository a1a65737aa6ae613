package restclient

import (
	"fmt"
	"strings"
)

// RequestError is a failed request to an engine's REST API. Its text is
// "<source>: GET /path: 503 Service Unavailable: message"; it never contains
// credentials (the sources redact Message). Each source wraps it in its own
// Error type, which adds how it matches errors.Is and what it unwraps to.
type RequestError struct {
	// Source prefixes the text: "flink", "seatunnel".
	Source string
	Method string
	// Path is the request path with query, without the base URL.
	Path string
	// Endpoint is the path template, e.g. "/jobs/:jid/checkpoints".
	Endpoint string
	// Status is the HTTP status, 0 when no response arrived.
	Status     int
	StatusText string
	// Message is the engine's error text (first line), or the first bytes of the body.
	Message string
}

func (e *RequestError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s %s: ", e.Source, e.Method, e.Path)
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
