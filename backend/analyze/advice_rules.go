package analyze

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/dustin/go-humanize"

	"checkpoint-explorer/backend/model"
)

// The rules' thresholds (docs/advice.md).
const (
	// AdviceMinCompleted is how many completed checkpoints a rule on
	// durations or phases needs.
	AdviceMinCompleted = 8
	// AdviceDominantShare is the share of the slowest quarter in which a
	// phase must be the bottleneck to dominate.
	AdviceDominantShare = 0.5
	// AdviceLateAck is how late, as a share of the timeout, an expired
	// checkpoint's last acknowledgement came for it to have been progressing.
	AdviceLateAck = 0.75
	// AdviceSizeGrowth is how much the checkpointed size must grow, the last
	// quarter's median over the first's, to be growing state.
	AdviceSizeGrowth = 1.5
	// AdviceFullShare and AdviceFullRatio tell full checkpoints where the
	// engine does not report the setting: that share of completed ones has
	// a checkpointed size at least that ratio of the state size.
	AdviceFullShare = 0.9
	AdviceFullRatio = 0.95
	// AdviceLargeHeapState is the checkpointed size (median) from which
	// state on the heap backend is large.
	AdviceLargeHeapState = 256 << 20
	// AdviceMinPhaseMs is the median a dominating phase must reach in the
	// slowest quarter for advice about it: below it nothing is slow.
	AdviceMinPhaseMs = 200
	adviceMaxIDs     = 20
)

// adviceTemplates are the English of the advice's titles and clauses (with
// reasonTemplates, checked against the UI's languages).
var adviceTemplates = map[string]string{
	"advice_unaligned_title":     "Barriers wait behind backpressured data: consider unaligned checkpoints",
	"advice_unaligned_evidence":  "in {{share}}% of the slowest quarter of checkpoints ({{ids}}) the time went into the start delay or alignment while upstream backpressure reached {{level}}%",
	"advice_unaligned_aligned":   "these checkpoints are aligned, so each barrier queues behind the buffered in-flight data",
	"advice_unaligned_enable":    "unaligned checkpoints let barriers overtake that data (set {{key}} to true), or an aligned-checkpoint timeout switches to unaligned only when alignment takes longer than it (e.g. {{key_timeout}}: 30 s)",
	"advice_unaligned_debloat":   "buffer debloating ({{key}}: true) keeps less data in flight, so aligned barriers queue less",
	"advice_unaligned_cause":     "the lasting fix is the slow operator that backpressures its inputs",
	"advice_unaligned_cause_at":  "the lasting fix is the slow operator that backpressures its inputs: {{vertex}}",
	"advice_aligned_input_title": "Barriers queue at {{vertex}}, whose inputs Flink keeps aligned even with unaligned checkpoints",
	"advice_aligned_input_evid":  "in {{share}}% of the slowest quarter of checkpoints ({{ids}}) the time went into the start delay or alignment, the barriers queuing at the input of {{vertex}} ({{median}} median)",
	"advice_aligned_input_why":   "{{vertex}} has a {{strategy}} input: Flink keeps barriers aligned on pointwise (FORWARD, RESCALE) and BROADCAST inputs, and then on every input of that vertex, even with unaligned checkpoints on ({{key}}), so they do not shorten this wait",
	"advice_aligned_input_fix":   "what helps is a faster {{vertex}} or a higher parallelism for it; where its data may be redistributed, a rebalance before it makes that input all-to-all, and unaligned checkpoints then apply there",
	"advice_aligned_input_fix_b": "what helps is a faster {{vertex}} or a higher parallelism for it: a broadcast input stays aligned",
	"advice_timeout_title":       "{{n}} checkpoint(s) expired while still acknowledging: weigh the timeout against the p99",
	"advice_timeout_evidence":    "{{n}} checkpoint(s) ({{ids}}) expired at the timeout of {{timeout}}, their last acknowledgement at {{late}}% of it or later",
	"advice_timeout_tight":       "completed checkpoints take up to {{p99}} (p99), too close to the timeout: raise {{key}} to at least {{suggest}}, or remove the cause",
	"advice_timeout_outliers":    "completed checkpoints take {{p99}} (p99), well within the timeout: the expired ones were outliers; raising {{key}} only hides them, the cause is what to fix",
	"advice_timeout_cause":       "the verdict on what slows the checkpoints down is {{verdict}}: that is the cause to remove",
	"advice_incremental_title":   "Full checkpoints of growing state on RocksDB: turn on incremental checkpoints",
	"advice_incremental_evid":    "async (uploading the snapshot) is the bottleneck in {{share}}% of the slowest quarter of checkpoints, and the checkpointed size grew from {{first}} to {{last}} (medians of the first and last quarter)",
	"advice_incremental_why_cfg": "the job runs full checkpoints ({{key}} is false)",
	"advice_incremental_why_sz":  "in {{share}}% of the completed checkpoints the checkpointed size is the whole state size, so they look full (the engine does not report the setting: if incremental checkpoints are on already, this advice does not apply)",
	"advice_incremental_enable":  "incremental checkpoints upload only what changed since the last one (set {{key}} to true)",
	"advice_rocksdb_title":       "Large state on the heap backend: consider RocksDB",
	"advice_rocksdb_evidence":    "async is the bottleneck in {{share}}% of the slowest quarter of checkpoints, and the job checkpoints {{size}} (median) of heap state in full each time",
	"advice_rocksdb_enable":      "the RocksDB backend ({{key}}: rocksdb) keeps state off the heap and can checkpoint incrementally",
	"advice_sync_title":          "The synchronous snapshot is slow in {{vertex}}",
	"advice_sync_evidence":       "sync is the bottleneck in {{share}}% of the slowest quarter of checkpoints ({{ids}}), {{median}} median",
	"advice_sync_heap":           "while a task snapshots synchronously it processes nothing: on the heap backend the snapshot copies the state's structure, and on RocksDB heap timers are written out then",
	"advice_sync_timers":         "if {{vertex}} holds many timers, keep them in RocksDB ({{key}}: ROCKSDB) or register fewer; if it holds large heap state, the RocksDB backend ({{key_backend}}: rocksdb) snapshots it asynchronously",
	"advice_interval_title":      "Checkpoints run back to back",
	"advice_interval_evidence":   "the interval is {{interval}} while completed checkpoints take {{p90}} (p90) and the min pause is {{pause}}: one starts as soon as the last ends",
	"advice_interval_fix":        "the job spends most of its time checkpointing; raise the min pause ({{key_pause}}) to at least {{suggest}}, or the interval ({{key_interval}})",
	"advice_tolerable_title":     "Each failed checkpoint fails the job over",
	"advice_tolerable_evidence":  "{{n}} checkpoint(s) ({{ids}}) failed between completed ones, and the job tolerates {{tolerable}} failed checkpoints",
	"advice_tolerable_task":      "{{task}} declined them",
	"advice_tolerable_fix":       "with none tolerated, one failure restarts the job; allow a few ({{key}}: 3) while the failures are fixed",
	"advice_finalize_title":      "Finalization or the sink's commit dominates",
	"advice_finalize_fin":        "finalization (after the last acknowledgement: writing the metadata, committing) is the bottleneck in {{share}}% of the slowest quarter of checkpoints ({{ids}}), {{median}} median",
	"advice_finalize_sink":       "the sink's commit after each checkpoint takes {{commit}} (median), against {{e2e}} for the checkpoint itself",
	"advice_finalize_fix":        "look at the latency of the checkpoint storage ({{key}}: {{storage}}) and at the sink's commit (its files per commit, the catalog it commits to)",
	"advice_finalize_fix_any":    "look at the latency of the checkpoint storage ({{key}}) and at the sink's commit (its files per commit, the catalog it commits to)",
}

