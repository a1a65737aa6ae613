package store

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"checkpoint-explorer/backend/model"
)

// A note is what the user wrote on a job's timeline ("deployed v42"): a
// model.Change of kind note, kept as its JSON in job_notes. It is the same
// note as another when its job, time and text are.

// MaxNoteRunes bounds a note's text: a line on a timeline, not a document.
const MaxNoteRunes = 2000

// NoteError says what is wrong with a note or with the one to delete: the
// user's mistake, not the cache's.
type NoteError string

func (e NoteError) Error() string { return string(e) }

// checkNote is what is wrong with c as a note; nil when nothing is.
func checkNote(c model.Change) error {
	switch n := utf8.RuneCountInString(c.Detail.Text); {
	case c.Cluster == "" || c.JobID == "":
		return NoteError(fmt.Sprintf("a note needs its cluster and job (%q on %q)", c.JobID, c.Cluster))
	case c.Kind != model.ChangeNote:
		return NoteError(fmt.Sprintf("a change of kind %q is not a note", c.Kind))
	case c.TimeMs <= 0:
		return NoteError(fmt.Sprintf("a note's time must be an epoch millisecond, not %d", c.TimeMs))
	case strings.TrimSpace(c.Detail.Text) == "" || n > MaxNoteRunes:
		return NoteError(fmt.Sprintf("a note needs some text, at most %d characters (this one has %d)", MaxNoteRunes, n))
	}
	return nil
}

// PutNote keeps a note on its job's timeline (a NoteError when it is not
// one). The same note again adds nothing: a capture imported twice keeps one
// of each.
func (s *Store) PutNote(ctx context.Context, c model.Change) error {
	return s.write(ctx, "put note", func(w *txWriter) error { return w.PutNote(c) })
}

// TimelineWriter puts what a job's timeline marks besides its checkpoints
// (notes, restore counts) inside a transaction of Bulk (its Writer is one),
// beside the records of the Writer interface.
type TimelineWriter interface {
	PutNote(model.Change) error
	PutRestoreCount(model.RestoreCount) error
}

func (w *txWriter) PutNote(c model.Change) error {
	if err := checkNote(c); err != nil {
		return err
	}
	c.Source = model.ChangeFromUser
	data, err := json.Marshal(c)
	if err != nil {
		return fmt.Errorf("note of %s/%s: %w", c.Cluster, c.JobID, err)
	}
	if _, err := w.execStmt(sqlPutNote, c.Cluster, c.JobID, c.TimeMs, string(data)); err != nil {
		return fmt.Errorf("note of %s/%s: %w", c.Cluster, c.JobID, err)
	}
	return w.tick()
}

const (
	sqlPutNote = `INSERT INTO job_notes (cluster, job_id, time_ms, json) SELECT ?1, ?2, ?3, ?4
		WHERE NOT EXISTS (SELECT 1 FROM job_notes WHERE cluster = ?1 AND job_id = ?2 AND time_ms = ?3 AND json = ?4)`
	sqlNotes = `SELECT json FROM job_notes WHERE cluster = ? AND job_id = ? ORDER BY time_ms, pk`
)

// DeleteNote removes the notes of a job at timeMs that say text; a
// NoteError when there is none.
func (s *Store) DeleteNote(ctx context.Context, cluster, jobID string, timeMs int64, text string) error {
	return s.write(ctx, "delete note", func(w *txWriter) error {
		rows, err := w.tx.QueryContext(w.exec, `SELECT pk, json FROM job_notes WHERE cluster = ? AND job_id = ? AND time_ms = ?`,
			cluster, jobID, timeMs)
		notes, err := scanAll(rows, err, "notes of "+cluster+"/"+jobID, func(rows *sql.Rows, n *pkNote) error {
			return scanNote(rows, &n.note, &n.pk)
		})
		notes = slices.DeleteFunc(notes, func(n pkNote) bool { return n.note.Detail.Text != text })
		if err == nil && len(notes) == 0 {
			return NoteError(fmt.Sprintf("job %s on %s has no note at %d saying %q", jobID, cluster, timeMs, text))
		}
		for _, n := range notes {
			if _, err2 := w.tx.ExecContext(w.exec, `DELETE FROM job_notes WHERE pk = ?`, n.pk); err == nil {
				err = err2
			}
		}
		return err
	})
}

