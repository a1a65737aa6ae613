package analyze

import (
	"cmp"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"sync"

	"checkpoint-explorer/backend/model"
)

// JobRef names the job an analysis is about.
type JobRef struct {
	Cluster string       `json:"cluster,omitempty"`
	ID      string       `json:"id"`
	Name    string       `json:"name"`
	Engine  model.Engine `json:"engine"`
}

// JobAnalysis is the full analysis of a job's checkpoints: what `report
// --format json` prints (docs/report-format.md).
type JobAnalysis struct {
	Job JobRef `json:"job"`
	// FromMs and ToMs span the analysed checkpoints (first trigger, last end).
	FromMs int64 `json:"from_ms"`
	ToMs   int64 `json:"to_ms"`
	// Missed counts checkpoints known to exist but never seen (gaps).
	Missed int64 `json:"missed"`
	// PhasesAvailable lists the phases present in at least one checkpoint.
	PhasesAvailable []Phase `json:"phases_available"`
	// Notes say what the data cannot show, so absent values are not mistaken
	// for zero; NoteParts are the same, for the UI to say in the user's language.
	Notes           []string             `json:"notes"`
	NoteParts       []ReasonPart         `json:"note_parts"`
	Checkpoints     []CheckpointAnalysis `json:"checkpoints"`
	Failures        []FailureCluster     `json:"failures"`
	SlowPhases      []SlowRun            `json:"slow_phases"`
	SlowCheckpoints []SlowRun            `json:"slow_checkpoints"`
	Correlation     Correlation          `json:"correlation"`
	// Advice says what to change, from the evidence above and the job's
	// configuration (docs/advice.md); most important first.
	Advice []Advice `json:"advice"`
}

// CheckpointAnalysis is one checkpoint explained.
type CheckpointAnalysis struct {
	ID       int64                `json:"id"`
	Pipeline int                  `json:"pipeline,omitempty"`
	Kind     model.CheckpointKind `json:"kind,omitempty"`
	Status   model.Status         `json:"status"`
	// TriggerMs is when it was triggered; EndMs when it completed or failed (absent while running).
	TriggerMs        int64 `json:"trigger_ms"`
	EndMs            int64 `json:"end_ms,omitempty"`
	DurationMs       int64 `json:"duration_ms"`
	CheckpointedSize int64 `json:"checkpointed_size"`
	// Phases are the critical path's phases (the last subtask to acknowledge)
	// plus finalize; absent phases are omitted.
	Phases     Phases      `json:"phases"`
	Bottleneck *Bottleneck `json:"bottleneck,omitempty"`
	// Causes split the end-to-end time along the barrier path, largest first
	// (docs/phases.md); absent without per-subtask stats.
	Causes       []Cause            `json:"causes,omitempty"`
	AckProgress  *AckProgress       `json:"ack_progress,omitempty"`
	Failure      *CheckpointFailure `json:"failure,omitempty"`
	Backpressure *Pressure          `json:"backpressure,omitempty"`
	// Slow lists what exceeded its baseline in this checkpoint.
	Slow []SlowFlag `json:"slow,omitempty"`
	// Commit is the sink commit that followed it, where the committer's
	// metrics were sampled (shared by the checkpoints of one window).
	Commit *Commit `json:"commit,omitempty"`
	// Source is the record's origin (model.Checkpoint.Source): "" the
	// engine's API, "jobmanager_log" the log alone (no per-subtask stats).
	Source model.CheckpointSource `json:"source,omitempty"`
	// EndedUnseen marks a checkpoint stored in progress that has ended
	// although nobody saw how: a later checkpoint of its pipeline completed,
	// and Flink ends every pending checkpoint but a savepoint then
	// (EndsPendingOnCompletion). Its status stays the last one seen.
	EndedUnseen bool `json:"ended_unseen,omitempty"`
}

// finalSeen reports whether the checkpoint (a savepoint aside) was seen to
// complete or fail: what the episodes and a before/after read.
func (ca *CheckpointAnalysis) finalSeen() bool {
	return ca.Kind != model.KindSavepoint && !ca.EndedUnseen && ca.Status.Final()
}

// EndsPendingOnCompletion reports whether the engine ends a job's pending
// checkpoints (savepoints aside) when a later one of their pipeline
// completes. Flink does: it aborts them as subsumed, so one stored in
// progress whose end left the history unseen (the app stopped, or Flink's
// statistics were refreshed less often than its checkpoints ended) has
// ended. SeaTunnel is not known to, so its checkpoints stay as seen.
func EndsPendingOnCompletion(e model.Engine) bool { return e == model.EngineFlink }

// EndedUnseen reports whether a checkpoint of a job of engine e, stored
// with status st, has ended unseen (CheckpointAnalysis.EndedUnseen), given
// the newest completed checkpoint id of its pipeline (-1: none).
func EndedUnseen(e model.Engine, st model.Status, kind model.CheckpointKind, id, newestCompleted int64) bool {
	return st == model.StatusInProgress && kind != model.KindSavepoint && EndsPendingOnCompletion(e) && newestCompleted > id
}

// endedUnseen is EndedUnseen with the newest completed id of each pipeline.
func endedUnseen(e model.Engine, st model.Status, kind model.CheckpointKind, pipeline int, id int64, newestCompleted map[int]int64) bool {
	newest, ok := newestCompleted[pipeline]
	return ok && EndedUnseen(e, st, kind, id, newest)
}

