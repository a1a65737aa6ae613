package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"

	"checkpoint-explorer/backend/model"
)

// Writer puts records inside one transaction opened by Store.Bulk.
type Writer interface {
	PutCluster(model.Cluster) error
	PutJob(model.Job) error
	PutCheckpoint(*model.Checkpoint) error
	PutAckSample(model.AckSample) error
	PutMetricSample(model.MetricSample) error
	PutGap(model.Gap) error
	PutReconciliation(model.Reconciliation) error
	PutJobConfig(model.JobConfig) error
}

// PutCluster stores the cluster's public form: credentials never reach disk.
func (s *Store) PutCluster(ctx context.Context, c model.Cluster) error {
	return s.write(ctx, "put cluster", func(w *txWriter) error { return w.PutCluster(c) })
}

// PutJob inserts or replaces a job. A job without Vertices (or Edges) keeps
// the graph already stored, so a state-only update does not erase it.
func (s *Store) PutJob(ctx context.Context, j model.Job) error {
	return s.write(ctx, "put job", func(w *txWriter) error { return w.PutJob(j) })
}

// PutCheckpoints writes the whole batch in one transaction. If any checkpoint
// is invalid nothing is written and the error names it.
//
// Merge rule for a checkpoint already stored: the incoming one replaces it
// unless the stored one is final (COMPLETED/FAILED) and the incoming one is
// not; an incoming checkpoint without Tasks keeps the stored per-vertex and
// per-subtask rows.
func (s *Store) PutCheckpoints(ctx context.Context, cps []model.Checkpoint) error {
	if len(cps) == 0 {
		return nil
	}
	for i := range cps {
		if err := validateCheckpoint(&cps[i]); err != nil {
			return fmt.Errorf("store: put checkpoints: %w", err)
		}
	}
	return s.write(ctx, "put checkpoints", func(w *txWriter) error {
		for i := range cps {
			if err := w.putCheckpoint(&cps[i]); err != nil {
				return err
			}
		}
		return nil
	})
}

// PutAckSamples is idempotent on (cluster, job, pipeline, checkpoint, time).
func (s *Store) PutAckSamples(ctx context.Context, samples []model.AckSample) error {
	return putAll(ctx, s, "put ack samples", samples, (*txWriter).PutAckSample)
}

// PutMetricSamples is idempotent on (cluster, job, vertex, target, subtask,
// metric, agg, time); a repeated sample replaces the value.
func (s *Store) PutMetricSamples(ctx context.Context, samples []model.MetricSample) error {
	return putAll(ctx, s, "put metric samples", samples, (*txWriter).PutMetricSample)
}

// PutGaps is idempotent on (cluster, job, pipeline, from, to). Gaps are kept
// as recorded; Gaps() leaves out checkpoints stored later inside a gap.
func (s *Store) PutGaps(ctx context.Context, gaps []model.Gap) error {
	return putAll(ctx, s, "put gaps", gaps, (*txWriter).PutGap)
}

// putAll writes records with put in one transaction; an empty batch opens none.
func putAll[T any](ctx context.Context, s *Store, what string, records []T, put func(*txWriter, T) error) error {
	if len(records) == 0 {
		return nil
	}
	return s.write(ctx, what, func(w *txWriter) error {
		for _, r := range records {
			if err := put(w, r); err != nil {
				return err
			}
		}
		return nil
	})
}

// PutReconciliation keeps a job's latest reconciliation, replacing an older
// one; a reconciliation older than the stored one is ignored (an imported
// capture must not roll back what the collector found since).
func (s *Store) PutReconciliation(ctx context.Context, r model.Reconciliation) error {
	return s.write(ctx, "put reconciliation", func(w *txWriter) error { return w.PutReconciliation(r) })
}

func (w *txWriter) PutReconciliation(r model.Reconciliation) error {
	if r.Cluster == "" || r.JobID == "" {
		return fmt.Errorf("reconciliation of job %q on cluster %q: cluster and job must not be empty", r.JobID, r.Cluster)
	}
	data, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("reconciliation of %s/%s: %w", r.Cluster, r.JobID, err)
	}
	if _, err := w.execStmt(sqlPutReconciliation, r.Cluster, r.JobID, r.AtMs, string(data)); err != nil {
		return fmt.Errorf("reconciliation of %s/%s: %w", r.Cluster, r.JobID, err)
	}
	// A negative count (a bad answer) says nothing of restores, and must not cost the
	// reconciliation.
	if r.Engine != nil && r.Engine.Restored >= 0 && r.AtMs > 0 {
		rc := model.RestoreCount{Cluster: r.Cluster, JobID: r.JobID, AtMs: r.AtMs, Restored: r.Engine.Restored, LastRestoreMs: r.Engine.LastRestoreMs}
		if err := w.PutRestoreCount(rc); err != nil {
			return err
		}
	}
	return w.tick()
}

// MaxRestoreCounts is how many restore counts a job keeps; the oldest beyond
// it go (a job in a restart loop must not grow the cache without bound).
const MaxRestoreCounts = 1000

