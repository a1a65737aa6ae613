package flink

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/source/restclient"
)

// LogFile is one entry of GET /jobmanager/logs.
type LogFile struct {
	Name    string `json:"name"`
	Size    int64  `json:"size"`
	MtimeMs int64  `json:"mtime"`
}

// LogFiles lists the JobManager's log directory (name, size, mtime). Flink
// lists every file there, so in a shared directory the TaskManager's too.
func (c *Client) LogFiles(ctx context.Context) ([]LogFile, error) {
	var out struct {
		Logs []LogFile `json:"logs"`
	}
	if err := c.get(ctx, "/jobmanager/logs", "/jobmanager/logs", nil, &out); err != nil {
		return nil, err
	}
	return out.Logs, nil
}

// ErrLogTooLarge is returned by JobManagerLog when the file exceeds the limit.
var ErrLogTooLarge = fmt.Errorf("flink: JobManager log larger than the limit")

// JobManagerLog reads GET /jobmanager/log (the JobManager's own log file,
// always whole: Flink ignores Range) and parses its checkpoint lines. It
// reads at most limit bytes and fails with ErrLogTooLarge beyond; the
// request's MaxBodyBytes does not apply.
func (c *Client) JobManagerLog(ctx context.Context, limit int64) (*LogHistory, error) {
	var h *LogHistory
	err := c.stream(ctx, "/jobmanager/log", "/jobmanager/log", limit, func(r io.Reader) error {
		var err error
		h, err = ParseJobManagerLog(r)
		return err
	})
	if err != nil {
		return nil, err
	}
	return h, nil
}