// orderKey places a checkpoint in analysis order: by trigger time,
// pipeline, id.
type orderKey struct {
	triggerMs int64
	pipeline  int
	id        int64
}

func (a orderKey) compare(b orderKey) int {
	return cmp.Or(cmp.Compare(a.triggerMs, b.triggerMs), cmp.Compare(a.pipeline, b.pipeline), cmp.Compare(a.id, b.id))
}

func checkpointKey(c *model.Checkpoint) orderKey { return orderKey{c.TriggerMs, c.Pipeline, c.ID} }

func (ca *CheckpointAnalysis) orderKey() orderKey { return orderKey{ca.TriggerMs, ca.Pipeline, ca.ID} }

// indices is 0, 1, …, n-1: positions to sort instead of what they point at.
func indices(n int) []int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	return idx
}

// analysisOrder is the positions 0…n-1 in analysis order by their keys;
// equal keys keep their positions' order. The keys are sorted beside their
// positions (a stable sort of positions alone, reading each key through
// them, took three times as long), and input in order already, as the
// cache gives it, costs one pass.
func analysisOrder(n int, key func(i int) orderKey) []int {
	type entry struct {
		key orderKey
		pos int
	}
	es := make([]entry, n)
	for i := range es {
		es[i] = entry{key(i), i}
	}
	byKey := func(a, b entry) int { return cmp.Or(a.key.compare(b.key), cmp.Compare(a.pos, b.pos)) }
	if !slices.IsSortedFunc(es, byKey) {
		slices.SortFunc(es, byKey)
	}
	order := make([]int, n)
	for i, e := range es {
		order[i] = e.pos
	}
	return order
}

// sortedOrder is the analysis order of cps. The input is not modified.
func sortedOrder(cps []model.Checkpoint) []int {
	return analysisOrder(len(cps), func(i int) orderKey { return checkpointKey(&cps[i]) })
}

type ackKey struct {
	pipeline int
	id       int64
}

func indexAcks(acks []model.AckSample, jobID string) map[ackKey][]model.AckSample {
	idx := map[ackKey][]model.AckSample{}
	for _, a := range acks {
		if jobID != "" && a.JobID != "" && a.JobID != jobID {
			continue
		}
		k := ackKey{a.Pipeline, a.CheckpointID}
		idx[k] = append(idx[k], a)
	}
	for _, s := range idx {
		sortAckSamples(s)
	}
	return idx
}

// Analyzer explains a job's checkpoints fed to it one at a time (Add), so a
// caller streaming them from the cache never holds every subtask stat at
// once: what it keeps per checkpoint is the checkpoint without its tasks,
// one pass's result and one int64 per vertex and subtask phase. Finish
// computes everything that needs all checkpoints. Analyze is the same over
// a slice, scanned in parallel.
//
// By default the per-checkpoint analyses are kept and returned by Finish.
// Stream hands each over as soon as it is complete instead, so a report
// over 100,000 checkpoints need not hold them all.
type Analyzer struct {
	g       *graph
	job     model.Job
	acks    map[ackKey][]model.AckSample
	mi      *metricIndex
	commits *commitIndex
	sc      *scratch

	// Per checkpoint, in Add order until Finish sorts them into analysis
	// order (when streaming, Add order is analysis order).
	heads []model.Checkpoint // without Tasks
	voff  []int              // start of the checkpoint's rows in vmax
	vmax  []int64            // per vertex × subtask phase, the maximum over acknowledged subtasks; -1 = absent
	fails []*CheckpointFailure
	done  bool
	// res and out hold checkpoints [base, n): all of them, unless the
	// analysis streams; then only those not settled yet, and kept holds
	// the settled ones Finish still changes (refinable).
	res  []cpResult
	out  []CheckpointAnalysis
	base int
	kept map[int]*keptAnalysis

	// What settling (analysis order, one checkpoint after the other) has
	// gathered for the job-level answers.
	settled  int // checkpoints [0, settled) are settled
	slowT    *slowTracker
	corr     []corrInput
	seen     [len(subtaskPhases) + 1]bool // phases present in a settled checkpoint
	anyTasks bool

	stream     *Streaming
	metricsSet bool
	cfg        *model.JobConfig
	err        error // the first error Emit returned
}

// keptAnalysis is a settled checkpoint's analysis that Finish revises.
type keptAnalysis struct {
	out CheckpointAnalysis
	res cpResult
}

// at returns checkpoint k's analysis and pass result.
func (a *Analyzer) at(k int) (*CheckpointAnalysis, *cpResult) {
	if k >= a.base {
		return &a.out[k-a.base], &a.res[k-a.base]
	}
	ka := a.kept[k]
	return &ka.out, &ka.res
}

// Streaming is where a streaming Analyzer hands over the analyses.
type Streaming struct {
	// Emit receives each checkpoint's analysis once it is complete, in
	// analysis order, k counting from 0. The analysis is not modified
	// afterwards and may be kept. An error stops the emitting; Add returns it.
	Emit func(k int, ca *CheckpointAnalysis) error
	// Revise receives, during Finish, the few analyses that the whole
	// history changed after they were emitted: failures whose phase or
	// basis only the job's other checkpoints tell (docs/phases.md).
	Revise func(k int, ca *CheckpointAnalysis) error
}