// PutRestoreCount keeps a job's restore count as a poll saw it, unless the
// newest kept before it says the same (count and last restore time).
func (s *Store) PutRestoreCount(ctx context.Context, rc model.RestoreCount) error {
	return s.write(ctx, "put restore count", func(w *txWriter) error { return w.PutRestoreCount(rc) })
}

func (w *txWriter) PutRestoreCount(rc model.RestoreCount) error {
	if rc.Cluster == "" || rc.JobID == "" || rc.AtMs <= 0 || rc.Restored < 0 {
		return fmt.Errorf("restore count %d of job %q on cluster %q at %d: cluster, job and a time must be set, the count 0 or more",
			rc.Restored, rc.JobID, rc.Cluster, rc.AtMs)
	}
	res, err := w.execStmt(sqlPutRestoreCount, rc.Cluster, rc.JobID, rc.AtMs, rc.Restored, rc.LastRestoreMs)
	if err != nil {
		return fmt.Errorf("restore count of %s/%s: %w", rc.Cluster, rc.JobID, err)
	}
	if n, _ := res.RowsAffected(); n > 0 {
		if _, err := w.execStmt(sqlTrimRestoreCounts, rc.Cluster, rc.JobID, MaxRestoreCounts); err != nil {
			return fmt.Errorf("restore counts of %s/%s: %w", rc.Cluster, rc.JobID, err)
		}
	}
	return nil
}

// MaxJobConfigs is how many configurations a job's history keeps; the
// oldest beyond it are removed (a job whose settings change on every read
// must not grow the cache without bound).
const MaxJobConfigs = 50

// PutJobConfig keeps a job's configuration: a new history entry when its
// settings differ from the entry in effect when it was seen (the newest at or
// before SeenMs: for what the collector reads now, the latest), nothing when
// they are the same (model.JobConfig.SameSettings) or when it is a partial
// read that contradicts nothing of that entry; a read that fills in a partial
// entry (model.JobConfig.FilledBy) takes its place under its first sighting.
// A configuration from a capture, older than the newest, that says what the
// next entry says moves that entry's first sighting back instead: importing a
// history twice, or into a cache that saw part of it, adds nothing.
func (s *Store) PutJobConfig(ctx context.Context, c model.JobConfig) error {
	return s.write(ctx, "put job config", func(w *txWriter) error { return w.PutJobConfig(c) })
}

func (w *txWriter) PutJobConfig(c model.JobConfig) error {
	if c.Cluster == "" || c.JobID == "" {
		return fmt.Errorf("configuration of job %q on cluster %q: cluster and job must not be empty", c.JobID, c.Cluster)
	}
	if c.SeenMs < 0 {
		return fmt.Errorf("configuration of %s/%s: seen_ms %d is negative", c.Cluster, c.JobID, c.SeenMs)
	}
	fail := func(err error) error { return fmt.Errorf("configuration of %s/%s: %w", c.Cluster, c.JobID, err) }
	// neighbour reads the entry q finds (the one before, or the one after).
	neighbour := func(q string) (int64, *model.JobConfig, error) {
		st, err := w.stmt(q)
		if err != nil {
			return 0, nil, err
		}
		var pk int64
		var data string
		switch err := st.QueryRowContext(w.exec, c.Cluster, c.JobID, c.SeenMs).Scan(&pk, &data); {
		case errors.Is(err, sql.ErrNoRows):
			return 0, nil, nil
		case err != nil:
			return 0, nil, err
		}
		var jc model.JobConfig
		if err := json.Unmarshal([]byte(data), &jc); err != nil {
			return 0, nil, fmt.Errorf("a stored entry is unreadable: %w", err)
		}
		return pk, &jc, nil
	}
	// put rewrites the entry pk as entry, first seen at seenMs.
	put := func(pk int64, entry model.JobConfig, seenMs int64) error {
		entry.SeenMs = seenMs
		data, err := json.Marshal(entry)
		if err != nil {
			return fail(err)
		}
		if _, err := w.execStmt(sqlMoveJobConfig, seenMs, string(data), pk); err != nil {
			return fail(err)
		}
		return w.tick()
	}
	prevPK, prev, err := neighbour(sqlJobConfigBefore)
	if err != nil {
		return fail(err)
	}
	if prev != nil && prev.FilledBy(c) {
		return put(prevPK, c, prev.SeenMs)
	}
	if prev != nil && prev.SettledBy(c) {
		return nil
	}
	data, err := json.Marshal(c)
	if err != nil {
		return fail(err)
	}
	nextPK, next, err := neighbour(sqlJobConfigAfter)
	if err != nil {
		return fail(err)
	}
	switch {
	case next != nil && next.FilledBy(c):
		return put(nextPK, c, c.SeenMs)
	case next != nil && next.SettledBy(c):
		return put(nextPK, *next, c.SeenMs)
	}
	if _, err := w.execStmt(sqlInsertJobConfig, c.Cluster, c.JobID, c.SeenMs, string(data)); err != nil {
		return fail(err)
	}
	if _, err := w.execStmt(sqlTrimJobConfigs, c.Cluster, c.JobID, MaxJobConfigs); err != nil {
		return fail(fmt.Errorf("trim history: %w", err))
	}
	return w.tick()
}

