package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"maps"
	"os"
	"strconv"
	"strings"
	"time"
)

// Chunk sizes keep every retention transaction short (tens of milliseconds)
// so writers queue only briefly and readers, on WAL snapshots, not at all.
const (
	pruneChunkCheckpoints = 500   // checkpoints examined per transaction
	pruneChunkRows        = 10000 // subtask rows deleted per transaction, about
	pruneChunkSamples     = 20000 // sample rows deleted per transaction
	vacuumChunkPages      = 2048  // pages returned to the OS per incremental_vacuum
	floorChunks           = 8     // chunks of a size trim between removals of the samples below the floors
)

// PruneResult counts what retention removed.
type PruneResult struct {
	Checkpoints   int64 `json:"checkpoints"`
	SubtaskRows   int64 `json:"subtask_rows"`
	AckSamples    int64 `json:"ack_samples"`
	MetricSamples int64 `json:"metric_samples"`
	Gaps          int64 `json:"gaps"`
	// FreedBytes is how much the database and WAL files shrank on disk.
	FreedBytes int64 `json:"freed_bytes"`
}

func (p *PruneResult) add(o PruneResult) {
	p.Checkpoints += o.Checkpoints
	p.SubtaskRows += o.SubtaskRows
	p.AckSamples += o.AckSamples
	p.MetricSamples += o.MetricSamples
	p.Gaps += o.Gaps
	p.FreedBytes += o.FreedBytes
}

func (p PruneResult) rows() int64 {
	return p.Checkpoints + p.SubtaskRows + p.AckSamples + p.MetricSamples + p.Gaps
}

// Counts is how much of each kind the cache holds.
type Counts struct {
	Checkpoints   int64 `json:"checkpoints"`
	SubtaskRows   int64 `json:"subtask_rows"`
	AckSamples    int64 `json:"ack_samples"`
	MetricSamples int64 `json:"metric_samples"`
	Gaps          int64 `json:"gaps"`
	Jobs          int64 `json:"jobs"`
}

// Stats describes the cache for the UI and CLI.
type Stats struct {
	Path      string `json:"path"`
	FileBytes int64  `json:"file_bytes"` // database + WAL on disk
	UsedBytes int64  `json:"used_bytes"` // pages holding data (what MaxBytes limits)
	Counts
	Limits      Retention   `json:"limits"`
	PrunedTotal PruneResult `json:"pruned_total"` // since the file was created
	// LastPruneMs and LastPruneError describe the latest background run.
	LastPruneMs    int64  `json:"last_prune_ms,omitempty"`
	LastPruneError string `json:"last_prune_error,omitempty"`
}

// Stats reports sizes, row counts, limits and what retention removed so far.
func (s *Store) Stats(ctx context.Context) (Stats, error) {
	st := Stats{Path: s.path, Limits: s.Retention()}
	var err error
	if st.FileBytes, err = s.fileBytes(); err != nil {
		return st, fmt.Errorf("store: stats: %w", err)
	}
	tx, err := s.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return st, fmt.Errorf("store: stats: %w", err)
	}
	defer tx.Rollback()
	if st.UsedBytes, err = usedBytes(ctx, tx); err != nil {
		return st, fmt.Errorf("store: stats: %w", err)
	}
	counts := []struct {
		dst *int64
		q   string
	}{
		{&st.Checkpoints, `SELECT count(*) FROM checkpoints`},
		// From the index of checkpoints with detail alone.
		{&st.SubtaskRows, `SELECT coalesce(sum(subtask_rows), 0) FROM checkpoints WHERE subtask_rows > 0`},
		{&st.AckSamples, `SELECT count(*) FROM ack_samples`},
		{&st.MetricSamples, `SELECT count(*) FROM metric_samples`},
		{&st.Gaps, `SELECT count(*) FROM gaps`},
		// The jobs with checkpoints are job_counts' (kept by triggers).
		{&st.Jobs, `SELECT count(*) FROM (SELECT cluster, job_id FROM jobs UNION SELECT cluster, job_id FROM job_counts)`},
	}
	for _, c := range counts {
		if err := tx.QueryRowContext(ctx, c.q).Scan(c.dst); err != nil {
			return st, fmt.Errorf("store: stats: %s: %w", c.q, err)
		}
	}
	p := &st.PrunedTotal
	if err := tx.QueryRowContext(ctx, `SELECT checkpoints, subtask_rows, ack_samples, metric_samples, gaps, freed_bytes
		FROM prune_totals`).Scan(&p.Checkpoints, &p.SubtaskRows, &p.AckSamples, &p.MetricSamples, &p.Gaps, &p.FreedBytes); err != nil {
		return st, fmt.Errorf("store: stats: prune totals: %w", err)
	}
	s.mu.Lock()
	if !s.lastPrune.IsZero() {
		st.LastPruneMs = s.lastPrune.UnixMilli()
	}
	if s.lastErr != nil {
		st.LastPruneError = s.lastErr.Error()
	}
	s.mu.Unlock()
	return st, nil
}