func init() { maps.Copy(reasonTemplates, adviceTemplates) }

// adviceKey is a configuration key in Flink 2.x's spelling and 1.x's.
type adviceKey struct {
	v2, v1 string
	// seatunnel is the SeaTunnel env key, "" when SeaTunnel has none.
	seatunnel string
	current   func(c *model.JobConfig) (string, bool)
}

// spellings are the key's names in Flink 2.x, 1.x and SeaTunnel ("" where
// it has none).
func (k adviceKey) spellings() []string { return []string{k.v2, k.v1, k.seatunnel} }

func boolVal(b *bool) (string, bool) {
	if b == nil {
		return "", false
	}
	return strconv.FormatBool(*b), true
}

func msVal(ms *int64) (string, bool) {
	if ms == nil {
		return "", false
	}
	return fmtDur(*ms), true
}

func intVal(n *int64) (string, bool) {
	if n == nil {
		return "", false
	}
	return strconv.FormatInt(*n, 10), true
}

func strVal(s string) (string, bool) { return s, s != "" }

var (
	keyUnaligned = adviceKey{v2: "execution.checkpointing.unaligned.enabled", v1: "execution.checkpointing.unaligned",
		current: func(c *model.JobConfig) (string, bool) { return boolVal(c.Unaligned) }}
	keyAlignedTimeout = adviceKey{v2: "execution.checkpointing.aligned-checkpoint-timeout",
		current: func(c *model.JobConfig) (string, bool) { return msVal(c.AlignedTimeoutMs) }}
	keyDebloat = adviceKey{v2: "taskmanager.network.memory.buffer-debloat.enabled",
		current: func(c *model.JobConfig) (string, bool) { return boolVal(c.BufferDebloat) }}
	keyTimeout = adviceKey{v2: "execution.checkpointing.timeout", seatunnel: "checkpoint.timeout",
		current: func(c *model.JobConfig) (string, bool) { return msVal(c.TimeoutMs) }}
	keyInterval = adviceKey{v2: "execution.checkpointing.interval", seatunnel: "checkpoint.interval",
		current: func(c *model.JobConfig) (string, bool) { return msVal(c.IntervalMs) }}
	keyMinPause = adviceKey{v2: "execution.checkpointing.min-pause",
		current: func(c *model.JobConfig) (string, bool) { return msVal(c.MinPauseMs) }}
	keyTolerable = adviceKey{v2: "execution.checkpointing.tolerable-failed-checkpoints",
		current: func(c *model.JobConfig) (string, bool) { return intVal(c.TolerableFailures) }}
	keyIncremental = adviceKey{v2: "execution.checkpointing.incremental", v1: "state.backend.incremental",
		current: func(c *model.JobConfig) (string, bool) { return boolVal(c.Incremental) }}
	keyBackend = adviceKey{v2: "state.backend.type",
		current: func(c *model.JobConfig) (string, bool) { return strVal(c.StateBackend) }}
	keyTimers = adviceKey{v2: "state.backend.rocksdb.timer-service.factory",
		current: func(c *model.JobConfig) (string, bool) { return "", false }}
	keyStorageDir = adviceKey{v2: "execution.checkpointing.dir", v1: "state.checkpoints.dir",
		current: func(c *model.JobConfig) (string, bool) { return strVal(c.CheckpointStorage) }}
)

