package capture

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"checkpoint-explorer/backend/model"
)

// SinkOptions configure NewSink.
type SinkOptions struct {
	// HoldDetails: the engine's details come after the summary (Flink,
	// collect.Traits.DetailRequests).
	HoldDetails bool
	// WithLog: the source reads a JobManager log (collect.LogReader).
	WithLog bool
}

// SinkStats is what a Sink has written.
type SinkStats struct {
	Checkpoints int64
	Failed      int64
	Gaps        int64
	// EngineCounted is how many checkpoints the engine counted over the ids
	// written (-1 unknown); Missed the ids it reported that the file does
	// not hold (gaps and unaccounted ids). From the jobs' reconciliations,
	// summed.
	EngineCounted int64
	Missed        int64
	Unaccounted   int64
	MetricSamples int64
}

// NewSink returns a sink writing to w. Finish it before closing w.
func NewSink(w *Writer, o SinkOptions) *Sink {
	return &Sink{w: w, jobs: map[string]bool{}, latest: map[string]int64{}, seen: map[string]bool{},
		holdDetails: o.HoldDetails, withLog: o.WithLog, held: map[string]*model.Checkpoint{},
		recon: map[string]model.Reconciliation{}, configs: map[string]model.JobConfig{}, st: SinkStats{EngineCounted: -1}}
}

// Stats returns what was written so far, counting the checkpoints held
// (waiting for details or the JobManager log): they are written before the
// file closes.
func (s *Sink) Stats() SinkStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.st
	for _, c := range s.held {
		st.Checkpoints++
		if c.Status == model.StatusFailed {
			st.Failed++
		}
	}
	return st
}

// Sink is a collector sink (collect.Sink) that appends to a capture file. Only final
// checkpoints are written: a capture holds each checkpoint once. For engines
// whose details cost requests (Flink), a final checkpoint stored without its
// details (they were deferred, or their request failed) or with part of them
// is held back until they come, or until it is far enough behind the newest
// that the collector no longer asks, or until the file is closed.
type Sink struct {
	// holdDetails: the engine's details come after the summary (Flink).
	holdDetails bool
	held        map[string]*model.Checkpoint // job/pipeline/id → waiting for details
	mu          sync.Mutex
	w           *Writer
	jobs        map[string]bool
	order       []string         // job ids in the order first seen, for the Prometheus reads
	latest      map[string]int64 // job/pipeline → highest final id written
	seen        map[string]bool  // job/pipeline/id written
	// logged holds the ids (job/pipeline/id) the JobManager log has given
	// its part for; a job whose log is being read has its checkpoints held
	// until then, so that each is written once, with its finalize time.
	logged  map[string]bool
	withLog bool // the source reads a JobManager log
	recon   map[string]model.Reconciliation
	// configs holds each job's configuration last written: one that says
	// the same again is not written twice.
	configs map[string]model.JobConfig
	st      SinkStats
}

// PutJobConfig writes a job's configuration when it differs from the one
// last written for the job (the file keeps its history, like the cache), as
// store.PutJobConfig decides: a partial read that contradicts nothing is not
// written, and one that fills in a partial entry is written under that
// entry's first sighting (importing it fills the entry in).
func (s *Sink) PutJobConfig(_ context.Context, c model.JobConfig) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if prev, ok := s.configs[c.JobID]; ok {
		switch {
		case prev.FilledBy(c):
			c.SeenMs = prev.SeenMs
		case prev.SettledBy(c):
			return nil
		}
	}
	if err := s.w.JobConfig(c); err != nil {
		return err
	}
	if s.configs == nil {
		s.configs = map[string]model.JobConfig{}
	}
	s.configs[c.JobID] = c
	return nil
}