func (s *Store) fileBytes() (int64, error) {
	var total int64
	for _, p := range []string{s.path, s.path + "-wal"} {
		fi, err := os.Stat(p)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return 0, err
		}
		total += fi.Size()
	}
	return total, nil
}

// usedBytes is the size of the pages that hold data; free pages waiting for
// incremental_vacuum do not count.
func usedBytes(ctx context.Context, q queryer) (int64, error) {
	var pages, free, size int64
	if err := q.QueryRowContext(ctx, `SELECT p.page_count, f.freelist_count, s.page_size
		FROM pragma_page_count() p, pragma_freelist_count() f, pragma_page_size() s`).Scan(&pages, &free, &size); err != nil {
		return 0, fmt.Errorf("used bytes: %w", err)
	}
	return (pages - free) * size, nil
}

// StartRetention applies retention every interval until ctx is done or the
// store is closed, the first time after the interval or 10 s, whichever is
// shorter: at start the app's first reads come first (over 2 M checkpoints a
// pass took a core for 0.4 s, while the window drew its first timeline).
// Outcomes show in Stats.
func (s *Store) StartRetention(ctx context.Context, every time.Duration) {
	if every <= 0 {
		every = time.Minute
	}
	ctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(s.bgCtx, cancel)
	s.bg.Add(1)
	go func() {
		defer s.bg.Done()
		defer stop()
		defer cancel()
		first := time.NewTimer(min(every, 10*time.Second))
		defer first.Stop()
		select {
		case <-ctx.Done():
			return
		case <-first.C:
		}
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			_, err := s.ApplyRetention(ctx)
			if ctx.Err() != nil {
				return
			}
			s.mu.Lock()
			s.lastPrune, s.lastErr = s.now(), err
			s.mu.Unlock()
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
}

// ApplyRetention enforces all limits now: age, then count per job, then the
// size cap (subtask detail of the oldest checkpoints first, then whole
// checkpoints oldest first), then returns free pages to the file system.
// Samples and gaps older than what is kept go too. It works in short
// transactions, so reads proceed throughout and writes wait only briefly.
func (s *Store) ApplyRetention(ctx context.Context) (PruneResult, error) {
	s.pruneMu.Lock()
	defer s.pruneMu.Unlock()
	r := s.Retention()
	var res PruneResult
	before, err := s.fileBytes()
	if err != nil {
		return res, fmt.Errorf("store: retention: %w", err)
	}

	if r.MaxAge > 0 {
		if err := s.pruneAge(ctx, s.now().Add(-r.MaxAge).UnixMilli(), &res); err != nil {
			return res, fmt.Errorf("store: retention: age: %w", err)
		}
	}
	if r.MaxCheckpointsPerJob > 0 {
		if err := s.pruneCount(ctx, r.MaxCheckpointsPerJob, &res); err != nil {
			return res, fmt.Errorf("store: retention: count: %w", err)
		}
	}
	if err := s.pruneBelowFloors(ctx, nil, &res); err != nil {
		return res, fmt.Errorf("store: retention: samples: %w", err)
	}
	if r.MaxBytes > 0 {
		if err := s.pruneSize(ctx, r.MaxBytes, &res); err != nil {
			return res, fmt.Errorf("store: retention: size: %w", err)
		}
	}
	if res.MetricSamples > 0 {
		if _, err := s.w.ExecContext(ctx, `DELETE FROM metric_series WHERE NOT EXISTS
			(SELECT 1 FROM metric_samples m WHERE m.series_id = metric_series.series_id)`); err != nil {
			return res, fmt.Errorf("store: retention: empty series: %w", err)
		}
	}
	if res.rows() == 0 {
		return res, nil // nothing removed: leave the files alone
	}
	if err := s.vacuum(ctx); err != nil {
		return res, fmt.Errorf("store: retention: %w", err)
	}
	after, err := s.fileBytes()
	if err != nil {
		return res, fmt.Errorf("store: retention: %w", err)
	}
	if freed := before - after; freed > 0 {
		res.FreedBytes = freed
		if _, err := s.w.ExecContext(ctx, `UPDATE prune_totals SET freed_bytes = freed_bytes + ?`, freed); err != nil {
			return res, fmt.Errorf("store: retention: totals: %w", err)
		}
	}
	return res, nil
}

// vacuum hands free pages back with incremental_vacuum, then checkpoints the
// WAL so the main file actually shrinks. It never waits for readers: if one
// holds the WAL, the truncation happens at a later checkpoint.
func (s *Store) vacuum(ctx context.Context) error {
	conn, err := s.w.Conn(ctx)
	if err != nil {
		return fmt.Errorf("vacuum: %w", err)
	}
	defer conn.Close()
	for prev := int64(-1); ; {
		var free int64
		if err := conn.QueryRowContext(ctx, "PRAGMA freelist_count").Scan(&free); err != nil {
			return fmt.Errorf("vacuum: freelist_count: %w", err)
		}
		if free == 0 || free == prev { // done, or auto_vacuum is off for this file
			break
		}
		prev = free
		if _, err := conn.ExecContext(ctx, fmt.Sprintf("PRAGMA incremental_vacuum(%d)", vacuumChunkPages)); err != nil {
			return fmt.Errorf("vacuum: incremental_vacuum: %w", err)
		}
	}
	if _, err := conn.ExecContext(ctx, "PRAGMA busy_timeout = 0"); err != nil {
		return fmt.Errorf("vacuum: %w", err)
	}
	var busy, logFrames, done int64
	cpErr := conn.QueryRowContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)").Scan(&busy, &logFrames, &done)
	if _, err := conn.ExecContext(context.WithoutCancel(ctx), fmt.Sprintf("PRAGMA busy_timeout = %d", busyTimeoutMs)); err != nil {
		conn.Raw(func(any) error { return driver.ErrBadConn }) // discard a connection without its timeout
		return fmt.Errorf("vacuum: restore busy_timeout: %w", err)
	}
	if cpErr != nil {
		return fmt.Errorf("vacuum: wal_checkpoint: %w", cpErr)
	}
	return nil
}

