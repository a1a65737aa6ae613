package analyze

import (
	"slices"
	"strings"

	"checkpoint-explorer/backend/model"
)

// What the report says of a job's changes (docs/report-format.md,
// "changes[]"): each change of the run with the before/after at its moment,
// the episodes of its slow and failed checkpoints, and what became of each
// advice item.

// ChangeEffect is a change and the before/after at its moment.
type ChangeEffect struct {
	model.Change
	Effect Effect `json:"effect"`
}

// JobChanges is the report's part on a job's changes.
type JobChanges struct {
	// Changes are the changes of the report's run in its range, by time.
	Changes []ChangeEffect `json:"changes"`
	// Episodes are its slow and failed checkpoints read as episodes.
	Episodes []Episode `json:"episodes"`
	// AdviceFollowUp says, per advice item in the advice's order, what
	// became of it (FollowAdvice).
	AdviceFollowUp []AdviceOutcome `json:"advice_follow_up"`
}

// AdviceOutcome is an advice item's follow-up and, when a change applied
// it, the before/after at that change.
type AdviceOutcome struct {
	AdviceFollowUp
	Effect *Effect `json:"effect,omitempty"`
}

// OtherRuns are the other runs of job's logical job among jobs: those of
// its cluster kept apart under its id (id@start, a run whose id a new one
// took) or under another id with its name (and engine), one of the two
// having ended by the time the other started; not across a run the user
// split from the runs before it (model.Job.Split), which starts a logical
// job of its own.
func OtherRuns(job model.Job, jobs []model.Job) []model.Job {
	var out []model.Job
	for _, j := range jobs {
		if j.Cluster != job.Cluster || j.ID == job.ID {
			continue
		}
		sameName := j.Name != "" && j.Name == job.Name && j.Engine == job.Engine
		if (runOf(j.ID) == runOf(job.ID) || sameName && (endedBefore(j, job) || endedBefore(job, j))) && !splitBetween(j, job, jobs) {
			out = append(out, j)
		}
	}
	return out
}

// splitBetween reports whether a run of a's cluster the user split started
// after the earlier of a and b and no later than the other.
func splitBetween(a, b model.Job, jobs []model.Job) bool {
	if a.StartMs > b.StartMs {
		a, b = b, a
	}
	return slices.ContainsFunc(jobs, func(s model.Job) bool {
		return s.Split && s.Cluster == a.Cluster && s.StartMs > a.StartMs && s.StartMs <= b.StartMs
	})
}

// runOf is the job id a run was started under (a run kept apart is id@start).
func runOf(id string) string {
	base, _, _ := strings.Cut(id, "@")
	return base
}

// endedBefore reports whether run a ended by the time b started.
func endedBefore(a, b model.Job) bool {
	return a.StartMs > 0 && a.StartMs < b.StartMs && model.JobEnded(a.State) && a.EndMs <= b.StartMs
}

// Parallelism keeps, of checkpoints seen in trigger order, the vertices'
// subtask counts where they changed, and the newest checkpoint's: what
// DetectChanges reads of the tasks (rescales) for checkpoints kept without
// them. It holds a few values per rescale, whatever the history's length.
type Parallelism struct {
	last   map[string]int
	seen   map[model.Key][]vertexCount
	newest model.Key
	counts []vertexCount // the newest checkpoint's
}

type vertexCount struct {
	vertex string
	n      int
}

// See notes a checkpoint's subtask counts (c is not kept).
func (p *Parallelism) See(c *model.Checkpoint) {
	if p.last == nil {
		p.last, p.seen = map[string]int{}, map[model.Key][]vertexCount{}
	}
	p.newest, p.counts = c.Key(), p.counts[:0]
	changed := false
	for i := range c.Tasks {
		if t := &c.Tasks[i]; t.NumSubtasks > 0 {
			p.counts = append(p.counts, vertexCount{t.VertexID, t.NumSubtasks})
			changed = changed || p.last[t.VertexID] != t.NumSubtasks
			p.last[t.VertexID] = t.NumSubtasks
		}
	}
	if changed {
		p.seen[p.newest] = slices.Clone(p.counts)
	}
}

// Onto gives the checkpoints of cps that See noted (cps hold none of their
// tasks) tasks with the subtask counts seen.
func (p *Parallelism) Onto(cps []model.Checkpoint) {
	if len(p.counts) > 0 {
		p.seen[p.newest] = p.counts
	}
	for i := range cps {
		for _, vc := range p.seen[cps[i].Key()] {
			cps[i].Tasks = append(cps[i].Tasks, model.TaskStats{VertexID: vc.vertex, NumSubtasks: vc.n})
		}
	}
}

// KeepForChanges is s, which also appends to *kept each analysis as
// BeforeAfter and Episodes read it: without its causes, ack progress and
// commit (a few hundred bytes a checkpoint).
func KeepForChanges(s Streaming, kept *[]CheckpointAnalysis) Streaming {
	slim := func(ca *CheckpointAnalysis) CheckpointAnalysis {
		c := *ca
		c.Causes, c.AckProgress, c.Commit = nil, nil, nil
		return c
	}
	pass := func(f func(int, *CheckpointAnalysis) error, k int, ca *CheckpointAnalysis) error {
		if f == nil {
			return nil
		}
		return f(k, ca)
	}
	return Streaming{
		Emit: func(k int, ca *CheckpointAnalysis) error {
			*kept = append(*kept, slim(ca))
			return pass(s.Emit, k, ca)
		},
		Revise: func(k int, ca *CheckpointAnalysis) error {
			(*kept)[k] = slim(ca)
			return pass(s.Revise, k, ca)
		},
	}
}

