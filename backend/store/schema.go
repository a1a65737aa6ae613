package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"checkpoint-explorer/backend/model"
)

// migration is one step of the schema; steps run in order, each in its own
// transaction together with its schema_version row.
type migration struct {
	version int
	name    string
	sql     string
	// fn, when set, runs after sql in the same transaction (data conversion).
	fn func(ctx context.Context, tx *sql.Tx) error
	// slow: the step rewrites every checkpoint (an index over them, or fn),
	// seconds on a long history, so it is announced.
	slow bool
}

// migrations must only ever be appended to: a released step never changes.
var migrations = []migration{
	{1, "initial schema", schemaV1, nil, false},
	{2, "subtask stats packed per vertex", schemaV2, packSubtaskRows, true},
	{3, "reconciliation of each job's checkpoint ids", schemaV3, nil, false},
	{4, "checkpoints from the JobManager log: source, failure cause, declining task", schemaV4, nil, false},
	{5, "indexes for long histories: detail size, checkpoints not completed", schemaV5, nil, false},
	{6, "checkpoints counted per job", schemaV6, nil, false},
	{7, "each job's configuration, with its history", schemaV7, nil, false},
	{8, "each job's checkpoint spans in its index", schemaV8, nil, true},
	{9, "notes on a job's timeline; checkpoints exported to a tracing backend", schemaV9, nil, false},
	{10, "checkpoints a tracing backend refused for good", schemaV10, nil, false},
	{11, "each job's engine restore counts over time", schemaV11, nil, false},
	{12, "runs the user split from the earlier runs of their name", schemaV12, nil, false},
}