// stream GETs path and hands its body, at most limit bytes, to read.
func (c *Client) stream(ctx context.Context, endpoint, path string, limit int64, read func(io.Reader) error) (err error) {
	start := time.Now()
	info := RequestInfo{Endpoint: endpoint, Method: http.MethodGet}
	defer func() { restclient.Report(c.rest.Config().OnRequest, info, start, err) }()
	req, cancel := c.rest.StreamRequest(ctx)
	defer cancel()
	resp, err := req.Get(path)
	if err != nil {
		return c.transportError(path, err)
	}
	body := resp.RawBody()
	defer body.Close()
	info.Status = resp.StatusCode()
	if info.Status < 200 || info.Status > 299 {
		data, _ := io.ReadAll(io.LimitReader(body, 64<<10))
		return newError(path, endpoint, info.Status, c.redact(errorMessage(data)), nil)
	}
	if cl := resp.RawResponse.ContentLength; cl > limit {
		return fmt.Errorf("%w: %d bytes, limit %d", ErrLogTooLarge, cl, limit)
	}
	counted := &countingReader{r: io.LimitReader(body, limit+1)}
	if err := read(counted); err != nil {
		return c.transportError(path, err)
	}
	info.Bytes = counted.n
	if counted.n > limit {
		return fmt.Errorf("%w: more than %d bytes", ErrLogTooLarge, limit)
	}
	return nil
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// LogHistory is what a JobManager log says about checkpoints.
type LogHistory struct {
	// Checkpoints of every job, by job id, ordered by trigger time. A job id
	// reused within the log (a resubmission) may list an id twice: the runs
	// are told apart by trigger time.
	Checkpoints map[string][]model.Checkpoint
	// TriggerFailures of every job, by job id, oldest first: the triggers
	// that failed before their checkpoint got an id (Flink counts them as
	// failed checkpoints; REST lists nothing of them). The runs of a reused
	// job id are told apart by time, like its checkpoints.
	TriggerFailures map[string][]model.TriggerFailure
	// Lines is how many lines were read; Recognised how many were
	// checkpoint lines understood.
	Lines, Recognised int
	// CheckpointLines counts lines that mention a checkpoint of a job at all:
	// many of them but none Recognised means the format is not understood.
	CheckpointLines int
	// Bytes read.
	Bytes int64
}

// Recognised checkpoint messages of CheckpointCoordinator and
// CheckpointFailureManager (1.x and 2.x). They are found by their text
// anywhere in a line, whatever the log4j pattern puts before them.
var (
	reLogTrigger  = regexp.MustCompile(`Triggering (?:checkpoint|savepoint) (\d+) \(type=(.*?)\) @ (\d+) for job ([0-9a-f]{32})`)
	reLogComplete = regexp.MustCompile(`Completed checkpoint (\d+) for job ([0-9a-f]{32}) \((\d+) bytes(?:, checkpointDuration=(\d+) ms)?(?:, finalizationTime=(\d+) ms)?(?: in (\d+) ms)?\)`)
	reLogExpired  = regexp.MustCompile(`Checkpoint (\d+) of job ([0-9a-f]{32}) expired before completing`)
	reLogDecline  = regexp.MustCompile(`Decline checkpoint (\d+) by task (\S+) of job ([0-9a-f]{32})`)
	reLogFailed   = regexp.MustCompile(`Failed to trigger or complete checkpoint (\d+) for job ([0-9a-f]{32})`)
	// A trigger that failed before its checkpoint got an id: CheckpointFailureManager logs
	// the tasks not running yet at INFO with the reason on the line (1.19–2.3), any other
	// reason at WARN with UNKNOWN_CHECKPOINT_ID and the exception on the lines after.
	reLogTriggerFailed        = regexp.MustCompile(`Failed to trigger checkpoint for job ([0-9a-f]{32}) since (.*)$`)
	reLogTriggerFailedUnknown = regexp.MustCompile(`Failed to trigger or complete checkpoint UNKNOWN_CHECKPOINT_ID for job ([0-9a-f]{32})`)
	// The task a trigger failure names ("Checkpoint triggering task Source: Numbers (1/2) of job …").
	reTriggerTask = regexp.MustCompile(`Checkpoint triggering task (.+?) of job [0-9a-f]{32}`)
	// reLogMentions finds lines about a checkpoint of a job: how a log
	// whose format changed is told from one without checkpoints.
	reLogMentions = regexp.MustCompile(`(?i)checkpoint \d+ .*job [0-9a-f]{32}`)
	reLogTime     = regexp.MustCompile(`(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})(?:[,.](\d{1,9}))?`)
	// 2.x and 1.16+ execution attempt ids: graph_vertex_subtask_attempt.
	reAttempt = regexp.MustCompile(`^[0-9a-f]{32}_([0-9a-f]{32})_(\d+)_(\d+)$`)
	// Where a decline's exception names the task.
	reTaskName = regexp.MustCompile(`(?:for operator|Task name with subtask\s*:)\s+(.+?\(\d+/\d+\)(?:#\d+)?)`)
	// Leading exception class names of a stack trace line.
	reExceptionClass = regexp.MustCompile(`^(?:Caused by:\s*)?(?:[A-Za-z_$][\w$]*\.)*[A-Za-z_$][\w$]*(?:Exception|Error|Throwable)(?::\s*|$)`)
)

// logRec is one checkpoint being assembled from its lines.
type logRec struct {
	cp       model.Checkpoint
	ended    bool
	localEnd int64 // the end line's local time (ms as if UTC), 0 unknown
}

// logTriggerFailure is one trigger failure being assembled from its lines.
type logTriggerFailure struct {
	f     model.TriggerFailure
	local int64  // the line's local time (ms as if UTC), 0 unknown
	cause string // the deepest "Caused by:" of its exception
}

// parseState follows the record the stack-trace lines belong to.
type logParser struct {
	runs     map[string][]map[int64]*logRec // job → runs (a reused job id starts a new run) → id → record
	last     map[string]int64               // job → last triggered id
	failures map[string][]*logTriggerFailure
	// contFailure is the trigger failure whose exception follows.
	contFailure *logTriggerFailure
	// offset is local time − UTC, learnt from a trigger line (which has both).
	offset      int64
	haveOffset  bool
	cont        *logRec // record whose exception follows
	contDecline bool    // the exception belongs to a decline (else to the failure)
	contLines   int
	h           *LogHistory
}

// ParseJobManagerLog reads a JobManager log and returns the checkpoints it
// describes. It never fails on content: unknown lines are skipped, and a
// last line cut short is ignored unless it parses.
func ParseJobManagerLog(r io.Reader) (*LogHistory, error) {
	p := &logParser{runs: map[string][]map[int64]*logRec{}, last: map[string]int64{}, failures: map[string][]*logTriggerFailure{},
		h: &LogHistory{Checkpoints: map[string][]model.Checkpoint{}, TriggerFailures: map[string][]model.TriggerFailure{}}}
	br := bufio.NewReaderSize(r, 256<<10)
	for {
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			// A line longer than the buffer (a huge stack frame): skip the rest of it.
			p.h.Bytes += int64(len(line))
			for err == bufio.ErrBufferFull {
				line, err = br.ReadSlice('\n')
				p.h.Bytes += int64(len(line))
			}
			p.cont, p.contFailure = nil, nil
			if err == io.EOF {
				break
			}
			if err != nil {
				return nil, fmt.Errorf("read JobManager log: %w", err)
			}
			continue
		}
		p.h.Bytes += int64(len(line))
		if len(line) > 0 {
			p.h.Lines++
			p.line(bytes.TrimRight(line, "\r\n"))
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("read JobManager log: %w", err)
		}
	}
	p.finish()
	return p.h, nil
}