// MarkDetailsMissed marks the final checkpoints of a job's pipeline below
// belowID that were stored as summaries only and carry no mark yet as
// DetailMissed: the engine no longer lists them, so their details cannot come
// (the app stopped while they waited for them). It returns how many it marked.
func (s *Store) MarkDetailsMissed(ctx context.Context, cluster, jobID string, pipeline int, belowID int64) (int, error) {
	var n int64
	err := s.write(ctx, "mark details missed", func(w *txWriter) error {
		res, err := w.tx.ExecContext(w.exec, `UPDATE checkpoints SET detail_trimmed = ?
			WHERE cluster = ? AND job_id = ? AND pipeline = ? AND id < ? AND has_tasks = 0 AND detail_trimmed = ?
			AND status IN (?, ?)`, lossMissed, cluster, jobID, pipeline, belowID, lossNone,
			string(model.StatusCompleted), string(model.StatusFailed))
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	return int(n), err
}

// Bulk runs fn inside one transaction. If fn (or a write) fails, everything
// is rolled back and the store is exactly as before. The Writer reuses
// prepared statements and holds nothing but one record at a time, so imports
// of millions of rows run in bounded memory. The Writer must not be used
// after fn returns or from other goroutines.
func (s *Store) Bulk(ctx context.Context, fn func(w Writer) error) error {
	return s.write(ctx, "bulk", func(w *txWriter) error { return fn(w) })
}

func (s *Store) write(ctx context.Context, what string, fn func(w *txWriter) error) error {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store: %s: begin: %w", what, err)
	}
	w := newTxWriter(ctx, tx)
	w.shared = s.writeStmt
	err = fn(w)
	w.close()
	if err != nil {
		// On SQLITE_FULL SQLite may already have rolled the whole
		// transaction back itself; then Rollback has nothing left to do.
		if rbErr := tx.Rollback(); rbErr != nil && !errors.Is(rbErr, sql.ErrTxDone) && !isDiskFull(err) {
			err = errors.Join(err, fmt.Errorf("rollback: %w", rbErr))
		}
		if ctxErr := ctx.Err(); ctxErr != nil && !errors.Is(err, ctxErr) {
			// database/sql rolled back on cancellation; say so rather than "tx done".
			return fmt.Errorf("store: %s: %w: %w", what, ctxErr, err)
		}
		return s.writeErr(what, err)
	}
	if err := tx.Commit(); err != nil {
		return s.writeErr(what+": commit", err)
	}
	return nil
}

// writeErr names a failed write; one that ran out of space wraps ErrDiskFull.
func (s *Store) writeErr(what string, err error) error {
	if isDiskFull(err) {
		return fmt.Errorf("store: %s: %w (%s): %w", what, ErrDiskFull, s.path, err)
	}
	return fmt.Errorf("store: %s: %w", what, err)
}

// Statement texts of the write path, prepared once per transaction.
const (
	sqlFindCheckpoint = `SELECT pk, status, has_tasks FROM checkpoints
		WHERE cluster = ? AND job_id = ? AND pipeline = ? AND id = ?`
	sqlInsertCheckpoint = `INSERT INTO checkpoints (
		cluster, job_id, pipeline, id, kind, status, trigger_ms, latest_ack_ms, completion_ms, failure_ms,
		end_to_end_ms, finalize_ms, state_size, checkpointed_size, processed_data, persisted_data, state_blobs,
		num_subtasks, num_acknowledged, failure_message, external_path, has_tasks, task_rows, subtask_rows,
		max_start_delay_ms, max_alignment_ms, max_sync_ms, max_async_ms, detail_trimmed,
		source, failure_cause, declined)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	// sqlUpdateSummary replaces the summary and keeps the detail bookkeeping;
	// a summary that says its details were lost marks it (detail_trimmed).
	// What the JobManager log added (finalize, completion, cause, decline)
	// stays when the engine's API, which lacks them, sends the summary again.
	sqlUpdateSummary = `UPDATE checkpoints SET
		kind = ?, status = ?, trigger_ms = ?, latest_ack_ms = ?, completion_ms = max(completion_ms, ?), failure_ms = ?,
		end_to_end_ms = ?, finalize_ms = coalesce(?, finalize_ms), state_size = ?, checkpointed_size = ?,
		processed_data = ?, persisted_data = ?, state_blobs = ?, num_subtasks = ?, num_acknowledged = ?,
		failure_message = ?, external_path = ?, has_tasks = max(has_tasks, ?), detail_trimmed = max(detail_trimmed, ?),
		source = ?, failure_cause = CASE WHEN ? = '' THEN failure_cause ELSE ? END,
		declined = coalesce(?, declined)
		WHERE pk = ?`
	// sqlMergeLog adds what the JobManager log says to a checkpoint stored
	// from the engine's API, the same run's (trigger times agree).
	sqlMergeLog = `UPDATE checkpoints SET finalize_ms = coalesce(finalize_ms, ?),
		completion_ms = CASE WHEN completion_ms = 0 THEN ? ELSE completion_ms END,
		failure_cause = CASE WHEN failure_cause = '' THEN ? ELSE failure_cause END,
		declined = coalesce(declined, ?),
		failure_message = CASE WHEN failure_message = '' THEN ? ELSE failure_message END
		WHERE pk = ?`
	sqlFindLogMatch = `SELECT pk, trigger_ms, status, source FROM checkpoints WHERE cluster = ? AND job_id = ? AND pipeline = 0 AND id = ?`
	sqlUpdateDetail = `UPDATE checkpoints SET has_tasks = 1, task_rows = ?, subtask_rows = ?, detail_trimmed = ?,
		max_start_delay_ms = ?, max_alignment_ms = ?, max_sync_ms = ?, max_async_ms = ?
		WHERE pk = ?`
	sqlDeleteTasks = `DELETE FROM task_stats WHERE ckpt = ?`
	sqlDeletePacks = `DELETE FROM subtask_packs WHERE id BETWEEN ?1 << 16 AND (?1 << 16) | 65535`
	sqlInsertTask  = `INSERT INTO task_stats (ckpt, ord, vertex_id, latest_ack_ms, end_to_end_ms, state_size,
		checkpointed_size, processed_data, persisted_data, num_subtasks, num_acknowledged, subtask_rows)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	sqlInsertPack = `INSERT INTO subtask_packs (id, packed) VALUES (?, ?)`

	sqlPutCluster = `INSERT INTO clusters (name, engine, base_url, prometheus_url, auth_kind, ca_file,
		insecure_skip_verify, read_only) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (name) DO UPDATE SET engine = excluded.engine, base_url = excluded.base_url,
		prometheus_url = excluded.prometheus_url, auth_kind = excluded.auth_kind, ca_file = excluded.ca_file,
		insecure_skip_verify = excluded.insecure_skip_verify, read_only = excluded.read_only`
	// run_split is the user's (SplitRun): a new record takes it, a later
	// report of the job leaves it.
	sqlPutJob = `INSERT INTO jobs (cluster, job_id, name, engine, state, start_ms, end_ms, updated_ms, vertices, edges, run_split)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (cluster, job_id) DO UPDATE SET name = excluded.name, engine = excluded.engine,
		state = excluded.state, start_ms = excluded.start_ms, end_ms = excluded.end_ms,
		updated_ms = excluded.updated_ms, vertices = coalesce(excluded.vertices, vertices),
		edges = coalesce(excluded.edges, edges)`
	sqlPutAck = `INSERT INTO ack_samples (cluster, job_id, pipeline, checkpoint_id, time_ms, acknowledged, total)
		VALUES (?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT DO UPDATE SET acknowledged = excluded.acknowledged, total = excluded.total`
	sqlFindSeries = `SELECT series_id FROM metric_series
		WHERE cluster = ? AND job_id = ? AND vertex_id = ? AND target = ? AND subtask = ? AND metric = ? AND agg = ?`
	sqlInsertSeries = `INSERT INTO metric_series (cluster, job_id, vertex_id, target, subtask, metric, agg)
		VALUES (?, ?, ?, ?, ?, ?, ?)`
	sqlPutMetric = `INSERT INTO metric_samples (series_id, time_ms, value, source) VALUES (?, ?, ?, ?)
		ON CONFLICT DO UPDATE SET value = excluded.value, source = excluded.source`
	// A count is kept when the newest before it differs (or there is none);
	// the same poll again adds nothing.
	sqlPutRestoreCount = `INSERT OR IGNORE INTO restore_counts (cluster, job_id, at_ms, restored, last_restore_ms)
		SELECT ?1, ?2, ?3, ?4, ?5 WHERE NOT EXISTS (
			SELECT 1 FROM (SELECT restored, last_restore_ms FROM restore_counts
				WHERE cluster = ?1 AND job_id = ?2 AND at_ms <= ?3 ORDER BY at_ms DESC LIMIT 1)
			WHERE restored = ?4 AND last_restore_ms = ?5)`
	sqlTrimRestoreCounts = `DELETE FROM restore_counts WHERE cluster = ?1 AND job_id = ?2 AND at_ms <
		(SELECT at_ms FROM restore_counts WHERE cluster = ?1 AND job_id = ?2 ORDER BY at_ms DESC LIMIT 1 OFFSET ?3 - 1)`
	sqlPutReconciliation = `INSERT INTO reconciliations (cluster, job_id, at_ms, data) VALUES (?, ?, ?, ?)
		ON CONFLICT (cluster, job_id) DO UPDATE SET at_ms = excluded.at_ms, data = excluded.data
		WHERE excluded.at_ms >= reconciliations.at_ms`
	sqlLatestJobConfig = `SELECT json FROM job_configs WHERE cluster = ? AND job_id = ?
		ORDER BY seen_ms DESC, pk DESC LIMIT 1`
	sqlJobConfigBefore = `SELECT pk, json FROM job_configs WHERE cluster = ? AND job_id = ? AND seen_ms <= ?
		ORDER BY seen_ms DESC, pk DESC LIMIT 1`
	sqlJobConfigAfter = `SELECT pk, json FROM job_configs WHERE cluster = ? AND job_id = ? AND seen_ms > ?
		ORDER BY seen_ms, pk LIMIT 1`
	sqlMoveJobConfig   = `UPDATE job_configs SET seen_ms = ?, json = ? WHERE pk = ?`
	sqlInsertJobConfig = `INSERT INTO job_configs (cluster, job_id, seen_ms, json) VALUES (?, ?, ?, ?)`
	sqlTrimJobConfigs  = `DELETE FROM job_configs WHERE pk IN (SELECT pk FROM job_configs
		WHERE cluster = ?1 AND job_id = ?2 ORDER BY seen_ms DESC, pk DESC LIMIT -1 OFFSET ?3)`
	sqlPutGap = `INSERT INTO gaps (cluster, job_id, pipeline, from_id, to_id, detected_ms, reason)
		VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`
)

type seriesKey struct {
	cluster, job, vertex, target string
	subtask                      int
	metric, agg                  string
}

// txWriter implements Writer on one transaction with lazily prepared,
// reused statements.
type txWriter struct {
	ctx   context.Context // cancellation of the whole transaction
	exec  context.Context // no Done channel: mattn starts a goroutine per call otherwise
	tx    *sql.Tx
	stmts map[string]*sql.Stmt
	ops   int

	series map[seriesKey]int64
	packed []byte // reused buffer for a vertex's packed subtask stats

	// shared gives statements prepared once on the write connection (nil
	// for others); the transaction uses them without preparing again.
	shared func(q string) *sql.Stmt
}

func newTxWriter(ctx context.Context, tx *sql.Tx) *txWriter {
	return &txWriter{ctx: ctx, exec: context.WithoutCancel(ctx), tx: tx, stmts: map[string]*sql.Stmt{}}
}

func (w *txWriter) close() {
	for _, st := range w.stmts {
		st.Close()
	}
}

func (w *txWriter) stmt(q string) (*sql.Stmt, error) {
	if st, ok := w.stmts[q]; ok {
		return st, nil
	}
	var st *sql.Stmt
	if parent := w.sharedStmt(q); parent != nil {
		st = w.tx.StmtContext(w.exec, parent)
	} else {
		var err error
		if st, err = w.tx.PrepareContext(w.exec, q); err != nil {
			return nil, fmt.Errorf("prepare: %w", err)
		}
	}
	w.stmts[q] = st
	return st, nil
}

func (w *txWriter) sharedStmt(q string) *sql.Stmt {
	if w.shared == nil {
		return nil
	}
	return w.shared(q)
}

func (w *txWriter) execStmt(q string, args ...any) (sql.Result, error) {
	st, err := w.stmt(q)
	if err != nil {
		return nil, err
	}
	return st.ExecContext(w.exec, args...)
}

// tick checks for cancellation now and then; statements themselves run
// without a cancellable context for speed.
func (w *txWriter) tick() error {
	w.ops++
	if w.ops&255 == 0 {
		return w.ctx.Err()
	}
	return nil
}

func (w *txWriter) PutCluster(c model.Cluster) error {
	if c.Name == "" {
		return errors.New("cluster: empty name")
	}
	if !c.Engine.Valid() {
		return fmt.Errorf("cluster %q: unknown engine %q", c.Name, c.Engine)
	}
	p := c.Public()
	if _, err := w.execStmt(sqlPutCluster, p.Name, string(p.Engine), p.BaseURL, p.PrometheusURL,
		string(p.Auth.Kind), p.CAFile, p.InsecureSkipVerify, p.ReadOnly); err != nil {
		return fmt.Errorf("cluster %q: %w", c.Name, err)
	}
	return w.tick()
}

func (w *txWriter) PutJob(j model.Job) error {
	if j.Cluster == "" || j.ID == "" {
		return fmt.Errorf("job %q on cluster %q: cluster and id must not be empty", j.ID, j.Cluster)
	}
	var vertices, edges any // nil → NULL → keep what is stored
	if j.Vertices != nil {
		b, err := json.Marshal(j.Vertices)
		if err != nil {
			return fmt.Errorf("job %s/%s: encode vertices: %w", j.Cluster, j.ID, err)
		}
		vertices = string(b)
	}
	if j.Edges != nil {
		b, err := json.Marshal(j.Edges)
		if err != nil {
			return fmt.Errorf("job %s/%s: encode edges: %w", j.Cluster, j.ID, err)
		}
		edges = string(b)
	}
	if _, err := w.execStmt(sqlPutJob, j.Cluster, j.ID, j.Name, string(j.Engine), j.State,
		j.StartMs, j.EndMs, j.UpdatedMs, vertices, edges, j.Split); err != nil {
		return fmt.Errorf("job %s/%s: %w", j.Cluster, j.ID, err)
	}
	return w.tick()
}

func (w *txWriter) PutCheckpoint(c *model.Checkpoint) error {
	if c == nil {
		return errors.New("checkpoint: nil")
	}
	if err := validateCheckpoint(c); err != nil {
		return err
	}
	if err := w.putCheckpoint(c); err != nil {
		return err
	}
	if c.Source == model.OriginJobManagerLog {
		// A capture's gap record precedes the checkpoints its log filled in.
		if _, err := w.shrinkGaps(c.Cluster, c.JobID, []int64{c.ID}); err != nil {
			return err
		}
	}
	return nil
}

// validateCheckpoint rejects what cannot be stored faithfully.
func validateCheckpoint(c *model.Checkpoint) error {
	name := func() string { return fmt.Sprintf("checkpoint %s/%s/%d/%d", c.Cluster, c.JobID, c.Pipeline, c.ID) }
	switch {
	case c.Cluster == "":
		return fmt.Errorf("%s: empty cluster", name())
	case c.JobID == "":
		return fmt.Errorf("%s: empty job id", name())
	case c.ID < 0:
		return fmt.Errorf("%s: negative id", name())
	}
	if len(c.Tasks) == 0 {
		return nil
	}
	if len(c.Tasks) > maxTasks {
		return fmt.Errorf("%s: %d vertices, more than the %d a checkpoint may have", name(), len(c.Tasks), maxTasks)
	}
	seen := make(map[string]struct{}, len(c.Tasks))
	for _, t := range c.Tasks {
		if _, dup := seen[t.VertexID]; dup {
			return fmt.Errorf("%s: vertex %q listed twice", name(), t.VertexID)
		}
		seen[t.VertexID] = struct{}{}
		sorted := true
		for i, st := range t.Subtasks {
			if st.Index < 0 {
				return fmt.Errorf("%s: vertex %q: negative subtask index %d", name(), t.VertexID, st.Index)
			}
			if i > 0 && st.Index <= t.Subtasks[i-1].Index {
				sorted = false
			}
		}
		if !sorted {
			idx := make(map[int]struct{}, len(t.Subtasks))
			for _, st := range t.Subtasks {
				if _, dup := idx[st.Index]; dup {
					return fmt.Errorf("%s: vertex %q: subtask %d listed twice", name(), t.VertexID, st.Index)
				}
				idx[st.Index] = struct{}{}
			}
		}
	}
	return nil
}

func nullable(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}

func (w *txWriter) putCheckpoint(c *model.Checkpoint) error {
	if err := w.ctx.Err(); err != nil {
		return err
	}
	name := func() string { return fmt.Sprintf("checkpoint %s/%s/%d/%d", c.Cluster, c.JobID, c.Pipeline, c.ID) }
	find, err := w.stmt(sqlFindCheckpoint)
	if err != nil {
		return err
	}
	var (
		pk       int64
		status   string
		hasTasks int
	)
	err = find.QueryRowContext(w.exec, c.Cluster, c.JobID, c.Pipeline, c.ID).Scan(&pk, &status, &hasTasks)
	exists := err == nil
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("%s: look up: %w", name(), err)
	}
	incomingHasTasks := 0
	if c.Tasks != nil {
		incomingHasTasks = 1
	}

	if exists {
		if model.Status(status).Final() && !c.Status.Final() {
			return nil // a late in-progress view never overwrites a final one
		}
		if _, err := w.execStmt(sqlUpdateSummary, string(c.Kind), string(c.Status), c.TriggerMs, c.LatestAckMs,
			c.CompletionMs, c.FailureMs, c.EndToEndMs, nullable(c.FinalizeMs), c.StateSize, c.CheckpointedSize,
			c.ProcessedData, c.PersistedData, nullable(c.StateBlobs), c.NumSubtasks, c.NumAcknowledged,
			c.FailureMessage, c.ExternalPath, incomingHasTasks, detailLossCode(c), c.Source,
			c.FailureCause, c.FailureCause, declinedJSON(c.Declined), pk); err != nil {
			return fmt.Errorf("%s: update: %w", name(), err)
		}
		if len(c.Tasks) == 0 {
			return nil // summary-only update: keep the stored detail
		}
		if _, err := w.execStmt(sqlDeletePacks, pk); err != nil {
			return fmt.Errorf("%s: replace subtasks: %w", name(), err)
		}
		if _, err := w.execStmt(sqlDeleteTasks, pk); err != nil {
			return fmt.Errorf("%s: replace tasks: %w", name(), err)
		}
	}

	taskRows, subtaskRows, mx := detailCounts(c)
	if exists {
		if _, err := w.execStmt(sqlUpdateDetail, taskRows, subtaskRows, detailLossCode(c),
			mx.get(0), mx.get(1), mx.get(2), mx.get(3), pk); err != nil {
			return fmt.Errorf("%s: update: %w", name(), err)
		}
	} else {
		res, err := w.execStmt(sqlInsertCheckpoint, c.Cluster, c.JobID, c.Pipeline, c.ID, string(c.Kind),
			string(c.Status), c.TriggerMs, c.LatestAckMs, c.CompletionMs, c.FailureMs, c.EndToEndMs,
			nullable(c.FinalizeMs), c.StateSize, c.CheckpointedSize, c.ProcessedData, c.PersistedData,
			nullable(c.StateBlobs), c.NumSubtasks, c.NumAcknowledged, c.FailureMessage, c.ExternalPath,
			incomingHasTasks, taskRows, subtaskRows, mx.get(0), mx.get(1), mx.get(2), mx.get(3), detailLossCode(c),
			c.Source, c.FailureCause, declinedJSON(c.Declined))
		if err != nil {
			return fmt.Errorf("%s: insert: %w", name(), err)
		}
		if pk, err = res.LastInsertId(); err != nil {
			return fmt.Errorf("%s: insert: %w", name(), err)
		}
	}
	if err := w.insertDetail(pk, c.Tasks); err != nil {
		return fmt.Errorf("%s: %w", name(), err)
	}
	return nil
}

