package app

import (
	"context"
	"log/slog"
	"net/http"

	"checkpoint-explorer/backend/store"
)

// Service owns one running app: its lifecycle, its events and its files. The
// doors (app/cli, app/serve, app/window) each hold one; the UI calls only the
// App it gives (App), whose exported methods are exactly what the window
// binds and serve answers.
type Service struct{ app *App }

// NewService opens the config and the cache; Options' zero values are the
// defaults (the OS's directories, the samples opened, polling on). Start it,
// and Close it when done.
func NewService(ctx context.Context, opts Options) (*Service, error) {
	a, err := newApp(ctx, opts)
	if err != nil {
		return nil, err
	}
	return &Service{app: a}, nil
}

// App is what the UI calls, under the service's root context.
func (s *Service) App() *App { return s.app }

// Call is the App answering one request: its calls end with ctx (and with
// the service).
func (s *Service) Call(ctx context.Context) *App { return withCallContext(s.app, ctx) }

// Start opens the bundled samples, starts retention and, unless turned off,
// the collector; ctx is the root of every call and background task.
func (s *Service) Start(ctx context.Context) error { return startApp(ctx, s.app) }

// Close stops background work, cancels calls under way and closes the cache.
func (s *Service) Close() error { return closeApp(s.app) }

// Subscribe receives every event the app emits (app.Events).
func (s *Service) Subscribe(fn func(name string, payload any)) (unsubscribe func()) {
	return s.app.events.subscribe(fn)
}

// Emit sends an event to every subscriber.
func (s *Service) Emit(e Event) { s.app.emit(e) }

// Paths tells where the app keeps its files.
func (s *Service) Paths() Paths { return s.app.paths }

// Store is the cache, for the commands that stream it (export, bench).
func (s *Service) Store() *store.Store { return s.app.store }

// Logger is the app's log (also written to its log file).
func (s *Service) Logger() *slog.Logger { return s.app.log }

// Metrics serves the app's own metrics in the Prometheus text format.
func (s *Service) Metrics() http.Handler { return metricsHandler(s.app) }

// SetFileDialogs lets the window offer native dialogs.
func (s *Service) SetFileDialogs(d FileDialogs) { s.app.dialogs = d }

// OpenDropped opens captures dropped on the window; one that does not open
// is told as an ImportErrorEvent.
func (s *Service) OpenDropped(paths []string) { openDropped(s.app, paths) }

// ImportUpload imports a capture a browser uploaded as a read-only source,
// under ctx (the request's: a closed tab cancels it, leaving the cache as it
// was), and tells the doors the sources changed.
func (s *Service) ImportUpload(ctx context.Context, path string) (ImportResult, error) {
	ctx, cancel := s.Call(ctx).callCtx()
	defer cancel()
	res, err := s.app.importCapture(ctx, path, captureSourceName, false)
	if err == nil {
		s.app.emit(SourcesEvent{})
	}
	return res, err
}
