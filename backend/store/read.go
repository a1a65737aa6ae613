package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"

	"checkpoint-explorer/backend/model"
)

// Query selects data of one job (or more, when fields are empty) in a time range.
type Query struct {
	Cluster string `json:"cluster"` // "" = all clusters
	JobID   string `json:"job_id"`  // "" = all jobs
	// FromMs and ToMs bound the time inclusively; 0 = unbounded. For
	// checkpoints the time is the trigger time, for samples the sample time,
	// for gaps the time they were detected.
	FromMs int64 `json:"from_ms"`
	ToMs   int64 `json:"to_ms"`
	// Pipeline, when set, keeps one SeaTunnel pipeline. Metric samples have
	// no pipeline and ignore it.
	Pipeline *int `json:"pipeline,omitempty"`
	// Metric, when set, keeps the metric samples of the metrics it accepts
	// (ScanMetricSamples; other reads ignore it).
	Metric func(name string) bool `json:"-"`
}

// where renders the query as SQL conditions over the named columns; an
// empty column name skips that condition.
func (q Query) where(cluster, job, pipeline, timeCol string) (string, []any) {
	var conds []string
	var args []any
	add := func(cond string, arg any) {
		conds = append(conds, cond)
		args = append(args, arg)
	}
	if q.Cluster != "" {
		add(cluster+" = ?", q.Cluster)
	}
	if q.JobID != "" {
		add(job+" = ?", q.JobID)
	}
	if q.Pipeline != nil && pipeline != "" {
		add(pipeline+" = ?", *q.Pipeline)
	}
	if q.FromMs != 0 {
		add(timeCol+" >= ?", q.FromMs)
	}
	if q.ToMs != 0 {
		add(timeCol+" <= ?", q.ToMs)
	}
	if len(conds) == 0 {
		return "", nil
	}
	return " WHERE " + strings.Join(conds, " AND "), args
}

type queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// Clusters lists the stored clusters (public form) by name.
func (s *Store) Clusters(ctx context.Context) ([]model.Cluster, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT name, engine, base_url, prometheus_url, auth_kind, ca_file,
		insecure_skip_verify, read_only FROM clusters ORDER BY name`)
	return scanAll(rows, err, "clusters", func(rows *sql.Rows, c *model.Cluster) error {
		return rows.Scan(&c.Name, &c.Engine, &c.BaseURL, &c.PrometheusURL, &c.Auth.Kind, &c.CAFile,
			&c.InsecureSkipVerify, &c.ReadOnly)
	})
}

// scanAll reads every row of a query (err: the query's error) into a T with
// scan; what names the read in errors.
func scanAll[T any](rows *sql.Rows, err error, what string, scan func(*sql.Rows, *T) error) ([]T, error) {
	if err != nil {
		return nil, fmt.Errorf("store: %s: %w", what, err)
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		var v T
		if err := scan(rows, &v); err != nil {
			return nil, fmt.Errorf("store: %s: %w", what, err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: %s: %w", what, err)
	}
	return out, nil
}

// JobSummary is a job with counts over its stored checkpoints.
type JobSummary struct {
	model.Job
	Total      int `json:"total"`
	Completed  int `json:"completed"`
	Failed     int `json:"failed"`
	InProgress int `json:"in_progress"`
	// InProgressBeforeCompleted is how many of InProgress have a later
	// completed checkpoint of their pipeline; EndedUnseen is how many of
	// those have ended, which the app tells by the engine (analyze's
	// EndedUnseen) and takes out of InProgress.
	InProgressBeforeCompleted int `json:"-"`
	EndedUnseen               int `json:"ended_unseen"`
	// Gaps is how many checkpoints are known to be missing (gaps minus
	// checkpoints stored inside them later).
	Gaps           int64 `json:"gaps"`
	FirstTriggerMs int64 `json:"first_trigger_ms"`
	LastTriggerMs  int64 `json:"last_trigger_ms"`
}

const sqlJobCols = `cluster, job_id, name, engine, state, start_ms, end_ms, updated_ms, vertices, edges, run_split`

func scanJob(sc interface{ Scan(...any) error }) (model.Job, error) {
	var j model.Job
	var vertices, edges sql.NullString
	if err := sc.Scan(&j.Cluster, &j.ID, &j.Name, &j.Engine, &j.State, &j.StartMs, &j.EndMs, &j.UpdatedMs,
		&vertices, &edges, &j.Split); err != nil {
		return j, err
	}
	if vertices.Valid {
		if err := json.Unmarshal([]byte(vertices.String), &j.Vertices); err != nil {
			return j, fmt.Errorf("job %s/%s: decode vertices: %w", j.Cluster, j.ID, err)
		}
	}
	if edges.Valid {
		if err := json.Unmarshal([]byte(edges.String), &j.Edges); err != nil {
			return j, fmt.Errorf("job %s/%s: decode edges: %w", j.Cluster, j.ID, err)
		}
	}
	return j, nil
}

// Jobs lists jobs with checkpoint counts, by cluster then job id. Jobs that
// have checkpoints but no job record (e.g. from a partial capture) are
// listed too, with only Cluster and ID set. cluster "" lists all clusters.
func (s *Store) Jobs(ctx context.Context, cluster string) ([]JobSummary, error) {
	tx, err := s.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, fmt.Errorf("store: jobs: %w", err)
	}
	defer tx.Rollback()

	type key struct{ cluster, id string }
	byKey := map[key]*JobSummary{}
	var order []key
	get := func(k key) *JobSummary {
		if js, ok := byKey[k]; ok {
			return js
		}
		js := &JobSummary{Job: model.Job{Cluster: k.cluster, ID: k.id}}
		byKey[k] = js
		order = append(order, k)
		return js
	}

	filter, jobFilter, args := "", "", []any(nil)
	if cluster != "" {
		filter, jobFilter, args = " WHERE cluster = ?", " WHERE j.cluster = ?", []any{cluster}
	}
	rows, err := tx.QueryContext(ctx, "SELECT "+sqlJobCols+" FROM jobs"+filter, args...)
	if err != nil {
		return nil, fmt.Errorf("store: jobs: %w", err)
	}
	for rows.Next() {
		j, err := scanJob(rows)
		if err != nil {
			rows.Close()
			return nil, fmt.Errorf("store: jobs: %w", err)
		}
		get(key{j.Cluster, j.ID}).Job = j
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: jobs: %w", err)
	}

	// Counts come from job_counts (kept by triggers), the trigger span from
	// two seeks into the (cluster, job_id, trigger_ms, …) index per job:
	// counting there read every job's whole range (0.4 s over 2 M
	// checkpoints). Counting statuses there would look up every checkpoint's
	// row, in an order that jumps across the file when jobs interleave (6 s);
	// instead the partial index of checkpoints that did not complete counts
	// those.
	rows, err = tx.QueryContext(ctx, `SELECT j.cluster, j.job_id, j.checkpoints,
		(SELECT trigger_ms FROM checkpoints c WHERE c.cluster = j.cluster AND c.job_id = j.job_id ORDER BY trigger_ms LIMIT 1),
		(SELECT trigger_ms FROM checkpoints c WHERE c.cluster = j.cluster AND c.job_id = j.job_id ORDER BY trigger_ms DESC LIMIT 1)
		FROM job_counts j`+jobFilter, args...)
	if err != nil {
		return nil, fmt.Errorf("store: jobs: counts: %w", err)
	}
	for rows.Next() {
		var k key
		var c JobSummary
		if err := rows.Scan(&k.cluster, &k.id, &c.Total, &c.FirstTriggerMs, &c.LastTriggerMs); err != nil {
			rows.Close()
			return nil, fmt.Errorf("store: jobs: counts: %w", err)
		}
		js := get(k)
		js.Total, js.Completed = c.Total, c.Total
		js.FirstTriggerMs, js.LastTriggerMs = c.FirstTriggerMs, c.LastTriggerMs
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: jobs: counts: %w", err)
	}
	statusFilter := " WHERE status != 'COMPLETED'"
	if filter != "" {
		statusFilter = filter + " AND status != 'COMPLETED'"
	}
	rows, err = tx.QueryContext(ctx, `SELECT cluster, job_id, status, count(*)
		FROM checkpoints INDEXED BY checkpoints_not_completed`+statusFilter+` GROUP BY cluster, job_id, status`, args...)
	if err != nil {
		return nil, fmt.Errorf("store: jobs: statuses: %w", err)
	}
	for rows.Next() {
		var k key
		var status string
		var n int
		if err := rows.Scan(&k.cluster, &k.id, &status, &n); err != nil {
			rows.Close()
			return nil, fmt.Errorf("store: jobs: statuses: %w", err)
		}
		js := get(k)
		js.Completed -= n
		switch model.Status(status) {
		case model.StatusFailed:
			js.Failed += n
		case model.StatusInProgress:
			js.InProgress += n
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: jobs: statuses: %w", err)
	}
	// The few in progress, each with one seek into the (cluster, job_id,
	// pipeline, id) key for a later completed checkpoint.
	rows, err = tx.QueryContext(ctx, `SELECT cluster, job_id, count(*)
		FROM checkpoints INDEXED BY checkpoints_not_completed`+statusFilter+` AND status = 'IN_PROGRESS'
		AND EXISTS (SELECT 1 FROM checkpoints l WHERE l.cluster = checkpoints.cluster AND l.job_id = checkpoints.job_id
			AND l.pipeline = checkpoints.pipeline AND l.id > checkpoints.id AND l.status = 'COMPLETED')
		GROUP BY cluster, job_id`, args...)
	if err != nil {
		return nil, fmt.Errorf("store: jobs: in progress before a completed one: %w", err)
	}
	for rows.Next() {
		var k key
		var n int
		if err := rows.Scan(&k.cluster, &k.id, &n); err != nil {
			rows.Close()
			return nil, fmt.Errorf("store: jobs: in progress before a completed one: %w", err)
		}
		get(k).InProgressBeforeCompleted = n
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: jobs: in progress before a completed one: %w", err)
	}

	sort.Slice(order, func(a, b int) bool {
		if order[a].cluster != order[b].cluster {
			return order[a].cluster < order[b].cluster
		}
		return order[a].id < order[b].id
	})
	out := make([]JobSummary, 0, len(order))
	for _, k := range order {
		gaps, err := gapsIn(ctx, tx, Query{Cluster: k.cluster, JobID: k.id})
		if err != nil {
			return nil, fmt.Errorf("store: jobs: %w", err)
		}
		js := byKey[k]
		for _, g := range gaps {
			js.Gaps += g.Count()
		}
		out = append(out, *js)
	}
	return out, nil
}

// Job returns one job; the error wraps ErrNotFound if it is not stored.
func (s *Store) Job(ctx context.Context, cluster, jobID string) (model.Job, error) {
	j, err := scanJob(s.r.QueryRowContext(ctx, "SELECT "+sqlJobCols+" FROM jobs WHERE cluster = ? AND job_id = ?",
		cluster, jobID))
	if errors.Is(err, sql.ErrNoRows) {
		return model.Job{}, fmt.Errorf("store: job %s/%s: %w", cluster, jobID, ErrNotFound)
	}
	if err != nil {
		return model.Job{}, fmt.Errorf("store: job %s/%s: %w", cluster, jobID, err)
	}
	return j, nil
}

const sqlCheckpointCols = `pk, cluster, job_id, pipeline, id, kind, status, trigger_ms, latest_ack_ms,
	completion_ms, failure_ms, end_to_end_ms, finalize_ms, state_size, checkpointed_size, processed_data,
	persisted_data, state_blobs, num_subtasks, num_acknowledged, failure_message, external_path, has_tasks,
	detail_trimmed, source, failure_cause, declined`

const sqlCheckpointOrder = ` ORDER BY trigger_ms, id, pipeline, cluster, job_id, pk`

// sqlTaskCols are a task_stats row and its packed subtasks (t, p), as
// scanTask reads them.
const sqlTaskCols = `t.vertex_id, t.latest_ack_ms, t.end_to_end_ms, t.state_size, t.checkpointed_size,
	t.processed_data, t.persisted_data, t.num_subtasks, t.num_acknowledged, t.subtask_rows, p.packed`

type storedCheckpoint struct {
	pk       int64
	hasTasks bool
}

// markMissingVertices flags, in a checkpoint whose details came in part, the
// vertices stored without subtask rows: the store keeps the mark per
// checkpoint, and those are the vertices whose stats could not be fetched.
func markMissingVertices(c *model.Checkpoint) {
	if c.DetailLoss != model.DetailPartial {
		return
	}
	for i := range c.Tasks {
		if len(c.Tasks[i].Subtasks) == 0 {
			c.Tasks[i].Missing = true
		}
	}
}

// scanCheckpoint reads a row of sqlCheckpointCols into c.
func scanCheckpoint(sc interface{ Scan(...any) error }, c *model.Checkpoint) (storedCheckpoint, error) {
	return newCheckpointRow().scan(sc, c)
}

// checkpointRow is where a row of sqlCheckpointCols is scanned; a scan
// reuses one for all its rows (they were a seventh of a long report's
// allocations).
type checkpointRow struct{ vals, dst []any }

func newCheckpointRow() *checkpointRow {
	vals := make([]any, len(checkpointColNames))
	return &checkpointRow{vals: vals, dst: pointersTo(vals)}
}

func (row *checkpointRow) scan(sc interface{ Scan(...any) error }, c *model.Checkpoint) (storedCheckpoint, error) {
	if err := sc.Scan(row.dst...); err != nil {
		return storedCheckpoint{}, err
	}
	r := columns{v: row.vals, names: checkpointColNames}
	st := storedCheckpoint{pk: r.int64()}
	c.Cluster, c.JobID, c.Pipeline, c.ID = r.str(), r.str(), r.int(), r.int64()
	c.Kind, c.Status = model.CheckpointKind(r.str()), model.Status(r.str())
	c.TriggerMs, c.LatestAckMs, c.CompletionMs, c.FailureMs, c.EndToEndMs = r.int64(), r.int64(), r.int64(), r.int64(), r.int64()
	c.FinalizeMs = r.nullInt64()
	c.StateSize, c.CheckpointedSize, c.ProcessedData, c.PersistedData = r.int64(), r.int64(), r.int64(), r.int64()
	c.StateBlobs = r.nullInt64()
	c.NumSubtasks, c.NumAcknowledged = r.int(), r.int()
	c.FailureMessage, c.ExternalPath = r.str(), r.str()
	st.hasTasks = r.int64() != 0
	c.DetailLoss = detailLossName(r.int())
	c.Source, c.FailureCause = model.CheckpointSource(r.str()), r.str()
	c.Declined = nil
	if declined, ok := r.nullStr(); ok {
		var d model.Decline
		if json.Unmarshal([]byte(declined), &d) == nil {
			c.Declined = &d
		}
	}
	return st, r.err
}

// columns reads, in column order, a row scanned into plain values:
// database/sql stores a driver's value into an *any as it is, where into an
// *int64 it goes through reflection, which was a fifth of the time of a
// scan over a day of checkpoints. The first value of the wrong type is the
// error.
type columns struct {
	v     []any
	names []string // the columns' names, for the error
	i     int
	err   error
}

// colNames are the names in a list of columns ("t.vertex_id, …").
func colNames(cols string) []string {
	names := strings.Split(cols, ",")
	for i, n := range names {
		names[i] = strings.TrimSpace(n)
	}
	return names
}

var checkpointColNames, taskColNames = colNames(sqlCheckpointCols), colNames(sqlTaskCols)

// pointersTo are Scan's destinations for vals, one per value.
func pointersTo(vals []any) []any {
	dst := make([]any, len(vals))
	for i := range vals {
		dst[i] = &vals[i]
	}
	return dst
}

func (r *columns) next() any {
	v := r.v[r.i]
	r.i++
	return v
}

func (r *columns) wrong(v any, want string) {
	if r.err == nil {
		r.err = fmt.Errorf("column %s is %T, not %s", r.names[r.i-1], v, want)
	}
}

// column takes the next value as a T; want names T in the error.
func column[T int64 | string](r *columns, want string) T {
	v := r.next()
	x, ok := v.(T)
	if !ok {
		r.wrong(v, want)
	}
	return x
}

func (r *columns) int64() int64 { return column[int64](r, "an integer") }

func (r *columns) int() int { return int(r.int64()) }

// null takes the next value if it is NULL.
func (r *columns) null() bool {
	if r.v[r.i] != nil {
		return false
	}
	r.i++
	return true
}

// nullInt64 is nil for NULL.
func (r *columns) nullInt64() *int64 {
	if r.null() {
		return nil
	}
	n := r.int64()
	return &n
}

func (r *columns) str() string { return column[string](r, "text") }

// code is a text column a query gave as the number of its usual value
// (usual[n]), or as itself when it was none of them.
func (r *columns) code(usual ...string) string {
	if n, ok := r.v[r.i].(int64); ok && n >= 0 && n < int64(len(usual)) {
		r.i++
		return usual[n]
	}
	return r.str()
}

// nullStr is false for NULL.
func (r *columns) nullStr() (string, bool) {
	if r.null() {
		return "", false
	}
	return r.str(), true
}

// Checkpoints returns checkpoint summaries (no Tasks) ordered by trigger time
// then id.
func (s *Store) Checkpoints(ctx context.Context, q Query) ([]model.Checkpoint, error) {
	var out []model.Checkpoint
	err := s.ScanCheckpoints(ctx, q, false, func(c *model.Checkpoint) error {
		out = append(out, *c)
		return nil
	})
	return out, err
}

// Checkpoint returns one checkpoint with its Tasks and their Subtasks; the
// error wraps ErrNotFound if it is not stored.
func (s *Store) Checkpoint(ctx context.Context, k model.Key) (model.Checkpoint, error) {
	tx, err := s.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return model.Checkpoint{}, fmt.Errorf("store: checkpoint %v: %w", k, err)
	}
	defer tx.Rollback()
	var c model.Checkpoint
	st, err := scanCheckpoint(tx.QueryRowContext(ctx, "SELECT "+sqlCheckpointCols+` FROM checkpoints
		WHERE cluster = ? AND job_id = ? AND pipeline = ? AND id = ?`, k.Cluster, k.JobID, k.Pipeline, k.ID), &c)
	if errors.Is(err, sql.ErrNoRows) {
		return model.Checkpoint{}, fmt.Errorf("store: checkpoint %s/%s/%d/%d: %w", k.Cluster, k.JobID, k.Pipeline, k.ID, ErrNotFound)
	}
	if err != nil {
		return model.Checkpoint{}, fmt.Errorf("store: checkpoint %s/%s/%d/%d: %w", k.Cluster, k.JobID, k.Pipeline, k.ID, err)
	}
	if st.hasTasks {
		if c.Tasks, err = loadTasks(ctx, tx, st.pk); err != nil {
			return model.Checkpoint{}, fmt.Errorf("store: checkpoint %s/%s/%d/%d: %w", k.Cluster, k.JobID, k.Pipeline, k.ID, err)
		}
		markMissingVertices(&c)
	}
	return c, nil
}

// loadTasks reads the Tasks and Subtasks of checkpoint pk.
func loadTasks(ctx context.Context, tx *sql.Tx, pk int64) ([]model.TaskStats, error) {
	rows, err := tx.QueryContext(ctx, `SELECT `+sqlTaskCols+` FROM task_stats t
		LEFT JOIN subtask_packs p ON p.id = t.ckpt << 16 | t.ord WHERE t.ckpt = ? ORDER BY t.ord`, pk)
	if err != nil {
		return nil, fmt.Errorf("tasks: %w", err)
	}
	defer rows.Close()
	tasks := []model.TaskStats{}
	for rows.Next() {
		t, err := scanTask(rows)
		if err != nil {
			return nil, err
		}
		tasks = append(tasks, t)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("tasks: %w", err)
	}
	return tasks, nil
}

// scanTask reads one row of sqlTaskCols (after any leading columns given in
// lead) and unpacks its subtasks.
func scanTask(rows *sql.Rows, lead ...any) (model.TaskStats, error) {
	var t model.TaskStats
	var r taskRow
	if err := rows.Scan(append(lead, r.dst()...)...); err != nil {
		return t, fmt.Errorf("tasks: %w", err)
	}
	if err := r.fill(&t); err != nil {
		return t, err
	}
	return t, r.unpack(&t)
}

// taskRow is a row of sqlTaskCols as scanned: its columns as the driver
// gives them (database/sql stores into an *any as is, where into an *int64
// it goes through reflection: a fifth of a long scan's time), then the
// pack, only valid until the row's statement moves on.
type taskRow struct {
	vals   [10]any // sqlTaskCols but the last, the pack
	packed sql.RawBytes
	n      int // subtasks packed; -1 when none were kept
}

func (r *taskRow) dst() []any { return append(pointersTo(r.vals[:]), &r.packed) }

// fill sets t's fields from the row, but its Subtasks (unpack).
func (r *taskRow) fill(t *model.TaskStats) error {
	c := columns{v: r.vals[:], names: taskColNames}
	t.VertexID = c.str()
	t.LatestAckMs, t.EndToEndMs, t.StateSize, t.CheckpointedSize = c.int64(), c.int64(), c.int64(), c.int64()
	t.ProcessedData, t.PersistedData, t.NumSubtasks, t.NumAcknowledged = c.int64(), c.int64(), c.int(), c.int()
	r.n = c.int()
	if c.err != nil {
		return fmt.Errorf("tasks: %w", c.err)
	}
	return nil
}

// unpack sets t.Subtasks from the pack, reusing t.Subtasks' storage when it
// is large enough: nil when the row kept none, else a (possibly empty) list.
func (r *taskRow) unpack(t *model.TaskStats) error {
	buf := t.Subtasks[:0]
	t.Subtasks = nil
	n := r.n
	if n < 0 {
		return nil
	}
	if buf == nil || cap(buf) < n {
		buf = make([]model.SubtaskStats, 0, n)
	}
	var err error
	if t.Subtasks, err = decodeSubtasks(buf, r.packed, n); err != nil {
		return fmt.Errorf("vertex %q: %w", t.VertexID, err)
	}
	return nil
}

// taskCursor reads the tasks of every checkpoint a scan yields with one
// statement walking them in the scan's order, instead of one query per
// checkpoint. The scan asks for each checkpoint's tasks in turn; the cursor
// holds the first row it has read beyond the checkpoint asked for, its pack
// unpacked only into the checkpoint it belongs to (so that a pack that does
// not decode is reported with its own checkpoint).
type taskCursor struct {
	rows  *sql.Rows
	pk    int64 // checkpoint of the row read ahead; -1 when none is left
	ahead model.TaskStats
	row   taskRow
	dst   []any // where a row is scanned: the fields above
	rowPK int64
}

// sqlTaskScan reads the tasks of the checkpoints where selects (on c), in
// sqlCheckpointOrder.
func sqlTaskScan(where string) string {
	return `SELECT c.pk, ` + sqlTaskCols + ` FROM checkpoints c
		CROSS JOIN task_stats t ON t.ckpt = c.pk LEFT JOIN subtask_packs p ON p.id = t.ckpt << 16 | t.ord` + where + `
		ORDER BY c.trigger_ms, c.id, c.pipeline, c.cluster, c.job_id, c.pk, t.ord`
}

func openTaskCursor(ctx context.Context, tx *sql.Tx, q Query) (*taskCursor, error) {
	where, args := q.where("c.cluster", "c.job_id", "c.pipeline", "c.trigger_ms")
	// CROSS JOIN keeps checkpoints the outer loop, walked in the scan's order
	// by its index, which covers it: no checkpoint row is read (asking for
	// has_tasks read each one, a tenth of the statement's time). The tasks of
	// each come from their primary key.
	rows, err := tx.QueryContext(ctx, sqlTaskScan(where), args...)
	if err != nil {
		return nil, fmt.Errorf("tasks: %w", err)
	}
	tc := &taskCursor{rows: rows}
	tc.dst = append([]any{&tc.rowPK}, tc.row.dst()...)
	if err := tc.next(); err != nil {
		rows.Close()
		return nil, err
	}
	return tc, nil
}

// next reads the row ahead, leaving its pack packed.
func (tc *taskCursor) next() error {
	tc.pk = -1
	if !tc.rows.Next() {
		if err := tc.rows.Err(); err != nil {
			return fmt.Errorf("tasks: %w", err)
		}
		return nil
	}
	if err := tc.rows.Scan(tc.dst...); err != nil {
		return fmt.Errorf("tasks: %w", err)
	}
	if err := tc.row.fill(&tc.ahead); err != nil {
		return err
	}
	tc.pk = tc.rowPK
	return nil
}

// tasksOf returns the tasks of checkpoint pk, which must come after those
// asked for before in the scan's order, appended to buf[:0]: the tasks and
// subtasks buf holds are overwritten, their storage reused.
func (tc *taskCursor) tasksOf(pk int64, buf []model.TaskStats) ([]model.TaskStats, error) {
	tasks := buf[:0]
	if tasks == nil {
		tasks = []model.TaskStats{}
	}
	for tc.pk == pk {
		var sub []model.SubtaskStats
		if len(tasks) < cap(tasks) {
			sub = tasks[:len(tasks)+1][len(tasks)].Subtasks
		}
		t := tc.ahead
		t.Subtasks = sub
		if err := tc.row.unpack(&t); err != nil {
			return nil, err
		}
		tasks = append(tasks, t)
		if err := tc.next(); err != nil {
			return nil, err
		}
	}
	return tasks, nil
}

func (tc *taskCursor) close() { tc.rows.Close() }

// jobReadTx opens a read-only transaction for a read that q must confine to
// one job; what names the read in errors.
func (s *Store) jobReadTx(ctx context.Context, q Query, what string) (*sql.Tx, error) {
	if q.Cluster == "" || q.JobID == "" {
		return nil, fmt.Errorf("store: %s: a cluster and job are required", what)
	}
	tx, err := s.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, fmt.Errorf("store: %s: %w", what, err)
	}
	return tx, nil
}

// CheckpointSpans returns the spans of a job's checkpoints (q must name the
// cluster and job) in trigger order. They are read from the job's index
// alone: over a long history the job's rows are scattered among every
// other job's, and a cold page cache made reading them whole take seconds.
func (s *Store) CheckpointSpans(ctx context.Context, q Query) ([]model.Span, error) {
	tx, err := s.jobReadTx(ctx, q, "checkpoint spans")
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	where, args := q.where("cluster", "job_id", "pipeline", "trigger_ms")
	var n int
	if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM checkpoints"+where, args...).Scan(&n); err != nil {
		return nil, fmt.Errorf("store: checkpoint spans: %w", err)
	}
	// The usual status comes as a number: the driver makes a string of
	// every text it returns.
	rows, err := tx.QueryContext(ctx, `SELECT `+sqlSpanCols+` FROM checkpoints`+where+sqlCheckpointOrder, args...)
	if err != nil {
		return nil, fmt.Errorf("store: checkpoint spans: %w", err)
	}
	defer rows.Close()
	out := writtenSlice[model.Span](n)
	vals := make([]any, len(spanColNames))
	dst := pointersTo(vals)
	for rows.Next() {
		if err := rows.Scan(dst...); err != nil {
			return nil, fmt.Errorf("store: checkpoint spans: %w", err)
		}
		r := columns{v: vals, names: spanColNames}
		var c model.Span
		c.Pipeline, c.ID = r.int(), r.int64()
		c.Status = model.Status(r.code(string(model.StatusCompleted), string(model.StatusFailed)))
		c.TriggerMs, c.LatestAckMs, c.CompletionMs, c.FailureMs = r.int64(), r.int64(), r.int64(), r.int64()
		c.EndToEndMs, c.CheckpointedSize = r.int64(), r.int64()
		if r.err != nil {
			return nil, fmt.Errorf("store: checkpoint spans: %w", r.err)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: checkpoint spans: %w", err)
	}
	return out, nil
}

// sqlSpanCols are what CheckpointSpans reads, all in the index
// checkpoints_by_job_trigger (schemaV8); spanColNames name them.
const sqlSpanCols = `pipeline, id, CASE status WHEN 'COMPLETED' THEN 0 WHEN 'FAILED' THEN 1 ELSE status END,
	trigger_ms, latest_ack_ms, completion_ms, failure_ms, end_to_end_ms, checkpointed_size`

var spanColNames = []string{"pipeline", "id", "status", "trigger_ms", "latest_ack_ms", "completion_ms", "failure_ms",
	"end_to_end_ms", "checkpointed_size"}

// same is b as a string, and usual when it equals usual (without allocating).
func same(b sql.RawBytes, usual string) string {
	if string(b) == usual {
		return usual
	}
	return string(b)
}

// CountCheckpoints is how many checkpoints match q (the job index alone
// answers it for a job).
func (s *Store) CountCheckpoints(ctx context.Context, q Query) (int, error) {
	where, args := q.where("cluster", "job_id", "pipeline", "trigger_ms")
	var n int
	if err := s.r.QueryRowContext(ctx, "SELECT count(*) FROM checkpoints"+where, args...).Scan(&n); err != nil {
		return 0, fmt.Errorf("store: count checkpoints: %w", err)
	}
	return n, nil
}

// ScanCheckpoints streams the checkpoints matching q, ordered by trigger time
// then id, to fn, one at a time, from one consistent snapshot. With
// withTasks each carries its Tasks and Subtasks. Memory stays bounded by one
// checkpoint whatever the range; fn may keep the pointer. An error from fn
// stops the scan and is returned wrapped.
func (s *Store) ScanCheckpoints(ctx context.Context, q Query, withTasks bool, fn func(*model.Checkpoint) error) error {
	return s.ScanCheckpointsInto(ctx, q, withTasks, nil, fn)
}

// ScanCheckpointsInto is ScanCheckpoints filling the checkpoints reuse
// returns (a new one when reuse is nil or returns nil), their Tasks' and
// Subtasks' storage reused: a caller done with the checkpoints it was given
// can hand them back, and a scan over a day of them then allocates a
// fraction of what it would (400 MB over 100,000 checkpoints).
func (s *Store) ScanCheckpointsInto(ctx context.Context, q Query, withTasks bool, reuse func() *model.Checkpoint,
	fn func(*model.Checkpoint) error) error {
	tx, err := s.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return fmt.Errorf("store: scan checkpoints: %w", err)
	}
	defer tx.Rollback()
	where, args := q.where("cluster", "job_id", "pipeline", "trigger_ms")
	rows, err := tx.QueryContext(ctx, "SELECT "+sqlCheckpointCols+" FROM checkpoints"+where+sqlCheckpointOrder, args...)
	if err != nil {
		return fmt.Errorf("store: scan checkpoints: %w", err)
	}
	defer rows.Close()
	var tc *taskCursor
	if withTasks {
		if tc, err = openTaskCursor(ctx, tx, q); err != nil {
			return fmt.Errorf("store: scan checkpoints: %w", err)
		}
		defer tc.close()
	}
	var same repeatedStrings
	row := newCheckpointRow()
	for rows.Next() {
		var c *model.Checkpoint
		if reuse != nil {
			c = reuse()
		}
		var tasks []model.TaskStats
		if c == nil {
			c = new(model.Checkpoint)
		} else {
			tasks = c.Tasks
			*c = model.Checkpoint{}
		}
		st, err := row.scan(rows, c)
		if err != nil {
			return fmt.Errorf("store: scan checkpoints: %w", err)
		}
		same.share(c)
		if withTasks {
			// Every checkpoint's rows are taken, whatever has_tasks says, so
			// that the cursor moves on past them.
			tasks, err = tc.tasksOf(st.pk, tasks)
			if err != nil {
				return fmt.Errorf("store: scan checkpoints: %s/%s/%d/%d: %w", c.Cluster, c.JobID, c.Pipeline, c.ID, err)
			}
			if st.hasTasks {
				c.Tasks = tasks
				markMissingVertices(c)
			}
		}
		if err := fn(c); err != nil {
			return fmt.Errorf("store: scan checkpoints: %w", err)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("store: scan checkpoints: %w", err)
	}
	return nil
}

// repeatedStrings lets the checkpoints of a scan share the strings most of
// them repeat (cluster, job, kind, status, source): a caller keeping 100,000
// of them would otherwise hold 100,000 copies of each.
type repeatedStrings struct {
	prev model.Checkpoint
}

func (r *repeatedStrings) share(c *model.Checkpoint) {
	p := &r.prev
	if c.Cluster == p.Cluster {
		c.Cluster = p.Cluster
	}
	if c.JobID == p.JobID {
		c.JobID = p.JobID
	}
	if c.Kind == p.Kind {
		c.Kind = p.Kind
	}
	if c.Status == p.Status {
		c.Status = p.Status
	}
	if c.Source == p.Source {
		c.Source = p.Source
	}
	*p = model.Checkpoint{Cluster: c.Cluster, JobID: c.JobID, Kind: c.Kind, Status: c.Status, Source: c.Source}
}

// PhaseMaxima is the largest start delay, alignment, sync and async time over
// all subtasks of one checkpoint, kept even after its subtask rows are
// trimmed. Nil when no subtask was ever stored.
type PhaseMaxima struct {
	model.Key
	TriggerMs    int64  `json:"trigger_ms"`
	StartDelayMs *int64 `json:"start_delay_ms,omitempty"`
	AlignmentMs  *int64 `json:"alignment_ms,omitempty"`
	SyncMs       *int64 `json:"sync_ms,omitempty"`
	AsyncMs      *int64 `json:"async_ms,omitempty"`
}

// PhaseMaxima returns per-checkpoint phase maxima ordered like Checkpoints.
func (s *Store) PhaseMaxima(ctx context.Context, q Query) ([]PhaseMaxima, error) {
	where, args := q.where("cluster", "job_id", "pipeline", "trigger_ms")
	rows, err := s.r.QueryContext(ctx, `SELECT cluster, job_id, pipeline, id, trigger_ms, max_start_delay_ms,
		max_alignment_ms, max_sync_ms, max_async_ms FROM checkpoints`+where+sqlCheckpointOrder, args...)
	return scanAll(rows, err, "phase maxima", func(rows *sql.Rows, p *PhaseMaxima) error {
		var v [4]sql.NullInt64
		if err := rows.Scan(&p.Cluster, &p.JobID, &p.Pipeline, &p.ID, &p.TriggerMs, &v[0], &v[1], &v[2], &v[3]); err != nil {
			return err
		}
		dst := [4]**int64{&p.StartDelayMs, &p.AlignmentMs, &p.SyncMs, &p.AsyncMs}
		for i := range v {
			if v[i].Valid {
				x := v[i].Int64
				*dst[i] = &x
			}
		}
		return nil
	})
}

// AckSamples returns ack samples with time in q's range, ordered by cluster,
// job, pipeline, checkpoint id, time.
func (s *Store) AckSamples(ctx context.Context, q Query) ([]model.AckSample, error) {
	where, args := q.where("cluster", "job_id", "pipeline", "time_ms")
	rows, err := s.r.QueryContext(ctx, `SELECT cluster, job_id, pipeline, checkpoint_id, time_ms, acknowledged, total
		FROM ack_samples`+where+` ORDER BY cluster, job_id, pipeline, checkpoint_id, time_ms`, args...)
	return scanAll(rows, err, "ack samples", func(rows *sql.Rows, a *model.AckSample) error {
		return rows.Scan(&a.Cluster, &a.JobID, &a.Pipeline, &a.CheckpointID, &a.TimeMs, &a.Acknowledged, &a.Total)
	})
}

// ScanMetricSamples streams metric samples with time in q's range to fn,
// grouped by series (cluster, job, vertex, target, subtask, metric, agg) and
// ordered by time within a series. NaN values round-trip.
func (s *Store) ScanMetricSamples(ctx context.Context, q Query, fn func(model.MetricSample) error) error {
	return s.scanMetricSamples(ctx, q, nil, fn)
}

// scanMetricSamples is ScanMetricSamples telling size, when not nil, how
// many samples will come before the first comes.
func (s *Store) scanMetricSamples(ctx context.Context, q Query, size func(int), fn func(model.MetricSample) error) error {
	// The series first, then each one's samples by its key (series_id,
	// time_ms): a sample row then carries only its time, value and source,
	// not the series' seven columns again (a third of a 100,000-checkpoint
	// job's timeline request went there).
	tx, err := s.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return fmt.Errorf("store: metric samples: %w", err)
	}
	defer tx.Rollback()
	sq := Query{Cluster: q.Cluster, JobID: q.JobID}
	where, args := sq.where("cluster", "job_id", "", "")
	rows, err := tx.QueryContext(ctx, `SELECT series_id, cluster, job_id, vertex_id, target, subtask, metric, agg
		FROM metric_series`+where+` ORDER BY cluster, job_id, vertex_id, target, subtask, metric, agg`, args...)
	if err != nil {
		return fmt.Errorf("store: metric samples: %w", err)
	}
	type series struct {
		id int64
		m  model.MetricSample
	}
	var all []series
	for rows.Next() {
		var se series
		if err := rows.Scan(&se.id, &se.m.Cluster, &se.m.JobID, &se.m.VertexID, &se.m.Target, &se.m.Subtask,
			&se.m.Metric, &se.m.Agg); err != nil {
			rows.Close()
			return fmt.Errorf("store: metric samples: %w", err)
		}
		if q.Metric == nil || q.Metric(se.m.Metric) {
			all = append(all, se)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("store: metric samples: %w", err)
	}
	if len(all) == 0 {
		return nil
	}
	tq := Query{FromMs: q.FromMs, ToMs: q.ToMs}
	twhere, targs := tq.where("", "", "", "time_ms")
	cond := " WHERE series_id = ?"
	if twhere != "" {
		cond += " AND " + strings.TrimPrefix(twhere, " WHERE ")
	}
	if size != nil {
		n := 0
		count, err := tx.PrepareContext(ctx, `SELECT count(*) FROM metric_samples`+cond)
		if err != nil {
			return fmt.Errorf("store: metric samples: %w", err)
		}
		defer count.Close()
		for _, se := range all {
			var k int
			if err := count.QueryRowContext(ctx, append([]any{se.id}, targs...)...).Scan(&k); err != nil {
				return fmt.Errorf("store: metric samples: %w", err)
			}
			n += k
		}
		size(n)
	}
	st, err := tx.PrepareContext(ctx, `SELECT time_ms, value, source FROM metric_samples`+cond+` ORDER BY time_ms`)
	if err != nil {
		return fmt.Errorf("store: metric samples: %w", err)
	}
	defer st.Close()
	for _, se := range all {
		rows, err := st.QueryContext(ctx, append([]any{se.id}, targs...)...)
		if err != nil {
			return fmt.Errorf("store: metric samples: %w", err)
		}
		var src sql.RawBytes
		for rows.Next() {
			m := se.m
			var v sql.NullFloat64
			if err := rows.Scan(&m.TimeMs, &v, &src); err != nil {
				rows.Close()
				return fmt.Errorf("store: metric samples: %w", err)
			}
			// A series' samples mostly share one source: one string for them.
			m.Source = same(src, se.m.Source)
			se.m.Source = m.Source
			m.Value = v.Float64
			if !v.Valid {
				m.Value = math.NaN()
			}
			if err := fn(m); err != nil {
				rows.Close()
				return fmt.Errorf("store: metric samples: %w", err)
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("store: metric samples: %w", err)
		}
	}
	return nil
}

// MetricMaxima returns, for each metric q accepts and each time in q's range,
// the largest finite value over the job's series of it (all vertices,
// subtasks and aggregations), ordered by metric then time; q must name the
// cluster and job. Each comes as a sample of the metric with the cluster and
// job, Subtask -1 and Agg max. A lane that draws the maximum needs no more:
// over a day at 1 s the backpressure of four vertices is 80,000 samples and
// 10,000 maxima, and SQLite finds them in a fraction of the time Go took to
// read the samples.
func (s *Store) MetricMaxima(ctx context.Context, q Query) ([]model.MetricSample, error) {
	tx, err := s.jobReadTx(ctx, q, "metric maxima")
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, `SELECT metric, group_concat(series_id) FROM metric_series
		WHERE cluster = ? AND job_id = ? GROUP BY metric ORDER BY metric`, q.Cluster, q.JobID)
	if err != nil {
		return nil, fmt.Errorf("store: metric maxima: %w", err)
	}
	type metricSeries struct{ metric, ids string }
	var metrics []metricSeries
	for rows.Next() {
		var m metricSeries
		if err := rows.Scan(&m.metric, &m.ids); err != nil {
			rows.Close()
			return nil, fmt.Errorf("store: metric maxima: %w", err)
		}
		if q.Metric == nil || q.Metric(m.metric) {
			metrics = append(metrics, m)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: metric maxima: %w", err)
	}
	tq := Query{FromMs: q.FromMs, ToMs: q.ToMs}
	twhere, targs := tq.where("", "", "", "time_ms")
	cond := ""
	if twhere != "" {
		cond = " AND " + strings.TrimPrefix(twhere, " WHERE ")
	}
	var out []model.MetricSample
	for _, m := range metrics {
		// The ids are SQLite's own integers, joined by SQLite: safe to
		// inline. NaN is stored as NULL and ±Inf falls outside the range:
		// neither is a lane's value.
		rows, err := tx.QueryContext(ctx, `SELECT time_ms, max(value) FROM metric_samples
			WHERE series_id IN (`+m.ids+`) AND value BETWEEN -1.7976931348623157e308 AND 1.7976931348623157e308`+cond+`
			GROUP BY time_ms ORDER BY time_ms`, targs...)
		if err != nil {
			return nil, fmt.Errorf("store: metric maxima of %s: %w", m.metric, err)
		}
		for rows.Next() {
			ms := model.MetricSample{Cluster: q.Cluster, JobID: q.JobID, Subtask: -1, Metric: m.metric, Agg: model.AggMax}
			if err := rows.Scan(&ms.TimeMs, &ms.Value); err != nil {
				rows.Close()
				return nil, fmt.Errorf("store: metric maxima of %s: %w", m.metric, err)
			}
			out = append(out, ms)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("store: metric maxima of %s: %w", m.metric, err)
		}
	}
	return out, nil
}

// writtenSlice makes an empty slice of capacity n whose memory is written
// once now, as analyze.Reserve writes its arrays: the collector scans the
// capacity of an array that holds pointers, and a page it read first is
// copied, with a TLB flush on every core, at the program's first write
// (docs/reliability.md).
func writtenSlice[T any](n int) []T {
	s := make([]T, n)
	clear(s)
	return s[:0]
}

// MetricSamples collects ScanMetricSamples into a slice.
func (s *Store) MetricSamples(ctx context.Context, q Query) ([]model.MetricSample, error) {
	// Sized first: a day of samples is tens of MB, and growing the slice
	// by doubling copied them over and over.
	var out []model.MetricSample
	err := s.scanMetricSamples(ctx, q, func(n int) { out = writtenSlice[model.MetricSample](n) }, func(m model.MetricSample) error {
		out = append(out, m)
		return nil
	})
	return out, err
}

// Reconciliation returns a job's latest reconciliation; false if none was kept.
func (s *Store) Reconciliation(ctx context.Context, cluster, jobID string) (model.Reconciliation, bool, error) {
	return jobDocument[model.Reconciliation](ctx, s, "reconciliation", `SELECT data FROM reconciliations WHERE cluster = ? AND job_id = ?`, cluster, jobID)
}

// jobDocument reads the JSON document query finds for a job; false if it
// finds none. what names the document in errors.
func jobDocument[T any](ctx context.Context, s *Store, what, query, cluster, jobID string) (T, bool, error) {
	var data string
	err := s.r.QueryRowContext(ctx, query, cluster, jobID).Scan(&data)
	if errors.Is(err, sql.ErrNoRows) {
		var none T
		return none, false, nil
	}
	var v T
	if err == nil {
		err = json.Unmarshal([]byte(data), &v)
	}
	if err != nil {
		var none T
		return none, false, fmt.Errorf("store: %s of %s/%s: %w", what, cluster, jobID, err)
	}
	return v, true, nil
}

// Gaps returns the checkpoints still missing: recorded gaps detected within
// q's range, overlapping ones merged, minus any checkpoint stored inside them
// afterwards (so a gap never hides a real checkpoint). Ordered by cluster,
// job, pipeline, from id.
func (s *Store) Gaps(ctx context.Context, q Query) ([]model.Gap, error) {
	tx, err := s.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, fmt.Errorf("store: gaps: %w", err)
	}
	defer tx.Rollback()
	gaps, err := gapsIn(ctx, tx, q)
	if err != nil {
		return nil, fmt.Errorf("store: gaps: %w", err)
	}
	return gaps, nil
}

func gapsIn(ctx context.Context, tx queryer, q Query) ([]model.Gap, error) {
	where, args := q.where("cluster", "job_id", "pipeline", "detected_ms")
	rows, err := tx.QueryContext(ctx, `SELECT cluster, job_id, pipeline, from_id, to_id, detected_ms, reason
		FROM gaps`+where+` ORDER BY cluster, job_id, pipeline, from_id, to_id`, args...)
	if err != nil {
		return nil, err
	}
	var merged []model.Gap
	for rows.Next() {
		var g model.Gap
		if err := rows.Scan(&g.Cluster, &g.JobID, &g.Pipeline, &g.FromID, &g.ToID, &g.DetectedMs, &g.Reason); err != nil {
			rows.Close()
			return nil, err
		}
		if n := len(merged); n > 0 {
			last := &merged[n-1]
			if last.Cluster == g.Cluster && last.JobID == g.JobID && last.Pipeline == g.Pipeline && g.FromID <= last.ToID {
				last.ToID = max(last.ToID, g.ToID)
				last.DetectedMs = min(last.DetectedMs, g.DetectedMs)
				continue
			}
		}
		merged = append(merged, g)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}

	var out []model.Gap
	for _, g := range merged {
		ids, err := tx.QueryContext(ctx, `SELECT id FROM checkpoints
			WHERE cluster = ? AND job_id = ? AND pipeline = ? AND id BETWEEN ? AND ? ORDER BY id`,
			g.Cluster, g.JobID, g.Pipeline, g.FromID, g.ToID)
		if err != nil {
			return nil, err
		}
		next := g.FromID
		for ids.Next() {
			var id int64
			if err := ids.Scan(&id); err != nil {
				ids.Close()
				return nil, err
			}
			if id > next {
				part := g
				part.FromID, part.ToID = next, id-1
				out = append(out, part)
			}
			next = id + 1
		}
		ids.Close()
		if err := ids.Err(); err != nil {
			return nil, err
		}
		if next <= g.ToID {
			part := g
			part.FromID = next
			out = append(out, part)
		}
	}
	return out, nil
}

// LatestCheckpointID returns the highest stored checkpoint id of a job's
// pipeline, and false if none is stored.
func (s *Store) LatestCheckpointID(ctx context.Context, cluster, jobID string, pipeline int) (int64, bool, error) {
	var id sql.NullInt64
	if err := s.r.QueryRowContext(ctx, `SELECT max(id) FROM checkpoints WHERE cluster = ? AND job_id = ? AND pipeline = ?`,
		cluster, jobID, pipeline).Scan(&id); err != nil {
		return 0, false, fmt.Errorf("store: latest checkpoint of %s/%s/%d: %w", cluster, jobID, pipeline, err)
	}
	return id.Int64, id.Valid, nil
}

// NewestCompletedID returns the id of the newest completed checkpoint of a
// job's pipeline; false when none completed.
func (s *Store) NewestCompletedID(ctx context.Context, cluster, jobID string, pipeline int) (int64, bool, error) {
	var id sql.NullInt64
	if err := s.r.QueryRowContext(ctx, `SELECT max(id) FROM checkpoints WHERE cluster = ? AND job_id = ? AND pipeline = ?
		AND status = ?`, cluster, jobID, pipeline, string(model.StatusCompleted)).Scan(&id); err != nil {
		return 0, false, fmt.Errorf("store: newest completed checkpoint of %s/%s/%d: %w", cluster, jobID, pipeline, err)
	}
	return id.Int64, id.Valid, nil
}

// JobConfigs returns a job's configuration history, oldest first (the newest
// last); empty when none was kept.
func (s *Store) JobConfigs(ctx context.Context, cluster, jobID string) ([]model.JobConfig, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT json FROM job_configs WHERE cluster = ? AND job_id = ?
		ORDER BY seen_ms, pk`, cluster, jobID)
	return scanAll(rows, err, "configurations of "+cluster+"/"+jobID, func(rows *sql.Rows, c *model.JobConfig) error {
		var data string
		if err := rows.Scan(&data); err != nil {
			return err
		}
		if err := json.Unmarshal([]byte(data), c); err != nil {
			return fmt.Errorf("unreadable entry: %w", err)
		}
		return nil
	})
}

// LatestJobConfig returns a job's newest configuration; false if none was kept.
func (s *Store) LatestJobConfig(ctx context.Context, cluster, jobID string) (model.JobConfig, bool, error) {
	return jobDocument[model.JobConfig](ctx, s, "configuration", sqlLatestJobConfig, cluster, jobID)
}
