// Package restclient is what the REST sources (Flink, SeaTunnel, Jaeger) share
// to reach a cluster: their common settings (EngineConfig), the TLS transport
// with an optional CA file, base-URL checks, a resty client with its
// authentication, one request's path (Engine.Get: the budget, the body limit,
// the report to OnRequest), the scrubbing of credentials and noise out of
// error text, and the rewrite of Java's bare NaN. Errors carry no package
// prefix: each source adds its own.
package restclient

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/go-resty/resty/v2"

	"checkpoint-explorer/backend/model"
)

// Transport is a clone of http.DefaultTransport that trusts caFile (PEM;
// it replaces the system roots) or, if asked, skips verification.
func Transport(caFile string, insecure bool) (*http.Transport, error) {
	tlsCfg := &tls.Config{InsecureSkipVerify: insecure} //nolint:gosec // an explicit user choice
	if caFile != "" {
		pem, err := os.ReadFile(caFile)
		if err != nil {
			return nil, fmt.Errorf("read CA file: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("CA file %s: no PEM certificates found", caFile)
		}
		tlsCfg.RootCAs = pool
	}
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.TLSClientConfig = tlsCfg
	return t, nil
}

// ParseBaseURL checks a REST root and returns it without a trailing slash.
// Its errors never echo the input, which may hold credentials.
func ParseBaseURL(raw string) (string, error) {
	if strings.TrimSpace(raw) == "" {
		return "", errors.New("empty base URL")
	}
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return "", errors.New("base URL does not parse (want e.g. http://127.0.0.1:8081)")
	}
	if u.User != nil {
		return "", errors.New("base URL must not contain credentials; use Auth")
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", fmt.Errorf("base URL scheme %q, want http or https (e.g. http://127.0.0.1:8081)", u.Scheme)
	}
	if u.Host == "" {
		return "", errors.New("base URL has no host")
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return "", errors.New("base URL must not have a query or fragment")
	}
	u.Path = strings.TrimRight(u.Path, "/")
	u.RawPath = ""
	return u.String(), nil
}

// Options build a resty client for one cluster.
type Options struct {
	BaseURL   string
	UserAgent string
	Timeout   time.Duration
	Transport *http.Transport
	Auth      model.Auth
}

// RedactURL strips the user info of a URL, so that it can go into a message.
func RedactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable URL)"
	}
	if u.User != nil {
		u.User = url.User("***")
	}
	return u.String()
}

// Secrets are the credentials a client sends, to scrub from error text.
type Secrets []string

// Redact removes the credentials from s, in case a server or proxy echoed a
// request header into its error body.
func (s Secrets) Redact(text string) string {
	for _, secret := range s {
		if len(secret) >= 3 { // shorter strings would mangle ordinary text and are no secret anyway
			text = strings.ReplaceAll(text, secret, "***")
		}
	}
	return text
}

// Authorization is the Authorization header a sends ("" for none) and the secrets it holds: the
// password and the header's token of basic auth, the token of bearer auth.
func Authorization(a model.Auth) (string, Secrets, error) {
	switch a.Kind {
	case "", model.AuthNone:
		return "", nil, nil
	case model.AuthBasic:
		if a.Username == "" {
			return "", nil, errors.New("basic auth needs a username")
		}
		token := base64.StdEncoding.EncodeToString([]byte(a.Username + ":" + a.Password))
		return "Basic " + token, Secrets{a.Password, token}, nil
	case model.AuthBearer:
		if a.Token == "" {
			return "", nil, errors.New("bearer auth needs a token")
		}
		return "Bearer " + a.Token, Secrets{a.Token}, nil
	}
	return "", nil, fmt.Errorf("unknown auth kind %q", a.Kind)
}

// New builds the resty client (JSON accepted, resty's own logging off) with
// the authentication o.Auth asks for, and the secrets it will send.
func New(o Options) (*resty.Client, Secrets, error) {
	rc := resty.NewWithClient(&http.Client{Transport: o.Transport, Timeout: o.Timeout}).
		SetBaseURL(o.BaseURL).
		SetHeader("User-Agent", o.UserAgent).
		SetHeader("Accept", "application/json").
		// Resty warns on every request with basic auth over http; a local cluster is the common case.
		SetDisableWarn(true).
		SetLogger(discardLogger{})
	authorization, secrets, err := Authorization(o.Auth)
	if err != nil {
		return nil, nil, err
	}
	if authorization != "" {
		rc.SetHeader("Authorization", authorization)
	}
	return rc, secrets, nil
}

// Snippet returns the first max bytes of b as printable, valid UTF-8 on one line.
func Snippet(b []byte, max int) string {
	if len(b) > max {
		b = b[:max]
		for len(b) > 0 && !utf8.Valid(b) { // do not cut a rune in half
			b = b[:len(b)-1]
		}
	}
	s := strings.ToValidUTF8(string(b), "?")
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, strings.TrimSpace(s))
}

type discardLogger struct{}

func (discardLogger) Errorf(string, ...any) {}
func (discardLogger) Warnf(string, ...any)  {}
func (discardLogger) Debugf(string, ...any) {}

// DecodeProblem explains a body that is not the JSON a client expected:
// empty, an HTML page (a proxy or login page), JSON cut short (a truncated
// answer: a connection dropped mid-body), or other malformed JSON. max bounds
// the quoted snippet.
func DecodeProblem(data []byte, err error, max int) string {
	trimmed := bytes.TrimSpace(data)
	var syntax *json.SyntaxError
	switch {
	case len(trimmed) == 0:
		return "empty response body, want JSON"
	case trimmed[0] == '<':
		return "response is HTML, not JSON (a proxy or login page?): " + Snippet(trimmed, max)
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.As(err, &syntax) && syntax.Error() == "unexpected end of JSON input":
		return fmt.Sprintf("truncated JSON: the body ends after %d bytes in the middle of a value", len(data))
	}
	return fmt.Sprintf("decode JSON: %v", err)
}