const (
	docsBackpressure = "https://nightlies.apache.org/flink/flink-docs-stable/docs/ops/state/checkpointing_under_backpressure/"
	docsLargeState   = "https://nightlies.apache.org/flink/flink-docs-stable/docs/ops/state/large_state_tuning/"
	docsCheckpoints  = "https://nightlies.apache.org/flink/flink-docs-stable/docs/dev/datastream/fault-tolerance/checkpointing/"
	docsBackends     = "https://nightlies.apache.org/flink/flink-docs-stable/docs/ops/state/state_backends/"
	docsSeaTunnel    = "https://seatunnel.apache.org/docs/seatunnel-engine/checkpoint-storage"
)

// adviceFacts is what the rules read: the job-level answers and a few
// figures per checkpoint, gathered by the Analyzer (or written by a test).
type adviceFacts struct {
	engine model.Engine
	cfg    *model.JobConfig
	corr   Correlation
	// completed are the completed checkpoints (not savepoints), in analysis order.
	completed []adviceCheckpoint
	// expired are the checkpoints that failed on the timeout; declined
	// those that failed otherwise, not by the job stopping.
	expired  []adviceFailure
	declined []adviceFailure
	// commitMs are the sampled sink commits' durations.
	commitMs []int64
	// slowest caches slowestQuarter: two rules ask, over up to 100,000 checkpoints.
	slowest []adviceCheckpoint
	// alignedInput maps a vertex, by the name (or id) queuedAt gives it, to
	// the ship strategy of an input Flink keeps aligned (alignedInputs); nil
	// without the job's edges.
	alignedInput map[string]string
}

type adviceCheckpoint struct {
	id         int64
	e2e        int64
	size       int64
	stateSize  int64
	bottleneck Phase  // "" when unknown
	vertex     string // the bottleneck's vertex (name or id)
	phaseMs    int64  // the bottleneck phase's time
	queuedAt   string // where barriers queued behind an upstream, when that was its first cause
	upstreamBP *float64
	unaligned  bool
}

type adviceFailure struct {
	id        int64
	e2e       int64
	latestAck int64 // ms after the trigger; 0 = none
	task      string
}

// adviceRule gives at most one advice item.
type adviceRule func(f *adviceFacts) (Advice, bool)

var adviceRules = []adviceRule{
	adviseTimeout, adviseTolerable, adviseUnaligned, adviseAlignedInput, adviseIncremental, adviseRocksDB, adviseSync, adviseFinalize, adviseInterval,
}

// advise runs the rules, most severe first (in rule order within a severity).
func advise(f *adviceFacts) []Advice {
	out := []Advice{}
	for _, r := range adviceRules {
		if a, ok := r(f); ok {
			out = append(out, a)
		}
	}
	rank := map[AdviceSeverity]int{SeverityCritical: 0, SeverityWarning: 1, SeverityInfo: 2}
	slices.SortStableFunc(out, func(a, b Advice) int { return cmp.Compare(rank[a.Severity], rank[b.Severity]) })
	return out
}

