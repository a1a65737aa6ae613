package places

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// OldCacheDir is where versions before issue #17 kept the cache and the
// log: os.UserCacheDir()/checkpoint-explorer. Empty when the OS has no cache dir.
func OldCacheDir() string {
	d, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, appDirName)
}

// The files of the SQLite cache: the store runs in WAL mode, so committed
// data may still sit in -wal; the three move together, the database last.
var cacheFileSuffixes = []string{"-wal", "-shm", ""}

// moveMarker, in the new data directory, says a move from the old place
// began and has not finished; it holds the old directory.
const moveMarker = ".moving-from-cache-dir"

// MovedFile is one file the move handled, for the log.
type MovedFile struct {
	From, To string
	How      string // "renamed" or "copied"
}

// MoveReport is what MoveOldCache did, logged once the log is open.
type MoveReport struct {
	Moved    []MovedFile
	Resumed  bool   // an interrupted move was finished
	KeptBoth string // both caches existed: the new one (KeptNew) is used, the old one (this path) left alone
	KeptNew  string
	LogErr   error // the old log could not be moved (the cache was)
}

// renameFile is os.Rename; tests replace it to take the copy path (another filesystem).
var renameFile = os.Rename

// MoveOldCache moves the cache (and the log) from the old place, oldDir, to
// newCache and newLog, once. It is safe when interrupted at any point: a
// marker file is written in the new directory before the first file moves
// and removed after the last, and each file either renames (same filesystem)
// or is copied to a temporary name, synced, renamed and only then removed
// from the old place. The next start finds the marker and finishes.
//
// When both an old and a new cache exist (and no move was under way), the
// new one is kept and the old one is left where it is, for the user.
func MoveOldCache(oldDir, newCache, newLog string) (MoveReport, error) {
	var rep MoveReport
	if oldDir == "" {
		return rep, nil
	}
	newDir := filepath.Dir(newCache)
	oldCache := filepath.Join(oldDir, filepath.Base(newCache))
	if sameFile(oldDir, newDir) {
		return rep, nil // the places coincide (e.g. XDG_DATA_HOME set to the cache home)
	}
	marker := filepath.Join(newDir, moveMarker)
	_, err := os.Stat(marker)
	resuming := err == nil
	oldExists := exists(oldCache)
	newExists := exists(newCache)
	switch {
	case resuming:
		rep.Resumed = true
	case !oldExists:
		return rep, nil
	case newExists:
		rep.KeptBoth, rep.KeptNew = oldCache, newCache
		return rep, nil
	default:
		// A fresh move. Without a database, any -wal or -shm in the new
		// directory belongs to nothing; left there, SQLite would apply it to
		// the database moved in.
		if err := os.MkdirAll(newDir, 0o700); err != nil {
			return rep, fmt.Errorf("create %s: %w", newDir, err)
		}
		for _, s := range cacheFileSuffixes[:2] {
			if err := os.Remove(newCache + s); err != nil && !errors.Is(err, os.ErrNotExist) {
				return rep, fmt.Errorf("remove the stray %s: %w", newCache+s, err)
			}
		}
		if err := writeSynced(marker, []byte(oldDir+"\n")); err != nil {
			return rep, fmt.Errorf("start the move: %w", err)
		}
	}
	for _, s := range cacheFileSuffixes {
		from, to := oldCache+s, newCache+s
		if !exists(from) {
			continue // never there, or moved before an interruption
		}
		how, err := moveFile(from, to)
		if err != nil {
			return rep, fmt.Errorf("move the cache file %s to %s: %w", from, to, err)
		}
		rep.Moved = append(rep.Moved, MovedFile{From: from, To: to, How: how})
	}
	// The log is a convenience: one that cannot move stays where it was.
	for _, s := range []string{"", ".1"} {
		from, to := filepath.Join(oldDir, filepath.Base(newLog)+s), newLog+s
		if !exists(from) || exists(to) {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(to), 0o700); err != nil {
			rep.LogErr = err
			break
		}
		how, err := moveFile(from, to)
		if err != nil {
			rep.LogErr = err
			break
		}
		rep.Moved = append(rep.Moved, MovedFile{From: from, To: to, How: how})
	}
	for _, s := range cacheFileSuffixes {
		os.Remove(filepath.Join(newDir, ".moving-"+filepath.Base(newCache)+s)) // a copy cut short
	}
	if err := os.Remove(marker); err != nil && !errors.Is(err, os.ErrNotExist) {
		return rep, fmt.Errorf("finish the move: %w", err)
	}
	_ = syncDir(newDir)
	_ = os.Remove(oldDir) // only when empty: anything else in it stays
	return rep, nil
}

// moveFile moves one file, replacing to: a rename when that works, else
// (another filesystem) a copy to a temporary name beside to, synced and
// renamed over to, and only then the removal of from.
func moveFile(from, to string) (string, error) {
	if err := renameFile(from, to); err == nil {
		return "renamed", syncDir(filepath.Dir(to))
	}
	tmp := filepath.Join(filepath.Dir(to), ".moving-"+filepath.Base(to))
	if err := copySynced(from, tmp); err != nil {
		os.Remove(tmp)
		return "", err
	}
	if err := os.Rename(tmp, to); err != nil {
		os.Remove(tmp)
		return "", err
	}
	if err := syncDir(filepath.Dir(to)); err != nil {
		return "", err
	}
	if err := os.Remove(from); err != nil {
		return "", fmt.Errorf("copied, but the old file stays: %w", err)
	}
	return "copied", nil
}

func copySynced(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Sync(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

func writeSynced(path string, b []byte) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return syncDir(filepath.Dir(path))
}

// syncDir makes a rename in dir durable (a no-op where directories cannot be synced).
func syncDir(dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !strings.Contains(err.Error(), "invalid argument") {
		return err
	}
	return nil
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

func sameFile(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(fa, fb)
}

// Log tells what MoveOldCache did, with the old and new paths.
func (r MoveReport) Log(l *slog.Logger) {
	if r.KeptBoth != "" {
		l.Warn("a cache exists in the old place as well as the new; using the new one and leaving the old one alone "+
			"(delete it, or open it with --data-dir)", "old", r.KeptBoth, "new", r.KeptNew)
	}
	if r.Resumed {
		l.Info("finished moving the cache from its old place (a move was interrupted)")
	}
	for _, m := range r.Moved {
		l.Info("moved from the old place", "from", m.From, "to", m.To, "how", m.How)
	}
	if r.LogErr != nil {
		l.Warn("the old log stays in the old place", "err", r.LogErr)
	}
}