// NewAnalyzer starts an analysis of job. acks and metrics may hold other
// jobs' records, which are ignored where they carry a job id. A streaming
// analysis may be given nil metrics here and its metrics later (SetMetrics).
func NewAnalyzer(job model.Job, acks []model.AckSample, metrics []model.MetricSample) *Analyzer {
	a := &Analyzer{g: newJobGraph(job), job: job, acks: indexAcks(acks, job.ID)}
	if metrics != nil {
		a.SetMetrics(metrics, nil)
	}
	return a
}

// SetConfig gives the analysis the job's configuration (nil when unknown),
// for the advice.
func (a *Analyzer) SetConfig(cfg *model.JobConfig) { a.cfg = cfg }

// HasCommitSamples reports whether metrics hold a sink committer's samples:
// then a streaming analysis needs the completed checkpoints' end times
// (SetMetrics) to tell how many checkpoints each commit served.
func HasCommitSamples(metrics []model.MetricSample) bool {
	return newCommitIndex(metrics).sampled()
}

// SetMetrics gives the analysis its metric samples, once. A streaming
// analysis that started without them scans the checkpoints added meanwhile
// and settles (and emits) them once it has them, so reading the samples can
// overlap reading the checkpoints. completedEnds are, for a streaming
// analysis of metrics that HasCommitSamples, the end times of the completed
// checkpoints it is given; a whole-slice analysis counts them itself.
func (a *Analyzer) SetMetrics(metrics []model.MetricSample, completedEnds []int64) {
	if a.metricsSet {
		panic("analyze: SetMetrics twice")
	}
	a.metricsSet = true
	a.mi, a.commits = newMetricIndex(a.job.ID, metrics), newCommitIndex(metrics)
	for _, end := range completedEnds {
		a.commits.count(end)
	}
}

// Stream makes the analysis hand each checkpoint's analysis to s.Emit as
// soon as it is complete (and its metrics are set) and keep only what the job-level answers need;
// Finish then returns no Checkpoints. Call it before the first Add; the
// checkpoints must then come in trigger order (ties in any order), as the
// cache's scan gives them.
func (a *Analyzer) Stream(s Streaming) {
	if len(a.heads) > 0 {
		panic("analyze: Stream after Add")
	}
	a.stream = &s
	a.kept = map[int]*keptAnalysis{}
}

// Unsettled is how many checkpoints were added and not settled yet: a
// streaming analysis waiting for its metrics holds them whole.
func (a *Analyzer) Unsettled() int { return len(a.heads) - a.settled }

// Reserve makes room for n more checkpoints (call it after Stream): a caller that knows how many it
// will add saves the copies (and the moment both copies are live) of growing
// per-checkpoint arrays that reach hundreds of MB over 100,000 checkpoints.
func (a *Analyzer) Reserve(n int) {
	if n <= 0 {
		return
	}
	a.heads = slices.Grow(a.heads, n)
	if a.stream == nil {
		a.res = slices.Grow(a.res, n)
		a.out = slices.Grow(a.out, n)
	}
	a.fails = slices.Grow(a.fails, n)
	a.voff = slices.Grow(a.voff, n)
	a.vmax = slices.Grow(a.vmax, n*len(a.g.vertices)*numSubtaskPhases)
	a.corr = slices.Grow(a.corr, n)
	// The arrays that hold pointers are written once now: the collector
	// scans a whole array, unwritten capacity too, and a page read before
	// it is written is mapped to the zero page and copied at the first
	// write, with a TLB flush on every core (on the soak cache: 0.3 s of
	// a 2 s report, docs/reliability.md).
	clear(a.heads[len(a.heads):cap(a.heads)])
	clear(a.fails[len(a.fails):cap(a.fails)])
	clear(a.corr[len(a.corr):cap(a.corr)])
}

// Add scans one checkpoint. c is not kept or modified; checkpoints may come
// in any order (the cache's order gives the same result as Analyze) unless
// the analysis streams. The error is a streaming one: checkpoints out of
// trigger order, or Emit's.
func (a *Analyzer) Add(c *model.Checkpoint) error {
	if a.done {
		panic("analyze: Add after Finish")
	}
	if n := len(a.heads); a.stream != nil && n > 0 {
		last := a.heads[n-1].TriggerMs
		if c.TriggerMs < last {
			return fmt.Errorf("analyze: checkpoint %d (triggered at %d) came after one triggered at %d: a streamed analysis needs trigger order",
				c.ID, c.TriggerMs, last)
		}
		if c.TriggerMs > last {
			a.settleFrom(a.settled)
		}
	}
	if a.err != nil {
		return a.err
	}
	a.g.addTasks(c)
	nV := len(a.g.vertices)
	if a.sc == nil {
		a.sc = newScratch(nV)
	}
	a.sc.fit(nV)
	k := len(a.heads)
	a.heads = append(a.heads, model.Checkpoint{})
	a.res = append(a.res, cpResult{})
	a.out = append(a.out, CheckpointAnalysis{})
	a.voff = append(a.voff, len(a.vmax))
	a.vmax = slices.Grow(a.vmax, nV*numSubtaskPhases)
	for range nV * numSubtaskPhases {
		a.vmax = append(a.vmax, -1)
	}
	a.one(k, c, a.sc)
	return nil
}

