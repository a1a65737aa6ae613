-- Checks a Checkpoint Explorer cache that a killed process left behind (testenv/soak.sh).
-- Run read-only: sqlite3 -readonly -batch cache.db < check.sql (or testenv/soak/dbcheck).
-- Every row is KEY|VALUE...; the schema is backend/store/schema.go.
SELECT 'integrity', group_concat(integrity_check, '; ') FROM pragma_integrity_check;
SELECT 'checkpoints', count(*) FROM checkpoints;
-- A checkpoint whose per-vertex or per-subtask rows disagree with the counts written with it
-- in the same transaction (task_rows, subtask_rows), or that says it has none while rows exist.
SELECT 'bad_detail', count(*) FROM checkpoints c
  LEFT JOIN (SELECT ckpt, count(*) AS n, sum(max(subtask_rows, 0)) AS s FROM task_stats GROUP BY ckpt) t ON t.ckpt = c.pk
  WHERE coalesce(t.n, 0) != c.task_rows OR coalesce(t.s, 0) != c.subtask_rows
     OR (c.has_tasks = 0 AND c.task_rows > 0) OR (c.detail_trimmed = 1 AND c.subtask_rows != 0);
-- A vertex that says it has subtask stats without its pack, or a pack without its vertex.
SELECT 'missing_packs', count(*) FROM task_stats t
  WHERE t.subtask_rows >= 0 AND NOT EXISTS (SELECT 1 FROM subtask_packs p WHERE p.id = ((t.ckpt << 16) | t.ord));
SELECT 'stray_packs', count(*) FROM subtask_packs p
  LEFT JOIN task_stats t ON t.ckpt = (p.id >> 16) AND t.ord = (p.id & 65535)
  WHERE t.ckpt IS NULL OR t.subtask_rows < 0;
SELECT 'orphan_tasks', count(*) FROM task_stats WHERE ckpt NOT IN (SELECT pk FROM checkpoints);
-- A job whose count kept by triggers (job_counts, schema v6) differs from its checkpoints.
SELECT 'bad_counts', count(*) FROM (SELECT cluster, job_id, count(*) AS n FROM checkpoints GROUP BY cluster, job_id) c
  FULL JOIN job_counts j ON j.cluster = c.cluster AND j.job_id = c.job_id
  WHERE coalesce(c.n, 0) != coalesce(j.checkpoints, 0);
SELECT 'pruned', checkpoints, subtask_rows FROM prune_totals;
SELECT 'used_bytes', (p.page_count - f.freelist_count) * s.page_size FROM pragma_page_count() p, pragma_freelist_count() f, pragma_page_size() s;
SELECT 'job', cluster, job_id, count(*), max(id), sum(subtask_rows > 0) FROM checkpoints GROUP BY cluster, job_id;