// Foreign keys are off on purpose: captures may carry checkpoints before (or
// without) their job or cluster record, and retention deletes child rows
// explicitly in bounded chunks rather than through cascades of unknown size.
const schemaV1 = `
CREATE TABLE clusters (
	name                 TEXT PRIMARY KEY,
	engine               TEXT NOT NULL,
	base_url             TEXT NOT NULL,
	prometheus_url       TEXT NOT NULL DEFAULT '',
	auth_kind            TEXT NOT NULL DEFAULT 'none', -- the kind only, never a secret
	ca_file              TEXT NOT NULL DEFAULT '',
	insecure_skip_verify INTEGER NOT NULL DEFAULT 0,
	read_only            INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE jobs (
	cluster    TEXT NOT NULL,
	job_id     TEXT NOT NULL,
	name       TEXT NOT NULL,
	engine     TEXT NOT NULL,
	state      TEXT NOT NULL,
	start_ms   INTEGER NOT NULL,
	end_ms     INTEGER NOT NULL,
	updated_ms INTEGER NOT NULL,
	vertices   TEXT, -- JSON array; NULL = none known
	edges      TEXT, -- JSON array; NULL = none known
	PRIMARY KEY (cluster, job_id)
) WITHOUT ROWID;

CREATE TABLE checkpoints (
	pk                INTEGER PRIMARY KEY,
	cluster           TEXT NOT NULL,
	job_id            TEXT NOT NULL,
	pipeline          INTEGER NOT NULL,
	id                INTEGER NOT NULL,
	kind              TEXT NOT NULL,
	status            TEXT NOT NULL,
	trigger_ms        INTEGER NOT NULL,
	latest_ack_ms     INTEGER NOT NULL,
	completion_ms     INTEGER NOT NULL,
	failure_ms        INTEGER NOT NULL,
	end_to_end_ms     INTEGER NOT NULL,
	finalize_ms       INTEGER,          -- NULL = not observable
	state_size        INTEGER NOT NULL,
	checkpointed_size INTEGER NOT NULL,
	processed_data    INTEGER NOT NULL,
	persisted_data    INTEGER NOT NULL,
	state_blobs       INTEGER,          -- NULL = not reported
	num_subtasks      INTEGER NOT NULL,
	num_acknowledged  INTEGER NOT NULL,
	failure_message   TEXT NOT NULL,
	external_path     TEXT NOT NULL,
	has_tasks         INTEGER NOT NULL, -- 0: Tasks was nil; 1: a (possibly empty) list
	task_rows         INTEGER NOT NULL,
	subtask_rows      INTEGER NOT NULL, -- rows currently in subtask_stats
	detail_trimmed    INTEGER NOT NULL DEFAULT 0,
	-- maxima over all subtasks, kept after the subtask rows are trimmed; NULL = no subtasks seen
	max_start_delay_ms INTEGER,
	max_alignment_ms   INTEGER,
	max_sync_ms        INTEGER,
	max_async_ms       INTEGER,
	UNIQUE (cluster, job_id, pipeline, id)
);
CREATE INDEX checkpoints_by_job_trigger ON checkpoints (cluster, job_id, trigger_ms, id, pipeline);
CREATE INDEX checkpoints_by_trigger ON checkpoints (trigger_ms);
-- lets the size cap find the oldest checkpoints that still have detail without rescanning trimmed ones
CREATE INDEX checkpoints_with_detail ON checkpoints (trigger_ms) WHERE subtask_rows > 0;

CREATE TABLE task_stats (
	ckpt              INTEGER NOT NULL, -- checkpoints.pk
	ord               INTEGER NOT NULL, -- position in Checkpoint.Tasks
	vertex_id         TEXT NOT NULL,
	latest_ack_ms     INTEGER NOT NULL,
	end_to_end_ms     INTEGER NOT NULL,
	state_size        INTEGER NOT NULL,
	checkpointed_size INTEGER NOT NULL,
	processed_data    INTEGER NOT NULL,
	persisted_data    INTEGER NOT NULL,
	num_subtasks      INTEGER NOT NULL,
	num_acknowledged  INTEGER NOT NULL,
	subtask_rows      INTEGER NOT NULL, -- -1: Subtasks was nil (or trimmed)
	PRIMARY KEY (ckpt, ord)
) WITHOUT ROWID;

CREATE TABLE subtask_stats (
	ckpt              INTEGER NOT NULL,
	ord               INTEGER NOT NULL,
	idx               INTEGER NOT NULL,
	status            TEXT NOT NULL,
	ack_ms            INTEGER NOT NULL,
	end_to_end_ms     INTEGER NOT NULL,
	start_delay_ms    INTEGER NOT NULL,
	alignment_ms      INTEGER NOT NULL,
	sync_ms           INTEGER NOT NULL,
	async_ms          INTEGER NOT NULL,
	state_size        INTEGER NOT NULL,
	checkpointed_size INTEGER NOT NULL,
	processed_data    INTEGER NOT NULL,
	persisted_data    INTEGER NOT NULL,
	flags             INTEGER NOT NULL, -- bit 0 unaligned, bit 1 aborted
	PRIMARY KEY (ckpt, ord, idx)
) WITHOUT ROWID;

CREATE TABLE ack_samples (
	cluster       TEXT NOT NULL,
	job_id        TEXT NOT NULL,
	pipeline      INTEGER NOT NULL,
	checkpoint_id INTEGER NOT NULL,
	time_ms       INTEGER NOT NULL,
	acknowledged  INTEGER NOT NULL,
	total         INTEGER NOT NULL,
	PRIMARY KEY (cluster, job_id, pipeline, checkpoint_id, time_ms)
) WITHOUT ROWID;

-- A series is interned once so that each sample row is small.
CREATE TABLE metric_series (
	series_id INTEGER PRIMARY KEY,
	cluster   TEXT NOT NULL,
	job_id    TEXT NOT NULL,
	vertex_id TEXT NOT NULL,
	target    TEXT NOT NULL,
	subtask   INTEGER NOT NULL,
	metric    TEXT NOT NULL,
	agg       TEXT NOT NULL,
	UNIQUE (cluster, job_id, vertex_id, target, subtask, metric, agg)
);

CREATE TABLE metric_samples (
	series_id INTEGER NOT NULL,
	time_ms   INTEGER NOT NULL,
	value     REAL,             -- NULL stores NaN (SQLite has no NaN)
	source    TEXT NOT NULL,
	PRIMARY KEY (series_id, time_ms)
) WITHOUT ROWID;

CREATE TABLE gaps (
	cluster     TEXT NOT NULL,
	job_id      TEXT NOT NULL,
	pipeline    INTEGER NOT NULL,
	from_id     INTEGER NOT NULL,
	to_id       INTEGER NOT NULL,
	detected_ms INTEGER NOT NULL,
	reason      TEXT NOT NULL,
	PRIMARY KEY (cluster, job_id, pipeline, from_id, to_id)
) WITHOUT ROWID;

-- floors remembers, per job and pipeline, the newest checkpoint retention
-- removed, so samples and gaps below it are dropped even if they arrive late.
CREATE TABLE floors (
	cluster  TEXT NOT NULL,
	job_id   TEXT NOT NULL,
	pipeline INTEGER NOT NULL,
	floor_ms INTEGER NOT NULL,
	floor_id INTEGER NOT NULL,
	PRIMARY KEY (cluster, job_id, pipeline)
) WITHOUT ROWID;

CREATE TABLE prune_totals (
	one            INTEGER PRIMARY KEY CHECK (one = 1),
	checkpoints    INTEGER NOT NULL,
	subtask_rows   INTEGER NOT NULL,
	ack_samples    INTEGER NOT NULL,
	metric_samples INTEGER NOT NULL,
	gaps           INTEGER NOT NULL,
	freed_bytes    INTEGER NOT NULL
);
INSERT INTO prune_totals VALUES (1, 0, 0, 0, 0, 0, 0);
`