// row is checkpoint k's per vertex × subtask phase maxima; vertices the graph
// met after it was scanned are beyond its end.
func (a *Analyzer) row(k int) []int64 {
	end := len(a.vmax)
	if k+1 < len(a.voff) {
		end = a.voff[k+1]
	}
	return a.vmax[a.voff[k]:end]
}

// scanAll fills the per-checkpoint results, in parallel over contiguous
// chunks; each checkpoint's result depends only on that checkpoint (the
// graph is complete before), so the outcome does not depend on scheduling.
func (a *Analyzer) scanAll(cps []model.Checkpoint, order []int) {
	n, nV := len(order), len(a.g.vertices)
	workers := min(runtime.GOMAXPROCS(0), 8, (n+255)/256)
	if workers <= 1 {
		sc := newScratch(nV)
		for k, i := range order {
			a.one(k, &cps[i], sc)
		}
		return
	}
	var wg sync.WaitGroup
	chunk := (n + workers - 1) / workers
	for w := range workers {
		lo, hi := w*chunk, min((w+1)*chunk, n)
		if lo >= hi {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sc := newScratch(nV)
			for k := lo; k < hi; k++ {
				a.one(k, &cps[order[k]], sc)
			}
		}()
	}
	wg.Wait()
}

func (a *Analyzer) one(k int, c *model.Checkpoint, sc *scratch) {
	r := scanCheckpoint(a.g, c, sc, a.row(k))
	out, res := a.at(k)
	*out = CheckpointAnalysis{
		ID: c.ID, Pipeline: c.Pipeline, Kind: c.Kind, Status: c.Status,
		TriggerMs: c.TriggerMs, EndMs: c.EndMs(), DurationMs: c.EndToEndMs, CheckpointedSize: c.CheckpointedSize,
		Source: c.Source,
	}
	if r.critOK {
		out.Phases = phasesOf(&r.critVec)
	}
	if c.FinalizeMs != nil {
		f := max(0, *c.FinalizeMs)
		out.Phases.Finalize = &f
	}
	samples := a.acks[ackKey{c.Pipeline, c.ID}]
	out.AckProgress = ackProgress(a.g, c, &r, samples)
	if c.Status == model.StatusFailed {
		var last *model.AckSample
		if len(samples) > 0 {
			last = &samples[len(samples)-1]
		}
		out.Failure = classifyFailure(a.g, c, &r, last, sc)
	}
	out.Bottleneck = bottleneckOf(a.g, c, &r, out.Failure)
	out.Causes = causesOf(a.g, c, &r, sc)
	if out.Bottleneck != nil {
		out.Bottleneck.Origin = originOf(out.Bottleneck, out.Causes)
	}
	*res = r
	// The head keeps what the job-level answers read: not the tasks, nor
	// the texts this analysis has read already (its failure holds them).
	h := *c
	h.Tasks, h.ExternalPath, h.FailureMessage, h.FailureCause, h.Declined = nil, "", "", "", nil
	a.heads[k] = h
}

// Finish completes the analysis: clusters failures, judges slowness against
// the baselines, reads the metric windows and gives the verdict. The
// Analyzer cannot be used after. A streaming analysis returns no
// Checkpoints (they went to Emit and Revise) and Emit's or Revise's first
// error.
func (a *Analyzer) Finish(gaps []model.Gap) (JobAnalysis, error) {
	if a.done {
		panic("analyze: Finish twice")
	}
	a.done = true
	if !a.metricsSet {
		a.SetMetrics(nil, nil)
	}
	if a.stream == nil {
		a.sortByTrigger()
		for k := range a.heads {
			if c := &a.heads[k]; c.Status == model.StatusCompleted {
				a.commits.count(c.EndMs())
			}
		}
	}
	a.settleFrom(a.settled)
	job := a.job
	n := len(a.heads)
	ja := JobAnalysis{
		Job:       JobRef{Cluster: job.Cluster, ID: job.ID, Name: job.Name, Engine: job.Engine},
		Notes:     []string{},
		NoteParts: []ReasonPart{},
	}
	if a.stream == nil {
		ja.Checkpoints = a.out
		if ja.Checkpoints == nil {
			ja.Checkpoints = []CheckpointAnalysis{}
		}
	}
	for _, gp := range gaps {
		if job.ID == "" || gp.JobID == "" || gp.JobID == job.ID {
			ja.Missed += gp.Count()
		}
	}
	for k := range a.heads {
		c := &a.heads[k]
		end := c.EndMs()
		if k == 0 || c.TriggerMs < ja.FromMs {
			ja.FromMs = c.TriggerMs
		}
		ja.ToMs = max(ja.ToMs, end, c.TriggerMs)
	}
	a.refineFailures()
	a.markEndedUnseen()
	ja.Failures = clusterFailures(a.g, a.heads, indices(n), a.fails)
	if a.slowT != nil {
		ja.SlowPhases, ja.SlowCheckpoints = a.slowT.finish()
	} else {
		ja.SlowPhases, ja.SlowCheckpoints = []SlowRun{}, []SlowRun{}
	}
	ja.Correlation = correlate(a.corr, a.cfg)
	ja.Advice = advise(a.adviceFacts(&ja))
	a.notes(&ja, job)
	return ja, a.err
}