var (
	mCheckpoint = []byte("heckpoint")
	mSavepoint  = []byte("avepoint")
)

func (p *logParser) line(b []byte) {
	if isContinuation(b) {
		if (p.cont != nil || p.contFailure != nil) && p.contLines < 200 {
			p.contLines++
			if p.contFailure != nil {
				p.triggerFailureLine(strings.TrimSpace(string(b)))
			} else {
				p.exceptionLine(strings.TrimSpace(string(b)))
			}
		}
		return
	}
	p.cont, p.contFailure = nil, nil
	if !bytes.Contains(b, mCheckpoint) && !bytes.Contains(b, mSavepoint) {
		return
	}
	s := string(b)
	if reLogMentions.MatchString(s) {
		p.h.CheckpointLines++
	}
	switch {
	case strings.Contains(s, "Failed to trigger checkpoint for job "):
		if m := reLogTriggerFailed.FindStringSubmatch(s); m != nil {
			p.h.Recognised++
			p.triggerFailed(s, m[1], m[2])
		}
	case strings.Contains(s, "UNKNOWN_CHECKPOINT_ID"):
		if m := reLogTriggerFailedUnknown.FindStringSubmatch(s); m != nil {
			p.h.Recognised++
			p.contFailure, p.contLines = p.triggerFailed(s, m[1], ""), 0
		}
	case strings.Contains(s, "Triggering "):
		if m := reLogTrigger.FindStringSubmatch(s); m != nil {
			p.h.Recognised++
			p.trigger(s, m)
		}
	case strings.Contains(s, "Completed checkpoint "):
		if m := reLogComplete.FindStringSubmatch(s); m != nil {
			p.h.Recognised++
			p.complete(s, m)
		}
	case strings.Contains(s, "expired before completing"):
		if m := reLogExpired.FindStringSubmatch(s); m != nil {
			p.h.Recognised++
			rec := p.rec(m[2], atoi(m[1]))
			p.fail(rec, s, "Checkpoint expired before completing.")
		}
	case strings.Contains(s, "Decline checkpoint "):
		if m := reLogDecline.FindStringSubmatch(s); m != nil {
			p.h.Recognised++
			rec := p.rec(m[3], atoi(m[1]))
			d := &model.Decline{}
			if a := reAttempt.FindStringSubmatch(m[2]); a != nil {
				d.VertexID = a[1]
				d.Subtask = int(atoi(a[2]))
				d.Attempt = int(atoi(a[3]))
			}
			if rec.cp.Declined == nil { // the first decline is the one that failed it
				rec.cp.Declined = d
				p.cont, p.contDecline, p.contLines = rec, true, 0
			}
		}
	case strings.Contains(s, "Failed to trigger or complete checkpoint "):
		if m := reLogFailed.FindStringSubmatch(s); m != nil {
			p.h.Recognised++
			rec := p.rec(m[2], atoi(m[1]))
			p.fail(rec, s, "")
			p.cont, p.contDecline, p.contLines = rec, false, 0
		}
	}
}

// triggerFailed records a trigger that failed before its checkpoint got an
// id; message is the reason logged on its line, "" when its exception follows.
func (p *logParser) triggerFailed(s, job, message string) *logTriggerFailure {
	f := &logTriggerFailure{}
	if local, ok := localMs(s); ok {
		f.local = local
	}
	if message != "" {
		f.f.Message = strings.TrimSpace(message)
		if strings.HasSuffix(f.f.Message, "..") { // "since {}." after a message ending in "."
			f.f.Message = f.f.Message[:len(f.f.Message)-1]
		}
		f.f.Reason, f.f.Task = triggerReason(f.f.Message)
	}
	p.failures[job] = append(p.failures[job], f)
	return f
}

// triggerFailureLine takes what the exception of a trigger failure says:
// its first line is the message, its deepest cause is kept apart.
func (p *logParser) triggerFailureLine(s string) {
	if strings.HasPrefix(s, "at ") || strings.HasPrefix(s, "...") {
		return
	}
	f := p.contFailure
	msg := stripExceptionClasses(s)
	switch {
	case strings.HasPrefix(s, "Caused by:"):
		if msg != "" {
			f.cause = msg
		}
	case f.f.Message == "":
		f.f.Message = msg
		f.f.Reason, f.f.Task = triggerReason(msg)
	}
}