// PutReconciliation keeps each job's latest, for progress and the file's end.
func (s *Sink) PutReconciliation(_ context.Context, r model.Reconciliation) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	// The restore count when it differs from the job's last: the file keeps
	// its history, like the cache.
	if e := r.Engine; e != nil {
		last, ok := s.recon[r.JobID]
		if !ok || last.Engine == nil || last.Engine.Restored != e.Restored || last.Engine.LastRestoreMs != e.LastRestoreMs {
			rc := model.RestoreCount{Cluster: r.Cluster, JobID: r.JobID, AtMs: r.AtMs, Restored: e.Restored, LastRestoreMs: e.LastRestoreMs}
			if err := s.w.RestoreCount(rc); err != nil {
				return err
			}
		}
	}
	s.recon[r.JobID] = r
	s.st.EngineCounted, s.st.Missed, s.st.Unaccounted = 0, 0, 0
	for _, r := range s.recon {
		if r.EngineCounted < 0 || s.st.EngineCounted < 0 {
			s.st.EngineCounted = -1
		} else {
			s.st.EngineCounted += r.EngineCounted
		}
		s.st.Missed += r.Missed()
		s.st.Unaccounted += r.Unaccounted
	}
	return nil
}

// Finish writes what is still held and each job's last reconciliation,
// before the end record.
func (s *Sink) Finish() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.writeHeld(true); err != nil {
		return err
	}
	ids := make([]string, 0, len(s.recon))
	for id := range s.recon {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		if err := s.w.Reconciliation(s.recon[id]); err != nil {
			return err
		}
	}
	return nil
}

func sinkKey(job string, pipeline int) string { return fmt.Sprintf("%s/%d", job, pipeline) }

func (s *Sink) PutJob(_ context.Context, j model.Job) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.jobs[j.ID+"/"+j.State] {
		return nil
	}
	if !slices.Contains(s.order, j.ID) {
		s.order = append(s.order, j.ID)
	}
	s.jobs[j.ID+"/"+j.State] = true
	return s.w.Job(j)
}

// Jobs returns the ids of the jobs written so far, in the order first seen.
func (s *Sink) Jobs() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.order)
}

// WriteMetricSamples writes metric samples the caller read itself (not the
// collector), calling done after each one written, so that a failed write
// leaves the rest to be retried and none is written twice.
func (s *Sink) WriteMetricSamples(ms []model.MetricSample, done func(model.MetricSample)) error {
	return writeLocked(s, ms, (*Writer).MetricSample, func(m model.MetricSample) {
		s.st.MetricSamples++
		if done != nil {
			done(m)
		}
	})
}

// writeLocked writes records in order under s.mu, calling written (if not nil)
// after each one written; it stops at the first that fails.
func writeLocked[T any](s *Sink, records []T, write func(*Writer, T) error, written func(T)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range records {
		if err := write(s.w, r); err != nil {
			return err
		}
		if written != nil {
			written(r)
		}
	}
	return nil
}

// holdBehind is how far behind the newest written id a held checkpoint is
// written as it is: beyond any engine's history depth, so no details can come.
const holdBehind = 256

func (s *Sink) PutCheckpoints(_ context.Context, cps []model.Checkpoint) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range cps {
		c := &cps[i]
		if !c.Status.Final() {
			continue
		}
		k := fmt.Sprintf("%s/%d/%d", c.JobID, c.Pipeline, c.ID)
		if s.seen[k] {
			continue
		}
		held := *c
		if prev, ok := s.held[k]; ok {
			addLog(&held, prev) // keep what the log gave an earlier view
		}
		s.held[k] = &held // the newest view wins until written
	}
	return s.writeHeld(false)
}

// awaitsDetails tells whether a held checkpoint still waits for its details.
func (s *Sink) awaitsDetails(c *model.Checkpoint) bool {
	return s.holdDetails && (len(c.Tasks) == 0 && c.DetailLoss == "" || c.DetailLoss == model.DetailPartial)
}

func (s *Sink) writeCheckpoint(k string, c *model.Checkpoint) error {
	if err := s.w.Checkpoint(c); err != nil {
		return err
	}
	s.seen[k] = true
	pk := sinkKey(c.JobID, c.Pipeline)
	s.latest[pk] = max(s.latest[pk], c.ID)
	delete(s.logged, k)
	s.st.Checkpoints++
	if c.Status == model.StatusFailed {
		s.st.Failed++
	}
	return nil
}

