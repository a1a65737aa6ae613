package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	"checkpoint-explorer/backend/model"
)

// The cache is the export's spool (schema 9): a final checkpoint of a collected cluster (not an
// opened capture or the sample) whose details came, or will not, and that has no exports row for
// a target is still to be sent to it. A row marks it exported, or refused for good by the target
// (schema 10: its content, which is not sent again). Retention bounds the spool as it bounds the
// cache; a checkpoint it removes unsent is a drop, which OnExportDrop tells.

// sqlExportable is what will be sent to every target once ready: final checkpoints of collected
// clusters.
const sqlExportable = `status IN ('COMPLETED', 'FAILED') AND ` + sqlNotReadOnly

// sqlExportClass sorts a checkpoint for the spool: 0 never sent (an opened capture's), 1 not yet
// (in progress, or a Flink checkpoint whose details are still due: the collector fetches them as
// its budget allows, or marks them missed), 2 ready. Only Flink's details cost requests and may
// come late; a checkpoint from the JobManager log or a tracing backend has all it will have.
const sqlExportClass = `CASE WHEN NOT (` + sqlNotReadOnly + `) THEN 0
	WHEN status NOT IN ('COMPLETED', 'FAILED') THEN 1
	WHEN has_tasks = 1 OR detail_trimmed != 0 OR source != ''
		OR cluster NOT IN (SELECT name FROM clusters WHERE engine = 'flink') THEN 2
	ELSE 1 END`

// sqlExported is whether the checkpoint row (of checkpoints) has an exports row for target ?.
const sqlExported = `EXISTS (SELECT 1 FROM exports e WHERE e.target = ? AND e.cluster = checkpoints.cluster
	AND e.job_id = checkpoints.job_id AND e.pipeline = checkpoints.pipeline AND e.checkpoint_id = checkpoints.id)`

// spoolRowCols are what ExportSpool needs of a checkpoint to sort it (spoolRow).
const spoolRowCols = `SELECT pk, cluster, job_id, pipeline, id, subtask_rows, ` + sqlExportClass + `, ` + sqlExported +
	` FROM checkpoints `

const (
	exportNever = 0
	exportLater = 1
	exportReady = 2
)

// Bounds of one ExportSpool.Next: rows looked at per query, and subtask rows taken (about 100 MB of
// spans and checkpoints at most; at least one checkpoint is always taken).
const (
	spoolScanChunk    = 5000
	spoolMaxSubtasks  = 100_000
	exportMarkTxLimit = 10_000
)

// ExportSpool reads the checkpoints still to be sent to one export target, oldest first. It walks
// the cache once, in insertion order (the rowid), and then only what was written since and what it
// saw not yet ready or not yet sent: a pass over a cache that has sent everything costs one query,
// not a scan of every checkpoint. An ExportSpool is for one goroutine.
type ExportSpool struct {
	s      *Store
	target string
	// after is the last rowid looked at; afterKey the checkpoint it was. Rowids are only reused
	// once the newest rows are deleted (a cluster's): when the row at after is gone or changed,
	// the spool looks at every checkpoint again.
	after    int64
	afterKey model.Key
	// watch holds the rowids looked at that are not sent yet: in progress, details still due, or
	// ready and not yet marked exported.
	watch map[int64]struct{}
}

// ExportSpool starts reading target's spool from the oldest checkpoint.
func (s *Store) ExportSpool(target string) *ExportSpool {
	return &ExportSpool{s: s, target: target, watch: map[int64]struct{}{}}
}

type spoolRow struct {
	pk          int64
	key         model.Key
	subtaskRows int64
	class       int
	exported    bool
}

// rows runs spoolRowCols + tail with args (after the target).
func (sp *ExportSpool) rows(ctx context.Context, tail string, args ...any) ([]spoolRow, error) {
	rows, err := sp.s.r.QueryContext(ctx, spoolRowCols+tail, append([]any{sp.target}, args...)...)
	return scanAll(rows, err, "export spool", func(rows *sql.Rows, r *spoolRow) error {
		return rows.Scan(&r.pk, &r.key.Cluster, &r.key.JobID, &r.key.Pipeline, &r.key.ID, &r.subtaskRows, &r.class, &r.exported)
	})
}

