package restclient

import (
	"errors"
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

// EngineSettings are what every engine source's Config has in common.
type EngineSettings struct {
	BaseURL            string
	Auth               model.Auth
	CAFile             string
	InsecureSkipVerify bool
	Timeout            time.Duration
	MaxBodyBytes       int64
	UserAgent          string
}

// OpenEngine fills the defaults into s, checks it, normalises its BaseURL
// and builds the client (see New).
func OpenEngine(s *EngineSettings) (*resty.Client, Secrets, error) {
	if s.Timeout == 0 {
		s.Timeout = DefaultTimeout
	}
	if s.MaxBodyBytes == 0 {
		s.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if s.UserAgent == "" {
		s.UserAgent = DefaultUserAgent
	}
	if s.Timeout < 0 || s.MaxBodyBytes < 0 {
		return nil, nil, errors.New("negative Timeout or MaxBodyBytes")
	}
	base, err := ParseBaseURL(s.BaseURL)
	if err != nil {
		return nil, nil, err
	}
	s.BaseURL = base
	transport, err := Transport(s.CAFile, s.InsecureSkipVerify)
	if err != nil {
		return nil, nil, err
	}
	return New(Options{BaseURL: s.BaseURL, UserAgent: s.UserAgent, Timeout: s.Timeout, Transport: transport, Auth: s.Auth})
}