// newAdvice fills what every item has: the English from the templates, the
// keys in both spellings (SeaTunnel's alone for a SeaTunnel job) and their
// current values.
func newAdvice(f *adviceFacts, code AdviceCode, sev AdviceSeverity, docs string, title ReasonPart, text []ReasonPart,
	ids []int64, figures map[string]float64, keys ...adviceKey) Advice {
	a := Advice{Code: code, Severity: sev, TitlePart: title, TextParts: text, Title: renderClauses([]ReasonPart{title}),
		Text: renderReason(text), ConfigKeys: []string{}, Current: map[string]string{}, DocsURL: docs,
		Evidence: AdviceEvidence{CheckpointIDs: firstIDs(ids), Figures: figures}}
	if a.Evidence.Figures == nil {
		a.Evidence.Figures = map[string]float64{}
	}
	for _, k := range keys {
		names := []string{k.v2}
		if f.engine == model.EngineSeaTunnel {
			names = []string{k.seatunnel}
		} else if k.v1 != "" && k.v1 != k.v2 {
			names = append(names, k.v1)
		}
		for _, n := range names {
			if n == "" {
				continue
			}
			a.ConfigKeys = append(a.ConfigKeys, n)
			if f.cfg == nil {
				continue
			}
			if v, ok := f.cfg.Keys[n]; ok {
				a.Current[n] = v
			} else if v, ok := k.current(f.cfg); ok {
				a.Current[n] = v
			}
		}
	}
	return a
}

// keyName is the key as the text names it for this engine.
func (f *adviceFacts) keyName(k adviceKey) string {
	if f.engine == model.EngineSeaTunnel {
		return k.seatunnel
	}
	return k.v2
}

func firstIDs(ids []int64) []int64 {
	if len(ids) > adviceMaxIDs {
		ids = ids[:adviceMaxIDs]
	}
	return append([]int64{}, ids...)
}

func idList(ids []int64) string {
	s := ""
	for i, id := range ids {
		if i == 5 {
			s += ", …"
			break
		}
		if i > 0 {
			s += ", "
		}
		s += strconv.FormatInt(id, 10)
	}
	return s
}

// fmtDur says a duration the way Flink's configuration writes one.
func fmtDur(ms int64) string {
	switch {
	case ms >= 60_000 && ms%60_000 == 0:
		return fmt.Sprintf("%d min", ms/60_000)
	case ms >= 1000 && ms%1000 == 0:
		return fmt.Sprintf("%d s", ms/1000)
	case ms >= 10_000:
		return fmt.Sprintf("%.1f s", float64(ms)/1000)
	}
	return fmt.Sprintf("%d ms", ms)
}

func fmtBytes(b int64) string { return humanize.IBytes(uint64(max(0, b))) }

// slowestQuarter is the slowest quarter of the completed checkpoints
// (at least one), slowest first.
// The slice is shared: callers must not change it.
func (f *adviceFacts) slowestQuarter() []adviceCheckpoint {
	if f.slowest == nil {
		// Positions sorted, not the checkpoints: a stable sort moving
		// 100,000 of them was most of the advice's time. Ties keep their
		// order, by position.
		cs := f.completed
		idx := make([]int32, len(cs))
		for i := range idx {
			idx[i] = int32(i)
		}
		slices.SortFunc(idx, func(a, b int32) int { return cmp.Or(cmp.Compare(cs[b].e2e, cs[a].e2e), cmp.Compare(a, b)) })
		f.slowest = make([]adviceCheckpoint, min(len(cs), max(1, len(cs)/4)))
		for i := range f.slowest {
			f.slowest[i] = cs[idx[i]]
		}
	}
	return f.slowest
}

// mostNamed is the vertex name (by name(c)) most of the checkpoints give,
// the first to reach the highest count; "" names none and is not counted.
func mostNamed(cs []adviceCheckpoint, name func(c *adviceCheckpoint) string) string {
	count := map[string]int{}
	best := ""
	for i := range cs {
		n := name(&cs[i])
		if n == "" {
			continue
		}
		count[n]++
		if best == "" || count[n] > count[best] {
			best = n
		}
	}
	return best
}

// dominant is the share of the slowest quarter's checkpoints with a known
// bottleneck whose bottleneck passes is, those checkpoints, and the median
// of their bottleneck phase's time.
func (f *adviceFacts) dominant(is func(c *adviceCheckpoint) bool) (float64, []adviceCheckpoint, int64) {
	known := 0
	var hit []adviceCheckpoint
	var ms []int64
	for _, c := range f.slowestQuarter() {
		if c.bottleneck == "" {
			continue
		}
		known++
		if is(&c) {
			hit = append(hit, c)
			ms = append(ms, c.phaseMs)
		}
	}
	if known == 0 {
		return 0, nil, 0
	}
	return float64(len(hit)) / float64(known), hit, Quantile(ms, 0.5)
}

func ids(cs []adviceCheckpoint) []int64 {
	out := make([]int64, len(cs))
	for i, c := range cs {
		out[i] = c.id
	}
	return out
}

func (f *adviceFacts) durations() []int64 {
	out := make([]int64, len(f.completed))
	for i, c := range f.completed {
		out[i] = c.e2e
	}
	return out
}