// Checkpoints returns the analysed checkpoints in analysis order, without
// their tasks, failure message and cause, declined task and external path;
// valid after Finish.
func (a *Analyzer) Checkpoints() []model.Checkpoint { return a.heads }

// sortByTrigger puts the per-checkpoint arrays in analysis order (trigger
// time, pipeline, id), whatever order they were added in.
func (a *Analyzer) sortByTrigger() { a.sortFrom(0) }

// sortFrom puts checkpoints [lo, n) in analysis order; lo >= base.
func (a *Analyzer) sortFrom(lo int) {
	order := sortedOrder(a.heads[lo:])
	if slices.IsSorted(order) {
		return
	}
	m := len(order)
	heads, res, out, voff := make([]model.Checkpoint, m), make([]cpResult, m), make([]CheckpointAnalysis, m), make([]int, m)
	ends := make([]int, m)
	for k, i := range order {
		heads[k], res[k], out[k], voff[k] = a.heads[lo+i], a.res[lo+i-a.base], a.out[lo+i-a.base], a.voff[lo+i]
		ends[k] = len(a.row(lo + i))
	}
	// Rows keep their place in vmax; re-lay those of [lo, n) so row(k) still works.
	base := a.voff[lo]
	vmax := make([]int64, 0, len(a.vmax)-base)
	for k := range order {
		start := voff[k]
		voff[k] = base + len(vmax)
		vmax = append(vmax, a.vmax[start:start+ends[k]]...)
	}
	copy(a.heads[lo:], heads)
	copy(a.res[lo-a.base:], res)
	copy(a.out[lo-a.base:], out)
	copy(a.voff[lo:], voff)
	a.vmax = append(a.vmax[:base], vmax...)
}

// settleFrom settles checkpoints [lo, n) in analysis order; streaming,
// once the metrics are set.
func (a *Analyzer) settleFrom(lo int) {
	if !a.metricsSet {
		return
	}
	if a.stream != nil && len(a.heads)-lo > 1 {
		a.sortFrom(lo)
	}
	for k := lo; k < len(a.heads); k++ {
		a.settle(k)
	}
	a.settled = len(a.heads)
	if a.stream != nil {
		// Only what Finish revises stays.
		for k := a.base; k < a.settled; k++ {
			if out, r := a.at(k); refinable(out, r) || out.Status == model.StatusInProgress {
				a.kept[k] = &keptAnalysis{out: *out, res: *r}
			}
		}
		a.res, a.out, a.base = a.res[:0], a.out[:0], a.settled
	}
}

// settle completes checkpoint k with what the checkpoints before it and
// the metrics tell: the sink commit after it, what was slow against the
// baselines, the backpressure and queue evidence of its window. Streaming,
// it then emits the analysis and keeps only what Finish needs.
func (a *Analyzer) settle(k int) {
	if a.slowT == nil {
		a.slowT = newSlowTracker(a.g)
	}
	c := &a.heads[k]
	out, r := a.at(k)
	out.Commit = a.commits.of(c)
	median := a.observeSlow(k)
	a.corr = append(a.corr, a.corrInputOf(k, median))
	for i, ph := range allPhases[:] {
		if _, ok := out.Phases.Get(ph); ok {
			a.seen[i] = true
		}
	}
	a.anyTasks = a.anyTasks || r.hasSubtasks
	a.fails = append(a.fails, out.Failure)
	if a.stream == nil {
		return
	}
	emitted := *out
	if refinable(out, r) {
		// Finish changes this failure; what was emitted stays as it was.
		f := *out.Failure
		f.BasisParts = slices.Clone(f.BasisParts)
		emitted.Failure = &f
	}
	if a.err == nil {
		a.err = a.stream.Emit(k, &emitted)
	}
}

// bottleneckOf names the largest phase on the critical path. For a failed
// checkpoint it is the phase the pending subtasks were stuck in.
func bottleneckOf(g *graph, c *model.Checkpoint, r *cpResult, f *CheckpointFailure) *Bottleneck {
	if r.critOK && c.Status != model.StatusFailed {
		best := 0
		for k := 1; k < numSubtaskPhases; k++ {
			if r.critVec[k] > r.critVec[best] {
				best = k
			}
		}
		if c.FinalizeMs != nil && *c.FinalizeMs > r.critVec[best] {
			ms := *c.FinalizeMs
			return &Bottleneck{Phase: PhaseFinalize, PhaseMs: &ms, EndToEndMs: c.EndToEndMs}
		}
		return criticalBottleneck(g, r, best, c.EndToEndMs, false)
	}
	if c.Status == model.StatusCompleted {
		return nil // no subtask stats: nothing to name
	}
	if f != nil && f.JobLevel {
		return nil // aborted by the job stopping or failing: no phase held it up
	}
	phase := r.pendingPhase
	if f != nil && f.Phase != "" {
		phase = f.Phase
	}
	if r.lateAck(c) {
		// The late subtask was what the checkpoint waited for; its phases are known.
		return criticalBottleneck(g, r, largestPhase(&r.critVec), c.EndToEndMs, true)
	}
	if r.complete && c.Status == model.StatusFailed {
		return &Bottleneck{Phase: PhaseFinalize, EndToEndMs: c.EndToEndMs, Pending: true}
	}
	if r.pendingSnapshot && r.pendingRoot >= 0 {
		if sub, ok := firstPending(c, g.vertices[r.pendingRoot].id); ok {
			r.pendingSub = sub
		}
	}
	if phase == "" || !r.hasTasks {
		return nil
	}
	b := &Bottleneck{Phase: phase, EndToEndMs: c.EndToEndMs, Pending: true, PendingSubtasks: max(0, r.total-r.acked)}
	v := r.pendingRoot
	if f != nil && len(f.Vertices) > 0 {
		if i, ok := g.index[f.Vertices[0].VertexID]; ok {
			v = i
		}
	}
	if v >= 0 {
		b.VertexID, b.VertexName = g.vertices[v].id, g.vertices[v].name
		if sub, ok := firstPending(c, g.vertices[v].id); ok {
			b.Subtask = &sub
		}
	}
	return b
}

