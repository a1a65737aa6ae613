package analyze

import (
	"cmp"
	"maps"
	"math"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"

	"checkpoint-explorer/backend/model"
)

// ChangeInputs is what DetectChanges reads: data the app already collects
// (docs/phases.md, "Changes and their effect").
type ChangeInputs struct {
	// Job is the run the changes are about: its cluster, id, engine, start,
	// last modification and vertices (names, current parallelism).
	Job model.Job
	// Previous are earlier runs of the same logical job (the caller decides
	// which: the same name on the same cluster, say), in any order. Each run
	// that follows another is a resubmission at its start.
	Previous []PriorRun
	// Configs is the configuration history of the job and of its previous
	// runs, oldest first (SeenMs), as the store keeps it.
	Configs []model.JobConfig
	// Checkpoints are the job's checkpoints in any order; rescales need only
	// each task's VertexID and NumSubtasks, restarts the failure message.
	// Checkpoints of previous runs may be added to see rescales across them.
	Checkpoints []model.Checkpoint
	// Restores are the engine's restore counts over time (the store's
	// RestoreCounts of Job), in any order.
	Restores []model.RestoreCount
	// Notes are the user's notes (kind note), passed through.
	Notes []model.Change
}

// PriorRun is an earlier run of the same logical job.
type PriorRun struct {
	Job model.Job
	// Last is the run's newest checkpoint, nil when unknown: a completed
	// savepoint there says the run was stopped with it.
	Last *model.Checkpoint
}

// DetectChanges lists a job's changes from what was collected, sorted by
// time (then resubmit, restart, rescale, config, note), without duplicates:
//
//   - config: consecutive entries of the configuration history that differ,
//     one change per entry with each key old → new, at the newer entry's
//     SeenMs (at the new run's start when the entries belong to two runs);
//   - rescale: a vertex whose subtask count differs from its count in the
//     previous checkpoint that had it, at the trigger of the first checkpoint
//     with the new count; and a vertex of Job whose parallelism differs from
//     its newest checkpoint's, at Job.UpdatedMs when that is later;
//   - restart: a checkpoint aborted because the job (or a pipeline)
//     restarted, and later checkpoints show the job went on, at its failure
//     time (one per stretch of such aborts); and a restore count that grew
//     between two sightings. A restart followed by a rescale before any
//     checkpoint was triggered is that rescale (the adaptive scheduler
//     restarts the job to rescale it) and is not listed apart;
//   - resubmit: each run of Previous and Job that follows another, at its start;
//   - note: Notes as given.
func DetectChanges(in ChangeInputs) []model.Change {
	out := slices.Clone(in.Notes)
	out = append(out, configChanges(in)...)
	out = append(out, rescales(in.Job, in.Checkpoints)...)
	out = append(out, resubmits(in.Job, in.Previous)...)
	restarts := restartsSeen(in.Job, in.Checkpoints, in.Restores)
	out = append(out, withoutRescaleRestarts(restarts, out, in.Checkpoints)...)
	slices.SortStableFunc(out, compareChanges)
	return withoutDuplicates(out)
}

// withoutDuplicates drops the changes equal to an earlier one of the same
// time (of changes sorted by time).
func withoutDuplicates(cs []model.Change) []model.Change {
	out := make([]model.Change, 0, len(cs))
	for _, c := range cs {
		dup := false
		for j := len(out) - 1; j >= 0 && out[j].TimeMs == c.TimeMs && !dup; j-- {
			dup = reflect.DeepEqual(out[j], c)
		}
		if !dup {
			out = append(out, c)
		}
	}
	return out
}

var changeKindOrder = map[model.ChangeKind]int{
	model.ChangeResubmit: 0, model.ChangeRestart: 1, model.ChangeRescale: 2, model.ChangeConfig: 3, model.ChangeNote: 4,
}

func compareChanges(a, b model.Change) int {
	return cmp.Or(cmp.Compare(a.TimeMs, b.TimeMs), cmp.Compare(changeKindOrder[a.Kind], changeKindOrder[b.Kind]),
		cmp.Compare(a.Detail.VertexID, b.Detail.VertexID), cmp.Compare(a.JobID, b.JobID))
}

