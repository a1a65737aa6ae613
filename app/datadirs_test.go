package app

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"checkpoint-explorer/backend/store"
)

// homes points every place the app resolves at a fresh temporary tree.
type homes struct{ root, cache, data, config, state string }

func setHomes(t *testing.T) homes {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("the XDG places are Linux's")
	}
	r := t.TempDir()
	h := homes{root: r, cache: filepath.Join(r, "cache"), data: filepath.Join(r, "data"),
		config: filepath.Join(r, "config"), state: filepath.Join(r, "state")}
	t.Setenv("HOME", filepath.Join(r, "home"))
	t.Setenv("XDG_CACHE_HOME", h.cache)
	t.Setenv("XDG_DATA_HOME", h.data)
	t.Setenv("XDG_CONFIG_HOME", h.config)
	t.Setenv("XDG_STATE_HOME", h.state)
	return h
}

func (h homes) oldDir() string { return filepath.Join(h.cache, "checkpoint-explorer") }
func (h homes) newDir() string { return filepath.Join(h.data, "checkpoint-explorer") }
func (h homes) logPath() string {
	return filepath.Join(h.state, "checkpoint-explorer", "checkpoint-explorer.log")
}

func TestDefaultPlacesFollowXDG(t *testing.T) {
	h := setHomes(t)
	p, err := ResolvePaths("")
	if err != nil {
		t.Fatal(err)
	}
	want := Paths{
		Config: filepath.Join(h.config, "checkpoint-explorer", "config.json"),
		Cache:  filepath.Join(h.data, "checkpoint-explorer", "cache.db"),
		Log:    h.logPath(),
	}
	if p != want {
		t.Errorf("ResolvePaths = %+v, want %+v", p, want)
	}
	// --data-dir still puts everything in one directory.
	p, err = ResolvePaths(filepath.Join(h.root, "dd"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{p.Config, p.Cache, p.Log} {
		if filepath.Dir(f) != filepath.Join(h.root, "dd") {
			t.Errorf("with --data-dir, %s is outside it", f)
		}
	}
}

// makeOldCache writes a cache in the old place as an app killed while
// running leaves it: the database with its -wal and -shm (the sample opened
// into it), and a log. It returns the sample's source names.
func makeOldCache(t *testing.T, h homes) []string {
	t.Helper()
	src := filepath.Join(h.root, "src")
	a, err := newApp(context.Background(), Options{DataDir: src, NoCollect: true,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	if err := startApp(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	names := sourceNames(t, a)
	if len(names) == 0 {
		t.Fatal("the sample did not open: nothing to move")
	}
	if err := os.MkdirAll(h.oldDir(), 0o700); err != nil {
		t.Fatal(err)
	}
	// Copied while open: committed pages still in the WAL, as after a crash.
	for _, s := range []string{"", "-wal", "-shm"} {
		copyFile(t, filepath.Join(src, "cache.db"+s), filepath.Join(h.oldDir(), "cache.db"+s))
	}
	if fi, err := os.Stat(filepath.Join(h.oldDir(), "cache.db-wal")); err != nil || fi.Size() == 0 {
		t.Fatalf("precondition: the old cache has no -wal with data (%v)", err)
	}
	closeApp(a)
	if err := os.WriteFile(filepath.Join(h.oldDir(), "checkpoint-explorer.log"), []byte("old log line\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return names
}

func sourceNames(t *testing.T, a *App) []string {
	t.Helper()
	srcs, err := a.ListClusters()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range srcs {
		names = append(names, s.Name)
	}
	return names
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// syncBuffer is a log destination the test reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startDefault opens the app on the OS's places (no --data-dir), as a user's first start does.
func startDefault(t *testing.T) (*App, string, error) {
	t.Helper()
	var buf syncBuffer
	a, err := newApp(context.Background(), Options{NoSample: true, NoCollect: true,
		Logger: slog.New(slog.NewTextHandler(&buf, nil))})
	return a, buf.String(), err
}

// checkMoved: the new place has the old cache's sources, the old place is
// gone, no temporary or marker file is left, and the log says what moved where.
func checkMoved(t *testing.T, h homes, want []string, a *App, logged string) {
	t.Helper()
	defer closeApp(a)
	if got := sourceNames(t, a); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("sources after the move = %v, want %v", got, want)
	}
	if _, err := os.Stat(h.oldDir()); !errors.Is(err, os.ErrNotExist) {
		left, _ := os.ReadDir(h.oldDir())
		t.Errorf("the old place is still there (%v): %v", err, left)
	}
	entries, _ := os.ReadDir(h.newDir())
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".moving") {
			t.Errorf("left in the new place: %s", e.Name())
		}
	}
	b, err := os.ReadFile(h.logPath())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(b), "old log line\n") {
		t.Errorf("the new log does not begin with the old one:\n%s", b)
	}
	oldDB, newDB := filepath.Join(h.oldDir(), "cache.db"), filepath.Join(h.newDir(), "cache.db")
	for _, where := range []string{logged, string(b)} {
		if !strings.Contains(where, "from="+oldDB+" to="+newDB) {
			t.Errorf("the log does not tell the move of %s to %s:\n%s", oldDB, newDB, where)
		}
	}
}

// The old cache moves on the first start and the app opens it in the new
// place, the committed pages of its -wal with it. Copying across filesystems
// and finishing an interrupted move are app/places' tests.
func TestOldCacheMovesOnFirstStart(t *testing.T) {
	h := setHomes(t)
	want := makeOldCache(t, h)
	a, logged, err := startDefault(t)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(logged, "how=renamed") {
		t.Errorf("the files were not renamed:\n%s", logged)
	}
	checkMoved(t, h, want, a, logged)
}

func TestNothingToMove(t *testing.T) {
	h := setHomes(t)
	a, logged, err := startDefault(t)
	if err != nil {
		t.Fatal(err)
	}
	defer closeApp(a)
	if got := sourceNames(t, a); len(got) != 0 {
		t.Errorf("a fresh cache has sources %v", got)
	}
	if !exists(filepath.Join(h.newDir(), "cache.db")) {
		t.Error("no cache in the new place")
	}
	if strings.Contains(logged, "moved") || exists(h.oldDir()) {
		t.Errorf("something moved from nowhere:\n%s", logged)
	}
}

// With a cache in both places the new one is used and the old one left alone.
func TestBothCachesKeepTheNew(t *testing.T) {
	h := setHomes(t)
	makeOldCache(t, h)
	oldDB, newDB := filepath.Join(h.oldDir(), "cache.db"), filepath.Join(h.newDir(), "cache.db")
	st, err := store.Open(context.Background(), newDB, store.DefaultRetention())
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	before, err := os.ReadFile(oldDB)
	if err != nil {
		t.Fatal(err)
	}
	a, logged, err := startDefault(t)
	if err != nil {
		t.Fatal(err)
	}
	if got := sourceNames(t, a); len(got) != 0 {
		t.Errorf("the new (empty) cache was not the one opened: sources %v", got)
	}
	closeApp(a)
	after, err := os.ReadFile(oldDB)
	if err != nil || !bytes.Equal(before, after) || !exists(oldDB+"-wal") {
		t.Errorf("the old cache was touched (%v)", err)
	}
	if !strings.Contains(logged, "old="+oldDB) || !strings.Contains(logged, "new="+newDB) || !strings.Contains(logged, "using the new one") {
		t.Errorf("the log does not name both caches:\n%s", logged)
	}
}

// A move that fails stops the start with an error naming both places and
// what to do; the old cache stays whole.
func TestOldCacheMoveFailsClearly(t *testing.T) {
	h := setHomes(t)
	makeOldCache(t, h)
	// A directory with a file in it where the move clears a stray -wal from
	// the new place: the move fails. (A copy failing is app/places' test.)
	if err := os.MkdirAll(filepath.Join(h.newDir(), "cache.db-wal", "x"), 0o700); err != nil {
		t.Fatal(err)
	}
	a, _, err := startDefault(t)
	if err == nil {
		closeApp(a)
		t.Fatal("the start succeeded though the move failed")
	}
	for _, want := range []string{h.oldDir(), h.newDir(), "--data-dir", "next start finishes"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if !exists(filepath.Join(h.oldDir(), "cache.db")) || exists(filepath.Join(h.newDir(), "cache.db")) {
		t.Error("after a failed move the database is not in the old place only")
	}
}
