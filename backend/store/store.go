// Package store is the local SQLite cache of clusters, jobs, checkpoints and
// their samples. It writes each checkpoint with all of its rows in one
// transaction, keeps the database inside configurable bounds (count per job,
// age, file size) and answers the queries the views need.
//
// One writer connection serialises all writes; readers use a separate pool
// and, thanks to WAL, never wait for the writer or for retention.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/mattn/go-sqlite3" // also registers the "sqlite3" driver

	"checkpoint-explorer/backend/model"
)

// ErrNotFound is returned (wrapped) when a job or checkpoint is not stored.
var ErrNotFound = errors.New("not found")

// ErrDiskFull is returned (wrapped) by a write that found no room: the disk
// under the cache is full (SQLITE_FULL). The write was rolled back whole;
// the same write succeeds again once there is space (disk space freed, or
// retention freed pages inside the file).
var ErrDiskFull = model.ErrDiskFull

// isDiskFull reports whether err is SQLite's SQLITE_FULL.
func isDiskFull(err error) bool {
	if errors.Is(err, ErrDiskFull) {
		return true
	}
	var se sqlite3.Error
	return errors.As(err, &se) && se.Code == sqlite3.ErrFull
}

// Retention bounds the cache. A zero limit disables that limit.
type Retention struct {
	MaxCheckpointsPerJob int           `json:"max_checkpoints_per_job"` // 0 = unlimited
	MaxAge               time.Duration `json:"max_age"`                 // 0 = unlimited
	MaxBytes             int64         `json:"max_bytes"`               // 0 = unlimited
}

// Defaults documented in docs/retention.md.
const (
	DefaultMaxCheckpointsPerJob = 5000
	DefaultMaxAge               = 30 * 24 * time.Hour
	DefaultMaxBytes             = 512 << 20
)

// DefaultRetention returns the documented defaults: 5,000 checkpoints per job,
// 30 days, 512 MiB.
func DefaultRetention() Retention {
	return Retention{
		MaxCheckpointsPerJob: DefaultMaxCheckpointsPerJob,
		MaxAge:               DefaultMaxAge,
		MaxBytes:             DefaultMaxBytes,
	}
}

// Validate reports a limit that cannot be right (negative values).
func (r Retention) Validate() error {
	switch {
	case r.MaxCheckpointsPerJob < 0:
		return fmt.Errorf("store: retention: max_checkpoints_per_job %d is negative (use 0 for unlimited)", r.MaxCheckpointsPerJob)
	case r.MaxAge < 0:
		return fmt.Errorf("store: retention: max_age %s is negative (use 0 for unlimited)", r.MaxAge)
	case r.MaxBytes < 0:
		return fmt.Errorf("store: retention: max_bytes %d is negative (use 0 for unlimited)", r.MaxBytes)
	}
	return nil
}

// Store is the SQLite cache. All methods are safe for concurrent use.
type Store struct {
	path string
	w    *sql.DB // exactly one connection: every write goes through it
	r    *sql.DB // readers

	mu        sync.Mutex
	retention Retention
	lastPrune time.Time
	lastErr   error

	pruneMu sync.Mutex // one ApplyRetention at a time
	now     func() time.Time

	bgCancel context.CancelFunc
	bgCtx    context.Context
	bg       sync.WaitGroup

	// hookInPruneTx, when set (tests only), runs inside every retention
	// transaction just before it commits.
	hookInPruneTx func()

	// exportDrops are the OnExportDrop functions (exports.go).
	exportDrops exportWatch

	// prepared holds the hot write statements, prepared once on the one
	// write connection at Open (read-only after): the collector writes one
	// checkpoint per transaction, and preparing them again for each one was
	// a tenth of the write cost.
	prepared map[string]*sql.Stmt
}

// writeStmt is q as prepared once on the write connection at Open, or nil
// for statements not prepared there. (Preparing on the DB later would wait
// for the one connection a transaction already holds.)
func (s *Store) writeStmt(q string) *sql.Stmt {
	return s.prepared[q]
}

// hotWrites are the statements every checkpoint write runs.
var hotWrites = []string{sqlFindCheckpoint, sqlInsertCheckpoint, sqlUpdateSummary, sqlUpdateDetail,
	sqlDeleteTasks, sqlDeletePacks, sqlInsertTask, sqlInsertPack, sqlPutAck, sqlFindSeries, sqlPutMetric, sqlPutGap}

func (s *Store) prepareWrites(ctx context.Context) error {
	s.prepared = make(map[string]*sql.Stmt, len(hotWrites))
	for _, q := range hotWrites {
		st, err := s.w.PrepareContext(ctx, q)
		if err != nil {
			return fmt.Errorf("prepare: %w", err)
		}
		s.prepared[q] = st
	}
	return nil
}

const busyTimeoutMs = 5000

// OpenOption adjusts Open.
type OpenOption func(*openConfig)

type openConfig struct {
	onMigration func(MigrationEvent)
}