// criticalBottleneck names phase best (an index of subtaskPhases) of the
// last subtask to acknowledge.
func criticalBottleneck(g *graph, r *cpResult, best int, e2e int64, pending bool) *Bottleneck {
	ms, sub := r.critVec[best], r.crit.sub
	info := g.vertices[r.crit.v]
	return &Bottleneck{Phase: subtaskPhases[best], VertexID: info.id, VertexName: info.name, Subtask: &sub, PhaseMs: &ms,
		EndToEndMs: e2e, Pending: pending}
}

// firstPending is the lowest index of a subtask of vertex id that did not acknowledge.
func firstPending(c *model.Checkpoint, id string) (int, bool) {
	best, found := 0, false
	for t := range c.Tasks {
		if c.Tasks[t].VertexID != id {
			continue
		}
		for s := range c.Tasks[t].Subtasks {
			st := &c.Tasks[t].Subtasks[s]
			if !st.Acknowledged() && (!found || st.Index < best) {
				best, found = st.Index, true
			}
		}
	}
	return best, found
}

// observeSlow runs checkpoint k through the baselines, flags its slow
// values and extends the runs. It returns the end-to-end baseline median
// when the checkpoint could be judged (0 otherwise).
func (a *Analyzer) observeSlow(k int) float64 {
	c := &a.heads[k]
	// Savepoints are full snapshots taken on demand: they would distort a checkpoint baseline.
	if c.Status != model.StatusCompleted || c.Kind == model.KindSavepoint {
		return 0
	}
	t := a.slowT
	out, r := a.at(k)
	var median float64
	flag, med, judged := t.observe(seriesKey{c.Pipeline, EndToEnd, -1}, c.ID, c.TriggerMs, c.EndToEndMs)
	if judged {
		median = med
	}
	if flag != nil {
		out.Slow = append(out.Slow, *flag)
	}
	if c.FinalizeMs != nil {
		if flag, _, _ := t.observe(seriesKey{c.Pipeline, PhaseFinalize, -1}, c.ID, c.TriggerMs, max(0, *c.FinalizeMs)); flag != nil {
			out.Slow = append(out.Slow, *flag)
		}
	}
	if !r.hasSubtasks {
		return median
	}
	row := a.row(k)
	for v := range len(row) / numSubtaskPhases {
		for p, ph := range subtaskPhases {
			x := row[v*numSubtaskPhases+p]
			if x < 0 {
				continue
			}
			if flag, _, _ := t.observe(seriesKey{c.Pipeline, ph, v}, c.ID, c.TriggerMs, x); flag != nil {
				out.Slow = append(out.Slow, *flag)
			}
		}
	}
	return median
}

// refinable reports whether refineFailures changes this analysis.
func refinable(out *CheckpointAnalysis, r *cpResult) bool {
	f := out.Failure
	if f == nil || f.JobLevel || r.pendingRoot < 0 {
		return false
	}
	return r.pendingSnapshot && f.Phase == "" || r.pendingInputsDone && f.Phase == PhaseAlignment
}

