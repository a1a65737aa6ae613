package prometheus

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"syscall"
	"unicode/utf8"

	v1 "github.com/prometheus/client_golang/api/prometheus/v1"

	"checkpoint-explorer/backend/source/restclient"
)

// What went wrong, for errors.Is. Every error this package returns for a request is an *Error
// matching exactly one of them (or context.Canceled when the caller gave up).
var (
	// ErrUnreachable: no connection (refused, no route, DNS, TLS handshake).
	ErrUnreachable = errors.New("prometheus: not reachable")
	// ErrTimeout: no complete answer within the timeout, or Prometheus timed the query out.
	ErrTimeout = errors.New("prometheus: timed out")
	// ErrNotPrometheus: something answered, but not a Prometheus HTTP API or reporter (404, an
	// HTML page, JSON of another shape, text that is not the exposition format).
	ErrNotPrometheus = errors.New("prometheus: not a Prometheus endpoint")
	// ErrAuth: 401 or 403.
	ErrAuth = errors.New("prometheus: not authorised")
	// ErrQuery: Prometheus answered with an error (bad query, execution error, 5xx).
	ErrQuery = errors.New("prometheus: query failed")
	// ErrTooLarge: the response exceeded MaxBodyBytes.
	ErrTooLarge = errors.New("prometheus: response too large")
	// ErrPartial: the data came with warnings (a Thanos store or Mimir querier was missing, the
	// result was truncated...). The samples returned with it are real but may be incomplete.
	ErrPartial = errors.New("prometheus: partial data")
)

// maxMessage bounds the part of a response body quoted in an error.
const maxMessage = 200

// Error is a failed request. Its text is "prometheus: <op> <url>: <what happened>"; it never
// contains credentials.
type Error struct {
	// Op is "check", "query_range" or "scrape".
	Op string
	// URL is the Prometheus base URL or the scraped reporter URL.
	URL string
	// Kind is one of the Err* sentinels.
	Kind error
	// Status is the HTTP status, 0 when no response arrived.
	Status int
	Msg    string
	cause  error
}

func (e *Error) Error() string { return fmt.Sprintf("prometheus: %s %s: %s", e.Op, e.URL, e.Msg) }

// Is matches the error's Kind.
func (e *Error) Is(target error) bool { return target == e.Kind }

// Unwrap exposes the transport error (context.DeadlineExceeded, net errors...).
func (e *Error) Unwrap() error { return e.cause }

// errTooLarge is returned by a body read past the limit.
var errTooLarge = errors.New("response body exceeds the limit")

// transportError explains an error that came before or instead of an HTTP response; timeoutText
// says what the time limit was, e.g. "10s (Timeout)".
func transportError(op, where string, timeoutText string, err error) error {
	e := &Error{Op: op, URL: where, cause: err}
	var ne net.Error
	var opErr *net.OpError
	var dnsErr *net.DNSError
	switch {
	case errors.Is(err, context.Canceled):
		// The caller gave up; say so plainly and keep errors.Is(err, context.Canceled).
		return fmt.Errorf("prometheus: %s %s: %w", op, where, context.Canceled)
	case errors.Is(err, errTooLarge):
		e.Kind, e.Msg = ErrTooLarge, err.Error()
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, os.ErrDeadlineExceeded),
		errors.As(err, &ne) && ne.Timeout():
		e.Kind, e.Msg = ErrTimeout, "no answer within "+timeoutText+": a slow or overloaded server, or too much data for the window"
		if op == "scrape" {
			e.Msg = "no answer within " + timeoutText + ": a slow or hung reporter endpoint"
		}
	case errors.Is(err, syscall.ECONNREFUSED):
		e.Kind, e.Msg = ErrUnreachable, "connection refused: nothing listens there (is the server running, and is this its address?)"
	case errors.As(err, &dnsErr):
		e.Kind, e.Msg = ErrUnreachable, "host not found: "+dnsErr.Err
	case errors.As(err, &opErr) && opErr.Op == "dial":
		e.Kind, e.Msg = ErrUnreachable, "cannot connect: "+cleanText(opErr.Err.Error())
	default:
		e.Kind, e.Msg = ErrUnreachable, cleanText(err.Error())
	}
	return e
}

// apiError explains a *v1.Error given the HTTP exchange it came from.
func apiError(op, where string, resp respInfo, timeoutText string, err *v1.Error) error {
	e := &Error{Op: op, URL: where, Status: resp.status, cause: err}
	// client_golang decodes Prometheus' JSON error only for 400 and 422, but Prometheus sends
	// the same JSON with 503 (query timeout, unavailable) and 500: read it here.
	var body struct {
		Status    string `json:"status"`
		ErrorType string `json:"errorType"`
		Error     string `json:"error"`
	}
	if err.Detail != "" && json.Unmarshal([]byte(err.Detail), &body) == nil && body.Status == "error" && body.ErrorType != "" {
		err = &v1.Error{Type: v1.ErrorType(body.ErrorType), Msg: body.Error}
		e.cause = err
	}
	status := ""
	if resp.status != 0 {
		status = fmt.Sprintf("HTTP %d %s", resp.status, http.StatusText(resp.status))
	}
	switch {
	case resp.status == http.StatusUnauthorized || resp.status == http.StatusForbidden:
		e.Kind, e.Msg = ErrAuth, status+": check the credentials"
	case resp.status == http.StatusNotFound || resp.status == http.StatusMethodNotAllowed:
		e.Kind, e.Msg = ErrNotPrometheus, status+" for "+resp.path+": no Prometheus query API at this URL (want the server's root, e.g. http://127.0.0.1:9090)"
	case strings.Contains(resp.contentType, "text/html"):
		e.Kind, e.Msg = ErrNotPrometheus, status+": the answer is an HTML page, not the Prometheus API (a login page, a proxy, or the wrong URL?)"
	case err.Type == v1.ErrBadResponse && resp.status/100 == 2:
		e.Kind, e.Msg = ErrNotPrometheus, "the answer is not Prometheus API JSON: "+cleanText(err.Msg)
	case err.Type == v1.ErrTimeout:
		e.Kind, e.Msg = ErrTimeout, "Prometheus timed the query out ("+timeoutText+"): "+cleanText(err.Msg)
	default:
		e.Kind = ErrQuery
		if strings.TrimSpace(err.Detail) != "" {
			// Not Prometheus' JSON: a proxy's or server's plain answer says more than "server error: 503".
			e.Msg = status + ": " + cleanText(err.Detail)
		} else {
			e.Msg = strings.TrimPrefix(status+": ", ": ") + string(err.Type) + ": " + cleanText(err.Msg)
		}
	}
	return e
}

// cleanText returns the first maxMessage bytes of s as printable, valid UTF-8 on one line.
func cleanText(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > maxMessage {
		s = s[:maxMessage]
		for len(s) > 0 && !utf8.ValidString(s) {
			s = s[:len(s)-1]
		}
		s += "…"
	}
	s = strings.ToValidUTF8(s, "?")
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
}

// redact removes the credentials from err's text, in case a proxy echoed a header back.
func redact(secrets restclient.Secrets, err error) error {
	var e *Error
	if err != nil && errors.As(err, &e) {
		e.Msg = secrets.Redact(e.Msg)
	}
	return err
}