// schemaV2 moves the subtask stats from one row each into one packed value
// per vertex (subtaskcodec.go); packSubtaskRows converts what v1 stored.
// The packs have their own table, so trimming detail deletes whole rows and
// frees whole pages (in the task rows they would leave pages half empty). A
// pack is a large fraction of a page, so the table has a rowid, and the rowid
// is the key, packKey(ckpt, ord): no second b-tree to update on every write.
const schemaV2 = `
CREATE TABLE subtask_packs (
	id     INTEGER PRIMARY KEY, -- checkpoints.pk << 16 | task_stats.ord
	packed BLOB NOT NULL        -- the vertex's SubtaskStats (subtaskcodec.go)
);
`

// schemaV3 keeps, per job, the collector's latest reconciliation of the
// engine's checkpoint ids and counters with what was stored
// (model.Reconciliation, as JSON: it is read and written whole).
const schemaV3 = `
CREATE TABLE reconciliations (
	cluster TEXT NOT NULL,
	job_id  TEXT NOT NULL,
	at_ms   INTEGER NOT NULL,
	data    TEXT NOT NULL,
	PRIMARY KEY (cluster, job_id)
) WITHOUT ROWID;
`

// schemaV4 adds what Flink's JobManager log tells of a checkpoint: where the
// record came from (” the engine's API, 'jobmanager_log'), the failure's
// root cause and the declining task (model.Decline as JSON; NULL = none).
// Adding columns with constant defaults does not rewrite the table.
const schemaV4 = `
ALTER TABLE checkpoints ADD COLUMN source TEXT NOT NULL DEFAULT '';
ALTER TABLE checkpoints ADD COLUMN failure_cause TEXT NOT NULL DEFAULT '';
ALTER TABLE checkpoints ADD COLUMN declined TEXT;
`

// Over 2,000,000 checkpoints, the cache's size (the sum of subtask rows) and
// each job's failed and running counts each read the whole table (0.3 s and
// 0.2 s, on every cache view and job list); these partial indexes answer
// them from the few entries that matter.
const schemaV5 = `
DROP INDEX checkpoints_with_detail;
CREATE INDEX checkpoints_with_detail ON checkpoints (trigger_ms, subtask_rows) WHERE subtask_rows > 0;
CREATE INDEX checkpoints_not_completed ON checkpoints (cluster, job_id, status) WHERE status != 'COMPLETED';
`