// refineFailures completes what one checkpoint alone cannot tell about a
// failure: a vertex caught in its snapshot was in sync or async as its
// other checkpoints were (its snapshot phase that takes longer there), and a
// vertex caught before its barriers were aligned was behind backpressured
// data or not, as the backpressure measured in the window says.
func (a *Analyzer) refineFailures() {
	// A vertex's snapshot history is the same for every failure caught in it.
	type history struct {
		phase Phase
		basis ReasonPart
	}
	histories := map[int]history{}
	for _, k := range a.refineCandidates() {
		out, r := a.at(k)
		if !refinable(out, r) {
			continue
		}
		f := out.Failure
		v := r.pendingRoot
		name := a.g.label(v)
		switch {
		case r.pendingSnapshot && f.Phase == "":
			h, ok := histories[v]
			if !ok {
				h.phase, h.basis = a.snapshotHistory(v, name)
				histories[v] = h
			}
			ph := h.phase
			f.BasisParts = append(f.BasisParts, h.basis)
			f.Basis = renderClauses(f.BasisParts)
			if ph != "" {
				f.Phase = ph
				sub := r.pendingSub
				out.Bottleneck = &Bottleneck{Phase: ph, VertexID: a.g.vertices[v].id, VertexName: a.g.vertices[v].name, Subtask: &sub,
					EndToEndMs: a.heads[k].EndToEndMs, Pending: true, PendingSubtasks: max(0, r.total-r.acked)}
			}
		case r.pendingInputsDone && f.Phase == PhaseAlignment:
			var p Pressure
			var vals [4]float64
			a.mi.pressure(a.g, &a.heads[k], v, &p, &vals)
			switch {
			case p.Upstream == nil || p.Samples == 0 || p.UpstreamOf == "":
				f.BasisParts = append(f.BasisParts, part("f_bp_unmeasured"))
			case *p.Upstream < QuietBackpressure:
				f.BasisParts = append(f.BasisParts, part("f_bp_quiet", "level", trimFloat(*p.Upstream), "vertex", name))
			default:
				f.BasisParts = append(f.BasisParts, part("f_bp_high", "level", trimFloat(*p.Upstream)))
			}
			f.Basis = renderClauses(f.BasisParts)
		}
		if a.stream != nil && a.err == nil {
			a.err = a.stream.Revise(k, out)
		}
	}
}

// markEndedUnseen marks the checkpoints stored in progress that a later
// completed one ended (endedUnseen); streaming, it revises them.
func (a *Analyzer) markEndedUnseen() {
	if !EndsPendingOnCompletion(a.job.Engine) {
		return
	}
	newest := newestCompleted(a.heads)
	for _, k := range a.refineCandidates() {
		out, _ := a.at(k)
		if out.EndedUnseen || !endedUnseen(a.job.Engine, out.Status, out.Kind, out.Pipeline, out.ID, newest) {
			continue
		}
		out.EndedUnseen = true
		if a.stream != nil && a.err == nil {
			a.err = a.stream.Revise(k, out)
		}
	}
}

// newestIDs holds the newest completed checkpoint id of each pipeline.
type newestIDs map[int]int64

// see takes one checkpoint into account.
func (n newestIDs) see(pipeline int, id int64, st model.Status) {
	if st != model.StatusCompleted {
		return
	}
	if cur, ok := n[pipeline]; !ok || id > cur {
		n[pipeline] = id
	}
}

// newestCompleted is the newest completed checkpoint id of each pipeline.
func newestCompleted(cps []model.Checkpoint) newestIDs {
	newest := newestIDs{}
	for i := range cps {
		newest.see(cps[i].Pipeline, cps[i].ID, cps[i].Status)
	}
	return newest
}

// refineCandidates are the checkpoints whose analyses refineFailures or
// markEndedUnseen may change, in analysis order.
func (a *Analyzer) refineCandidates() []int {
	if a.stream == nil {
		return indices(len(a.heads))
	}
	return slices.Sorted(maps.Keys(a.kept))
}

// snapshotHistory tells, for vertex v caught in its snapshot, whether sync
// or async takes longer in the checkpoints where v acknowledged (the median
// of its per-checkpoint maxima); "" when it never acknowledged.
func (a *Analyzer) snapshotHistory(v int, name string) (Phase, ReasonPart) {
	var syncs, asyncs []int64
	for k := range a.heads {
		row := a.row(k)
		i := v * numSubtaskPhases
		if i+numSubtaskPhases > len(row) || row[i+PhaseSync.index()] < 0 {
			continue
		}
		syncs = append(syncs, row[i+PhaseSync.index()])
		asyncs = append(asyncs, row[i+PhaseAsync.index()])
	}
	if len(syncs) == 0 {
		return "", part("f_history_unknown", "vertex", name)
	}
	ms, ma := Quantile(syncs, 0.5), Quantile(asyncs, 0.5)
	ph, med := PhaseSync, ms
	if ma > ms {
		ph, med = PhaseAsync, ma
	}
	return ph, part("f_history", "vertex", name, "n", fmt.Sprint(len(syncs)), "phase", string(ph),
		"median", fmt.Sprint(med), "sync", fmt.Sprint(ms), "async", fmt.Sprint(ma))
}

