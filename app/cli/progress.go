package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"golang.org/x/term"

	"checkpoint-explorer/app"
)

// Progress of long work (import, export, report FILE's read) goes to stderr,
// never stdout: on a terminal one line redrawn as the app's progress events
// come (about twice a second), elsewhere (a log, a pipe, CI) a plain line
// once the work has taken progressFirst and then every progressEvery.
// --quiet turns it off.
var (
	progressFirst = time.Second
	progressEvery = 5 * time.Second
)

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// progress shows one piece of work's progress.
type progress struct {
	w     io.Writer
	tty   bool
	cols  int // the terminal's width (0: unknown): a longer line would not redraw
	off   bool
	mu    sync.Mutex
	start time.Time
	next  time.Time // non-terminal: when the next line is due
	drawn bool      // terminal: a line is on screen
}

func newProgress(g *globals) *progress {
	now := time.Now()
	p := &progress{w: g.stderr, tty: isTerminal(g.stderr), off: g.quiet, start: now, next: now.Add(progressFirst)}
	if f, ok := g.stderr.(*os.File); ok && p.tty {
		if cols, _, err := term.GetSize(int(f.Fd())); err == nil {
			p.cols = cols
		}
	}
	return p
}

// elapsed is how long the work has run, for rates.
func (p *progress) elapsed() time.Duration { return time.Since(p.start) }

// show draws line (on a terminal) or writes it when one is due.
func (p *progress) show(line string) {
	if p.off {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tty {
		if r := []rune(line); p.cols > 1 && len(r) >= p.cols {
			line = string(r[:p.cols-2]) + "…"
		}
		fmt.Fprintf(p.w, "\r\033[K%s", line)
		p.drawn = true
		return
	}
	if now := time.Now(); !now.Before(p.next) {
		fmt.Fprintln(p.w, line)
		p.next = now.Add(progressEvery)
	}
}

// done clears the terminal's line, so that what follows starts clean.
func (p *progress) done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		fmt.Fprint(p.w, "\r\033[K")
		p.drawn = false
	}
}

// watch shows the service's import and export progress events until the
// returned function is called.
func (p *progress) watch(svc *app.Service) (stop func()) {
	unsubscribe := svc.Subscribe(func(_ string, payload any) {
		switch e := payload.(type) {
		case app.ImportProgressEvent:
			p.show(importLine(e, p.elapsed()))
		case app.ExportProgressEvent:
			p.show(exportLine(e, p.elapsed()))
		}
	})
	return func() {
		unsubscribe()
		p.done()
	}
}

// watched runs call with the service's progress shown, and when ctx ends
// meanwhile returns stopped as the error: the command's account of what the
// interruption left.
func watched[T any](ctx context.Context, g *globals, svc *app.Service, stopped string, call func(a *app.App) (T, error)) (T, error) {
	stop := newProgress(g).watch(svc)
	res, err := call(svc.Call(ctx))
	stop()
	if err != nil && ctx.Err() != nil {
		return res, stoppedError{stopped}
	}
	return res, err
}

// importLine: "reading big.ckpt.gz: 18.0 MiB of 68.0 MiB (26 %), 25,000 checkpoints, 3.6 MiB/s".
func importLine(e app.ImportProgressEvent, elapsed time.Duration) string {
	line := "reading " + e.File + ": " + app.HumanBytes(e.Bytes)
	if e.Size > 0 {
		line += fmt.Sprintf(" of %s (%d %%)", app.HumanBytes(e.Size), min(100, e.Bytes*100/e.Size))
	}
	line += fmt.Sprintf(", %s checkpoints", count(e.Checkpoints))
	if e.MetricSamples > 0 {
		line += fmt.Sprintf(", %s metric samples", count(e.MetricSamples))
	}
	if s := elapsed.Seconds(); s > 0 {
		line += fmt.Sprintf(", %s/s", app.HumanBytes(int64(float64(e.Bytes)/s)))
	}
	return line
}

// exportLine: "writing out.ckpt.gz: 40,000 checkpoints, 8,000 checkpoints/s".
func exportLine(e app.ExportProgressEvent, elapsed time.Duration) string {
	line := fmt.Sprintf("writing %s: %s checkpoints", e.File, count(e.Checkpoints))
	if s := elapsed.Seconds(); s > 0 {
		line += fmt.Sprintf(", %s checkpoints/s", count(int64(float64(e.Checkpoints)/s)))
	}
	return line
}

// count writes n with thousands separators.
func count(n int64) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return s
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