// Next returns up to limit checkpoints still to send, whole (their tasks and subtasks): the
// earliest written first, the batch in trigger order; fewer when they hold many subtasks, none
// when all is sent. A checkpoint returned stays in the spool until MarkExported marks it: the next
// Next returns it again.
func (sp *ExportSpool) Next(ctx context.Context, limit int) ([]model.Checkpoint, error) {
	if limit <= 0 {
		return nil, fmt.Errorf("store: export spool: limit %d: want > 0", limit)
	}
	if err := sp.checkAfter(ctx); err != nil {
		return nil, err
	}
	var take []int64
	var subtasks int64
	full := func() bool { return len(take) >= limit || len(take) > 0 && subtasks >= spoolMaxSubtasks }
	// consider keeps r in the watch list until it is sent, and takes it when it is ready.
	consider := func(r spoolRow) {
		if r.class == exportNever || r.exported {
			delete(sp.watch, r.pk)
			return
		}
		sp.watch[r.pk] = struct{}{}
		if r.class == exportReady && !full() {
			take = append(take, r.pk)
			subtasks += r.subtaskRows
		}
	}
	if len(sp.watch) > 0 {
		watched := make([]int64, 0, len(sp.watch))
		for pk := range sp.watch {
			watched = append(watched, pk)
		}
		rows, err := sp.rows(ctx, `WHERE pk IN (SELECT value FROM json_each(?)) ORDER BY pk`, pkList(watched))
		if err != nil {
			return nil, err
		}
		clear(sp.watch) // what is gone (retention) is forgotten; the rest comes back in consider
		for _, r := range rows {
			consider(r)
		}
	}
	for !full() {
		rows, err := sp.rows(ctx, `WHERE pk > ? ORDER BY pk LIMIT ?`, sp.after, spoolScanChunk)
		if err != nil {
			return nil, err
		}
		for _, r := range rows {
			if full() {
				break
			}
			consider(r)
			sp.after, sp.afterKey = r.pk, r.key
		}
		if len(rows) < spoolScanChunk {
			break
		}
	}
	return sp.s.checkpointsByPK(ctx, take)
}

// Pending counts the checkpoints still to send to the target: final, of a collected cluster, not
// marked exported (details still due among them): ExportCounts' Pending for the whole cache. It
// reads what the spool watches and what it has not looked at yet, so its cost follows the backlog,
// not the cache (after a first Next, which looks at every checkpoint once).
func (sp *ExportSpool) Pending(ctx context.Context) (int64, error) {
	watched := make([]int64, 0, len(sp.watch))
	for pk := range sp.watch {
		watched = append(watched, pk)
	}
	var n int64
	if err := sp.s.r.QueryRowContext(ctx, `SELECT count(*) FROM checkpoints WHERE (pk IN (SELECT value FROM json_each(?))
		OR pk > ?) AND `+sqlExportable+` AND NOT `+sqlExported, pkList(watched), sp.after, sp.target).Scan(&n); err != nil {
		return 0, fmt.Errorf("store: export spool: pending: %w", err)
	}
	return n, nil
}

// checkAfter starts over when the row last looked at is gone or another checkpoint: rowids above
// it may then be reused by checkpoints not looked at.
func (sp *ExportSpool) checkAfter(ctx context.Context) error {
	if sp.after == 0 {
		return nil
	}
	var k model.Key
	err := sp.s.r.QueryRowContext(ctx, `SELECT cluster, job_id, pipeline, id FROM checkpoints WHERE pk = ?`, sp.after).
		Scan(&k.Cluster, &k.JobID, &k.Pipeline, &k.ID)
	switch {
	case errors.Is(err, sql.ErrNoRows) || err == nil && k != sp.afterKey:
		sp.after, sp.afterKey = 0, model.Key{}
	case err != nil:
		return fmt.Errorf("store: export spool: %w", err)
	}
	return nil
}

// checkpointsByPK reads the checkpoints pks, whole, in trigger order.
func (s *Store) checkpointsByPK(ctx context.Context, pks []int64) ([]model.Checkpoint, error) {
	if len(pks) == 0 {
		return nil, nil
	}
	tx, err := s.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, fmt.Errorf("store: export spool: %w", err)
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, `SELECT `+sqlCheckpointCols+` FROM checkpoints
		WHERE pk IN (SELECT value FROM json_each(?))`+sqlCheckpointOrder, pkList(pks))
	type read struct {
		c  model.Checkpoint
		st storedCheckpoint
	}
	got, err := scanAll(rows, err, "export spool", func(rows *sql.Rows, r *read) error {
		var err error
		r.st, err = scanCheckpoint(rows, &r.c)
		return err
	})
	if err != nil {
		return nil, err
	}
	out := make([]model.Checkpoint, len(got))
	for i := range got {
		out[i] = got[i].c
		if got[i].st.hasTasks {
			if out[i].Tasks, err = loadTasks(ctx, tx, got[i].st.pk); err != nil {
				return nil, fmt.Errorf("store: export spool: %w", err)
			}
			markMissingVertices(&out[i])
		}
	}
	return out, nil
}

// pkList is pks as the JSON array json_each reads.
func pkList(pks []int64) string {
	s := make([]string, len(pks))
	for i, pk := range pks {
		s[i] = strconv.FormatInt(pk, 10)
	}
	return "[" + strings.Join(s, ",") + "]"
}

