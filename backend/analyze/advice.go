package analyze

// Advice is one thing to change, said from the evidence and the job's own
// configuration (docs/advice.md). There is no advice without evidence, and
// none the configuration already follows.
type Advice struct {
	// Code names the rule (AdviceUnaligned, …).
	Code     AdviceCode     `json:"code"`
	Severity AdviceSeverity `json:"severity"`
	// Title and Text are the English; TitlePart and TextParts the same as
	// templates, for the UI to say in the user's language.
	Title     string       `json:"title"`
	Text      string       `json:"text"`
	TitlePart ReasonPart   `json:"title_part"`
	TextParts []ReasonPart `json:"text_parts"`
	// ConfigKeys are the keys to change, each in Flink 2.x's spelling and,
	// where it differs, 1.x's after it (or SeaTunnel's env keys).
	ConfigKeys []string `json:"config_keys"`
	// Current holds the values the engine reported for those keys; a key
	// it did not report is absent.
	Current  map[string]string `json:"current"`
	Evidence AdviceEvidence    `json:"evidence"`
	DocsURL  string            `json:"docs_url"`
}

// AdviceEvidence is what an advice item rests on.
type AdviceEvidence struct {
	// CheckpointIDs are the checkpoints that show it (at most 20, the
	// clearest first).
	CheckpointIDs []int64 `json:"checkpoint_ids"`
	// Figures are the numbers the text quotes, by name (e.g. "p99_ms").
	Figures map[string]float64 `json:"figures"`
}

// AdviceCode names an advice rule.
type AdviceCode string

const (
	// AdviceUnaligned: barriers wait behind backpressured data in aligned
	// checkpoints → unaligned checkpoints or an aligned-checkpoint timeout,
	// and buffer debloating.
	AdviceUnaligned AdviceCode = "unaligned_checkpoints"
	// AdviceAlignedInput: barriers queue at a vertex with a pointwise
	// (FORWARD, RESCALE) or BROADCAST input, which Flink keeps aligned even
	// with unaligned checkpoints on → a faster or wider operator there, or a
	// rebalance before it, and buffer debloating.
	AdviceAlignedInput AdviceCode = "aligned_input"
	// AdviceTimeout: checkpoints expire while still acknowledging → the
	// timeout against the p99 duration, and the cause found.
	AdviceTimeout AdviceCode = "timeout_vs_p99"
	// AdviceIncremental: async dominates while the checkpointed size grows,
	// with full checkpoints on RocksDB → incremental checkpoints.
	AdviceIncremental AdviceCode = "incremental_checkpoints"
	// AdviceRocksDB: async dominates with large state on the heap backend → RocksDB.
	AdviceRocksDB AdviceCode = "rocksdb_for_large_state"
	// AdviceSync: the synchronous snapshot dominates in an operator → heap
	// state or many timers there.
	AdviceSync AdviceCode = "sync_snapshot"
	// AdviceInterval: the interval is shorter than the p90 duration plus
	// the min pause → checkpoints run back to back.
	AdviceInterval AdviceCode = "interval_back_to_back"
	// AdviceTolerable: intermittent declines with no tolerable failures → the
	// job fails over on each.
	AdviceTolerable AdviceCode = "tolerable_failures"
	// AdviceFinalize: finalization or the sink's commit dominates →
	// checkpoint storage latency or the sink's commit.
	AdviceFinalize AdviceCode = "finalize_or_commit"
)

// AdviceSeverity says how much an advice item matters.
type AdviceSeverity string

const (
	// SeverityCritical: checkpoints fail (or the job fails over) because of it.
	SeverityCritical AdviceSeverity = "critical"
	// SeverityWarning: checkpoints are slow because of it.
	SeverityWarning AdviceSeverity = "warning"
	// SeverityInfo: worth knowing; nothing fails yet.
	SeverityInfo AdviceSeverity = "info"
)