// sqlDeleteChunkPacks removes the subtask packs of the checkpoints whose pks
// the JSON array ?1 lists.
const sqlDeleteChunkPacks = `DELETE FROM subtask_packs WHERE id IN (SELECT p.id FROM json_each(?1) v
	JOIN subtask_packs p ON p.id BETWEEN v.value << 16 AND (v.value << 16) | 65535)`

// victim is a checkpoint chosen by a retention step.
type victim struct {
	pk          int64
	cluster     string
	job         string
	pipeline    int
	id          int64
	triggerMs   int64
	subtaskRows int64
}

// sqlNotReadOnly keeps opened captures (and the sample) out of the age and
// count limits: the user opened them on purpose, whatever their age, and
// removes them when done. Only the size cap may trim them, as a last resort.
const sqlNotReadOnly = `cluster NOT IN (SELECT name FROM clusters WHERE read_only = 1)`

const sqlVictimCols = `SELECT pk, cluster, job_id, pipeline, id, trigger_ms, subtask_rows FROM checkpoints `

// chunkMode says what a retention chunk removes from its victims.
type chunkMode int

const (
	removeWhole  chunkMode = iota // checkpoint, tasks, subtasks; raises floors
	removeDetail                  // subtask rows only; summary and per-vertex rows stay
	removePlain                   // like removeWhole, but no floors and no prune totals (cluster deletion)
)