// alignedInputs maps each vertex of g, by its label (the name queuedAt
// gives it, or its id), to the ship strategy of an input Flink keeps aligned
// even with unaligned checkpoints on: StreamPartitioner's
// isSupportsUnalignedCheckpoint is false for a pointwise (FORWARD, RESCALE)
// or BROADCAST partitioner, whatever the parallelisms (unlike the barrier
// path's forward, graph.go), and Flink then aligns every input of the
// vertex. BROADCAST is named first: no rebalance lifts it. A vertex without
// such an input, or a label vertices share with different answers, maps to
// "". Nil when no edge is such an input (no edges: SeaTunnel, no plan).
func alignedInputs(g *graph, edges []model.Edge) map[string]string {
	byID := map[string]string{}
	for _, e := range edges {
		switch s := strings.ToUpper(e.ShipStrategy); {
		case s == "BROADCAST", byID[e.Target] == "" && (s == "FORWARD" || s == "RESCALE"):
			byID[e.Target] = s
		}
	}
	if len(byID) == 0 {
		return nil
	}
	out := make(map[string]string, len(g.vertices))
	for v := range g.vertices {
		l, s := g.label(v), byID[g.vertices[v].id]
		if prev, seen := out[l]; seen && prev != s {
			s = "" // which of them queued is unknown
		}
		out[l] = s
	}
	return out
}

// unalignedOn reports whether the job checkpoints unaligned: the
// configuration says so, or a completed checkpoint was (an aligned-checkpoint
// timeout switches to unaligned).
func (f *adviceFacts) unalignedOn() bool {
	if f.cfg != nil && f.cfg.Unaligned != nil && *f.cfg.Unaligned {
		return true
	}
	return slices.ContainsFunc(f.completed, func(c adviceCheckpoint) bool { return c.unaligned })
}

// queuedBarriers is dominant's share and checkpoints for barriers that
// waited (start delay or alignment, or queued behind an upstream), and the
// vertex where most of them queued ("" when none says).
func (f *adviceFacts) queuedBarriers() (share float64, hit []adviceCheckpoint, vertex string) {
	share, hit, _ = f.dominant(func(c *adviceCheckpoint) bool {
		return c.bottleneck == PhaseStartDelay || c.bottleneck == PhaseAlignment || c.queuedAt != ""
	})
	return share, hit, mostNamed(hit, func(c *adviceCheckpoint) string { return c.queuedAt })
}

// adviseUnaligned: barriers wait behind backpressured data in aligned
// checkpoints, at a vertex whose inputs unaligned checkpoints would overtake
// (adviseAlignedInput speaks of one they would not).
func adviseUnaligned(f *adviceFacts) (Advice, bool) {
	if f.corr.Verdict != VerdictBackpressure || len(f.completed) < AdviceMinCompleted || f.unalignedOn() {
		return Advice{}, false
	}
	share, hit, vertex := f.queuedBarriers()
	if len(hit) == 0 || f.alignedInput[vertex] != "" {
		return Advice{}, false
	}
	cfg := f.cfg
	level := 0.0
	for _, c := range hit {
		if c.upstreamBP != nil {
			level = max(level, *c.upstreamBP)
		}
	}
	text := []ReasonPart{
		part("advice_unaligned_evidence", "share", pct(share), "ids", idList(ids(hit)), "level", pct(level)),
		part("advice_unaligned_aligned"),
	}
	keys := []adviceKey{keyUnaligned, keyAlignedTimeout}
	if cfg == nil || cfg.AlignedTimeoutMs == nil || *cfg.AlignedTimeoutMs == 0 {
		text = append(text, part("advice_unaligned_enable", "key", keyUnaligned.v2, "key_timeout", keyAlignedTimeout.v2))
	} else {
		keys = []adviceKey{keyUnaligned}
		text = append(text, part("advice_unaligned_enable", "key", keyUnaligned.v2, "key_timeout", keyAlignedTimeout.v2))
	}
	text, keys = f.debloat(text, keys)
	// The slow operator is where the barriers queued (the verdict's), most often.
	if vertex != "" {
		text = append(text, part("advice_unaligned_cause_at", "vertex", vertex))
	} else {
		text = append(text, part("advice_unaligned_cause"))
	}
	return newAdvice(f, AdviceUnaligned, SeverityWarning, docsBackpressure, part("advice_unaligned_title"), text, ids(hit),
		map[string]float64{"share": share, "upstream_backpressure": level}, keys...), true
}

// debloat adds buffer debloating to an advice's text and keys unless it is
// on: with less data in flight, aligned barriers queue less.
func (f *adviceFacts) debloat(text []ReasonPart, keys []adviceKey) ([]ReasonPart, []adviceKey) {
	if f.cfg != nil && f.cfg.BufferDebloat != nil && *f.cfg.BufferDebloat {
		return text, keys
	}
	return append(text, part("advice_unaligned_debloat", "key", keyDebloat.v2)), append(keys, keyDebloat)
}