// Each job's checkpoint count, kept by triggers in the writes' own
// transactions: counting a job's checkpoints read its whole index range
// (0.4 s for the job list over 2,000,000 checkpoints).
const schemaV6 = `
CREATE TABLE job_counts (
	cluster     TEXT NOT NULL,
	job_id      TEXT NOT NULL,
	checkpoints INTEGER NOT NULL,
	PRIMARY KEY (cluster, job_id)
) WITHOUT ROWID;
INSERT INTO job_counts SELECT cluster, job_id, count(*) FROM checkpoints GROUP BY cluster, job_id;
CREATE TRIGGER job_counts_insert AFTER INSERT ON checkpoints BEGIN
	INSERT INTO job_counts VALUES (new.cluster, new.job_id, 1)
		ON CONFLICT DO UPDATE SET checkpoints = checkpoints + 1;
END;
CREATE TRIGGER job_counts_delete AFTER DELETE ON checkpoints BEGIN
	UPDATE job_counts SET checkpoints = checkpoints - 1 WHERE cluster = old.cluster AND job_id = old.job_id;
	DELETE FROM job_counts WHERE cluster = old.cluster AND job_id = old.job_id AND checkpoints <= 0;
END;
`

// schemaV7 keeps what the engine says of each job's checkpointing and state
// configuration (model.JobConfig as JSON: it is read and written whole): a
// row per configuration seen, a new one only when the settings differ from
// the latest (a resubmission), so a job's rows are its history.
const schemaV7 = `
CREATE TABLE job_configs (
	pk      INTEGER PRIMARY KEY,
	cluster TEXT NOT NULL,
	job_id  TEXT NOT NULL,
	seen_ms INTEGER NOT NULL,
	json    TEXT NOT NULL
);
CREATE INDEX job_configs_by_job ON job_configs (cluster, job_id, seen_ms);
`

// schemaV8 widens the job index by what a timeline reads of each checkpoint
// (store.CheckpointSpans), so a job's spans are read from its index alone. A
// job's table rows lie among every other job's: over 2,000,000 checkpoints
// in 191 jobs, the 100,000 of one job touched some 100,000 pages, and with
// the page cache cold (after a reboot, or under memory pressure) reading
// them took 3–4 s; from the index, 0.5 s. The index grows by a third. pk
// stands right after the key, as the rowid did: scans in sqlCheckpointOrder
// walk the index without a sort.
const schemaV8 = `
DROP INDEX checkpoints_by_job_trigger;
CREATE INDEX checkpoints_by_job_trigger ON checkpoints (cluster, job_id, trigger_ms, id, pipeline, pk,
	status, latest_ack_ms, completion_ms, failure_ms, end_to_end_ms, checkpointed_size);
`

// packKey is a pack's rowid; a checkpoint's packs are the range
// [packKey(ckpt, 0), packKey(ckpt, maxTasks-1)].
func packKey(ckpt int64, ord int) int64 { return ckpt<<16 | int64(ord) }

// maxTasks bounds the vertices of one checkpoint (packKey's low 16 bits).
const maxTasks = 1 << 16