// declinedJSON is the declined column's value: NULL for none.
func declinedJSON(d *model.Decline) any {
	if d == nil {
		return nil
	}
	b, err := json.Marshal(d)
	if err != nil {
		return nil
	}
	return string(b)
}

// phaseMax holds the per-checkpoint maxima of start delay, alignment, sync
// and async over all subtasks.
type phaseMax struct {
	v  [4]int64
	ok bool
}

func (m *phaseMax) get(i int) any {
	if !m.ok {
		return nil
	}
	return m.v[i]
}

func detailCounts(c *model.Checkpoint) (tasks, subtasks int, mx phaseMax) {
	for _, t := range c.Tasks {
		tasks++
		for _, st := range t.Subtasks {
			subtasks++
			vals := [4]int64{st.StartDelayMs, st.AlignmentMs, st.SyncMs, st.AsyncMs}
			if !mx.ok {
				mx.v, mx.ok = vals, true
				continue
			}
			for i, v := range vals {
				mx.v[i] = max(mx.v[i], v)
			}
		}
	}
	return tasks, subtasks, mx
}

func (w *txWriter) insertDetail(pk int64, tasks []model.TaskStats) error {
	for ord, t := range tasks {
		rows := len(t.Subtasks)
		if t.Subtasks == nil {
			rows = -1
		}
		if _, err := w.execStmt(sqlInsertTask, pk, ord, t.VertexID, t.LatestAckMs, t.EndToEndMs, t.StateSize,
			t.CheckpointedSize, t.ProcessedData, t.PersistedData, t.NumSubtasks, t.NumAcknowledged, rows); err != nil {
			return fmt.Errorf("vertex %q: %w", t.VertexID, err)
		}
		if t.Subtasks == nil {
			continue
		}
		// Packed in index order (the order they read back in); an unsorted
		// list is sorted on a copy, the caller's slice is left alone.
		subs := t.Subtasks
		if !slices.IsSortedFunc(subs, bySubtaskIndex) {
			subs = slices.SortedFunc(slices.Values(subs), bySubtaskIndex)
		}
		w.packed = encodeSubtasks(w.packed[:0], subs)
		if _, err := w.execStmt(sqlInsertPack, packKey(pk, ord), w.packed); err != nil {
			return fmt.Errorf("vertex %q: subtasks: %w", t.VertexID, err)
		}
	}
	return nil
}