// pruneCheckpointChunk selects victims with sel (which must end in LIMIT ?;
// limit is appended to args) and removes them in one short transaction. It
// returns how many checkpoints it handled and the jobs whose floors moved.
func (s *Store) pruneCheckpointChunk(ctx context.Context, sel string, args []any, limit int, mode chunkMode,
	res *PruneResult) (int, map[jobKey]struct{}, error) {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return 0, nil, err
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, sel, append(args, limit)...)
	if err != nil {
		return 0, nil, fmt.Errorf("select: %w", err)
	}
	var victims []victim
	var rowsSoFar int64
	for rows.Next() {
		var v victim
		if err := rows.Scan(&v.pk, &v.cluster, &v.job, &v.pipeline, &v.id, &v.triggerMs, &v.subtaskRows); err != nil {
			rows.Close()
			return 0, nil, fmt.Errorf("select: %w", err)
		}
		// Stop at about pruneChunkRows subtask rows; always take at least one.
		if len(victims) > 0 && rowsSoFar+v.subtaskRows > pruneChunkRows {
			break
		}
		victims = append(victims, v)
		rowsSoFar += v.subtaskRows
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, nil, fmt.Errorf("select: %w", err)
	}
	if len(victims) == 0 {
		return 0, nil, nil
	}

	var got PruneResult
	// One statement per table for the whole chunk: a statement per
	// checkpoint and table made trimming 2,000,000 checkpoints' detail six
	// million round trips to SQLite, most of retention's time.
	pks := make([]string, len(victims))
	for i, v := range victims {
		pks[i] = strconv.FormatInt(v.pk, 10)
		got.SubtaskRows += v.subtaskRows
	}
	list := "[" + strings.Join(pks, ",") + "]" // the chunk's checkpoints, as json_each reads them
	stmts := []string{sqlDeleteChunkPacks}
	if mode == removeDetail {
		stmts = append(stmts, `UPDATE task_stats SET subtask_rows = -1 WHERE ckpt IN (SELECT value FROM json_each(?))`,
			`UPDATE checkpoints SET subtask_rows = 0, detail_trimmed = 1 WHERE pk IN (SELECT value FROM json_each(?))`)
	} else {
		stmts = append(stmts, `DELETE FROM task_stats WHERE ckpt IN (SELECT value FROM json_each(?))`,
			`DELETE FROM checkpoints WHERE pk IN (SELECT value FROM json_each(?))`)
	}
	exec := context.WithoutCancel(ctx)
	var drops exportDrops
	if mode != removeDetail {
		if drops, err = s.forgetExports(exec, tx, list, mode == removeWhole); err != nil {
			return 0, nil, err
		}
	}
	for _, q := range stmts {
		if _, err := tx.ExecContext(exec, q, list); err != nil {
			v := victims[0]
			return 0, nil, fmt.Errorf("remove %d checkpoints from %s/%s/%d/%d on: %w", len(victims), v.cluster, v.job, v.pipeline, v.id, err)
		}
	}
	if mode != removeDetail {
		got.Checkpoints = int64(len(victims))
	}

	var moved map[jobKey]struct{}
	if mode == removeWhole {
		moved = map[jobKey]struct{}{}
		type fk struct {
			jobKey
			pipeline int
		}
		floors := map[fk]victim{}
		for _, v := range victims {
			k := fk{jobKey{v.cluster, v.job}, v.pipeline}
			f, ok := floors[k]
			if !ok {
				f = v
			}
			f.triggerMs, f.id = max(f.triggerMs, v.triggerMs), max(f.id, v.id)
			floors[k] = f
			moved[k.jobKey] = struct{}{}
		}
		for k, f := range floors {
			if _, err := tx.ExecContext(ctx, `INSERT INTO floors (cluster, job_id, pipeline, floor_ms, floor_id)
				VALUES (?, ?, ?, ?, ?) ON CONFLICT DO UPDATE SET floor_ms = max(floor_ms, excluded.floor_ms),
				floor_id = max(floor_id, excluded.floor_id)`, k.cluster, k.job, k.pipeline, f.triggerMs, f.id); err != nil {
				return 0, nil, fmt.Errorf("floors: %w", err)
			}
		}
	}
	if mode != removePlain {
		if err := addTotals(ctx, tx, got); err != nil {
			return 0, nil, err
		}
	}
	if s.hookInPruneTx != nil {
		s.hookInPruneTx()
	}
	if err := tx.Commit(); err != nil {
		return 0, nil, fmt.Errorf("commit: %w", err)
	}
	s.tellExportDrops(drops)
	if res != nil {
		res.add(got)
	}
	return len(victims), moved, nil
}