type pkNote struct {
	pk   int64
	note model.Change
}

// scanNote reads a row of a note's JSON (and the columns before it, into lead).
func scanNote(rows *sql.Rows, c *model.Change, lead ...any) error {
	var data string
	if err := rows.Scan(append(lead, &data)...); err != nil {
		return err
	}
	return json.Unmarshal([]byte(data), c)
}

// Notes returns a job's notes by time (then as they were added); empty
// when it has none. Each names the job as the cache holds it now (a run
// kept apart moved its notes to its own id).
func (s *Store) Notes(ctx context.Context, cluster, jobID string) ([]model.Change, error) {
	rows, err := s.r.QueryContext(ctx, sqlNotes, cluster, jobID)
	return scanAll(rows, err, "notes of "+cluster+"/"+jobID, func(rows *sql.Rows, c *model.Change) error {
		err := scanNote(rows, c)
		c.Cluster, c.JobID = cluster, jobID
		return err
	})
}

// RunRecords are what the cache holds, besides the checkpoints, of a job
// and of its other runs that its changes are told from
// (analyze.DetectChanges).
type RunRecords struct {
	// Runs are the job's other runs.
	Runs []model.Job
	// Last is each run's newest checkpoint, by job id (none without one).
	Last map[string]*model.Checkpoint
	// Configs and Notes are the configuration histories and the notes of
	// the job and its runs.
	Configs []model.JobConfig
	Notes   []model.Change
	// Restores are the job's own restore counts (another run's count is
	// its own engine record, which starts again at 0).
	Restores []model.RestoreCount
}

// RestoreCounts returns a job's kept restore counts, oldest first.
func (s *Store) RestoreCounts(ctx context.Context, cluster, jobID string) ([]model.RestoreCount, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT at_ms, restored, last_restore_ms FROM restore_counts
		WHERE cluster = ? AND job_id = ? ORDER BY at_ms`, cluster, jobID)
	return scanAll(rows, err, "restore counts of "+cluster+"/"+jobID, func(rows *sql.Rows, rc *model.RestoreCount) error {
		rc.Cluster, rc.JobID = cluster, jobID
		return rows.Scan(&rc.AtMs, &rc.Restored, &rc.LastRestoreMs)
	})
}

// RunRecords reads them for job; others picks its other runs among the
// jobs of its cluster.
func (s *Store) RunRecords(ctx context.Context, job model.Job, others func(model.Job, []model.Job) []model.Job) (RunRecords, error) {
	jobs, err := s.Jobs(ctx, job.Cluster)
	all, last := make([]model.Job, len(jobs)), map[string]int64{} // the jobs, their last trigger
	for i := range jobs {
		all[i], last[jobs[i].ID] = jobs[i].Job, jobs[i].LastTriggerMs
	}
	rr := RunRecords{Runs: others(job, all), Last: map[string]*model.Checkpoint{}}
	for _, j := range append(slices.Clone(rr.Runs), job) {
		configs, err1 := s.JobConfigs(ctx, j.Cluster, j.ID)
		notes, err2 := s.Notes(ctx, j.Cluster, j.ID)
		rr.Configs, rr.Notes, err = append(rr.Configs, configs...), append(rr.Notes, notes...), cmp.Or(err, err1, err2)
		if at := last[j.ID]; at > 0 && j.ID != job.ID && err == nil {
			var cps []model.Checkpoint
			if cps, err = s.Checkpoints(ctx, Query{Cluster: j.Cluster, JobID: j.ID, FromMs: at, ToMs: at}); len(cps) > 0 {
				rr.Last[j.ID] = &cps[len(cps)-1]
			}
		}
	}
	if err == nil {
		rr.Restores, err = s.RestoreCounts(ctx, job.Cluster, job.ID)
	}
	return rr, err
}
