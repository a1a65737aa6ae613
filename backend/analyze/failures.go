package analyze

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"checkpoint-explorer/backend/model"
)

// Placeholders a signature uses for what varies between occurrences.
const (
	PlaceholderNumber = "<n>"
	PlaceholderID     = "<id>"
	PlaceholderHost   = "<host>"
	PlaceholderPath   = "<path>"
	PlaceholderTime   = "<ts>"
	// NoMessage is the signature of a failure the engine gave no message for.
	NoMessage = "(no failure message)"
)

// maxSignatureLen bounds a signature; long stack traces are cut after normalisation.
const maxSignatureLen = 400

var (
	reURL       = regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.\-]*://[^\s,;'"()\[\]<>]+`)
	reTimestamp = regexp.MustCompile(`\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?`)
	reUUID      = regexp.MustCompile(`[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}`)
	reWinPath   = regexp.MustCompile(`\b[A-Za-z]:\\[^\s,;'"()\[\]<>]+`)
	reUnixPath  = regexp.MustCompile(`(^|[\s=:'"(\[,])/[^\s,;'"()\[\]<>]+`)
	reSourcePos = regexp.MustCompile(`\.(java|scala|kt|py|go):\d+`)
	reIPv6      = regexp.MustCompile(`\[[0-9A-Fa-f:]*:[0-9A-Fa-f:]*\](?::\d{1,5})?`)
	reIPv4      = regexp.MustCompile(`\b\d{1,3}(?:\.\d{1,3}){3}(?::\d{1,5})?\b`)
	reHostPort  = regexp.MustCompile(`\b[A-Za-z0-9](?:[A-Za-z0-9\-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9\-]+)*:\d{2,5}\b`)
	reSpaces    = regexp.MustCompile(`\s+`)
	reRepeatN   = regexp.MustCompile(`<n>(?:[.,]<n>)+`)
)

