package serve

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"checkpoint-explorer/app"
)

// testApp is a started app over an empty data dir, without polling or the
// bundled samples, closed when t ends; logs go to logger (nil: nowhere).
func testApp(t *testing.T, logger *slog.Logger) *app.Service {
	t.Helper()
	if logger == nil {
		logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	svc, err := app.NewService(context.Background(), app.Options{DataDir: t.TempDir(), NoCollect: true, NoSample: true, Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	return svc
}