// packSubtaskRows packs every vertex's subtask rows into its task row, one
// vertex at a time, then drops the old table. The subtask rows were written
// in index order within (ckpt, ord), which the primary key keeps.
func packSubtaskRows(ctx context.Context, tx *sql.Tx) error {
	rows, err := tx.QueryContext(ctx, `SELECT ckpt, ord, idx, status, ack_ms, end_to_end_ms, start_delay_ms,
		alignment_ms, sync_ms, async_ms, state_size, checkpointed_size, processed_data, persisted_data, flags
		FROM subtask_stats ORDER BY ckpt, ord, idx`)
	if err != nil {
		return fmt.Errorf("read subtask rows: %w", err)
	}
	defer rows.Close()
	upd, err := tx.PrepareContext(ctx, `INSERT INTO subtask_packs (packed, id) VALUES (?, ?)`)
	if err != nil {
		return err
	}
	defer upd.Close()
	var (
		subs          []model.SubtaskStats
		buf           []byte
		curCkpt, ckpt int64
		curOrd, ord   int
		started       bool
	)
	flush := func() error {
		if !started {
			return nil
		}
		buf = encodeSubtasks(buf[:0], subs)
		_, err := upd.ExecContext(ctx, buf, packKey(curCkpt, curOrd))
		subs = subs[:0]
		return err
	}
	for rows.Next() {
		var st model.SubtaskStats
		var flags int64
		if err := rows.Scan(&ckpt, &ord, &st.Index, &st.Status, &st.AckMs, &st.EndToEndMs, &st.StartDelayMs,
			&st.AlignmentMs, &st.SyncMs, &st.AsyncMs, &st.StateSize, &st.CheckpointedSize, &st.ProcessedData,
			&st.PersistedData, &flags); err != nil {
			return fmt.Errorf("read subtask rows: %w", err)
		}
		st.Unaligned, st.Aborted = flags&1 != 0, flags&2 != 0
		if !started || ckpt != curCkpt || ord != curOrd {
			if err := flush(); err != nil {
				return fmt.Errorf("pack subtasks of %d/%d: %w", curCkpt, curOrd, err)
			}
			curCkpt, curOrd, started = ckpt, ord, true
		}
		subs = append(subs, st)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read subtask rows: %w", err)
	}
	if err := flush(); err != nil {
		return fmt.Errorf("pack subtasks of %d/%d: %w", curCkpt, curOrd, err)
	}
	rows.Close()
	// Vertices that had an empty (not absent) subtask list had no rows.
	if _, err := tx.ExecContext(ctx, `INSERT INTO subtask_packs (id, packed)
		SELECT ckpt << 16 | ord, ? FROM task_stats WHERE subtask_rows = 0`, encodeSubtasks(nil, nil)); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DROP TABLE subtask_stats`); err != nil {
		return err
	}
	return nil
}

// MigrationEvent tells that a cache is being converted to a newer schema:
// once before the step (Done false) and once after it (Done true, Took set).
// A new, empty cache gets no events: creating it is instant; nor do steps
// that only add a table.
type MigrationEvent struct {
	Version int
	Name    string
	Done    bool
	Took    time.Duration
}

// migrate brings the database to the newest schema version, telling notify
// (if not nil) about each step applied to an existing cache.
func migrate(ctx context.Context, db *sql.DB, notify func(MigrationEvent)) error {
	// A fresh file must get auto_vacuum before its first table; it cannot
	// be switched later without a full VACUUM.
	if _, err := db.ExecContext(ctx, "PRAGMA auto_vacuum = INCREMENTAL"); err != nil {
		return fmt.Errorf("migrate: auto_vacuum: %w", err)
	}
	if _, err := db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_version (
		version    INTEGER PRIMARY KEY,
		name       TEXT NOT NULL,
		applied_ms INTEGER NOT NULL)`); err != nil {
		return fmt.Errorf("migrate: schema_version: %w", err)
	}
	var mode string
	if err := db.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
		return fmt.Errorf("migrate: journal_mode: %w", err)
	}
	if mode != "wal" {
		return fmt.Errorf("migrate: journal_mode is %q, want wal", mode)
	}

	current, err := schemaVersion(ctx, db)
	if err != nil {
		return err
	}
	latest := migrations[len(migrations)-1].version
	if current > latest {
		return fmt.Errorf("migrate: database schema version %d is newer than this build understands (%d)", current, latest)
	}
	for _, m := range migrations {
		if m.version <= current {
			continue
		}
		// Only steps that rewrite every checkpoint take long enough to announce.
		tell := notify != nil && current > 0 && m.slow
		if tell {
			notify(MigrationEvent{Version: m.version, Name: m.name})
		}
		start := time.Now()
		if err := applyMigration(ctx, db, m); err != nil {
			return err
		}
		if tell {
			notify(MigrationEvent{Version: m.version, Name: m.name, Done: true, Took: time.Since(start)})
		}
	}
	return nil
}