// triggerReason is a trigger failure's short reason (what follows "Failure
// reason: ", else the whole message, without its final dots) and the task
// the message names ("" if none).
func triggerReason(msg string) (reason, task string) {
	reason = msg
	if i := strings.LastIndex(msg, "Failure reason: "); i >= 0 {
		reason = msg[i+len("Failure reason: "):]
	}
	reason = strings.TrimRight(strings.TrimSpace(reason), ". ")
	if m := reTriggerTask.FindStringSubmatch(msg); m != nil {
		task = m[1]
	}
	return reason, task
}

// isContinuation tells the lines of a stack trace (and other multi-line
// messages) from the start of a log record.
func isContinuation(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	if b[0] == '\t' || b[0] == ' ' {
		return true
	}
	if bytes.HasPrefix(b, []byte("Caused by:")) || bytes.HasPrefix(b, []byte("...")) {
		return true
	}
	if reLogTime.Match(b[:min(len(b), 64)]) {
		return false
	}
	return reExceptionClass.Match(b)
}

// exceptionLine takes what the exception following a decline or a failure says.
func (p *logParser) exceptionLine(s string) {
	rec := p.cont
	if strings.HasPrefix(s, "at ") || strings.HasPrefix(s, "...") {
		return
	}
	caused := strings.HasPrefix(s, "Caused by:")
	msg := stripExceptionClasses(s)
	if p.contDecline {
		d := rec.cp.Declined
		if d.Task == "" {
			if m := reTaskName.FindStringSubmatch(s); m != nil {
				d.Task = strings.TrimSuffix(m[1], ".")
			}
		}
		if !caused && d.Message == "" {
			d.Message = msg
		}
		if caused && msg != "" {
			rec.cp.FailureCause = msg // the deepest cause wins
		}
		return
	}
	if !caused && rec.cp.FailureMessage == "" {
		rec.cp.FailureMessage = msg
	}
	if caused && msg != "" && rec.cp.Declined == nil {
		rec.cp.FailureCause = msg
	}
}

// stripExceptionClasses drops "Caused by:" and the exception class names
// that lead a line ("a.b.SerializedThrowable: java.io.IOException: msg" → "msg").
func stripExceptionClasses(s string) string {
	for {
		loc := reExceptionClass.FindStringIndex(s)
		if loc == nil || loc[1] == 0 {
			return strings.TrimSpace(s)
		}
		s = s[loc[1]:]
	}
}

func atoi(s string) int64 {
	v, _ := strconv.ParseInt(s, 10, 64)
	return v
}

// localMs is a line's timestamp read as if it were UTC (the log has no zone).
func localMs(s string) (int64, bool) {
	m := reLogTime.FindStringSubmatch(s[:min(len(s), 64)])
	if m == nil {
		return 0, false
	}
	t, err := time.Parse("2006-01-02 15:04:05", m[1]+" "+m[2])
	if err != nil {
		return 0, false
	}
	ms := t.UnixMilli()
	if frac := m[3]; frac != "" {
		for len(frac) < 3 {
			frac += "0"
		}
		ms += atoi(frac[:3])
	}
	return ms, true
}

// rec finds (or starts) the record of checkpoint id in the job's latest run.
func (p *logParser) rec(job string, id int64) *logRec {
	runs := p.runs[job]
	for i := len(runs) - 1; i >= 0; i-- {
		if r, ok := runs[i][id]; ok {
			return r
		}
	}
	if len(runs) == 0 {
		runs = append(runs, map[int64]*logRec{})
		p.runs[job] = runs
	}
	r := &logRec{cp: model.Checkpoint{JobID: job, ID: id, Kind: model.KindCheckpoint, Source: model.OriginJobManagerLog}}
	runs[len(runs)-1][id] = r
	return r
}