// corrInputOf reads checkpoint k's metric window (its backpressure, the
// evidence of its queues) and returns what the verdict needs of it.
func (a *Analyzer) corrInputOf(k int, median float64) corrInput {
	c := &a.heads[k]
	out, r := a.at(k)
	focus := -1
	switch {
	case r.critOK:
		focus = r.crit.v
	case r.pendingRoot >= 0:
		focus = r.pendingRoot
	}
	var press Pressure
	var vals [4]float64
	if a.mi.pressure(a.g, c, focus, &press, &vals) {
		p := press
		out.Backpressure = &p
	}
	a.mi.annotate(c, out.Causes)
	ci := corrInput{
		id: c.ID, completed: c.Status == model.StatusCompleted && c.Kind != model.KindSavepoint, e2e: c.EndToEndMs, size: c.CheckpointedSize,
		// A checkpoint aborted by the job stopping, failing or restarting says nothing of checkpoints.
		failed:   c.Status == model.StatusFailed && c.Kind != model.KindSavepoint && (out.Failure == nil || !out.Failure.JobLevel),
		upstream: press.Upstream, maxBP: press.Max, busy: press.Busy, sampledAlig: press.SampledAlignmentMs,
		samples: press.Samples, hasPhases: r.critOK, medianE2E: median,
		unaligned: c.Kind == model.KindUnaligned, nearest: press.Nearest,
	}
	from, to := windowOf(c)
	if v, n, nearest, ok := a.mi.maxIn(kindQueueFill, from, to); ok {
		ci.fill, ci.fillN, ci.nearest = v, n, ci.nearest || nearest
	}
	for _, f := range out.Slow {
		ci.slow = ci.slow || f.Phase == EndToEnd
	}
	if r.critOK {
		ci.alignDelay = r.critVec[0] + r.critVec[1]
	}
	if out.Bottleneck != nil && !out.Bottleneck.Pending {
		ci.bottleneck = out.Bottleneck.Phase
		ci.bnVertex = cmp.Or(out.Bottleneck.VertexName, out.Bottleneck.VertexID)
		if out.Bottleneck.PhaseMs != nil {
			ci.bnMs = *out.Bottleneck.PhaseMs
		}
	}
	if cs := out.Causes; len(cs) > 0 && (cs[0].Phase == PhaseStartDelay || cs[0].Phase == PhaseAlignment) && cs[0].UpstreamVertexID != "" {
		ci.queueAt, ci.queueUp = cmp.Or(cs[0].VertexName, cs[0].VertexID), cmp.Or(cs[0].UpstreamVertexName, cs[0].UpstreamVertexID)
		ci.queueShare = cs[0].Share
		if len(cs) > 1 {
			// A copy: the streamed analysis (and its causes) is not kept.
			second := cs[1]
			ci.second = &second
		}
	}
	return ci
}

func (ja *JobAnalysis) note(p ReasonPart) {
	ja.Notes = append(ja.Notes, renderClauses([]ReasonPart{p}))
	ja.NoteParts = append(ja.NoteParts, p)
}

// notes records what the data cannot show.
func (a *Analyzer) notes(ja *JobAnalysis, job model.Job) {
	seen, anyTasks := a.seen, a.anyTasks
	ja.PhasesAvailable = []Phase{}
	for i, ph := range allPhases[:] {
		if seen[i] {
			ja.PhasesAvailable = append(ja.PhasesAvailable, ph)
		}
	}
	switch {
	case job.Engine == model.EngineSeaTunnel:
		ja.note(part("note_seatunnel"))
	case len(a.heads) > 0 && !anyTasks:
		ja.note(part("note_no_subtasks"))
	}
	if len(a.heads) > 0 && !seen[PhaseFinalize.index()] {
		ja.note(part("note_no_finalize"))
	}
	var missed, trimmed, partial, fromLog, fromTraces int64
	for k := range a.heads {
		switch a.heads[k].Source {
		case model.OriginJobManagerLog:
			fromLog++
		case model.OriginTraces:
			fromTraces++
		}
		switch a.heads[k].DetailLoss {
		case model.DetailMissed:
			missed++
		case model.DetailTrimmed:
			trimmed++
		case model.DetailPartial:
			partial++
		}
	}
	// The counted notes, in the order they are said; a count of 0 says nothing.
	for _, c := range []struct {
		code string
		n    int64
	}{
		{"note_gaps", ja.Missed}, {"note_details_missed", missed}, {"note_details_partial", partial},
		{"note_details_trimmed", trimmed}, {"note_from_log", fromLog}, {"note_from_traces", fromTraces},
	} {
		if c.n > 0 {
			ja.note(part(c.code, "n", fmt.Sprint(c.n)))
		}
	}
}

// adviceFacts gathers what the advice rules read from the finished analysis.
func (a *Analyzer) adviceFacts(ja *JobAnalysis) *adviceFacts {
	f := &adviceFacts{engine: a.job.Engine, cfg: a.cfg, corr: ja.Correlation, alignedInput: alignedInputs(a.g, a.job.Edges)}
	completed := 0
	for k := range a.corr {
		if a.corr[k].completed {
			completed++
		}
	}
	f.completed = make([]adviceCheckpoint, 0, completed)
	for k := range a.heads {
		c, ci, fail := &a.heads[k], &a.corr[k], a.fails[k]
		switch {
		case ci.completed:
			f.completed = append(f.completed, adviceCheckpoint{id: c.ID, e2e: c.EndToEndMs, size: c.CheckpointedSize,
				stateSize: c.StateSize, bottleneck: ci.bottleneck, vertex: ci.bnVertex, phaseMs: ci.bnMs,
				queuedAt: ci.queueAt, upstreamBP: ci.upstream, unaligned: c.Kind == model.KindUnaligned})
		case fail != nil && fail.Expired:
			e := adviceFailure{id: c.ID, e2e: c.EndToEndMs, task: fail.Task}
			if c.LatestAckMs > 0 {
				e.latestAck = c.LatestAckMs - c.TriggerMs
			}
			f.expired = append(f.expired, e)
		case fail != nil && !fail.JobLevel:
			f.declined = append(f.declined, adviceFailure{id: c.ID, e2e: c.EndToEndMs, task: fail.Task})
		}
	}
	for _, cm := range a.commits.commits {
		if cm != nil && cm.DurationMs != nil {
			f.commitMs = append(f.commitMs, *cm.DurationMs)
		}
	}
	return f
}
