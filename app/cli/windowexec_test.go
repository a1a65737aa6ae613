package cli

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// The command line finds the desktop build beside it (build/bin, a
// tarball's bin/) or in the package's lib directory, through a symlink to
// itself too, and names where it looked when the window is not there.
func TestFindWindow(t *testing.T) {
	type file struct {
		path string
		mode os.FileMode
	}
	tests := []struct {
		name  string
		files []file
		link  string // a symlink to bin/checkpoint-explorer, run instead of it
		want  string // relative to the root; "" = not found
	}{
		{name: "beside", files: []file{{"bin/" + WindowBinary, 0o755}}, want: "bin/" + WindowBinary},
		{name: "package lib dir", files: []file{{"lib/checkpoint-explorer/" + WindowBinary, 0o755}}, want: "lib/checkpoint-explorer/" + WindowBinary},
		{name: "beside first", files: []file{{"bin/" + WindowBinary, 0o755}, {"lib/checkpoint-explorer/" + WindowBinary, 0o755}}, want: "bin/" + WindowBinary},
		{name: "through a symlink", files: []file{{"lib/checkpoint-explorer/" + WindowBinary, 0o755}}, link: "elsewhere/ce", want: "lib/checkpoint-explorer/" + WindowBinary},
		{name: "not executable", files: []file{{"bin/" + WindowBinary, 0o644}}},
		{name: "a directory", files: []file{{"bin/" + WindowBinary + "/x", 0o755}}},
		{name: "missing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			for _, f := range append(tt.files, file{"bin/checkpoint-explorer", 0o755}) {
				p := filepath.Join(root, f.path)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte("#!/bin/sh\n"), f.mode); err != nil {
					t.Fatal(err)
				}
			}
			exe := filepath.Join(root, "bin", "checkpoint-explorer")
			if tt.link != "" {
				l := filepath.Join(root, tt.link)
				os.MkdirAll(filepath.Dir(l), 0o755)
				if err := os.Symlink(exe, l); err != nil {
					t.Fatal(err)
				}
				exe = l
			}
			got, err := findWindow(exe)
			if tt.want == "" {
				if !isNoWindow(err) {
					t.Fatalf("found %q, %v; want the window missing", got, err)
				}
				for _, p := range []string{filepath.Join(root, "bin", WindowBinary), filepath.Join(root, "lib", "checkpoint-explorer", WindowBinary)} {
					if !strings.Contains(err.Error(), p) {
						t.Errorf("the error %q does not name %s", err, p)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if want := filepath.Join(root, tt.want); filepath.Clean(got) != want {
				t.Errorf("found %s, want %s", got, want)
			}
		})
	}
}

// The window of the build without one is the desktop build beside it; with
// none beside it (as beside this test's binary), the UI is served to a
// browser and the user told why.
func TestWindowlessBuildServesWhenTheWindowIsMissing(t *testing.T) {
	t.Setenv("DISPLAY", ":99")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out := &watchWriter{seen: make(chan struct{}), want: "is serving at"}
	var errb strings.Builder
	errc := make(chan error, 1)
	go func() {
		errc <- Run(ctx, []string{"--data-dir", t.TempDir()}, out, &errb, Options{Window: ExecWindow})
	}()
	select {
	case <-out.seen:
	case err := <-errc:
		t.Fatalf("Run returned before serving: %v\nstderr: %s", err, errb.String())
	case <-ctx.Done():
		t.Fatal("no address printed in a minute")
	}
	cancel()
	if err := <-errc; err != nil && !errors.Is(err, context.Canceled) {
		t.Fatalf("serve: %v", err)
	}
	exe, _ := os.Executable()
	exe, _ = filepath.EvalSymlinks(exe)
	msg := errb.String()
	if !strings.Contains(msg, "The window is not installed here (no "+filepath.Join(filepath.Dir(exe), WindowBinary)) ||
		!strings.Contains(msg, "serving the UI for a browser instead") {
		t.Errorf("stderr does not say the window is missing and where it was looked for:\n%s", msg)
	}
}

// The window is given the command line as it was typed: the desktop build
// parses it again.
func TestWindowGetsTheArguments(t *testing.T) {
	t.Setenv("DISPLAY", ":99")
	dir := t.TempDir()
	var got WindowOptions
	window := func(_ context.Context, w WindowOptions) error { got = w; return nil }
	args := []string{"--data-dir", dir, "-v"}
	if err := Run(context.Background(), args, io.Discard, io.Discard, Options{Window: window}); err != nil {
		t.Fatal(err)
	}
	if strings.Join(got.Args, " ") != strings.Join(args, " ") || got.DataDir != dir {
		t.Errorf("the window got args %q and data dir %q; want %q and %q", got.Args, got.DataDir, args, dir)
	}
}

// watchWriter closes seen once what was written holds want.
type watchWriter struct {
	mu   sync.Mutex
	b    strings.Builder
	want string
	seen chan struct{}
	done bool
}

func (w *watchWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.b.Write(p)
	if !w.done && strings.Contains(w.b.String(), w.want) {
		w.done = true
		close(w.seen)
	}
	return len(p), nil
}