// configSetting is a typed setting of model.JobConfig that a config change
// names, with the other spellings JobConfig.Keys may hold it under (the
// typed value covers them, so they are not listed again).
type configSetting struct {
	key     adviceKey
	aliases []string
}

// Keys a change names beside those advice names (advice_rules.go).
var (
	keyMode = adviceKey{v2: "execution.checkpointing.mode",
		current: func(c *model.JobConfig) (string, bool) { return strVal(c.Mode) }}
	keyMaxConcurrent = adviceKey{v2: "execution.checkpointing.max-concurrent-checkpoints",
		current: func(c *model.JobConfig) (string, bool) { return intVal(c.MaxConcurrent) }}
	keyChangelog = adviceKey{v2: "state.changelog.enabled", v1: "state.backend.changelog.enabled",
		current: func(c *model.JobConfig) (string, bool) { return boolVal(c.Changelog) }}
	keyStorage = adviceKey{v2: "execution.checkpointing.storage", v1: "state.checkpoint-storage",
		current: func(c *model.JobConfig) (string, bool) { return strVal(c.CheckpointStorage) }}
)

var configSettings = []configSetting{
	{keyMode, nil}, {keyInterval, nil}, {keyTimeout, nil}, {keyMinPause, nil}, {keyMaxConcurrent, nil},
	{keyTolerable, nil}, {keyUnaligned, nil}, {keyAlignedTimeout, []string{"execution.checkpointing.alignment-timeout"}},
	{keyBackend, []string{"state.backend"}}, {keyIncremental, nil}, {keyChangelog, nil}, {keyStorage, nil}, {keyDebloat, nil},
}

// name is the setting's key as a change of a job of engine e names it.
func (s configSetting) name(e model.Engine) string {
	if e == model.EngineSeaTunnel && s.key.seatunnel != "" {
		return s.key.seatunnel
	}
	return s.key.v2
}

// configChanges are the differences between consecutive configurations.
func configChanges(in ChangeInputs) []model.Change {
	starts := map[string]int64{in.Job.ID: in.Job.StartMs}
	for _, p := range in.Previous {
		starts[p.Job.ID] = p.Job.StartMs
	}
	cfgs := slices.Clone(in.Configs)
	slices.SortStableFunc(cfgs, func(a, b model.JobConfig) int { return cmp.Compare(a.SeenMs, b.SeenMs) })
	var out []model.Change
	for i := 1; i < len(cfgs); i++ {
		a, b := &cfgs[i-1], &cfgs[i]
		keys := diffConfigs(in.Job.Engine, a, b)
		if len(keys) == 0 {
			continue
		}
		at := b.SeenMs
		if a.JobID != b.JobID && starts[b.JobID] > 0 {
			at = starts[b.JobID] // the new run started with it
		}
		out = append(out, model.Change{Kind: model.ChangeConfig, TimeMs: at, Source: model.ChangeFromConfigHistory,
			Cluster: b.Cluster, JobID: b.JobID, Detail: model.ChangeDetail{Keys: keys}})
	}
	return out
}