// adviseAlignedInput: barriers queue at a vertex with an input Flink keeps
// aligned (alignedInputs), where unaligned checkpoints do not shorten the
// wait: under backpressure with aligned checkpoints (instead of
// adviseUnaligned), or with unaligned ones when the checkpoints whose
// barriers queued there still dominate.
func adviseAlignedInput(f *adviceFacts) (Advice, bool) {
	if f.alignedInput == nil || len(f.completed) < AdviceMinCompleted {
		return Advice{}, false
	}
	on := f.unalignedOn()
	if !on && f.corr.Verdict != VerdictBackpressure {
		return Advice{}, false
	}
	_, _, vertex := f.queuedBarriers()
	strategy := f.alignedInput[vertex]
	if strategy == "" {
		return Advice{}, false
	}
	share, hit, median := f.dominant(func(c *adviceCheckpoint) bool { return c.queuedAt == vertex })
	if on && (share < AdviceDominantShare || median < AdviceMinPhaseMs) {
		return Advice{}, false
	}
	text := []ReasonPart{
		part("advice_aligned_input_evid", "share", pct(share), "ids", idList(ids(hit)), "vertex", vertex, "median", fmtDur(median)),
		part("advice_aligned_input_why", "vertex", vertex, "strategy", strategy, "key", keyUnaligned.v2),
	}
	if strategy == "BROADCAST" {
		text = append(text, part("advice_aligned_input_fix_b", "vertex", vertex))
	} else {
		text = append(text, part("advice_aligned_input_fix", "vertex", vertex))
	}
	text, keys := f.debloat(text, []adviceKey{keyUnaligned})
	return newAdvice(f, AdviceAlignedInput, SeverityWarning, docsBackpressure, part("advice_aligned_input_title", "vertex", vertex),
		text, ids(hit), map[string]float64{"share": share, "median_ms": float64(median)}, keys...), true
}

// adviseTimeout: checkpoints expire while still acknowledging.
func adviseTimeout(f *adviceFacts) (Advice, bool) {
	var timeout int64
	if f.cfg != nil && f.cfg.TimeoutMs != nil && *f.cfg.TimeoutMs > 0 {
		timeout = *f.cfg.TimeoutMs
	} else {
		// Not reported: an expired checkpoint lasted the timeout.
		var d []int64
		for _, e := range f.expired {
			d = append(d, e.e2e)
		}
		timeout = Quantile(d, 0.5)
	}
	if timeout <= 0 {
		return Advice{}, false
	}
	var late []int64
	var latest int64
	for _, e := range f.expired {
		if e.latestAck > 0 && float64(e.latestAck) >= AdviceLateAck*float64(timeout) {
			late = append(late, e.id)
			latest = max(latest, e.latestAck)
		}
	}
	if len(late) == 0 {
		return Advice{}, false
	}
	p99 := Quantile(f.durations(), 0.99)
	key := f.keyName(keyTimeout)
	text := []ReasonPart{part("advice_timeout_evidence", "n", strconv.Itoa(len(late)), "ids", idList(late),
		"timeout", fmtDur(timeout), "late", pct(AdviceLateAck))}
	if p99 == 0 || 2*p99 >= timeout {
		suggest := max(2*p99, latest*3/2, timeout+timeout/2)
		text = append(text, part("advice_timeout_tight", "p99", fmtDur(p99), "key", key, "suggest", fmtDur(roundUpMs(suggest))))
	} else {
		text = append(text, part("advice_timeout_outliers", "p99", fmtDur(p99), "key", key))
	}
	if f.corr.Verdict != VerdictInconclusive && f.corr.Verdict != "" {
		text = append(text, part("advice_timeout_cause", "verdict", string(f.corr.Verdict)))
	}
	docs := docsCheckpoints
	if f.engine == model.EngineSeaTunnel {
		docs = docsSeaTunnel
	}
	return newAdvice(f, AdviceTimeout, SeverityCritical, docs,
		part("advice_timeout_title", "n", strconv.Itoa(len(late))), text, late,
		map[string]float64{"timeout_ms": float64(timeout), "p99_ms": float64(p99), "expired": float64(len(late)),
			"latest_ack_ms": float64(latest)}, keyTimeout), true
}

// roundUpMs rounds a suggested duration up to a whole second, or minute
// above ten minutes.
func roundUpMs(ms int64) int64 {
	step := int64(1000)
	if ms > 10*60_000 {
		step = 60_000
	}
	return (ms + step - 1) / step * step
}

// sizeGrowth is the median checkpointed size of the first and the last
// quarter of the completed checkpoints.
func (f *adviceFacts) sizeGrowth() (first, last int64) {
	n := len(f.completed)
	q := max(1, n/4)
	var a, b []int64
	for i, c := range f.completed {
		if i < q {
			a = append(a, c.size)
		}
		if i >= n-q {
			b = append(b, c.size)
		}
	}
	return Quantile(a, 0.5), Quantile(b, 0.5)
}