func (p *logParser) trigger(s string, m []string) {
	id, job, at := atoi(m[1]), m[4], atoi(m[3])
	runs := p.runs[job]
	last, seen := p.last[job]
	if len(runs) == 0 || seen && id <= last {
		// The first run, or the job id's ids went back: a reused job id.
		runs = append(runs, map[int64]*logRec{})
		p.runs[job] = runs
	}
	p.last[job] = id
	if local, ok := localMs(s); ok && !p.haveOffset {
		// Zones are whole quarter hours: round away the logging delay.
		const q = int64(15 * time.Minute / time.Millisecond)
		d := local - at
		p.offset = (d + q/2) / q * q
		if d < 0 {
			p.offset = -((-d + q/2) / q * q)
		}
		p.haveOffset = true
	}
	r := runs[len(runs)-1][id]
	if r == nil {
		r = &logRec{cp: model.Checkpoint{JobID: job, ID: id, Kind: model.KindCheckpoint, Source: model.OriginJobManagerLog}}
		runs[len(runs)-1][id] = r
	}
	r.cp.TriggerMs = at
	if t := m[2]; strings.Contains(t, "Savepoint") || strings.Contains(t, "SAVEPOINT") {
		r.cp.Kind = model.KindSavepoint
	}
}

func (p *logParser) complete(s string, m []string) {
	r := p.rec(m[2], atoi(m[1]))
	r.ended = true
	r.cp.Status = model.StatusCompleted
	size := atoi(m[3])
	r.cp.StateSize, r.cp.CheckpointedSize = size, size
	dur := int64(-1)
	switch {
	case m[4] != "":
		dur = atoi(m[4])
	case m[6] != "":
		dur = atoi(m[6]) // before 1.15: "(N bytes in D ms)"
	}
	if m[5] != "" {
		f := atoi(m[5])
		r.cp.FinalizeMs = &f
	}
	if local, ok := localMs(s); ok {
		r.localEnd = local
	}
	r.cp.EndToEndMs = dur // resolved in finish, once the trigger is known
}

func (p *logParser) fail(r *logRec, s, msg string) {
	if r.ended && r.cp.Status == model.StatusCompleted {
		return
	}
	r.ended = true
	r.cp.Status = model.StatusFailed
	if msg != "" && r.cp.FailureMessage == "" {
		r.cp.FailureMessage = msg
	}
	if local, ok := localMs(s); ok && r.localEnd == 0 {
		r.localEnd = local
	}
}

// finish turns the records into checkpoints: times in UTC, durations split
// into end to end (trigger → last ack) and finalize.
func (p *logParser) finish() {
	for job, runs := range p.runs {
		var out []model.Checkpoint
		for _, run := range runs {
			for _, r := range run {
				if !r.ended {
					continue // still running when the log was read, or its end was not logged
				}
				c := r.cp
				end := int64(0)
				if r.localEnd != 0 && p.haveOffset {
					end = r.localEnd - p.offset
				}
				switch c.Status {
				case model.StatusCompleted:
					dur := c.EndToEndMs
					if dur < 0 {
						if c.TriggerMs == 0 || end == 0 {
							continue
						}
						dur = max(0, end-c.TriggerMs)
					}
					if c.TriggerMs == 0 {
						if end == 0 {
							continue // neither trigger nor a usable time
						}
						c.TriggerMs = end - dur
					}
					c.CompletionMs = c.TriggerMs + dur
					fin := int64(0)
					if c.FinalizeMs != nil {
						fin = min(*c.FinalizeMs, dur)
						c.FinalizeMs = &fin
					}
					c.EndToEndMs = dur - fin
					c.LatestAckMs = c.TriggerMs + c.EndToEndMs
				case model.StatusFailed:
					if c.TriggerMs == 0 {
						if end == 0 {
							continue
						}
						c.TriggerMs = end
					}
					c.FailureMs = max(end, c.TriggerMs)
					c.EndToEndMs = c.FailureMs - c.TriggerMs
					if c.FailureMessage == "" && c.Declined != nil {
						c.FailureMessage = c.Declined.Message
					}
				}
				out = append(out, c)
			}
		}
		sort.Slice(out, func(a, b int) bool {
			if out[a].TriggerMs != out[b].TriggerMs {
				return out[a].TriggerMs < out[b].TriggerMs
			}
			return out[a].ID < out[b].ID
		})
		if len(out) > 0 {
			p.h.Checkpoints[job] = out
		}
	}
	for job, fs := range p.failures {
		out := make([]model.TriggerFailure, 0, len(fs))
		for _, f := range fs {
			tf := f.f
			if f.local != 0 && p.haveOffset {
				tf.AtMs = f.local - p.offset
			}
			if f.cause != "" && f.cause != tf.Message {
				tf.Message = strings.TrimSpace(tf.Message + " Caused by: " + f.cause)
			}
			if tf.Reason == "" {
				tf.Reason = "no reason logged"
			}
			out = append(out, tf)
		}
		sort.SliceStable(out, func(a, b int) bool { return out[a].AtMs < out[b].AtMs })
		p.h.TriggerFailures[job] = out
	}
}
