package flink

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/dustin/go-humanize"

	"checkpoint-explorer/backend/model"
)

// CheckLogMode accepts the modes of reading the JobManager log
// (model.Cluster.JobManagerLog): "", auto (up to LogLimit), on and off.
func CheckLogMode(m model.JobManagerLogMode) error {
	switch m {
	case "", model.JobManagerLogAuto, model.JobManagerLogOn, model.JobManagerLogOff:
		return nil
	}
	return fmt.Errorf("JobManager log %q: choose auto, on or off", m)
}

// Defaults of the JobManager log reader (docs/collector.md).
const (
	LogEvery = time.Minute
	LogLimit = 16 << 20
)

// logReader reads one Flink cluster's JobManager log for the collector:
// at most once per every (unless forced, and never more than once per
// second), only when the listing says the file changed, and within limit
// unless the mode is on or the user asked for one read beyond it. All its
// requests spend the cluster's budget.
type logReader struct {
	c     *Client
	b     Budget
	mode  model.JobManagerLogMode
	every time.Duration
	limit int64
	now   func() time.Time

	mu sync.Mutex
	// checked is when the listing was last asked for; file, size and mtime
	// identify the file as last read.
	checked     time.Time
	file        string
	size, mtime int64
	hist        *LogHistory
	state       model.LogState
	// served is, per job, the read it was last given (hist's generation).
	served     map[string]int
	generation int
	// beyondLimit allows one read past the limit (the user asked).
	beyondLimit bool
}

func newLogReader(c *Client, b Budget, mode model.JobManagerLogMode) *logReader {
	if mode == "" {
		mode = model.JobManagerLogAuto
	}
	l := &logReader{c: c, b: b, mode: mode, every: LogEvery, limit: LogLimit,
		now: time.Now, served: map[string]int{}}
	l.state = model.LogState{State: model.LogWaiting, LimitBytes: l.limit}
	if mode == model.JobManagerLogOff {
		l.state = model.LogState{State: model.LogOff, Reason: "reading the JobManager log is turned off for this cluster"}
	}
	return l
}

// readBeyondLimit makes the next read ignore the size cap once.
func (l *logReader) readBeyondLimit() {
	l.mu.Lock()
	l.beyondLimit = true
	l.checked = time.Time{}
	l.mu.Unlock()
}

// LogCheckpoints implements collect.LogReader.
func (l *logReader) LogCheckpoints(ctx context.Context, job *model.Job, force bool) ([]model.Checkpoint, model.LogState, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.mode == model.JobManagerLogOff {
		return nil, l.state, nil
	}
	now := l.now()
	due := l.checked.IsZero() || now.Sub(l.checked) >= l.every || force && now.Sub(l.checked) >= time.Second
	var err error
	if due {
		l.checked = now
		err = l.refresh(ctx, now)
	}
	st := l.state
	if l.hist == nil {
		return nil, st, err
	}
	cps := l.hist.Checkpoints[job.ID]
	st.Checkpoints = len(cps)
	if l.served[job.ID] == l.generation {
		return nil, st, err
	}
	l.served[job.ID] = l.generation
	out := make([]model.Checkpoint, len(cps))
	copy(out, cps)
	return out, st, err
}

// LogTriggerFailures returns the job's trigger failures (those that failed
// before their checkpoint got an id) in the log as last read, oldest first;
// false while the log has not been read. It reads nothing itself: the log
// is read by LogCheckpoints.
func (l *logReader) LogTriggerFailures(job *model.Job) ([]model.TriggerFailure, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.mode == model.JobManagerLogOff || l.hist == nil {
		return nil, false
	}
	return append([]model.TriggerFailure(nil), l.hist.TriggerFailures[job.ID]...), true
}

// LogTriggerFailures says why triggers failed before their checkpoint got
// an id, from the JobManager log as last read (collect.TriggerFailureReader).
func (s *Source) LogTriggerFailures(job *model.Job) ([]model.TriggerFailure, bool) {
	return s.jmLog.LogTriggerFailures(job)
}