func (w *txWriter) PutAckSample(a model.AckSample) error {
	if a.Cluster == "" || a.JobID == "" {
		return fmt.Errorf("ack sample of checkpoint %d: empty cluster or job id", a.CheckpointID)
	}
	if _, err := w.execStmt(sqlPutAck, a.Cluster, a.JobID, a.Pipeline, a.CheckpointID, a.TimeMs,
		a.Acknowledged, a.Total); err != nil {
		return fmt.Errorf("ack sample %s/%s/%d/%d@%d: %w", a.Cluster, a.JobID, a.Pipeline, a.CheckpointID, a.TimeMs, err)
	}
	return w.tick()
}

func (w *txWriter) PutMetricSample(m model.MetricSample) error {
	if m.Cluster == "" || m.JobID == "" || m.Metric == "" {
		return fmt.Errorf("metric sample %q of %s/%s/%s: cluster, job id and metric must not be empty (vertex id may be, for job-level metrics)",
			m.Metric, m.Cluster, m.JobID, m.VertexID)
	}
	if m.Subtask < -1 {
		return fmt.Errorf("metric sample %q of %s/%s/%s: subtask %d (want ≥ 0, or -1 for an aggregate)",
			m.Metric, m.Cluster, m.JobID, m.VertexID, m.Subtask)
	}
	id, err := w.seriesID(seriesKey{m.Cluster, m.JobID, m.VertexID, m.Target, m.Subtask, m.Metric, m.Agg})
	if err != nil {
		return fmt.Errorf("metric sample %q of %s/%s/%s: %w", m.Metric, m.Cluster, m.JobID, m.VertexID, err)
	}
	var value any = m.Value
	if math.IsNaN(m.Value) {
		value = nil
	}
	if _, err := w.execStmt(sqlPutMetric, id, m.TimeMs, value, m.Source); err != nil {
		return fmt.Errorf("metric sample %q of %s/%s/%s@%d: %w", m.Metric, m.Cluster, m.JobID, m.VertexID, m.TimeMs, err)
	}
	return w.tick()
}