func addTotals(ctx context.Context, tx *sql.Tx, p PruneResult) error {
	if p.rows() == 0 {
		return nil
	}
	_, err := tx.ExecContext(ctx, `UPDATE prune_totals SET checkpoints = checkpoints + ?, subtask_rows = subtask_rows + ?,
		ack_samples = ack_samples + ?, metric_samples = metric_samples + ?, gaps = gaps + ?`,
		p.Checkpoints, p.SubtaskRows, p.AckSamples, p.MetricSamples, p.Gaps)
	if err != nil {
		return fmt.Errorf("totals: %w", err)
	}
	return nil
}

type sampleKind int

const (
	kindAck sampleKind = iota
	kindMetric
	kindGap
)

// sampleTables names each sample table and its primary key, for deletes in
// chunks (this SQLite build has no DELETE … LIMIT).
var sampleTables = map[sampleKind]struct{ table, key string }{
	kindAck:    {"ack_samples", "cluster, job_id, pipeline, checkpoint_id, time_ms"},
	kindMetric: {"metric_samples", "series_id, time_ms"},
	kindGap:    {"gaps", "cluster, job_id, pipeline, from_id, to_id"},
}

// pruneRows deletes the rows of kind's table matching cond in short
// transactions of at most pruneChunkSamples rows. With res nil the rows are
// not counted as retention (cluster deletion).
func (s *Store) pruneRows(ctx context.Context, kind sampleKind, cond string, args []any, res *PruneResult) error {
	t := sampleTables[kind]
	// Most calls find nothing (each chunk of a size trim asks for every job
	// it touched): a read says so without a write transaction.
	var found bool
	if err := s.w.QueryRowContext(ctx, fmt.Sprintf("SELECT EXISTS (SELECT 1 FROM %s WHERE %s)", t.table, cond), args...).Scan(&found); err != nil {
		return fmt.Errorf("%s: %w", t.table, err)
	}
	if !found {
		return nil
	}
	q := fmt.Sprintf("DELETE FROM %s WHERE (%s) IN (SELECT %s FROM %s WHERE %s LIMIT ?)", t.table, t.key, t.key, t.table, cond)
	for {
		tx, err := s.w.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		r, err := tx.ExecContext(ctx, q, append(args, pruneChunkSamples)...)
		if err != nil {
			tx.Rollback()
			return fmt.Errorf("%s: %w", t.table, err)
		}
		n, err := r.RowsAffected()
		if err != nil {
			tx.Rollback()
			return fmt.Errorf("%s: %w", t.table, err)
		}
		var got PruneResult
		switch kind {
		case kindAck:
			got.AckSamples = n
		case kindMetric:
			got.MetricSamples = n
		case kindGap:
			got.Gaps = n
		}
		if res != nil {
			if err := addTotals(ctx, tx, got); err != nil {
				tx.Rollback()
				return err
			}
		}
		if s.hookInPruneTx != nil && n > 0 {
			s.hookInPruneTx()
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("%s: commit: %w", t.table, err)
		}
		if res != nil {
			res.add(got)
		}
		if n < pruneChunkSamples {
			return nil
		}
	}
}

func (s *Store) pruneAge(ctx context.Context, cutoffMs int64, res *PruneResult) error {
	for {
		n, _, err := s.pruneCheckpointChunk(ctx, sqlVictimCols+`WHERE trigger_ms < ? AND `+sqlNotReadOnly+` ORDER BY trigger_ms LIMIT ?`,
			[]any{cutoffMs}, pruneChunkCheckpoints, removeWhole, res)
		if err != nil {
			return err
		}
		if n == 0 {
			break
		}
	}
	return s.pruneSamplesBefore(ctx, cutoffMs, res)
}

