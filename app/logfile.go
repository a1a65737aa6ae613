package app

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
)

// maxLogBytes caps the log file; a larger one is moved aside (one
// generation kept) when the app starts.
const maxLogBytes = 4 << 20

// openLogFile opens the app's log for appending, rotating it first if large.
func openLogFile(path string) (*os.File, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	if fi, err := os.Stat(path); err == nil && fi.Size() > maxLogBytes {
		_ = os.Rename(path, path+".1")
	}
	return os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
}

// teeLogger writes what base logs to the log file as well.
func teeLogger(base *slog.Logger, f io.Writer) *slog.Logger {
	return slog.New(teeHandler{base.Handler(), slog.NewTextHandler(f, &slog.HandlerOptions{Level: slog.LevelInfo})})
}

type teeHandler struct{ a, b slog.Handler }

func (t teeHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return t.a.Enabled(ctx, l) || t.b.Enabled(ctx, l)
}

func (t teeHandler) Handle(ctx context.Context, r slog.Record) error {
	var errA, errB error
	if t.a.Enabled(ctx, r.Level) {
		errA = t.a.Handle(ctx, r.Clone())
	}
	if t.b.Enabled(ctx, r.Level) {
		errB = t.b.Handle(ctx, r)
	}
	if errA != nil {
		return errA
	}
	return errB
}

func (t teeHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return teeHandler{t.a.WithAttrs(as), t.b.WithAttrs(as)}
}

func (t teeHandler) WithGroup(name string) slog.Handler {
	return teeHandler{t.a.WithGroup(name), t.b.WithGroup(name)}
}

// LogView is the tail of the app's log.
type LogView struct {
	Path  string   `json:"path"`
	Lines []string `json:"lines"`
}

// Log returns the last lines of the app's log (progress and errors of polling,
// imports and exports), newest last.
func (a *App) Log(lines int) (LogView, error) {
	if lines <= 0 || lines > 5000 {
		lines = 500
	}
	f, err := os.Open(a.paths.Log)
	if os.IsNotExist(err) {
		return LogView{Path: a.paths.Log, Lines: []string{}}, nil
	}
	if err != nil {
		return LogView{}, fmt.Errorf("log: %w", err)
	}
	defer f.Close()
	// Read at most the last 1 MiB: enough for thousands of lines.
	if fi, err := f.Stat(); err == nil && fi.Size() > 1<<20 {
		if _, err := f.Seek(fi.Size()-1<<20, io.SeekStart); err != nil {
			return LogView{}, fmt.Errorf("log: %w", err)
		}
	}
	ring := make([]string, 0, lines)
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if len(ring) == lines {
			ring = ring[1:]
		}
		ring = append(ring, strings.TrimRight(sc.Text(), "\r"))
	}
	if err := sc.Err(); err != nil {
		return LogView{}, fmt.Errorf("log: %w", err)
	}
	return LogView{Path: a.paths.Log, Lines: ring}, nil
}