// seriesID finds or creates a series; ids are cached for this transaction only,
// so a series deleted by another transaction is never referenced stale.
func (w *txWriter) seriesID(k seriesKey) (int64, error) {
	if id, ok := w.series[k]; ok {
		return id, nil
	}
	find, err := w.stmt(sqlFindSeries)
	if err != nil {
		return 0, err
	}
	var id int64
	err = find.QueryRowContext(w.exec, k.cluster, k.job, k.vertex, k.target, k.subtask, k.metric, k.agg).Scan(&id)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		res, err := w.execStmt(sqlInsertSeries, k.cluster, k.job, k.vertex, k.target, k.subtask, k.metric, k.agg)
		if err != nil {
			return 0, fmt.Errorf("new series: %w", err)
		}
		if id, err = res.LastInsertId(); err != nil {
			return 0, fmt.Errorf("new series: %w", err)
		}
	case err != nil:
		return 0, fmt.Errorf("find series: %w", err)
	}
	if w.series == nil {
		w.series = map[seriesKey]int64{}
	}
	w.series[k] = id
	return id, nil
}

func (w *txWriter) PutGap(g model.Gap) error {
	if g.Cluster == "" || g.JobID == "" {
		return fmt.Errorf("gap %d..%d: empty cluster or job id", g.FromID, g.ToID)
	}
	if g.FromID > g.ToID {
		return fmt.Errorf("gap %s/%s/%d: from id %d is after to id %d", g.Cluster, g.JobID, g.Pipeline, g.FromID, g.ToID)
	}
	if _, err := w.execStmt(sqlPutGap, g.Cluster, g.JobID, g.Pipeline, g.FromID, g.ToID, g.DetectedMs, g.Reason); err != nil {
		return fmt.Errorf("gap %s/%s/%d %d..%d: %w", g.Cluster, g.JobID, g.Pipeline, g.FromID, g.ToID, err)
	}
	return w.tick()
}