// refresh lists the log files and reads the JobManager's when it changed.
// l.mu is held.
func (l *logReader) refresh(ctx context.Context, now time.Time) error {
	files, err := spend(ctx, l.b, func() ([]LogFile, error) { return l.c.LogFiles(ctx) })
	if err != nil {
		return l.fail(model.LogUnavailable, jmLogProblem("GET /jobmanager/logs", err), err)
	}
	f, ok := l.pick(files)
	if !ok {
		msg := fmt.Sprintf("the JobManager lists %d log file(s) and none is its own log", len(files))
		return l.fail(model.LogUnavailable, msg, errors.New(msg))
	}
	if l.hist != nil && f.Name == l.file && f.Size == l.size && f.MtimeMs == l.mtime {
		return nil // unchanged since the last read
	}
	limit := l.limit
	if l.mode == model.JobManagerLogOn || l.beyondLimit {
		limit = max(limit, f.Size+f.Size/4+(1<<20)) // it grows while it comes
	}
	if f.Size > limit {
		l.state = model.LogState{State: model.LogTooLarge, SizeBytes: f.Size, LimitBytes: l.limit,
			Reason: fmt.Sprintf("the JobManager log is %s, over the %s cap: read it on demand, or set the cluster's JobManager log to on",
				humanBytes(f.Size), humanBytes(l.limit))}
		return nil
	}
	h, err := spend(ctx, l.b, func() (*LogHistory, error) { return l.c.JobManagerLog(ctx, limit) })
	if errors.Is(err, ErrLogTooLarge) {
		l.state = model.LogState{State: model.LogTooLarge, SizeBytes: f.Size, LimitBytes: l.limit,
			Reason: fmt.Sprintf("the JobManager log grew past the %s cap while it was read: read it on demand, or set the cluster's JobManager log to on", humanBytes(l.limit))}
		return nil
	}
	if err != nil {
		return l.fail(model.LogUnavailable, jmLogProblem("GET /jobmanager/log", err), err)
	}
	l.beyondLimit = false
	l.file, l.size, l.mtime = f.Name, f.Size, f.MtimeMs
	if h.Recognised == 0 && h.CheckpointLines > 0 {
		msg := fmt.Sprintf("%d line(s) of the JobManager log mention checkpoints, none in a form this version knows (a changed message or Flink version?)", h.CheckpointLines)
		l.hist = nil
		return l.fail(model.LogUnrecognised, msg, errors.New(msg))
	}
	l.hist = h
	l.generation++
	l.state = model.LogState{State: model.LogRead, ReadMs: now.UnixMilli(), SizeBytes: h.Bytes, LimitBytes: l.limit}
	return nil
}

// fail records why the log is not read; only in mode on is it an error.
func (l *logReader) fail(state model.LogStateKind, reason string, err error) error {
	l.state = model.LogState{State: state, Reason: reason, LimitBytes: l.limit}
	if l.mode == model.JobManagerLogOn {
		return err
	}
	return nil
}

func jmLogProblem(what string, err error) string {
	if errors.Is(err, ErrNotFound) {
		return what + " answered 404: this JobManager does not serve its log (no log file configured, or the web UI's log access is off)"
	}
	return fmt.Sprintf("%s failed: %v", what, err)
}

// pick finds the JobManager's own log among the listed files: the one read
// before, else a .log file that is not a TaskManager's (the directory may
// be shared), the most recently written first.
func (l *logReader) pick(files []LogFile) (LogFile, bool) {
	var cands []LogFile
	for _, f := range files {
		if l.file != "" && f.Name == l.file {
			return f, true
		}
		n := strings.ToLower(f.Name)
		if !strings.HasSuffix(n, ".log") || strings.Contains(n, "taskmanager") || strings.Contains(n, "taskexecutor") ||
			strings.Contains(n, "gc") || strings.Contains(n, "bash-java-utils") {
			continue
		}
		cands = append(cands, f)
	}
	if len(cands) == 0 {
		return LogFile{}, false
	}
	rank := func(f LogFile) int {
		n := strings.ToLower(f.Name)
		if strings.Contains(n, "jobmanager") || strings.Contains(n, "standalonesession") || strings.Contains(n, "-jm-") {
			return 0
		}
		return 1
	}
	sort.SliceStable(cands, func(a, b int) bool {
		if ra, rb := rank(cands[a]), rank(cands[b]); ra != rb {
			return ra < rb
		}
		return cands[a].MtimeMs > cands[b].MtimeMs
	})
	return cands[0], true
}

// humanBytes prints a byte count in binary units ("16 MiB", "1.5 KiB").
func humanBytes(n int64) string { return humanize.IBytes(uint64(max(n, 0))) }