func asyncShare(f *adviceFacts) float64 {
	if f.corr.AsyncShare != nil {
		return *f.corr.AsyncShare
	}
	share, _, _ := f.dominant(func(c *adviceCheckpoint) bool { return c.bottleneck == PhaseAsync })
	return share
}

// adviseIncremental: async dominates while the size grows, full checkpoints on RocksDB.
func adviseIncremental(f *adviceFacts) (Advice, bool) {
	cfg := f.cfg
	if f.engine != model.EngineFlink || cfg == nil || (cfg.StateBackend != "rocksdb" && cfg.StateBackend != "forst") ||
		len(f.completed) < AdviceMinCompleted {
		return Advice{}, false
	}
	share := asyncShare(f)
	first, last := f.sizeGrowth()
	if share < AdviceDominantShare || first <= 0 || float64(last) < AdviceSizeGrowth*float64(first) {
		return Advice{}, false
	}
	var why ReasonPart
	switch {
	case cfg.Incremental != nil && *cfg.Incremental:
		return Advice{}, false
	case cfg.Incremental != nil:
		why = part("advice_incremental_why_cfg", "key", keyIncremental.v2)
	default:
		full, known := 0, 0
		for _, c := range f.completed {
			if c.stateSize <= 0 {
				continue
			}
			known++
			if float64(c.size) >= AdviceFullRatio*float64(c.stateSize) {
				full++
			}
		}
		if known == 0 || float64(full) < AdviceFullShare*float64(known) {
			return Advice{}, false // smaller than the state: incremental already
		}
		why = part("advice_incremental_why_sz", "share", pct(float64(full)/float64(known)))
	}
	text := []ReasonPart{
		part("advice_incremental_evid", "share", pct(share), "first", fmtBytes(first), "last", fmtBytes(last)),
		why,
		part("advice_incremental_enable", "key", keyIncremental.v2),
	}
	_, hit, _ := f.dominant(func(c *adviceCheckpoint) bool { return c.bottleneck == PhaseAsync })
	return newAdvice(f, AdviceIncremental, SeverityWarning, docsLargeState, part("advice_incremental_title"), text, ids(hit),
		map[string]float64{"async_share": share, "size_first_bytes": float64(first), "size_last_bytes": float64(last)},
		keyIncremental, keyBackend), true
}

// adviseRocksDB: async dominates with large state on the heap backend.
func adviseRocksDB(f *adviceFacts) (Advice, bool) {
	cfg := f.cfg
	if f.engine != model.EngineFlink || cfg == nil || cfg.StateBackend != "hashmap" || len(f.completed) < AdviceMinCompleted {
		return Advice{}, false
	}
	share := asyncShare(f)
	var sizes []int64
	for _, c := range f.completed {
		sizes = append(sizes, c.size)
	}
	size := Quantile(sizes, 0.5)
	if share < AdviceDominantShare || size < AdviceLargeHeapState {
		return Advice{}, false
	}
	_, hit, _ := f.dominant(func(c *adviceCheckpoint) bool { return c.bottleneck == PhaseAsync })
	text := []ReasonPart{
		part("advice_rocksdb_evidence", "share", pct(share), "size", fmtBytes(size)),
		part("advice_rocksdb_enable", "key", keyBackend.v2),
	}
	return newAdvice(f, AdviceRocksDB, SeverityWarning, docsBackends, part("advice_rocksdb_title"), text, ids(hit),
		map[string]float64{"async_share": share, "size_p50_bytes": float64(size)}, keyBackend), true
}

// adviseSync: the synchronous snapshot dominates in an operator.
func adviseSync(f *adviceFacts) (Advice, bool) {
	if f.engine != model.EngineFlink || len(f.completed) < AdviceMinCompleted {
		return Advice{}, false
	}
	share, hit, median := f.dominant(func(c *adviceCheckpoint) bool { return c.bottleneck == PhaseSync })
	if share < AdviceDominantShare || median < AdviceMinPhaseMs {
		return Advice{}, false
	}
	vertex := mostNamed(hit, func(c *adviceCheckpoint) string { return c.vertex })
	text := []ReasonPart{
		part("advice_sync_evidence", "share", pct(share), "ids", idList(ids(hit)), "median", fmtDur(median)),
		part("advice_sync_heap"),
		part("advice_sync_timers", "vertex", vertex, "key", keyTimers.v2, "key_backend", keyBackend.v2),
	}
	return newAdvice(f, AdviceSync, SeverityWarning, docsLargeState, part("advice_sync_title", "vertex", vertex), text, ids(hit),
		map[string]float64{"sync_share": share, "sync_median_ms": float64(median)}, keyBackend, keyTimers), true
}

