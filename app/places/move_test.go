package places

import (
	"bytes"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// movePlaces is an old cache dir and the new places a move fills, under a
// temporary root.
type movePlaces struct{ old, newCache, newLog string }

func newMovePlaces(t *testing.T) movePlaces {
	t.Helper()
	r := t.TempDir()
	return movePlaces{
		old:      filepath.Join(r, "cache", appDirName),
		newCache: filepath.Join(r, "data", appDirName, "cache.db"),
		newLog:   filepath.Join(r, "state", appDirName, "checkpoint-explorer.log"),
	}
}

func (p movePlaces) newDir() string { return filepath.Dir(p.newCache) }

// moves is where each file of the old place goes: the database with its
// -wal and -shm, and the log.
func (p movePlaces) moves() map[string]string {
	m := map[string]string{filepath.Join(p.old, filepath.Base(p.newLog)): p.newLog}
	for _, s := range cacheFileSuffixes {
		m[filepath.Join(p.old, filepath.Base(p.newCache)+s)] = p.newCache + s
	}
	return m
}

// contentOf is what the old file at path holds: its name, so that a file
// moved to the wrong place or mixed up with another shows.
func contentOf(path string) string { return "the old " + filepath.Base(path) + "\n" }

// writeOld leaves in the old place what an app killed while running leaves
// there: the database with its -wal and -shm, and a log.
func (p movePlaces) writeOld(t *testing.T) {
	t.Helper()
	if err := os.MkdirAll(p.old, 0o700); err != nil {
		t.Fatal(err)
	}
	for from := range p.moves() {
		if err := os.WriteFile(from, []byte(contentOf(from)), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// checkMoved: every old file is in its new place as it was, the old place
// is gone, and no temporary or marker file is left.
func (p movePlaces) checkMoved(t *testing.T) {
	t.Helper()
	for from, to := range p.moves() {
		if b, err := os.ReadFile(to); err != nil || string(b) != contentOf(from) {
			t.Errorf("%s after the move = %q (%v), want %q", to, b, err, contentOf(from))
		}
	}
	if _, err := os.Stat(p.old); !errors.Is(err, os.ErrNotExist) {
		left, _ := os.ReadDir(p.old)
		t.Errorf("the old place is still there (%v): %v", err, left)
	}
	entries, _ := os.ReadDir(p.newDir())
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".moving") {
			t.Errorf("left in the new place: %s", e.Name())
		}
	}
}

// markMoveStarted leaves what a move writes first: the new folder with its marker naming the old one.
func (p movePlaces) markMoveStarted(t *testing.T) {
	t.Helper()
	if err := os.MkdirAll(p.newDir(), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(p.newDir(), moveMarker), []byte(p.old+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}

// copyInsteadOfRename makes renames across places fail, as between two
// filesystems, so that files are copied.
func copyInsteadOfRename(t *testing.T) {
	renameFile = func(string, string) error { return errors.New("invalid cross-device link (test)") }
	t.Cleanup(func() { renameFile = os.Rename })
}

// logged is what r.Log writes.
func logged(r MoveReport) string {
	var buf bytes.Buffer
	r.Log(slog.New(slog.NewTextHandler(&buf, nil)))
	return buf.String()
}

func TestMoveOldCache(t *testing.T) {
	for _, how := range []string{"renamed", "copied"} {
		t.Run(how, func(t *testing.T) {
			p := newMovePlaces(t)
			if how == "copied" {
				copyInsteadOfRename(t)
			}
			p.writeOld(t)
			rep, err := MoveOldCache(p.old, p.newCache, p.newLog)
			if err != nil {
				t.Fatal(err)
			}
			p.checkMoved(t)
			if len(rep.Moved) != len(p.moves()) {
				t.Errorf("moved %d files, want %d: %+v", len(rep.Moved), len(p.moves()), rep.Moved)
			}
			for _, m := range rep.Moved {
				if m.How != how {
					t.Errorf("%s was %s, want %s", m.From, m.How, how)
				}
			}
			oldDB := filepath.Join(p.old, "cache.db")
			if l := logged(rep); !strings.Contains(l, "from="+oldDB+" to="+p.newCache) || !strings.Contains(l, "how="+how) {
				t.Errorf("the log does not tell the move of %s to %s:\n%s", oldDB, p.newCache, l)
			}
		})
	}
}

// A move cut short is finished by the next start, whatever step it reached.
func TestMoveInterruptedIsFinished(t *testing.T) {
	for _, c := range []struct {
		name      string
		interrupt func(t *testing.T, p movePlaces)
	}{
		// The state a kill leaves mid-copy: the marker, the -wal already
		// moved, half of the database in its temporary file.
		{"copy half-way", func(t *testing.T, p movePlaces) {
			if err := os.Rename(filepath.Join(p.old, "cache.db-wal"), p.newCache+"-wal"); err != nil {
				t.Fatal(err)
			}
			db := contentOf(p.newCache)
			if err := os.WriteFile(filepath.Join(p.newDir(), ".moving-cache.db"), []byte(db[:len(db)/2]), 0o600); err != nil {
				t.Fatal(err)
			}
			copyInsteadOfRename(t)
		}},
		{"after the database, before the log", func(t *testing.T, p movePlaces) {
			for _, s := range cacheFileSuffixes {
				if err := os.Rename(filepath.Join(p.old, "cache.db"+s), p.newCache+s); err != nil {
					t.Fatal(err)
				}
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := newMovePlaces(t)
			p.writeOld(t)
			p.markMoveStarted(t)
			c.interrupt(t, p)
			rep, err := MoveOldCache(p.old, p.newCache, p.newLog)
			if err != nil {
				t.Fatal(err)
			}
			p.checkMoved(t)
			if exists(filepath.Join(p.newDir(), moveMarker)) {
				t.Error("the marker is left")
			}
			if l := logged(rep); !rep.Resumed || !strings.Contains(l, "a move was interrupted") {
				t.Errorf("the log does not tell the interrupted move was finished:\n%s", l)
			}
		})
	}
}

// Without an old cache, or when the old place is the new one, nothing moves.
func TestMoveNothing(t *testing.T) {
	p := newMovePlaces(t)
	// A cache in the new place: were the coinciding places not seen, it would be kept beside itself.
	if err := os.MkdirAll(p.newDir(), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p.newCache, []byte("the new cache"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, old := range []string{p.old, "", p.newDir()} { // none there, no cache dir on this OS, the same place
		rep, err := MoveOldCache(old, p.newCache, p.newLog)
		if err != nil || logged(rep) != "" {
			t.Errorf("MoveOldCache(%q) = %+v, %v; want nothing done", old, rep, err)
		}
	}
	if b, _ := os.ReadFile(p.newCache); string(b) != "the new cache" || exists(p.newLog) {
		t.Errorf("something moved from nowhere: the new cache holds %q", b)
	}
}

// A move that fails leaves the old cache whole, the database in the old place only.
func TestMoveFailsKeepsTheOld(t *testing.T) {
	p := newMovePlaces(t)
	p.writeOld(t)
	copyInsteadOfRename(t)
	// A directory where the -wal should be: the copy fails.
	wal := filepath.Join(p.old, "cache.db-wal")
	if err := os.Remove(wal); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(wal, 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := MoveOldCache(p.old, p.newCache, p.newLog); err == nil || !strings.Contains(err.Error(), wal) {
		t.Errorf("MoveOldCache = %v, want an error naming %s", err, wal)
	}
	if !exists(filepath.Join(p.old, "cache.db")) || exists(p.newCache) {
		t.Error("after a failed move the database is not in the old place only")
	}
}
