package app

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// canWriteReadOnlyDirs reports whether chmod fails to stop this process
// (root): a probe write into a 0555 directory.
func canWriteReadOnlyDirs(t *testing.T) bool {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "probe")
	if err := os.Mkdir(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(dir, 0o755)
	f, err := os.Create(filepath.Join(dir, "x"))
	if err != nil {
		return false
	}
	f.Close()
	return true
}

func openDataDir(dataDir string) (*App, error) {
	return newApp(context.Background(), Options{DataDir: dataDir, NoSample: true, NoCollect: true,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
}

// wantStartError checks that New failed, naming path and what to do.
func wantStartError(t *testing.T, a *App, err error, path string) {
	t.Helper()
	if err == nil {
		closeApp(a)
		t.Fatalf("New on an unwritable %s succeeded", path)
	}
	msg := err.Error()
	for _, want := range []string{path, "cannot be written", "--data-dir"} {
		if !strings.Contains(msg, want) {
			t.Errorf("start error %q lacks %q", msg, want)
		}
	}
	t.Logf("start error: %v", err)
}

// A data directory that cannot be written stops the app at start with an
// error naming it and saying what to do, not later on every poll.
func TestNewFailsClearlyOnAnUnwritableDataDir(t *testing.T) {
	t.Run("under a file", func(t *testing.T) {
		// Works as root too: nothing can be created below a regular file.
		file := filepath.Join(t.TempDir(), "not-a-dir")
		if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(file, "data")
		a, err := openDataDir(dir)
		wantStartError(t, a, err, dir)
	})
	// Read-only places (chmod does not stop root, for whom the case under a file covers it).
	for _, tc := range []struct {
		name string
		// readOnly makes dir, or what is in it, read-only and returns the path the error must name.
		readOnly func(t *testing.T, dir string) string
	}{
		{"read-only directory", func(t *testing.T, dir string) string {
			if err := os.Mkdir(dir, 0o555); err != nil {
				t.Fatal(err)
			}
			return dir
		}},
		{"read-only directory with a cache", func(t *testing.T, dir string) string {
			closeApp(openedDataDir(t, dir))
			if err := os.Chmod(dir, 0o555); err != nil {
				t.Fatal(err)
			}
			return dir
		}},
		{"read-only cache file", func(t *testing.T, dir string) string {
			a := openedDataDir(t, dir)
			cache := a.paths.Cache
			closeApp(a)
			if err := os.Chmod(cache, 0o444); err != nil {
				t.Fatal(err)
			}
			return cache
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if canWriteReadOnlyDirs(t) {
				t.Skip("chmod does not stop this process (root)")
			}
			dir := filepath.Join(t.TempDir(), "data")
			want := tc.readOnly(t, dir)
			defer os.Chmod(dir, 0o755)
			a, err := openDataDir(dir)
			wantStartError(t, a, err, want)
		})
	}
	t.Run("writable", func(t *testing.T) {
		a, err := openDataDir(filepath.Join(t.TempDir(), "fresh", "data"))
		if err != nil {
			t.Fatalf("New on a fresh data dir: %v", err)
		}
		closeApp(a)
	})
}

// openedDataDir is openDataDir that fails the test on an error.
func openedDataDir(t *testing.T, dir string) *App {
	t.Helper()
	a, err := openDataDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