// adviseInterval: the interval is shorter than the p90 duration plus the min pause.
func adviseInterval(f *adviceFacts) (Advice, bool) {
	cfg := f.cfg
	if cfg == nil || cfg.IntervalMs == nil || *cfg.IntervalMs <= 0 || len(f.completed) < AdviceMinCompleted {
		return Advice{}, false
	}
	interval := *cfg.IntervalMs
	var pause int64
	if cfg.MinPauseMs != nil {
		pause = *cfg.MinPauseMs
	}
	p90 := Quantile(f.durations(), 0.9)
	if interval >= p90+pause {
		return Advice{}, false
	}
	var long []int64
	for _, c := range f.completed {
		if c.e2e+pause > interval {
			long = append(long, c.id)
		}
	}
	text := []ReasonPart{
		part("advice_interval_evidence", "interval", fmtDur(interval), "p90", fmtDur(p90), "pause", fmtDur(pause)),
	}
	keys := []adviceKey{keyInterval}
	if f.engine == model.EngineSeaTunnel {
		// SeaTunnel has no min pause: the interval is what to raise.
		text[0] = part("advice_interval_evidence", "interval", fmtDur(interval), "p90", fmtDur(p90), "pause", fmtDur(0))
	} else {
		keys = append(keys, keyMinPause)
		text = append(text, part("advice_interval_fix", "key_pause", keyMinPause.v2, "key_interval", keyInterval.v2,
			"suggest", fmtDur(roundUpMs(p90))))
	}
	docs := docsLargeState
	if f.engine == model.EngineSeaTunnel {
		docs = docsSeaTunnel
	}
	return newAdvice(f, AdviceInterval, SeverityInfo, docs, part("advice_interval_title"), text, long,
		map[string]float64{"interval_ms": float64(interval), "p90_ms": float64(p90), "min_pause_ms": float64(pause)}, keys...), true
}

// adviseTolerable: intermittent declines with no tolerable failures.
func adviseTolerable(f *adviceFacts) (Advice, bool) {
	cfg := f.cfg
	if f.engine != model.EngineFlink || cfg == nil || cfg.TolerableFailures == nil || *cfg.TolerableFailures != 0 ||
		len(f.declined) == 0 || len(f.completed) == 0 {
		return Advice{}, false
	}
	var failed []int64
	task := ""
	for _, d := range f.declined {
		failed = append(failed, d.id)
		task = cmp.Or(task, d.task)
	}
	text := []ReasonPart{part("advice_tolerable_evidence", "n", strconv.Itoa(len(failed)), "ids", idList(failed), "tolerable", "0")}
	if task != "" {
		text = append(text, part("advice_tolerable_task", "task", task))
	}
	text = append(text, part("advice_tolerable_fix", "key", keyTolerable.v2))
	return newAdvice(f, AdviceTolerable, SeverityCritical, docsCheckpoints, part("advice_tolerable_title"), text, failed,
		map[string]float64{"failed": float64(len(failed)), "tolerable": 0}, keyTolerable), true
}

// adviseFinalize: finalization or the sink's commit dominates.
func adviseFinalize(f *adviceFacts) (Advice, bool) {
	if f.engine != model.EngineFlink || len(f.completed) < AdviceMinCompleted {
		return Advice{}, false
	}
	share, hit, median := f.dominant(func(c *adviceCheckpoint) bool { return c.bottleneck == PhaseFinalize })
	var evidence ReasonPart
	figures := map[string]float64{}
	switch {
	case share >= AdviceDominantShare && median >= AdviceMinPhaseMs:
		evidence = part("advice_finalize_fin", "share", pct(share), "ids", idList(ids(hit)), "median", fmtDur(median))
		figures["finalize_share"], figures["finalize_median_ms"] = share, float64(median)
	case len(f.commitMs) > 0:
		commit, e2e := Quantile(f.commitMs, 0.5), Quantile(f.durations(), 0.5)
		if commit < AdviceMinPhaseMs || commit < e2e {
			return Advice{}, false
		}
		evidence = part("advice_finalize_sink", "commit", fmtDur(commit), "e2e", fmtDur(e2e))
		figures["commit_median_ms"], figures["e2e_median_ms"] = float64(commit), float64(e2e)
		hit = f.slowestQuarter()
	default:
		return Advice{}, false
	}
	fix := part("advice_finalize_fix_any", "key", keyStorageDir.v2)
	if f.cfg != nil && f.cfg.CheckpointStorage != "" {
		fix = part("advice_finalize_fix", "key", keyStorageDir.v2, "storage", f.cfg.CheckpointStorage)
	}
	text := []ReasonPart{evidence, fix}
	return newAdvice(f, AdviceFinalize, SeverityWarning, docsLargeState, part("advice_finalize_title"), text, ids(hit),
		figures, keyStorageDir), true
}