// MarkExported records that target took the checkpoints keys, in one transaction (per
// exportMarkTxLimit keys); a checkpoint no longer stored (retention removed it meanwhile) is not
// marked. It returns how many were marked now (not before).
func (s *Store) MarkExported(ctx context.Context, target string, keys []model.Key) (int, error) {
	return s.markExports(ctx, target, keys, false)
}

// MarkRefused records that target refused the checkpoints keys for good (their content): they
// leave its spool as those exported do, and ExportCounts counts them apart. A checkpoint already
// marked stays as it was. It returns how many were marked now.
func (s *Store) MarkRefused(ctx context.Context, target string, keys []model.Key) (int, error) {
	return s.markExports(ctx, target, keys, true)
}

// markExports adds target's exports rows of keys, refused or exported.
func (s *Store) markExports(ctx context.Context, target string, keys []model.Key, refused bool) (int, error) {
	if target == "" {
		return 0, errors.New("store: mark exported: no target")
	}
	var n int64
	for len(keys) > 0 {
		chunk := keys[:min(len(keys), exportMarkTxLimit)]
		keys = keys[len(chunk):]
		err := s.write(ctx, "mark exported", func(w *txWriter) error {
			ins, err := w.tx.PrepareContext(w.exec, `INSERT INTO exports (target, cluster, job_id, pipeline, checkpoint_id, exported_ms, refused)
				SELECT ?, cluster, job_id, pipeline, id, ?, ? FROM checkpoints WHERE cluster = ? AND job_id = ? AND pipeline = ? AND id = ?
				ON CONFLICT DO NOTHING`)
			if err != nil {
				return err
			}
			defer ins.Close()
			nowMs := s.now().UnixMilli()
			for _, k := range chunk {
				res, err := ins.ExecContext(w.exec, target, nowMs, refused, k.Cluster, k.JobID, k.Pipeline, k.ID)
				if err != nil {
					return fmt.Errorf("%s/%s/%d/%d: %w", k.Cluster, k.JobID, k.Pipeline, k.ID, err)
				}
				added, err := res.RowsAffected()
				if err != nil {
					return err
				}
				n += added
			}
			return nil
		})
		if err != nil {
			return int(n), err
		}
	}
	return int(n), nil
}

// ExportCount is what a job (or the whole cache) stored and sent to one export target.
type ExportCount struct {
	Cluster string `json:"cluster,omitempty"`
	JobID   string `json:"job_id,omitempty"`
	// Final counts the final checkpoints stored of collected clusters: what is to be sent.
	Final int64 `json:"final"`
	// Exported counts those the target took; Refused those it refused for good (their content:
	// not sent again); Pending the others (details still due among them).
	Exported int64 `json:"exported"`
	Refused  int64 `json:"refused"`
	Pending  int64 `json:"pending"`
}

// Counts of stored final checkpoints, and of the exports rows of target ? (exported, refused), per
// job; ExportCounts adds its filter.
const (
	sqlCountFinal   = `SELECT cluster, job_id, count(*) FROM checkpoints`
	sqlCountExports = `SELECT cluster, job_id, count(*) - sum(refused), sum(refused) FROM exports`
)

// ExportCounts counts, per job of q's cluster and job (empty: all), the final checkpoints stored
// and those sent to target (or refused by it), and their total. Both come from indexes (a job's
// checkpoints, the target's exports), a job's quickly; the whole cache's read an entry per
// checkpoint (about a second per million): the export loop counts its backlog with
// ExportSpool.Pending instead.
func (s *Store) ExportCounts(ctx context.Context, target string, q Query) ([]ExportCount, ExportCount, error) {
	tx, err := s.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, ExportCount{}, fmt.Errorf("store: export counts: %w", err)
	}
	defer tx.Rollback()
	byJob := map[jobKey]*ExportCount{}
	// count adds each row's counts (after its cluster and job) to fields of its job's count.
	count := func(query string, args []any, fields ...func(*ExportCount) *int64) error {
		rows, err := tx.QueryContext(ctx, query, args...)
		_, err = scanAll(rows, err, "export counts", func(rows *sql.Rows, _ *struct{}) error {
			var k jobKey
			ns := make([]int64, len(fields))
			dest := []any{&k.cluster, &k.job}
			for i := range ns {
				dest = append(dest, &ns[i])
			}
			if err := rows.Scan(dest...); err != nil {
				return err
			}
			c := byJob[k]
			if c == nil {
				c = &ExportCount{Cluster: k.cluster, JobID: k.job}
				byJob[k] = c
			}
			for i, f := range fields {
				*f(c) += ns[i]
			}
			return nil
		})
		return err
	}
	where, args := q.where("cluster", "job_id", "", "")
	if err := count(sqlCountFinal+andWhere(where, sqlExportable)+` GROUP BY cluster, job_id`, args,
		func(c *ExportCount) *int64 { return &c.Final }); err != nil {
		return nil, ExportCount{}, err
	}
	if err := count(sqlCountExports+andWhere(where, "target = ?")+` GROUP BY cluster, job_id`, append(args, target),
		func(c *ExportCount) *int64 { return &c.Exported }, func(c *ExportCount) *int64 { return &c.Refused }); err != nil {
		return nil, ExportCount{}, err
	}
	var total ExportCount
	out := make([]ExportCount, 0, len(byJob))
	for _, c := range byJob {
		c.Pending = max(0, c.Final-c.Exported-c.Refused)
		total.Final, total.Exported, total.Refused = total.Final+c.Final, total.Exported+c.Exported, total.Refused+c.Refused
		total.Pending += c.Pending
		out = append(out, *c)
	}
	sort.Slice(out, func(i, j int) bool {
		return out[i].Cluster < out[j].Cluster || out[i].Cluster == out[j].Cluster && out[i].JobID < out[j].JobID
	})
	return out, total, nil
}