// DeleteCluster removes a cluster with all its jobs, checkpoints, samples and
// gaps, in short transactions so readers and writers keep going meanwhile.
// The cluster row goes last: an interrupted delete can simply be repeated.
func (s *Store) DeleteCluster(ctx context.Context, name string) error {
	if name == "" {
		return errors.New("store: delete cluster: empty name")
	}
	for {
		n, _, err := s.pruneCheckpointChunk(ctx, sqlVictimCols+`WHERE cluster = ? LIMIT ?`, []any{name},
			pruneChunkCheckpoints, removePlain, nil)
		if err != nil {
			return fmt.Errorf("store: delete cluster %q: %w", name, err)
		}
		if n == 0 {
			break
		}
	}
	samples := []struct {
		kind sampleKind
		cond string
	}{
		{kindAck, `cluster = ?`},
		{kindMetric, `series_id IN (SELECT series_id FROM metric_series WHERE cluster = ?)`},
		{kindGap, `cluster = ?`},
	}
	for _, st := range samples {
		if err := s.pruneRows(ctx, st.kind, st.cond, []any{name}, nil); err != nil {
			return fmt.Errorf("store: delete cluster %q: %w", name, err)
		}
	}
	for _, q := range []string{
		`DELETE FROM reconciliations WHERE cluster = ?`,
		`DELETE FROM job_configs WHERE cluster = ?`,
		`DELETE FROM job_notes WHERE cluster = ?`,
		`DELETE FROM restore_counts WHERE cluster = ?`,
		`DELETE FROM exports WHERE cluster = ?`,
		`DELETE FROM metric_series WHERE cluster = ?`,
		`DELETE FROM floors WHERE cluster = ?`,
		`DELETE FROM jobs WHERE cluster = ?`,
		`DELETE FROM clusters WHERE name = ?`,
	} {
		if _, err := s.w.ExecContext(ctx, q, name); err != nil {
			return fmt.Errorf("store: delete cluster %q: %w", name, err)
		}
	}
	return nil
}