func schemaVersion(ctx context.Context, db *sql.DB) (int, error) {
	var v sql.NullInt64
	if err := db.QueryRowContext(ctx, "SELECT max(version) FROM schema_version").Scan(&v); err != nil {
		return 0, fmt.Errorf("migrate: read schema_version: %w", err)
	}
	return int(v.Int64), nil
}

func applyMigration(ctx context.Context, db *sql.DB, m migration) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("migrate: step %d (%s): %w", m.version, m.name, err)
	}
	defer tx.Rollback()
	// Another process may have migrated while we waited for the write lock.
	var done int
	if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM schema_version WHERE version = ?", m.version).Scan(&done); err != nil {
		return fmt.Errorf("migrate: step %d (%s): %w", m.version, m.name, err)
	}
	if done > 0 {
		return nil
	}
	if _, err := tx.ExecContext(ctx, m.sql); err != nil {
		return fmt.Errorf("migrate: step %d (%s): %w", m.version, m.name, err)
	}
	if m.fn != nil {
		if err := m.fn(ctx, tx); err != nil {
			return fmt.Errorf("migrate: step %d (%s): %w", m.version, m.name, err)
		}
	}
	if _, err := tx.ExecContext(ctx, "INSERT INTO schema_version (version, name, applied_ms) VALUES (?, ?, ?)",
		m.version, m.name, time.Now().UnixMilli()); err != nil {
		return fmt.Errorf("migrate: step %d (%s): record version: %w", m.version, m.name, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("migrate: step %d (%s): commit: %w", m.version, m.name, err)
	}
	return nil
}

// schemaV9 keeps the notes a user adds to a job's timeline ("deployed v42",
// a model.Change of kind note, as JSON) and, per export target (an OTLP
// endpoint), which checkpoints were exported: the cache is the export's
// spool, what is final and not in exports is still to send.
const schemaV9 = `
CREATE TABLE job_notes (
	pk      INTEGER PRIMARY KEY,
	cluster TEXT NOT NULL,
	job_id  TEXT NOT NULL,
	time_ms INTEGER NOT NULL,
	json    TEXT NOT NULL
);
CREATE INDEX job_notes_by_job ON job_notes (cluster, job_id, time_ms);
CREATE TABLE exports (
	target        TEXT NOT NULL,
	cluster       TEXT NOT NULL,
	job_id        TEXT NOT NULL,
	pipeline      INTEGER NOT NULL,
	checkpoint_id INTEGER NOT NULL,
	exported_ms   INTEGER NOT NULL,
	PRIMARY KEY (target, cluster, job_id, pipeline, checkpoint_id)
) WITHOUT ROWID;
`

// schemaV10 marks the exports rows of checkpoints the target refused for good
// (their content: an OTLP endpoint's HTTP 400, 413, 422 or gRPC
// InvalidArgument, each sent on its own): they leave the spool like those
// exported, and are counted apart (ExportCount.Refused).
const schemaV10 = `
ALTER TABLE exports ADD COLUMN refused INTEGER NOT NULL DEFAULT 0;
`

// schemaV11 keeps each job's engine restore count as the polls saw it, a row
// whenever the count or the engine's last restore time differs from the row
// before (model.RestoreCount): a count that grew marks a restart that no
// aborted checkpoint may show.
const schemaV11 = `
CREATE TABLE restore_counts (
	cluster         TEXT NOT NULL,
	job_id          TEXT NOT NULL,
	at_ms           INTEGER NOT NULL,
	restored        INTEGER NOT NULL,
	last_restore_ms INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (cluster, job_id, at_ms)
) WITHOUT ROWID;
`

// schemaV12 keeps the user's word that a run does not follow the earlier runs
// of its name (model.Job.Split); the engine's reports of the job leave it.
const schemaV12 = `
ALTER TABLE jobs ADD COLUMN run_split INTEGER NOT NULL DEFAULT 0;
`