// diffConfigs lists what differs from a to b: the typed settings by their
// key names, then the other raw keys, by name. A value only one of them
// reports is a change only where both reads were complete for it: a part
// that did not answer says nothing was unset.
func diffConfigs(e model.Engine, a, b *model.JobConfig) []model.ConfigKeyChange {
	var out []model.ConfigKeyChange
	covered := map[string]bool{}
	for _, s := range configSettings {
		for _, n := range append(s.key.spellings(), s.aliases...) {
			covered[n] = true
		}
		va, okA := s.key.current(a)
		vb, okB := s.key.current(b)
		if okA == okB && va == vb || okA != okB && (a.Partial() || b.Partial()) {
			continue
		}
		out = append(out, model.ConfigKeyChange{Key: s.name(e), Old: va, New: vb})
	}
	names := slices.Sorted(maps.Keys(a.Keys))
	for k := range b.Keys {
		if _, ok := a.Keys[k]; !ok {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	for _, k := range names {
		va, okA := a.Keys[k]
		vb, okB := b.Keys[k]
		if covered[k] || okA && okB && va == vb || okA != okB && !(knowsKey(a, k) && knowsKey(b, k)) {
			continue
		}
		out = append(out, model.ConfigKeyChange{Key: k, Old: va, New: vb})
	}
	return out
}

// knowsKey reports whether the part of c's read that key k comes from answered.
func knowsKey(c *model.JobConfig, k string) bool {
	if strings.HasPrefix(k, model.ExecutionKeyPrefix) {
		return c.Knows(model.ConfigPartExecution)
	}
	return c.Knows(model.ConfigPartJobManager)
}

// rescales are the vertices whose subtask count changed between the
// checkpoints that show it, then against the job's vertices now.
func rescales(job model.Job, cps []model.Checkpoint) []model.Change {
	type seen struct {
		n         int
		triggerMs int64
	}
	last := map[string]seen{}
	names := map[string]string{}
	for _, v := range job.Vertices {
		names[v.ID] = v.Name
	}
	var out []model.Change
	rescale := func(cluster, jobID string, at int64, src, vertex string, from, to int) {
		out = append(out, model.Change{Kind: model.ChangeRescale, TimeMs: at, Source: src, Cluster: cluster, JobID: jobID,
			Detail: model.ChangeDetail{VertexID: vertex, VertexName: names[vertex], From: from, To: to}})
	}
	for _, i := range sortedOrder(cps) {
		c := &cps[i]
		for t := range c.Tasks {
			ts := &c.Tasks[t]
			if ts.NumSubtasks <= 0 {
				continue
			}
			if s, ok := last[ts.VertexID]; ok && s.n != ts.NumSubtasks {
				rescale(c.Cluster, c.JobID, c.TriggerMs, model.ChangeFromCheckpoints, ts.VertexID, s.n, ts.NumSubtasks)
			}
			last[ts.VertexID] = seen{ts.NumSubtasks, c.TriggerMs}
		}
	}
	for _, v := range job.Vertices {
		if s, ok := last[v.ID]; ok && v.Parallelism > 0 && v.Parallelism != s.n && job.UpdatedMs > s.triggerMs {
			rescale(job.Cluster, job.ID, job.UpdatedMs, model.ChangeFromJobGraph, v.ID, s.n, v.Parallelism)
		}
	}
	return out
}

// restartAborts are the reason codes (messageRules) of a checkpoint aborted
// because the job, a failover region or a pipeline restarted (or began to:
// the job failing or suspending); a later checkpoint shows it did.
var restartAborts = map[string]bool{
	"f_job_suspend": true, "f_job_region": true, "f_job_task_failed": true, "f_job_failed": true, "f_job_reset": true,
}

// abortReason is the reason code of a restart abort that msg says, or "".
func abortReason(msg string) string {
	lower := strings.ToLower(msg)
	for _, r := range messageRules {
		if r.jobLevel && strings.Contains(lower, r.contains) {
			if restartAborts[r.basis] {
				return r.basis
			}
			return ""
		}
	}
	return ""
}

// restartsSeen are the restarts the checkpoints' aborts and the restore
// counter show.
func restartsSeen(job model.Job, cps []model.Checkpoint, sightings []model.RestoreCount) []model.Change {
	var out []model.Change
	order := sortedOrder(cps)
	inStretch := false // the previous final checkpoint was a restart abort
	for k, i := range order {
		c := &cps[i]
		reason := ""
		if c.Status == model.StatusFailed {
			reason = abortReason(c.FailureMessage)
		}
		if reason == "" {
			inStretch = inStretch && !c.Status.Final()
			continue
		}
		if !inStretch && k+1 < len(order) {
			out = append(out, model.Change{Kind: model.ChangeRestart, TimeMs: c.EndMs(), Source: model.ChangeFromCheckpoints,
				Cluster: c.Cluster, JobID: c.JobID, Detail: model.ChangeDetail{CheckpointID: c.ID, Reason: reason}})
		}
		inStretch = true
	}
	s := slices.Clone(sightings)
	slices.SortStableFunc(s, func(a, b model.RestoreCount) int { return cmp.Compare(a.AtMs, b.AtMs) })
	for i := 1; i < len(s); i++ {
		if s[i].Restored <= s[i-1].Restored {
			continue
		}
		j := slices.IndexFunc(out, func(r model.Change) bool {
			return r.Source == model.ChangeFromCheckpoints && r.TimeMs > s[i-1].AtMs && r.TimeMs <= s[i].AtMs
		})
		if j >= 0 {
			out[j].Detail.Restored = s[i].Restored // the abort already marks it
			continue
		}
		// At the engine's restore time when it is of a restore newer than the one the sighting
		// before named: it may come a moment before that sighting's poll, whose answer the
		// engine had cached from before it (Flink's REST answers are a few seconds old).
		at := s[i].AtMs
		if s[i].LastRestoreMs > s[i-1].LastRestoreMs && s[i].LastRestoreMs <= at {
			at = s[i].LastRestoreMs
		}
		out = append(out, model.Change{Kind: model.ChangeRestart, TimeMs: at, Source: model.ChangeFromEngine,
			Cluster: job.Cluster, JobID: job.ID, Detail: model.ChangeDetail{Restored: s[i].Restored}})
	}
	return out
}

// withoutRescaleRestarts drops the restarts that a rescale follows before
// any checkpoint is triggered (of others, the other changes).
func withoutRescaleRestarts(restarts, others []model.Change, cps []model.Checkpoint) []model.Change {
	triggers := make([]int64, len(cps))
	for i := range cps {
		triggers[i] = cps[i].TriggerMs
	}
	slices.Sort(triggers)
	return slices.DeleteFunc(restarts, func(r model.Change) bool {
		next := int64(-1) // the first trigger after the restart; -1: none
		if i, _ := slices.BinarySearch(triggers, r.TimeMs+1); i < len(triggers) {
			next = triggers[i]
		}
		return slices.ContainsFunc(others, func(o model.Change) bool {
			return o.Kind == model.ChangeRescale && o.TimeMs >= r.TimeMs && (next < 0 || o.TimeMs <= next)
		})
	})
}

// resubmits are the runs that follow another, by start time.
func resubmits(job model.Job, previous []PriorRun) []model.Change {
	if len(previous) == 0 {
		return nil
	}
	runs := append(slices.Clone(previous), PriorRun{Job: job})
	slices.SortStableFunc(runs, func(a, b PriorRun) int { return cmp.Compare(a.Job.StartMs, b.Job.StartMs) })
	var out []model.Change
	for i := 1; i < len(runs); i++ {
		p, n := &runs[i-1], &runs[i].Job
		if n.StartMs <= 0 {
			continue
		}
		d := model.ChangeDetail{PreviousJobID: p.Job.ID}
		if l := p.Last; l != nil && l.Kind == model.KindSavepoint && l.Status == model.StatusCompleted {
			d.Savepoint = l.ExternalPath
		}
		out = append(out, model.Change{Kind: model.ChangeResubmit, TimeMs: n.StartMs, Source: model.ChangeFromRuns,
			Cluster: n.Cluster, JobID: n.ID, Detail: d})
	}
	return out
}

// AdviceStatus is what became of an advice item after the job's changes.
type AdviceStatus string

const (
	// AdviceCurrent: nothing since says otherwise.
	AdviceCurrent AdviceStatus = "current"
	// AdviceApplied: a change set one of its keys to the advised value; the
	// change's before/after (BeforeAfter at its time) shows what followed.
	AdviceApplied AdviceStatus = "applied"
	// AdviceOutdated: its evidence lies wholly in or before the last
	// episode, which a change ended: it is no longer current.
	AdviceOutdated AdviceStatus = "outdated"
)

// AdviceFollowUp is one advice item's status and the change behind it.
type AdviceFollowUp struct {
	Code   AdviceCode    `json:"code"`
	Status AdviceStatus  `json:"status"`
	Change *model.Change `json:"change,omitempty"`
	// Key is the key an applied change set.
	Key string `json:"key,omitempty"`
}

// adviceFix is a key whose change follows an advice item, and the test of
// the change's old and new values.
type adviceFix struct {
	key     adviceKey
	follows func(old, new string) bool
}

func setTo(want string) func(old, new string) bool {
	return func(_, new string) bool { return strings.EqualFold(strings.TrimSpace(new), want) }
}

// raised is a duration or count set higher (from nothing, to anything).
func raised(old, new string) bool {
	n, okN := durationMs(new)
	o, okO := durationMs(old)
	return okN && (!okO || n > o)
}

// adviceFixes are, per rule, the settings that follow its advice
// (docs/advice.md).
var adviceFixes = map[AdviceCode][]adviceFix{
	AdviceUnaligned: {{keyUnaligned, setTo("true")}, {keyDebloat, setTo("true")},
		{keyAlignedTimeout, func(_, new string) bool { ms, ok := durationMs(new); return ok && ms > 0 }}},
	AdviceIncremental: {{keyIncremental, setTo("true")}},
	AdviceRocksDB:     {{keyBackend, setTo("rocksdb")}},
	AdviceSync:        {{keyBackend, setTo("rocksdb")}, {keyTimers, setTo("rocksdb")}},
	AdviceTolerable:   {{keyTolerable, raised}},
	AdviceTimeout:     {{keyTimeout, raised}},
	AdviceInterval:    {{keyMinPause, raised}, {keyInterval, raised}},

	// Unaligned checkpoints do not apply where it speaks; its other remedies
	// (a faster or wider operator, a rebalance) are no configuration key.
	AdviceAlignedInput: {{keyDebloat, setTo("true")}},
}

// FollowAdvice says, for each advice item (in order), whether a change of
// changes (sorted by time, as DetectChanges gives them) applied it — the
// first config change that set one of its keys to the advised value — or
// else whether it is outdated: its evidence checkpoints all lie in or before
// the last of episodes (Episodes) and a change ended that episode. Ids are
// compared within one run (a SeaTunnel job's pipelines number theirs apart:
// there the evidence is taken as the episode's when its ids are no higher).
func FollowAdvice(advice []Advice, changes []model.Change, episodes []Episode) []AdviceFollowUp {
	out := make([]AdviceFollowUp, len(advice))
	for i, a := range advice {
		out[i] = AdviceFollowUp{Code: a.Code, Status: AdviceCurrent}
		if c, key, ok := applying(a.Code, changes); ok {
			out[i].Status, out[i].Change, out[i].Key = AdviceApplied, c, key
			continue
		}
		if n := len(episodes); n > 0 && episodes[n-1].EndedBy != nil && len(a.Evidence.CheckpointIDs) > 0 &&
			slices.Max(a.Evidence.CheckpointIDs) <= episodes[n-1].LastID {
			out[i].Status, out[i].Change = AdviceOutdated, episodes[n-1].EndedBy
		}
	}
	return out
}

// applying is the first config change that follows advice of this code.
func applying(code AdviceCode, changes []model.Change) (*model.Change, string, bool) {
	for i := range changes {
		c := &changes[i]
		if c.Kind != model.ChangeConfig {
			continue
		}
		for _, k := range c.Detail.Keys {
			for _, fix := range adviceFixes[code] {
				if slices.Contains(fix.key.spellings(), k.Key) && k.Key != "" && fix.follows(k.Old, k.New) {
					ch := *c
					return &ch, k.Key, true
				}
			}
		}
	}
	return nil, "", false
}

// durationMs reads a duration or count as config changes spell them
// (fmtDur's "30 s", "1 min", "500 ms", "12.5 s"; Flink's "30s", "1min";
// a bare number, as milliseconds or a count).
func durationMs(s string) (int64, bool) {
	s = strings.TrimSpace(strings.ToLower(s))
	num := strings.TrimRightFunc(s, func(r rune) bool { return r < '0' || r > '9' })
	unit := strings.TrimSpace(s[len(num):])
	if strings.HasSuffix(num, ".") {
		return 0, false
	}
	v, err := strconv.ParseFloat(num, 64)
	scale := map[string]float64{"": 1, "ms": 1, "s": 1000, "sec": 1000, "min": 60_000, "m": 60_000, "h": 3_600_000}[unit]
	if err != nil || scale == 0 {
		return 0, false
	}
	return int64(math.Round(v * scale)), true
}