// Signature normalises a failure message so that messages differing only
// in numbers, ids (hex, UUIDs, Flink job/vertex/attempt ids), hosts, IPs,
// ports, paths and timestamps collapse into one. The steps and placeholders
// are listed in docs/phases.md.
func Signature(msg string) string {
	s := strings.TrimSpace(msg)
	if s == "" {
		return NoMessage
	}
	s = reURL.ReplaceAllString(s, PlaceholderPath)
	s = reTimestamp.ReplaceAllString(s, PlaceholderTime)
	s = reUUID.ReplaceAllString(s, PlaceholderID)
	s = reWinPath.ReplaceAllString(s, PlaceholderPath)
	s = reUnixPath.ReplaceAllString(s, "${1}"+PlaceholderPath)
	s = reSourcePos.ReplaceAllString(s, ".${1}:"+PlaceholderNumber)
	s = reIPv6.ReplaceAllString(s, PlaceholderHost)
	s = reIPv4.ReplaceAllString(s, PlaceholderHost)
	s = reHostPort.ReplaceAllString(s, PlaceholderHost)
	s = replaceTokens(s)
	s = reRepeatN.ReplaceAllString(s, PlaceholderNumber)
	s = reSpaces.ReplaceAllString(s, " ")
	if len(s) > maxSignatureLen {
		cut := maxSignatureLen
		for cut > 0 && !isRuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

func isAlnum(b byte) bool {
	return b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

func isHex(b byte) bool {
	return b >= '0' && b <= '9' || b >= 'a' && b <= 'f' || b >= 'A' && b <= 'F'
}

// replaceTokens replaces each run of ASCII letters and digits that is a
// number with <n>, and each run that looks like a generated id (at least 8
// hex digits with a digit among them, or any run of 16+ hex digits) with <id>.
// Words such as "Source1" or "v2" stay: only whole runs are replaced.
func replaceTokens(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		if !isAlnum(s[i]) {
			b.WriteByte(s[i])
			i++
			continue
		}
		j := i
		digits, hex := 0, true
		for j < len(s) && isAlnum(s[j]) {
			if s[j] >= '0' && s[j] <= '9' {
				digits++
			}
			hex = hex && isHex(s[j])
			j++
		}
		n := j - i
		switch {
		case digits == n:
			if n >= 16 {
				b.WriteString(PlaceholderID)
			} else {
				b.WriteString(PlaceholderNumber)
			}
		case hex && (n >= 16 || n >= 8 && digits > 0):
			b.WriteString(PlaceholderID)
		default:
			b.WriteString(s[i:j])
		}
		i = j
	}
	return b.String()
}

// CheckpointFailure is why one checkpoint failed and where it was stuck.
type CheckpointFailure struct {
	Signature string `json:"signature"`
	Message   string `json:"message"`
	// Phase is the phase the checkpoint was in when it failed (what was still
	// pending); absent when neither the message nor the stats tell.
	Phase Phase `json:"phase,omitempty"`
	// Basis says how Phase was found: from the message, or inferred from
	// which subtasks acknowledged. BasisParts are its clauses, for the UI to
	// say in the user's language (as Correlation.ReasonParts).
	Basis      string       `json:"basis"`
	BasisParts []ReasonPart `json:"basis_parts"`
	// Expired is set when the checkpoint timed out ("Checkpoint expired before completing").
	Expired bool `json:"expired,omitempty"`
	// JobLevel is set when the checkpoint was aborted because the job (or a
	// task) was stopping, failing or restarting: no phase is to blame, and
	// Phase stays absent.
	JobLevel bool `json:"job_level,omitempty"`
	// Vertices are the vertices named in the message, or else the most
	// upstream vertices still pending (the ones the others waited for).
	Vertices []VertexRef `json:"vertices,omitempty"`
	// AfterMs is trigger → failure, when the failure time is known.
	AfterMs *int64 `json:"after_ms,omitempty"`
	// Cause is the root cause and Task the declining task ("Map (2/4)#0"),
	// where the engine's log gives them.
	Cause string `json:"cause,omitempty"`
	Task  string `json:"task,omitempty"`
}

// messageRule maps a known failure text (Flink CheckpointFailureReason
// messages, SeaTunnel CheckpointCloseReason messages) to the phase it names.
// Phase "" means the message does not say; the phase is then inferred from
// the subtasks that acknowledged.
type messageRule struct {
	contains string // lower case
	phase    Phase
	expired  bool
	basis    string // a reason template code
	jobLevel bool
}

var messageRules = []messageRule{
	{"expired before completing", "", true, "f_expired", false},
	{"asynchronous task checkpoint failed", PhaseAsync, false, "f_msg_async", false},
	{"task local checkpoint failure", PhaseSync, false, "f_msg_sync", false},
	{"failure to finalize checkpoint", PhaseFinalize, false, "f_msg_finalize", false},
	{"aggregate commit error", PhaseFinalize, false, "f_msg_commit", false},
	{"checkpoint notify complete failed", PhaseFinalize, false, "f_msg_notify", false},
	{"trigger checkpoint failure", PhaseStartDelay, false, "f_msg_trigger", false},
	{"an exception occurred while triggering the checkpoint", PhaseStartDelay, false, "f_msg_trigger", false},
	{"not all required tasks are currently running", PhaseStartDelay, false, "f_msg_not_running", false},
	{"checkpoint was declined (tasks not ready)", PhaseStartDelay, false, "f_msg_not_ready", false},
	{"task not all ready", PhaseStartDelay, false, "f_msg_not_all_ready", false},
	{"barrier from newer checkpoint was received", PhaseAlignment, false, "f_msg_newer_barrier", false},
	{"received cancellation from one of its inputs", PhaseAlignment, false, "f_msg_input_cancelled", false},
	{"one input stream is finished", PhaseAlignment, false, "f_msg_input_finished", false},
	// Aborted by what happened to the job, whatever phase it had reached.
	{"checkpoint coordinator is suspending", "", false, "f_job_suspend", true},
	{"checkpointcoordinator shutdown", "", false, "f_job_shutdown", true},
	{"checkpoint coordinator is shutting down", "", false, "f_job_shutdown", true},
	{"failoverregion is restarting", "", false, "f_job_region", true},
	{"task has failed", "", false, "f_job_task_failed", true},
	{"the job has failed", "", false, "f_job_failed", true},
	{"task is closing", "", false, "f_job_task_closing", true},
	{"checkpoint coordinator is shut down", "", false, "f_job_shutdown", true},
	{"periodic checkpoint scheduler is shut down", "", false, "f_job_shutdown", true},
	{"checkpointcoordinator reset", "", false, "f_job_reset", true},
	{"checkpointcoordinator completed", "", false, "f_job_completed", true},
	{"pipeline turn to end state", "", false, "f_job_pipeline_end", true},
}

// classifyFailure builds a checkpoint's failure from its message, the scan
// of its subtasks and (for engines without subtask stats) its last ack sample.
func classifyFailure(g *graph, c *model.Checkpoint, r *cpResult, lastSample *model.AckSample, sc *scratch) *CheckpointFailure {
	f := &CheckpointFailure{Signature: Signature(c.FailureMessage), Message: c.FailureMessage}
	if c.FailureMs > 0 && c.TriggerMs > 0 && c.FailureMs >= c.TriggerMs {
		after := c.FailureMs - c.TriggerMs
		f.AfterMs = &after
	}
	lower := strings.ToLower(c.FailureMessage)
	var rule *messageRule
	for i := range messageRules {
		if strings.Contains(lower, messageRules[i].contains) {
			rule = &messageRules[i]
			break
		}
	}
	if rule != nil {
		f.Expired = rule.expired
		if rule.phase != "" {
			f.Phase, f.BasisParts = rule.phase, []ReasonPart{part(rule.basis)}
		}
		if rule.jobLevel {
			f.JobLevel, f.BasisParts = true, []ReasonPart{part(rule.basis)}
		}
	}
	if f.Phase == "" && !f.JobLevel {
		f.Phase, f.BasisParts = pendingPhase(c, r, lastSample)
		if rule != nil && rule.expired {
			f.BasisParts = append([]ReasonPart{part(rule.basis)}, f.BasisParts...)
		}
	}
	f.Basis = renderClauses(f.BasisParts)
	f.Cause = c.FailureCause
	if d := c.Declined; d != nil {
		f.Task = d.Task
		if v, ok := g.index[d.VertexID]; ok && d.VertexID != "" {
			f.Vertices = []VertexRef{g.ref(v)} // the log names the task that declined
		}
	}
	if len(f.Vertices) == 0 {
		f.Vertices = namedVertices(g, c.FailureMessage)
	}
	if len(f.Vertices) == 0 && r.lateAck(c) {
		f.Vertices = append(f.Vertices, g.ref(r.crit.v))
	}
	if len(f.Vertices) == 0 && r.pendingRoot >= 0 {
		for _, v := range sc.roots {
			f.Vertices = append(f.Vertices, g.ref(v))
		}
	}
	return f
}

// pendingPhase is the phase of what was still pending when a checkpoint
// failed, from its stats (docs/phases.md, "Failures").
func pendingPhase(c *model.Checkpoint, r *cpResult, lastSample *model.AckSample) (Phase, []ReasonPart) {
	one := func(p ReasonPart) []ReasonPart { return []ReasonPart{p} }
	switch {
	case r.lateAck(c):
		best := largestPhase(&r.critVec)
		ph := subtaskPhases[best]
		return ph, one(part("f_late_ack", "ms", fmt.Sprint(r.crit.e2e), "failed", fmt.Sprint(c.FailureMs-c.TriggerMs),
			"phase", string(ph), "phase_ms", fmt.Sprint(r.critVec[best])))
	case r.complete:
		return PhaseFinalize, one(part("f_all_acked"))
	case r.hasTasks && r.acked == 0 && r.total > 0:
		return PhaseStartDelay, one(part("f_none_acked"))
	case r.pendingRoot >= 0 || r.pendingBasis != nil:
		return r.pendingPhase, r.pendingBasis
	case lastSample != nil && lastSample.Total > 0 && lastSample.Acknowledged >= lastSample.Total:
		return PhaseFinalize, one(part("f_poll_all_acked"))
	case !r.hasTasks && c.NumSubtasks > 0 && c.NumAcknowledged == 0 && c.Status == model.StatusFailed:
		return PhaseStartDelay, one(part("f_none_acked"))
	case lastSample != nil:
		return "", one(part("f_poll_some", "acked", strconv.Itoa(lastSample.Acknowledged), "total", strconv.Itoa(lastSample.Total)))
	}
	return "", one(part("f_no_stats"))
}

// namedVertices are the job's vertices whose name or id occurs in a message
// (Flink names the task in declines: "Task name with subtask : Map (2/4)#0 ...").
func namedVertices(g *graph, msg string) []VertexRef {
	if msg == "" {
		return nil
	}
	var out []int
	for v, info := range g.vertices {
		if info.name != "" && len(info.name) >= 3 && strings.Contains(msg, info.name) ||
			len(info.id) >= 8 && strings.Contains(msg, info.id) {
			out = append(out, v)
		}
	}
	// A chain's name contains its operators' names: keep the longest match only
	// when one matched name is part of another.
	var refs []VertexRef
	for _, v := range out {
		inner := false
		for _, w := range out {
			if w != v && g.vertices[v].name != "" && len(g.vertices[w].name) > len(g.vertices[v].name) &&
				strings.Contains(g.vertices[w].name, g.vertices[v].name) {
				inner = true
				break
			}
		}
		if !inner {
			refs = append(refs, g.ref(v))
		}
	}
	return refs
}

// FailureCluster groups failed checkpoints whose messages share a signature.
type FailureCluster struct {
	Signature string `json:"signature"`
	// Example is the first message seen with this signature.
	Example string `json:"example"`
	Count   int    `json:"count"`
	// Phase is the most common phase among the cluster's failures; absent if none was known.
	Phase   Phase `json:"phase,omitempty"`
	Expired bool  `json:"expired,omitempty"`
	// JobLevel is set when the failures were aborts by the job stopping,
	// failing or restarting (CheckpointFailure.JobLevel).
	JobLevel      bool        `json:"job_level,omitempty"`
	CheckpointIDs []int64     `json:"checkpoint_ids"`
	Vertices      []VertexRef `json:"vertices"`
	// FirstMs and LastMs are the failure times (trigger time where the failure time is unknown).
	FirstMs int64 `json:"first_ms"`
	LastMs  int64 `json:"last_ms"`
	// Cause and Task are the first root cause and declining task the
	// engine's log gave for the cluster's failures.
	Cause string `json:"cause,omitempty"`
	Task  string `json:"task,omitempty"`
}

type clusterAcc struct {
	FailureCluster
	phaseCount [len(subtaskPhases) + 1]int
	vertexSeen map[string]bool
}

// clusterFailures groups the failures of checkpoints (in analysis order)
// by signature: most frequent first, then earliest.
func clusterFailures(g *graph, cps []model.Checkpoint, order []int, fails []*CheckpointFailure) []FailureCluster {
	by := map[string]*clusterAcc{}
	var accs []*clusterAcc
	for k, i := range order {
		f := fails[k]
		if f == nil {
			continue
		}
		c := &cps[i]
		at := c.FailureMs
		if at == 0 {
			at = c.TriggerMs
		}
		a := by[f.Signature]
		if a == nil {
			a = &clusterAcc{FailureCluster: FailureCluster{Signature: f.Signature, Example: f.Message, FirstMs: at, LastMs: at,
				Vertices: []VertexRef{}}, vertexSeen: map[string]bool{}}
			by[f.Signature] = a
			accs = append(accs, a)
		}
		a.Count++
		a.CheckpointIDs = append(a.CheckpointIDs, c.ID)
		if a.Cause == "" {
			a.Cause = f.Cause
		}
		if a.Task == "" {
			a.Task = f.Task
		}
		a.FirstMs, a.LastMs = min(a.FirstMs, at), max(a.LastMs, at)
		a.Expired = a.Expired || f.Expired
		a.JobLevel = a.JobLevel || f.JobLevel
		if ix := f.Phase.index(); ix >= 0 {
			a.phaseCount[ix]++
		}
		for _, v := range f.Vertices {
			if !a.vertexSeen[v.VertexID] {
				a.vertexSeen[v.VertexID] = true
				a.Vertices = append(a.Vertices, v)
			}
		}
	}
	out := make([]FailureCluster, 0, len(accs))
	for _, a := range accs {
		best := -1
		for ix, n := range a.phaseCount {
			if n > 0 && (best < 0 || n > a.phaseCount[best]) {
				best = ix
			}
		}
		if best >= 0 {
			a.Phase = allPhases[:][best]
		}
		sort.SliceStable(a.Vertices, func(x, y int) bool {
			return g.before(g.index[a.Vertices[x].VertexID], g.index[a.Vertices[y].VertexID])
		})
		out = append(out, a.FailureCluster)
	}
	sort.SliceStable(out, func(x, y int) bool {
		if out[x].Count != out[y].Count {
			return out[x].Count > out[y].Count
		}
		if out[x].FirstMs != out[y].FirstMs {
			return out[x].FirstMs < out[y].FirstMs
		}
		return out[x].Signature < out[y].Signature
	})
	return out
}