type jobKey struct{ cluster, job string }

func (s *Store) pruneCount(ctx context.Context, limit int, res *PruneResult) error {
	rows, err := s.w.QueryContext(ctx, `SELECT cluster, job_id, count(*) FROM checkpoints
		WHERE `+sqlNotReadOnly+` GROUP BY cluster, job_id HAVING count(*) > ?`, limit)
	if err != nil {
		return err
	}
	type over struct {
		jobKey
		excess int
	}
	var jobs []over
	for rows.Next() {
		var o over
		var n int
		if err := rows.Scan(&o.cluster, &o.job, &n); err != nil {
			rows.Close()
			return err
		}
		o.excess = n - limit
		jobs = append(jobs, o)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, o := range jobs {
		for o.excess > 0 {
			n, _, err := s.pruneCheckpointChunk(ctx,
				sqlVictimCols+`WHERE cluster = ? AND job_id = ? ORDER BY trigger_ms, id, pipeline LIMIT ?`,
				[]any{o.cluster, o.job}, min(o.excess, pruneChunkCheckpoints), removeWhole, res)
			if err != nil {
				return fmt.Errorf("%s/%s: %w", o.cluster, o.job, err)
			}
			if n == 0 {
				break
			}
			o.excess -= n
		}
	}
	return nil
}

// pruneBelowFloors drops ack samples and gaps at or below the newest removed
// checkpoint of their pipeline, and metric samples older than the job's
// oldest kept checkpoint, for the given jobs (nil = every job with a floor).
func (s *Store) pruneBelowFloors(ctx context.Context, only map[jobKey]struct{}, res *PruneResult) error {
	rows, err := s.w.QueryContext(ctx, `SELECT cluster, job_id, pipeline, floor_ms, floor_id FROM floors`)
	if err != nil {
		return err
	}
	type floor struct {
		jobKey
		pipeline int
		ms, id   int64
	}
	var floors []floor
	for rows.Next() {
		var f floor
		if err := rows.Scan(&f.cluster, &f.job, &f.pipeline, &f.ms, &f.id); err != nil {
			rows.Close()
			return err
		}
		if only != nil {
			if _, ok := only[f.jobKey]; !ok {
				continue
			}
		}
		floors = append(floors, f)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}

	newestFloor := map[jobKey]int64{}
	for _, f := range floors {
		args := []any{f.cluster, f.job, f.pipeline, f.id}
		if err := s.pruneRows(ctx, kindAck,
			`cluster = ? AND job_id = ? AND pipeline = ? AND checkpoint_id <= ?`, args, res); err != nil {
			return err
		}
		if err := s.pruneRows(ctx, kindGap,
			`cluster = ? AND job_id = ? AND pipeline = ? AND to_id <= ?`, args, res); err != nil {
			return err
		}
		newestFloor[f.jobKey] = max(newestFloor[f.jobKey], f.ms)
	}
	for k, floorMs := range newestFloor {
		var oldest sql.NullInt64
		if err := s.w.QueryRowContext(ctx, `SELECT min(trigger_ms) FROM checkpoints WHERE cluster = ? AND job_id = ?`,
			k.cluster, k.job).Scan(&oldest); err != nil {
			return err
		}
		cutoff := floorMs + 1 // nothing kept: everything up to the newest removed checkpoint goes
		if oldest.Valid {
			cutoff = oldest.Int64
		}
		if err := s.pruneRows(ctx, kindMetric, `series_id IN
			(SELECT series_id FROM metric_series WHERE cluster = ? AND job_id = ?) AND time_ms < ?`,
			[]any{k.cluster, k.job, cutoff}, res); err != nil {
			return err
		}
	}
	return nil
}

// pruneSize trims until the used size is at most 90% of maxBytes, once it
// exceeds maxBytes; the slack keeps every later write from triggering a trim.
func (s *Store) pruneSize(ctx context.Context, maxBytes int64, res *PruneResult) error {
	used, err := usedBytes(ctx, s.w)
	if err != nil {
		return err
	}
	if used <= maxBytes {
		return nil
	}
	target := maxBytes - maxBytes/10

	// 1. Subtask detail, oldest checkpoints first.
	for used > target {
		n, _, err := s.pruneCheckpointChunk(ctx, sqlVictimCols+`WHERE subtask_rows > 0 ORDER BY trigger_ms LIMIT ?`,
			nil, pruneChunkCheckpoints, removeDetail, res)
		if err != nil {
			return fmt.Errorf("detail: %w", err)
		}
		if n == 0 {
			break
		}
		if used, err = usedBytes(ctx, s.w); err != nil {
			return err
		}
	}
	// 2. Whole checkpoints, oldest first, with their samples and gaps: those
	// every few chunks, for the jobs the chunks touched (with many jobs
	// interleaved, each chunk touches most of them, and asking after each
	// was a third of the trim). A crash in between leaves nothing wrong: the
	// next pass starts with every job's floors.
	moved := map[jobKey]struct{}{}
	for chunks := 1; used > target; chunks++ {
		n, m, err := s.pruneCheckpointChunk(ctx, sqlVictimCols+`ORDER BY trigger_ms LIMIT ?`,
			nil, pruneChunkCheckpoints, removeWhole, res)
		if err != nil {
			return fmt.Errorf("checkpoints: %w", err)
		}
		if n == 0 {
			break
		}
		maps.Copy(moved, m)
		if chunks%floorChunks == 0 {
			if err := s.pruneBelowFloors(ctx, moved, res); err != nil {
				return fmt.Errorf("samples: %w", err)
			}
			clear(moved)
		}
		if used, err = usedBytes(ctx, s.w); err != nil {
			return err
		}
	}
	if len(moved) > 0 {
		if err := s.pruneBelowFloors(ctx, moved, res); err != nil {
			return fmt.Errorf("samples: %w", err)
		}
	}
	// 3. No checkpoints left: samples alone, oldest first, an eighth of their
	// time span per step.
	for used > target {
		var lo, hi sql.NullInt64
		if err := s.w.QueryRowContext(ctx, `SELECT min(t), max(t) FROM (
			SELECT (SELECT min(time_ms) FROM metric_samples m WHERE m.series_id = s.series_id) AS t FROM metric_series s
			UNION ALL SELECT (SELECT max(time_ms) FROM metric_samples m WHERE m.series_id = s.series_id) FROM metric_series s
			UNION ALL SELECT min(time_ms) FROM ack_samples UNION ALL SELECT max(time_ms) FROM ack_samples
			UNION ALL SELECT min(detected_ms) FROM gaps UNION ALL SELECT max(detected_ms) FROM gaps)`).Scan(&lo, &hi); err != nil {
			return fmt.Errorf("sample span: %w", err)
		}
		if !lo.Valid {
			break // nothing left to remove
		}
		cutoff := lo.Int64 + max(1, (hi.Int64-lo.Int64)/8)
		if err := s.pruneSamplesBefore(ctx, cutoff, res); err != nil {
			return fmt.Errorf("samples: %w", err)
		}
		if used, err = usedBytes(ctx, s.w); err != nil {
			return err
		}
	}
	return nil
}

// pruneSamplesBefore drops ack and metric samples older than cutoffMs and
// gaps detected before it, of every polled job.
func (s *Store) pruneSamplesBefore(ctx context.Context, cutoffMs int64, res *PruneResult) error {
	if err := s.pruneRows(ctx, kindAck, `time_ms < ? AND `+sqlNotReadOnly, []any{cutoffMs}, res); err != nil {
		return err
	}
	if err := s.pruneRows(ctx, kindMetric,
		`series_id IN (SELECT series_id FROM metric_series WHERE `+sqlNotReadOnly+`) AND time_ms < ?`, []any{cutoffMs}, res); err != nil {
		return err
	}
	return s.pruneRows(ctx, kindGap, `detected_ms < ? AND `+sqlNotReadOnly, []any{cutoffMs}, res)
}