func bySubtaskIndex(a, b model.SubtaskStats) int { return a.Index - b.Index }

// detail_trimmed codes: why a checkpoint has no subtask stats although its
// engine reports them (model.Checkpoint.DetailLoss).
const (
	lossNone    = 0
	lossTrimmed = 1 // retention removed them
	lossMissed  = 2 // never fetched: gone from the engine's history first
	lossPartial = 3 // some vertices' stats could not be fetched
)

// detailLossCode is what a written checkpoint says of its lost details; one
// that carries subtask stats has lost nothing. (A trimmed checkpoint keeps
// its per-vertex Tasks without their Subtasks.) Partial details stay marked
// even with the subtasks that came.
func detailLossCode(c *model.Checkpoint) int {
	if c.DetailLoss == model.DetailPartial && len(c.Tasks) > 0 {
		return lossPartial
	}
	for _, t := range c.Tasks {
		if len(t.Subtasks) > 0 {
			return lossNone
		}
	}
	switch c.DetailLoss {
	case model.DetailTrimmed:
		return lossTrimmed
	case model.DetailMissed:
		return lossMissed
	}
	return lossNone
}

func detailLossName(code int) model.DetailLoss {
	switch code {
	case lossTrimmed:
		return model.DetailTrimmed
	case lossMissed:
		return model.DetailMissed
	case lossPartial:
		return model.DetailPartial
	}
	return ""
}