// OnMigration has Open tell f before and after each schema step it applies
// to an existing cache, so that a long conversion can be shown to the user.
func OnMigration(f func(MigrationEvent)) OpenOption {
	return func(c *openConfig) { c.onMigration = f }
}

// Open opens (creating the directory and file if needed) the cache at path
// and migrates it to the current schema.
func Open(ctx context.Context, path string, r Retention, opts ...OpenOption) (*Store, error) {
	var oc openConfig
	for _, o := range opts {
		o(&oc)
	}
	if path == "" {
		return nil, errors.New("store: open: empty path")
	}
	if err := r.Validate(); err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return nil, fmt.Errorf("store: open %s: create directory: %w", abs, err)
	}

	// auto_vacuum is the first pragma mattn applies, before journal_mode, so
	// a new file gets INCREMENTAL before any table exists; migrate checks it.
	wq := url.Values{}
	wq.Set("_auto_vacuum", "incremental")
	wq.Set("_journal_mode", "WAL")
	wq.Set("_synchronous", "NORMAL")
	wq.Set("_busy_timeout", fmt.Sprint(busyTimeoutMs))
	wq.Set("_txlock", "immediate") // take the write lock at BEGIN: no deadlock-prone upgrades
	wq.Set("_foreign_keys", "0")
	// database/sql hands a connection to one goroutine at a time, so
	// SQLite's own lock around every call is not needed (mattn defaults to
	// it): it was a tenth of reading a long history.
	wq.Set("_mutex", "no")
	w, err := sql.Open("sqlite3", "file:"+abs+"?"+wq.Encode())
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %w", abs, err)
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	w.SetConnMaxIdleTime(0)

	if err := migrate(ctx, w, oc.onMigration); err != nil {
		w.Close()
		return nil, fmt.Errorf("store: open %s: %w", abs, err)
	}
	// Bound the WAL file left behind after big imports or prunes.
	if _, err := w.ExecContext(ctx, "PRAGMA journal_size_limit = 67108864"); err != nil {
		w.Close()
		return nil, fmt.Errorf("store: open %s: journal_size_limit: %w", abs, err)
	}

	rq := url.Values{}
	rq.Set("_busy_timeout", fmt.Sprint(busyTimeoutMs))
	rq.Set("_query_only", "true")
	rq.Set("_foreign_keys", "0")
	rq.Set("_mutex", "no")
	rdb, err := sql.Open("sqlite3", "file:"+abs+"?"+rq.Encode())
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("store: open %s: readers: %w", abs, err)
	}
	rdb.SetMaxOpenConns(4)
	rdb.SetMaxIdleConns(4)
	if err := rdb.PingContext(ctx); err != nil {
		w.Close()
		rdb.Close()
		return nil, fmt.Errorf("store: open %s: readers: %w", abs, err)
	}

	s := &Store{path: abs, w: w, r: rdb, retention: r, now: time.Now}
	if err := s.prepareWrites(ctx); err != nil {
		for _, st := range s.prepared {
			st.Close()
		}
		w.Close()
		rdb.Close()
		return nil, fmt.Errorf("store: open %s: %w", abs, err)
	}
	s.bgCtx, s.bgCancel = context.WithCancel(context.Background())
	return s, nil
}

// Close stops background retention and closes the database.
func (s *Store) Close() error {
	s.bgCancel()
	s.bg.Wait()
	for _, st := range s.prepared {
		st.Close()
	}
	errR := s.r.Close()
	errW := s.w.Close()
	if err := errors.Join(errW, errR); err != nil {
		return fmt.Errorf("store: close %s: %w", s.path, err)
	}
	return nil
}

// Path is the absolute path of the database file.
func (s *Store) Path() string { return s.path }

// SetRetention changes the limits; the next ApplyRetention enforces them.
// Negative values are treated as 0 (unlimited); call Retention.Validate first
// to reject them with a message instead.
func (s *Store) SetRetention(r Retention) {
	r.MaxCheckpointsPerJob = max(r.MaxCheckpointsPerJob, 0)
	r.MaxAge = max(r.MaxAge, 0)
	r.MaxBytes = max(r.MaxBytes, 0)
	s.mu.Lock()
	s.retention = r
	s.mu.Unlock()
}

// Retention returns the current limits.
func (s *Store) Retention() Retention {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.retention
}

// SetMaxPageCount caps the database at pages pages on the write connection
// (PRAGMA max_page_count) and returns the cap in force: SQLite never sets it
// below the current size. It is for tests, which simulate a full disk with
// it (SetMaxPageCount(ctx, 1) makes the file full as it is) and give the
// space back by raising it; the app never calls it. The cap lasts as long as
// the write connection, which the store keeps open.
func (s *Store) SetMaxPageCount(ctx context.Context, pages int64) (int64, error) {
	var got int64
	if err := s.w.QueryRowContext(ctx, fmt.Sprintf("PRAGMA max_page_count = %d", pages)).Scan(&got); err != nil {
		return 0, fmt.Errorf("store: max_page_count: %w", err)
	}
	return got, nil
}