// writeHeld writes the held checkpoints too far behind for details to come
// (all of them when closing: those still without details are marked missed).
// s.mu is held.
func (s *Sink) writeHeld(closing bool) error {
	keys := make([]string, 0, len(s.held))
	for k, c := range s.held {
		if closing || c.ID < s.latest[sinkKey(c.JobID, c.Pipeline)]-holdBehind || !s.awaitsDetails(c) && !s.awaitsLog(k, c) {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(a, b string) int {
		ca, cb := s.held[a], s.held[b]
		return cmp.Or(strings.Compare(ca.JobID, cb.JobID), cmp.Compare(ca.Pipeline, cb.Pipeline), cmp.Compare(ca.ID, cb.ID))
	})
	for _, k := range keys {
		c := s.held[k]
		if s.awaitsDetails(c) && c.DetailLoss == "" {
			c.DetailLoss = model.DetailMissed
		}
		delete(s.held, k)
		if err := s.writeCheckpoint(k, c); err != nil {
			return err
		}
	}
	return nil
}

func (s *Sink) PutAckSamples(_ context.Context, as []model.AckSample) error {
	return writeLocked(s, as, (*Writer).AckSample, nil)
}

func (s *Sink) PutMetricSamples(_ context.Context, ms []model.MetricSample) error {
	return s.WriteMetricSamples(ms, nil)
}

func (s *Sink) PutGaps(_ context.Context, gs []model.Gap) error {
	return writeLocked(s, gs, (*Writer).Gap, func(g model.Gap) { s.st.Gaps += g.Count() })
}

// MergeLogCheckpoints takes what the JobManager log adds: a checkpoint held
// gains it (and may now be written); one not seen, below insertBelow, is
// written from the log. Checkpoints already written are not written again:
// a capture holds each checkpoint once.
func (s *Sink) MergeLogCheckpoints(_ context.Context, _, jobID string, cps []model.Checkpoint, insertBelow int64) (model.LogMerge, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var m model.LogMerge
	if s.logged == nil {
		s.logged = map[string]bool{}
	}
	for i := range cps {
		c := cps[i]
		k := fmt.Sprintf("%s/%d/%d", jobID, 0, c.ID)
		if h, ok := s.held[k]; ok {
			if model.SameTrigger(h.TriggerMs, c.TriggerMs) {
				addLog(h, &c)
				s.logged[k] = true
				m.Updated++
			}
			continue
		}
		if s.seen[k] || c.ID >= insertBelow {
			continue
		}
		c.JobID = jobID
		if err := s.writeCheckpoint(k, &c); err != nil {
			return m, err
		}
		m.Added = append(m.Added, c.ID)
	}
	return m, s.writeHeld(false)
}

// awaitsLog tells whether a held checkpoint still waits for the JobManager
// log: its job's log is being read and has not given its part yet.
func (s *Sink) awaitsLog(k string, c *model.Checkpoint) bool {
	if !s.withLog || s.logged[k] {
		return false
	}
	r, ok := s.recon[c.JobID]
	if !ok {
		return true // the job's first poll: its log is read in the same poll
	}
	return r.Log != nil && (r.Log.State == model.LogRead || r.Log.State == model.LogWaiting)
}

// addLog adds to c what only the JobManager log has (as the store's merge does).
func addLog(c, log *model.Checkpoint) {
	if c.FinalizeMs == nil && log.FinalizeMs != nil {
		f := *log.FinalizeMs
		c.FinalizeMs = &f
	}
	if c.CompletionMs == 0 {
		c.CompletionMs = log.CompletionMs
	}
	if c.FailureCause == "" {
		c.FailureCause = log.FailureCause
	}
	if c.Declined == nil && log.Declined != nil {
		d := *log.Declined
		c.Declined = &d
	}
	if c.FailureMessage == "" {
		c.FailureMessage = log.FailureMessage
	}
}

// MarkDetailsMissed has nothing to mark: a recording starts from an empty file.
func (s *Sink) MarkDetailsMissed(context.Context, string, string, int, int64) (int, error) {
	return 0, nil
}

func (s *Sink) LatestCheckpointID(_ context.Context, _, jobID string, pipeline int) (int64, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	id, ok := s.latest[sinkKey(jobID, pipeline)]
	return id, ok, nil
}

// Job says the recording holds no earlier record of a job: a capture follows
// each run it sees as it comes.
func (s *Sink) Job(_ context.Context, cluster, jobID string) (model.Job, error) {
	return model.Job{}, fmt.Errorf("capture: job %s/%s: no earlier run in a recording", cluster, jobID)
}

// KeepRunApart keeps nothing apart: a recording writes records as they come.
func (s *Sink) KeepRunApart(context.Context, model.Job, int64) (string, error) { return "", nil }