// AnalyseRun analyses a run's checkpoints triggered in [fromMs, toMs] (0:
// open), for a before/after whose side reaches into the run.
type AnalyseRun func(run model.Job, fromMs, toMs int64) ([]CheckpointAnalysis, error)

// ChangeContext is a job's changes and the analysed checkpoints their
// before/after read: the job's own, and another run's where a side reaches
// into it (analysed once, when first needed).
type ChangeContext struct {
	job model.Job
	// all are the changes of every run (DetectChanges over the job and its
	// other runs), by time.
	all     []model.Change
	own     []CheckpointAnalysis
	runs    []model.Job
	analyse AnalyseRun
	others  map[string]runAnalyses
}

type runAnalyses struct {
	fromMs, toMs int64 // what was analysed; 0: open
	cas          []CheckpointAnalysis
}

// NewChangeContext detects the changes of in (whose Previous may hold runs
// after the job too: their resubmissions and configurations are found
// alike) over own, the job's analysed checkpoints; analyse reads another
// run's when a before/after needs them.
func NewChangeContext(in ChangeInputs, own []CheckpointAnalysis, analyse AnalyseRun) *ChangeContext {
	cc := &ChangeContext{job: in.Job, all: DetectChanges(in), own: own, analyse: analyse, others: map[string]runAnalyses{}}
	for _, p := range in.Previous {
		cc.runs = append(cc.runs, p.Job)
	}
	return cc
}

// Effect is BeforeAfter at the moment at with each side within windowMs
// (0: only the neighbouring changes bound it), over the checkpoints of
// every run the sides reach.
func (cc *ChangeContext) Effect(at, windowMs int64) (Effect, error) {
	opts := BeforeAfterOptions{WindowMs: windowMs, Changes: cc.all}
	bounds := BeforeAfter(nil, at, opts) // the sides alone: no checkpoint, nothing to resample
	from, to := bounds.Before.FromMs, bounds.After.ToMs
	cas := cc.own
	for _, r := range cc.runs {
		if (to != 0 && r.StartMs >= to) || (r.EndMs != 0 && r.EndMs < from) {
			continue
		}
		ra, err := cc.analysed(r, from, to)
		if err != nil {
			return Effect{}, err
		}
		cas = append(slices.Clip(cas), ra...)
	}
	return BeforeAfter(cas, at, opts), nil
}

// analysed is run's checkpoints in [from, to] at least (0: open), analysed
// again over the union when what was analysed does not cover them.
func (cc *ChangeContext) analysed(run model.Job, from, to int64) ([]CheckpointAnalysis, error) {
	ra, ok := cc.others[run.ID]
	if ok && (ra.fromMs == 0 || from != 0 && ra.fromMs <= from) && (ra.toMs == 0 || to != 0 && ra.toMs >= to) {
		return ra.cas, nil
	}
	if ok {
		from, to = openMin(ra.fromMs, from), openMax(ra.toMs, to)
	}
	cas, err := cc.analyse(run, from, to)
	if err != nil {
		return nil, err
	}
	cc.others[run.ID] = runAnalyses{from, to, cas}
	return cas, nil
}

// openMin and openMax are the bounds of a union of ranges whose 0 is open.
func openMin(a, b int64) int64 {
	if a == 0 || b == 0 {
		return 0
	}
	return min(a, b)
}

func openMax(a, b int64) int64 {
	if a == 0 || b == 0 {
		return 0
	}
	return max(a, b)
}

// Report is the report's part on the changes over its range [fromMs, toMs]
// (0: open): the job's own changes in it with their effects, the episodes
// of its checkpoints, and the follow-up of each advice item (against the
// changes from the range's first checkpoint on, the later runs' included),
// with the effect of the change that applied it.
func (cc *ChangeContext) Report(advice []Advice, fromMs, toMs int64) (JobChanges, error) {
	out := JobChanges{Changes: []ChangeEffect{}, Episodes: Episodes(cc.own, cc.all), AdviceFollowUp: []AdviceOutcome{}}
	effects := map[int64]Effect{} // changes at one moment share it
	effectAt := func(at int64) (Effect, error) {
		e, ok := effects[at]
		var err error
		if !ok {
			e, err = cc.Effect(at, 0)
			effects[at] = e
		}
		return e, err
	}
	first := int64(-1) // the first checkpoint's trigger
	for i := range cc.own {
		if first < 0 || cc.own[i].TriggerMs < first {
			first = cc.own[i].TriggerMs
		}
	}
	var since []model.Change
	for _, c := range cc.all {
		if c.TimeMs >= first {
			since = append(since, c)
		}
		if c.JobID != cc.job.ID || fromMs > 0 && c.TimeMs < fromMs || toMs > 0 && c.TimeMs > toMs {
			continue
		}
		e, err := effectAt(c.TimeMs)
		if err != nil {
			return out, err
		}
		out.Changes = append(out.Changes, ChangeEffect{Change: c, Effect: e})
	}
	for _, f := range FollowAdvice(advice, since, out.Episodes) {
		o := AdviceOutcome{AdviceFollowUp: f}
		if f.Status == AdviceApplied {
			e, err := effectAt(f.Change.TimeMs)
			if err != nil {
				return out, err
			}
			o.Effect = &e
		}
		out.AdviceFollowUp = append(out.AdviceFollowUp, o)
	}
	return out, nil
}
