// Package apptest starts the app for the tests of the packages around it (the CLI, the browser
// door).
package apptest

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"sync"
	"testing"

	"checkpoint-explorer/app"
)

// Start is a started app over an empty data dir, without polling, closed when t ends: with
// samples it holds the bundled samples, else nothing; logs go to logger (nil: nowhere).
func Start(t testing.TB, samples bool, logger *slog.Logger) *app.Service {
	t.Helper()
	if logger == nil {
		logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	svc, err := app.NewService(context.Background(), app.Options{DataDir: t.TempDir(), NoCollect: true, NoSample: !samples, Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Start(context.Background()); err != nil { // opens the bundled samples
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	return svc
}

// Buffer is an output a running app or command writes from its goroutines
// while the test reads it.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *Buffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *Buffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
