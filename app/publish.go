package app

import (
	"errors"
	"fmt"
	"time"

	"checkpoint-explorer/backend/otlpexport"
	"checkpoint-explorer/backend/publish"
)

// ExportOptions say where the final checkpoints the cache stores are sent (collect
// --export-otlp, docs/collector.md).
type ExportOptions struct {
	// OTLP is the endpoint and its credentials; nothing is sent without OTLP.Endpoint.
	OTLP otlpexport.Options
	// Every is how often the cache is read for checkpoints to send once all was sent
	// (default publish.DefaultEvery).
	Every time.Duration
}

// StartExport starts sending what Options.Export asks for: a loop beside the collector, under the
// app's context (call it after Start; Close stops it), its counters on /metrics. It returns where
// the spans go (scheme, host and path; "" when Options.Export has no endpoint), or why it cannot
// send there (a bad endpoint or CA file). Credentials are never in its errors or the log.
func (s *Service) StartExport() (string, error) {
	a := s.app
	o := a.opts.Export
	if o.OTLP.Endpoint == "" {
		return "", nil
	}
	a.mu.Lock()
	ctx := a.root
	a.mu.Unlock()
	if ctx == nil {
		return "", errors.New("export: the app is not started")
	}
	p, err := publish.New(ctx, a.store, publish.Options{Export: o.OTLP, Every: o.Every, Logger: a.log})
	if err != nil {
		return "", fmt.Errorf("export: %w", err)
	}
	if err := p.Register(a.metrics.reg); err != nil {
		return "", fmt.Errorf("export: %w", err)
	}
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		p.Run(ctx)
	}()
	a.log.Info("exporting the stored checkpoints", "endpoint", p.Endpoint(), "target", p.Target())
	return p.Endpoint(), nil
}