// andWhere adds cond to a where clause from Query.where ("" or " WHERE …").
func andWhere(where, cond string) string {
	if where == "" {
		return " WHERE " + cond
	}
	return where + " AND " + cond
}

// exportWatch holds the OnExportDrop functions, by target.
type exportWatch struct {
	mu  sync.Mutex
	fns map[string]func([]model.Key)
}

// OnExportDrop has retention tell fn the final checkpoints of collected clusters it removed
// before they were sent to target (a spool at its bound), after each removal commits: the keys
// of one chunk (hundreds at most). Only this Store's retention tells; a removal by another
// process on the same cache is not seen. stop ends it.
func (s *Store) OnExportDrop(target string, fn func([]model.Key)) (stop func()) {
	w := &s.exportDrops
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.fns == nil {
		w.fns = map[string]func([]model.Key){}
	}
	w.fns[target] = fn
	return func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		delete(w.fns, target)
	}
}

// exportDrops are the keys retention dropped unsent, by target, told once the removal commits.
type exportDrops map[string][]model.Key

func (s *Store) tellExportDrops(d exportDrops) {
	if len(d) == 0 {
		return
	}
	w := &s.exportDrops
	w.mu.Lock()
	fns := make(map[string]func([]model.Key), len(d))
	for target := range d {
		fns[target] = w.fns[target]
	}
	w.mu.Unlock()
	for target, keys := range d {
		if fn := fns[target]; fn != nil {
			fn(keys)
		}
	}
}

// sqlExportTargets lists the targets in exports, one index seek each (the table's key begins
// with the target).
const sqlExportTargets = `WITH RECURSIVE t(target) AS (SELECT min(target) FROM exports
	UNION ALL SELECT (SELECT min(target) FROM exports WHERE target > t.target) FROM t WHERE t.target IS NOT NULL)
	SELECT target FROM t WHERE target IS NOT NULL`

// forgetExports runs in a retention transaction before the checkpoints whose pks the JSON array
// list holds are removed: it removes their exports rows and, when drops is set, returns those
// not sent to a target OnExportDrop watches.
func (s *Store) forgetExports(ctx context.Context, tx *sql.Tx, list string, drops bool) (exportDrops, error) {
	var out exportDrops
	if drops {
		s.exportDrops.mu.Lock()
		targets := make([]string, 0, len(s.exportDrops.fns))
		for t := range s.exportDrops.fns {
			targets = append(targets, t)
		}
		s.exportDrops.mu.Unlock()
		for _, target := range targets {
			rows, err := tx.QueryContext(ctx, `SELECT cluster, job_id, pipeline, id FROM checkpoints
				WHERE pk IN (SELECT value FROM json_each(?)) AND `+sqlExportable+` AND NOT `+sqlExported+`
				ORDER BY cluster, job_id, pipeline, id`, list, target)
			keys, err := scanAll(rows, err, "export drops", func(rows *sql.Rows, k *model.Key) error {
				return rows.Scan(&k.Cluster, &k.JobID, &k.Pipeline, &k.ID)
			})
			if err != nil {
				return nil, err
			}
			if len(keys) > 0 {
				if out == nil {
					out = exportDrops{}
				}
				out[target] = keys
			}
		}
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM exports WHERE (target, cluster, job_id, pipeline, checkpoint_id) IN
		(SELECT t.target, c.cluster, c.job_id, c.pipeline, c.id FROM (`+sqlExportTargets+`) t
		CROSS JOIN checkpoints c WHERE c.pk IN (SELECT value FROM json_each(?)))`, list); err != nil {
		return nil, fmt.Errorf("exports: %w", err)
	}
	return out, nil
}
