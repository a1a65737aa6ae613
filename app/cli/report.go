package cli

import (
	"cmp"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"checkpoint-explorer/app"
	"checkpoint-explorer/backend/analyze"
	"checkpoint-explorer/backend/model"
)

type reportFlags struct {
	format, cluster, job string
	timeRange
}

var reportFormats = formats{"text", "json", "markdown"}

func reportCmd(g *globals) *cobra.Command {
	var f reportFlags
	cmd := &cobra.Command{
		Use:   "report [flags] (CAPTURE_FILE | --cluster NAME --job ID)",
		Short: "print what is slow, where and why for a job or a capture",
		Long: `Prints what is slow or failing, where, and since when, for a cached job or a capture file. A capture
is read into a throwaway cache (yours is not touched), with its progress on stderr; stdout holds only
the report. TIME is RFC 3339, epoch milliseconds, or a duration ago (2h, 7d).`,
		Example: `  checkpoint-explorer report recording.ckpt.gz
  checkpoint-explorer report knobs.ckpt.gz --job 1ac863d7989ca7c731d1817c06eb92c1 --format markdown > report.md
  checkpoint-explorer report --cluster prod --job 3f1c… --from 2h --format json | jq .correlation`,
		ValidArgsFunction: completeCaptureFiles,
		RunE:              func(cmd *cobra.Command, files []string) error { return runReport(cmd, g, f, files) },
	}
	fs := cmd.Flags()
	fs.StringVar(&f.cluster, "cluster", "", "cluster or capture name (with --job)")
	fs.StringVar(&f.job, "job", "", "job id (optional with a capture file holding one job)")
	f.timeRange.addFlags(fs)
	reportFormats.addFlag(cmd, &f.format)
	flagGroup(fs, "What to report", "cluster", "job", "from", "to")
	return cmd
}

func runReport(cmd *cobra.Command, g *globals, f reportFlags, files []string) error {
	ctx := cmd.Context()
	if err := reportFormats.check(cmd, f.format); err != nil {
		return err
	}
	fromMs, toMs, err := f.ms(cmd)
	if err != nil {
		return err
	}
	opts := app.Options{NoSample: true, NoCollect: true}
	gg := *g
	if len(files) > 0 {
		if len(files) > 1 || f.cluster != "" {
			return usageErrorf(cmd, "report: give one capture file, or --cluster and --job")
		}
		if err := checkReadable(files[0]); err != nil {
			return fmt.Errorf("report: %w", err)
		}
		// A capture is read into a throwaway cache: the user's cache is not touched.
		tmp, err := os.MkdirTemp("", "checkpoint-explorer-report-*")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		gg.dataDir = tmp
	} else if f.cluster == "" || f.job == "" {
		return usageErrorf(cmd, "report: give a capture file, or --cluster and --job")
	}
	svc, err := openApp(ctx, &gg, opts)
	if err != nil {
		return err
	}
	defer svc.Close()
	a := svc.App()
	if len(files) > 0 {
		res, err := watched(ctx, g, svc, "report stopped while reading "+files[0], func(a *app.App) (app.ImportResult, error) {
			return a.OpenCapture(files[0])
		})
		if err != nil {
			return err
		}
		jobs, err := a.ListJobs("")
		if err != nil {
			return err
		}
		var match []app.JobView
		for _, j := range jobs {
			if f.job == "" || j.ID == f.job {
				match = append(match, j)
			}
		}
		switch {
		case len(match) == 0 && f.job != "":
			return fmt.Errorf("report: job %s is not in %s", f.job, files[0])
		case len(match) == 0:
			return fmt.Errorf("report: %s holds no job (sources: %s)", files[0], strings.Join(res.Sources, ", "))
		case len(match) > 1:
			var ids []string
			for _, j := range match {
				ids = append(ids, j.ID)
			}
			return fmt.Errorf("report: %s holds %d jobs; choose one with --job (%s)", files[0], len(match), strings.Join(ids, ", "))
		}
		f.cluster, f.job = match[0].Cluster, match[0].ID
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		// What the report holds over 100,000 checkpoints is ~80 MB: a soft
		// limit makes the runtime hand back what it no longer uses instead
		// of growing to twice that (docs/reliability.md). Wider or longer
		// histories only make the collector work harder, never fail.
		debug.SetMemoryLimit(reportMemoryLimit)
	}
	// The checkpoints' analyses stream out of the analysis: the JSON writes
	// each as it comes (over 100,000 checkpoints they are hundreds of MB),
	// text and markdown keep a tally.
	switch f.format {
	case "json":
		jw, err := newJSONReportWriter(g.stdout)
		if err != nil {
			return err
		}
		defer jw.close()
		r, err := svc.StreamReport(ctx, f.cluster, f.job, fromMs, toMs, jw.emit, jw.revise)
		if err != nil {
			return err
		}
		return jw.finish(g.stdout, r)
	default:
		var t checkpointTally
		r, err := svc.StreamReport(ctx, f.cluster, f.job, fromMs, toMs, t.emit, t.revise)
		if err != nil {
			return err
		}
		if f.format == "markdown" {
			writeReportMarkdown(g.stdout, r, &t)
		} else {
			writeReportText(g.stdout, r, &t)
		}
	}
	return nil
}

// endedUnseenText names the checkpoints stored in progress that ended
// unseen (analyze.Summary.EndedUnseen), when there are any.
func endedUnseenText(s analyze.Summary) string {
	if s.EndedUnseen == 0 {
		return ""
	}
	return fmt.Sprintf(", %d ended unseen (stored in progress; a later checkpoint completed)", s.EndedUnseen)
}

func fmtMs(ms int64) string {
	if ms < 1000 {
		return fmt.Sprintf("%d ms", ms)
	}
	return fmt.Sprintf("%.1f s", float64(ms)/1000)
}

func fmtTime(ms int64) string {
	if ms == 0 {
		return "-"
	}
	return time.UnixMilli(ms).Local().Format("2006-01-02 15:04:05")
}

// reconciliationText says, in one line, how the engine's ids and counters
// compare with what was stored; "" when the collector left no account.
func reconciliationText(r *model.Reconciliation) string {
	if r == nil || r.IDs == 0 {
		return ""
	}
	s := fmt.Sprintf("ids %d–%d: %d stored, %d gaps, %d unaccounted", r.FirstID, r.LatestID, r.Stored, r.Gaps, r.Unaccounted)
	if r.EngineCounted >= 0 {
		s += fmt.Sprintf("; the engine counted %d", r.EngineCounted)
		if r.WithoutID > 0 {
			s += fmt.Sprintf(" (%d failed before they got an id%s)", r.WithoutID, triggerFailuresText(r.TriggerFailures))
		}
	}
	if r.EngineForgotMs > 0 {
		s += fmt.Sprintf("; the engine no longer has them since %s (the cache is the only record)", fmtTime(r.EngineForgotMs))
	}
	if e := r.Engine; e != nil {
		s += fmt.Sprintf("; its counters at %s: %d completed, %d failed, %d in progress, %d restored",
			fmtTime(r.AtMs), e.Completed, e.Failed, e.InProgress, e.Restored)
	}
	if r.FailedPolls > 0 {
		s += fmt.Sprintf("; %d of %d list polls failed", r.FailedPolls, r.Polls+r.FailedPolls)
	}
	if r.FromLog > 0 || r.Earlier > 0 {
		s += fmt.Sprintf("; from the JobManager log: %d gap id(s) filled, %d earlier checkpoint(s)", r.FromLog, r.Earlier)
	}
	return s
}

// configUnknownText lists, in one line, the parts of the job's configuration
// that did not answer (the advice's "not reported" may be one of them); ""
// when every part answered.
func configUnknownText(c *model.JobConfig) string {
	if c == nil {
		return ""
	}
	parts := make([]string, len(c.Unknown))
	for i, g := range c.Unknown {
		parts[i] = g.Endpoint + " — " + g.Error
	}
	return strings.Join(parts, "; ")
}

// triggerFailuresText says why triggers failed before they got an id, as
// the JobManager log told: ": Not all required tasks are currently running
// (4); other reasons (1)"; "" when it told nothing.
func triggerFailuresText(groups []model.TriggerFailureReason) string {
	if len(groups) == 0 {
		return ""
	}
	parts := make([]string, len(groups))
	for i, g := range groups {
		reason := g.Reason
		if reason == "" {
			reason = "other reasons"
		}
		parts[i] = fmt.Sprintf("%s (%d)", reason, g.Count)
	}
	return ": " + strings.Join(parts, "; ")
}

// jobManagerLogText says whether the JobManager log was read, and why not.
func jobManagerLogText(r *model.Reconciliation) string {
	if r == nil || r.Log == nil {
		return ""
	}
	l := r.Log
	switch l.State {
	case model.LogRead:
		return fmt.Sprintf("read at %s (%s): %d of the job's checkpoints, finalize times from it", fmtTime(l.ReadMs),
			app.HumanBytes(l.SizeBytes), l.Checkpoints)
	case model.LogWaiting:
		return "not read yet"
	}
	return fmt.Sprintf("%s — %s; finalize is absent where only REST was read", strings.ReplaceAll(string(l.State), "_", " "), l.Reason)
}

// checkpointTally is what the text and markdown reports say of the
// checkpoints as a whole, gathered as their analyses stream in: the slowest,
// and the sink commits that followed them.
type checkpointTally struct {
	slowest  *analyze.CheckpointAnalysis
	slowestK int
	// Commits: a commit shared by the checkpoints of one window counts once.
	withCommit     int
	commitSeen     map[int64]bool
	commitDurs     []int64
	files, records int64
}

// tallyOf tallies a report held in memory.
func tallyOf(r app.Report) *checkpointTally {
	var t checkpointTally
	for k := range r.Checkpoints {
		t.emit(k, &r.Checkpoints[k])
	}
	return &t
}

func (t *checkpointTally) emit(k int, c *analyze.CheckpointAnalysis) error {
	if t.slowest == nil || c.DurationMs > t.slowest.DurationMs {
		t.slowest, t.slowestK = c, k
	}
	cm := c.Commit
	if cm == nil {
		return nil
	}
	t.withCommit++
	if t.commitSeen == nil {
		t.commitSeen = map[int64]bool{}
	}
	if t.commitSeen[cm.AtMs] {
		return nil
	}
	t.commitSeen[cm.AtMs] = true
	if cm.DurationMs != nil {
		t.commitDurs = append(t.commitDurs, *cm.DurationMs)
	}
	if cm.Files != nil {
		t.files += *cm.Files
	}
	if cm.Records != nil {
		t.records += *cm.Records
	}
	return nil
}

// revise keeps the slowest checkpoint's final analysis (a revision changes
// a failure's phase and bottleneck, never a duration or a commit).
func (t *checkpointTally) revise(k int, c *analyze.CheckpointAnalysis) error {
	if t.slowest != nil && k == t.slowestK {
		t.slowest = c
	}
	return nil
}

// commitsText sums up the sink commits that followed the checkpoints:
// "18 checkpoints with a commit after them; commit median 1.9 s, max 1.9 s;
// 40 files, 12000 records"; "" without committer metrics.
func (t *checkpointTally) commitsText() string {
	if t.withCommit == 0 {
		return ""
	}
	s := fmt.Sprintf("%d checkpoints with a commit after them (%d sampled windows)", t.withCommit, len(t.commitSeen))
	if durs := slices.Sorted(slices.Values(t.commitDurs)); len(durs) > 0 {
		s += fmt.Sprintf("; last commit's duration median %s, max %s", fmtMs(durs[len(durs)/2]), fmtMs(durs[len(durs)-1]))
	}
	if t.files > 0 || t.records > 0 {
		s += fmt.Sprintf("; %d files, %d records committed", t.files, t.records)
	}
	return s
}

// bottleneckText says where a checkpoint's time went, in one phrase: the
// causes along the barrier path, largest first, when they are known (the
// origin of queued barriers first), else the bottleneck.
func bottleneckText(c *analyze.CheckpointAnalysis) string {
	if s := causesText(c.Causes); s != "" {
		return s
	}
	b := c.Bottleneck
	if b == nil && c.Source == model.OriginJobManagerLog {
		s := "from the JobManager log, no per-subtask stats"
		if f := c.Phases.Finalize; f != nil {
			s += "; finalize " + fmtMs(*f)
		}
		return s
	}
	if b == nil {
		return "phases not observable for this engine or checkpoint"
	}
	where := b.VertexName
	if where == "" {
		where = b.VertexID
	}
	if b.Subtask != nil {
		where = fmt.Sprintf("%s subtask %d", where, *b.Subtask)
	}
	if b.Pending {
		return fmt.Sprintf("%s still pending in %s (%d subtasks never acknowledged)", b.Phase, where, b.PendingSubtasks)
	}
	if b.PhaseMs != nil {
		return fmt.Sprintf("%s in %s: %s of %s", b.Phase, where, fmtMs(*b.PhaseMs), fmtMs(b.EndToEndMs))
	}
	return fmt.Sprintf("%s in %s", b.Phase, where)
}

// causesText lists the causes that took at least 5 % of the time (three at
// most), e.g. "890 ms: barriers queued at the input of Slow Map (behind
// Source); 302 ms: sync in Slow Snapshot subtask 0".
func causesText(cs []analyze.Cause) string {
	var parts []string
	for _, c := range cs {
		if len(parts) == 3 || len(parts) > 0 && c.Share < 0.05 {
			break
		}
		parts = append(parts, fmtMs(c.Ms)+": "+causeText(c))
	}
	return strings.Join(parts, "; ")
}

func causeText(c analyze.Cause) string {
	where := cmp.Or(c.VertexName, c.VertexID)
	up := cmp.Or(c.UpstreamVertexName, c.UpstreamVertexID)
	sub := ""
	if c.Subtask != nil {
		sub = fmt.Sprintf(" subtask %d", *c.Subtask)
	}
	switch {
	case c.Phase == analyze.PhaseStartDelay && up != "":
		return fmt.Sprintf("barriers queued at the input of %s (behind %s%s)", where, up, queueEvidence(c, where))
	case c.Phase == analyze.PhaseStartDelay:
		return fmt.Sprintf("start delay at %s%s (before it took the barrier: the trigger reached it late)", where, sub)
	case c.Phase == analyze.PhaseAlignment && up != "":
		return fmt.Sprintf("alignment in %s%s, waiting for %s's barrier", where, sub, up)
	case c.Phase == analyze.PhaseFinalize:
		return "finalize"
	}
	return fmt.Sprintf("%s in %s%s", c.Phase, where, sub)
}

// queueEvidence is what the metrics say of a queue: ", backpressured 96 %;
// Slow Map busy 100 %", or "" without samples.
func queueEvidence(c analyze.Cause, where string) string {
	s := ""
	if c.UpstreamBackpressure != nil {
		s += fmt.Sprintf(", backpressured %.0f %%", 100**c.UpstreamBackpressure)
	}
	if c.Busy != nil {
		s += fmt.Sprintf("; %s busy %.0f %%", where, 100**c.Busy)
	}
	return s
}

func failureText(f analyze.FailureCluster) string {
	phase := ""
	switch {
	case f.JobLevel:
		phase = " [aborted: the job was stopping, failing or restarting]"
	case f.Phase != "":
		phase = fmt.Sprintf(" [during %s]", f.Phase)
	}
	by := ""
	if f.Task != "" {
		by = fmt.Sprintf("declined by %s; ", f.Task)
	}
	cause := ""
	if f.Cause != "" && f.Cause != f.Example {
		cause = " — cause: " + firstLine(f.Cause)
	}
	return fmt.Sprintf("%d×%s %s%s (%scheckpoints %s; first %s, last %s)",
		f.Count, phase, firstLine(f.Example), cause, by, joinIDs(f.CheckpointIDs), fmtTime(f.FirstMs), fmtTime(f.LastMs))
}

// The parts of a report's summary that the text and markdown reports both
// say, in the same words.

// countsText: "120 checkpoints from … to …: 118 completed, 1 failed, …".
func countsText(s analyze.Summary) string {
	return fmt.Sprintf("%d checkpoints from %s to %s: %d completed, %d failed, %d in progress%s, %d missed",
		s.Total, fmtTime(s.FirstMs), fmtTime(s.LastMs), s.Completed, s.Failed, s.InProgress, endedUnseenText(s), s.Missed)
}

// durationsText: "median 1.2 s, p90 …, p99 …, max …" of the completed
// checkpoints; "" without any.
func durationsText(s analyze.Summary) string {
	if s.Completed == 0 {
		return ""
	}
	return fmt.Sprintf("median %s, p90 %s, p99 %s, max %s",
		fmtMs(s.DurationP50), fmtMs(s.DurationP90), fmtMs(s.DurationP99), fmtMs(s.DurationMax))
}

// slowestText: "#12 at …, 4.1 s — <where the time went>", the id written
// with idFormat; "" without a slowest checkpoint.
func slowestText(idFormat string, c *analyze.CheckpointAnalysis) string {
	if c == nil {
		return ""
	}
	return fmt.Sprintf(idFormat+" at %s, %s — %s", c.ID, fmtTime(c.TriggerMs), fmtMs(c.DurationMs), bottleneckText(c))
}

// whyText: "<verdict> (<basis>) — <reason>", the verdict written with
// verdictFormat.
func whyText(verdictFormat string, c analyze.Correlation) string {
	return fmt.Sprintf(verdictFormat+"%s — %s", c.Verdict, basisText(c.Basis), c.Reason)
}

// fact is a line of a report's summary: "Label: text".
type fact struct{ label, text string }

// writeFacts writes the facts that are known (their text is not ""), each
// on a line after prefix.
func writeFacts(w io.Writer, prefix string, facts []fact) {
	for _, f := range facts {
		if f.text != "" {
			fmt.Fprintf(w, "%s%s: %s\n", prefix, f.label, f.text)
		}
	}
}

// episodeText says an episode of slow or failed checkpoints in one line:
// "checkpoints 21–37 from … to …: 15 slow, 2 ordinary among them; alignment
// in Map (12 of them); ended by the config change at …".
func episodeText(e analyze.Episode) string {
	s := fmt.Sprintf("checkpoints %d–%d", e.FirstID, e.LastID)
	if e.FirstID == e.LastID {
		s = fmt.Sprintf("checkpoint %d", e.FirstID)
	}
	s += fmt.Sprintf(" from %s to %s: %d slow, %d failed", fmtTime(e.StartMs), fmtTime(e.EndMs), e.Slow, e.Failed)
	if e.Ordinary > 0 {
		s += fmt.Sprintf(", %d ordinary among them", e.Ordinary)
	}
	if c := e.Cause; c != nil {
		s += fmt.Sprintf("; %s%s (%d of them)", c.Phase, inVertex(cmp.Or(c.VertexName, c.VertexID)), c.Checkpoints)
	}
	switch {
	case e.EndedBy != nil:
		s += fmt.Sprintf("; ended by the %s change at %s", e.EndedBy.Kind, fmtTime(e.EndedBy.TimeMs))
	case e.Open:
		s += "; still going at the last checkpoint"
	}
	return s
}

func inVertex(name string) string {
	if name == "" {
		return ""
	}
	return " in " + name
}

// changeText says a change and what followed it: "… config
// (execution.checkpointing.unaligned.enabled false → true): after …; end-to-end
// p90 fell from …".
func changeText(c analyze.ChangeEffect) string {
	d := c.Detail
	var what []string
	switch c.Kind {
	case model.ChangeConfig:
		for _, k := range d.Keys {
			what = append(what, fmt.Sprintf("%s %s → %s", k.Key, orDash(k.Old), orDash(k.New)))
		}
	case model.ChangeRescale:
		what = append(what, fmt.Sprintf("%s %d → %d", cmp.Or(d.VertexName, d.VertexID), d.From, d.To))
	case model.ChangeResubmit:
		what = append(what, "after run "+d.PreviousJobID)
		if d.Savepoint != "" {
			what = append(what, "from savepoint "+d.Savepoint)
		}
	case model.ChangeRestart:
		if d.Reason != "" {
			what = append(what, fmt.Sprintf("checkpoint %d aborted: %s", d.CheckpointID, d.Reason))
		}
	case model.ChangeNote:
		what = append(what, "“"+firstLine(d.Text)+"”")
	}
	detail := ""
	if len(what) > 0 {
		detail = " (" + strings.Join(what, "; ") + ")"
	}
	return fmt.Sprintf("%s %s%s: %s", fmtTime(c.TimeMs), c.Kind, detail, c.Effect.Finding)
}

// advised is an advice item with what became of it (nil: nothing known).
type advised struct {
	analyze.Advice
	follow *analyze.AdviceOutcome
}

func advisedOf(r app.Report) []advised {
	out := make([]advised, len(r.Advice))
	for i, a := range r.Advice {
		out[i].Advice = a
		if i < len(r.AdviceFollowUp) {
			out[i].follow = &r.AdviceFollowUp[i]
		}
	}
	return out
}

// followUpText says what became of an advice item: "applied: … set at …
// (…)" or "outdated: …"; "" while it stands.
func followUpText(f *analyze.AdviceOutcome) string {
	switch {
	case f == nil || f.Change == nil:
		return ""
	case f.Status == analyze.AdviceApplied && f.Effect != nil:
		return fmt.Sprintf("applied: %s was changed at %s; %s", f.Key, fmtTime(f.Change.TimeMs), f.Effect.Finding)
	case f.Status == analyze.AdviceOutdated:
		return fmt.Sprintf("outdated: its evidence lies before the %s change at %s, which ended that episode", f.Change.Kind,
			fmtTime(f.Change.TimeMs))
	}
	return ""
}

func writeReportText(w io.Writer, r app.Report, t *checkpointTally) {
	s := r.Summary
	fmt.Fprintf(w, "Job %s (%s) on %s, %s\n", r.Job.Name, r.Job.ID, r.Job.Cluster, r.Job.Engine)
	fmt.Fprintln(w, countsText(s))
	writeFacts(w, "", []fact{
		{"Reconciled", reconciliationText(r.Reconciliation)},
		{"JobManager log", jobManagerLogText(r.Reconciliation)},
		{"Configuration unknown", configUnknownText(r.Config)},
		{"Duration of completed ones", durationsText(s)},
		{"Slowest", slowestText("#%d", t.slowest)},
		{"Sink commits", t.commitsText()},
	})
	writeList(w, "Changes:\n", "  %s\n", r.Changes, changeText)
	writeList(w, "Repeatedly slow (episodes):\n", "  %s\n", r.Episodes, episodeText)
	writeList(w, "Failures:\n", "  %s\n", r.Failures, failureText)
	fmt.Fprintf(w, "Why: %s\n", whyText("%s", r.Correlation))
	writeList(w, "Advice:\n", "  %s\n", advisedOf(r), adviceText)
	writeList(w, "", "Note: %s\n", r.Notes, asText)
}

// writeList writes head and then each item's text as format says, nothing
// when there are no items.
func writeList[T any](w io.Writer, head, format string, items []T, text func(T) string) {
	if len(items) == 0 {
		return
	}
	fmt.Fprint(w, head)
	for _, it := range items {
		fmt.Fprintf(w, format, text(it))
	}
}

func asText(s string) string { return s }

// adviceText is an advice item in the text report: its title, text, keys,
// evidence and what became of it on indented lines.
func adviceText(a advised) string {
	s := fmt.Sprintf("[%s] %s\n    %s\n", a.Severity, a.Title, a.Text)
	if k := keysText(a.Advice); k != "" {
		s += fmt.Sprintf("    Keys: %s\n", k)
	}
	s += fmt.Sprintf("    Checkpoints: %s; see %s", orDash(joinIDs(a.Evidence.CheckpointIDs)), a.DocsURL)
	if f := followUpText(a.follow); f != "" {
		s += "\n    Since: " + f
	}
	return s
}

// keysText lists an advice item's keys with the values the engine
// reported: "execution.checkpointing.timeout = 10 s, … (not reported)".
func keysText(a analyze.Advice) string {
	parts := make([]string, len(a.ConfigKeys))
	for i, k := range a.ConfigKeys {
		if v, ok := a.Current[k]; ok {
			parts[i] = k + " = " + v
		} else {
			parts[i] = k + " (not reported)"
		}
	}
	return strings.Join(parts, ", ")
}

// mdText keeps text on one markdown line, its emphasis characters literal.
func mdText(s string) string {
	return strings.NewReplacer("*", "\\*", "_", "\\_", "`", "\\`", "[", "\\[", "]", "\\]").Replace(firstLine(s))
}

func mdEscape(s string) string { return strings.ReplaceAll(firstLine(s), "|", "\\|") }

func writeReportMarkdown(w io.Writer, r app.Report, t *checkpointTally) {
	s := r.Summary
	fmt.Fprintf(w, "# Checkpoints of %s\n\n", r.Job.Name)
	fmt.Fprintf(w, "- Job `%s` on `%s` (%s)\n", r.Job.ID, r.Job.Cluster, r.Job.Engine)
	fmt.Fprintf(w, "- %s\n", countsText(s))
	writeFacts(w, "- ", []fact{
		{"Reconciled", reconciliationText(r.Reconciliation)},
		{"Configuration unknown", mdText(configUnknownText(r.Config))},
		{"Duration", durationsText(s)},
		{"Slowest", slowestText("**#%d**", t.slowest)},
		{"Why", whyText("**%s**", r.Correlation)},
	})
	writeList(w, "\n## Changes\n\n", "- %s\n", r.Changes, func(c analyze.ChangeEffect) string { return mdText(changeText(c)) })
	writeList(w, "\n## Repeatedly slow (episodes)\n\n", "- %s\n", r.Episodes, func(e analyze.Episode) string { return mdText(episodeText(e)) })
	writeList(w, "\n## Failures\n\n| count | phase | checkpoints | message |\n|---|---|---|---|\n", "| %s |\n", r.Failures,
		func(f analyze.FailureCluster) string {
			return fmt.Sprintf("%d | %s | %s | %s", f.Count, mdEscape(orDash(string(f.Phase))), joinIDs(f.CheckpointIDs), mdEscape(f.Example))
		})
	writeList(w, "\n## Advice\n\n", "- %s\n", advisedOf(r), func(a advised) string {
		s := fmt.Sprintf("**%s** (%s): %s\n  - Keys: %s\n  - Checkpoints: %s — [docs](%s)", mdText(a.Title), a.Severity,
			mdText(a.Text), mdText(orDash(keysText(a.Advice))), orDash(joinIDs(a.Evidence.CheckpointIDs)), a.DocsURL)
		if f := followUpText(a.follow); f != "" {
			s += "\n  - Since: " + mdText(f)
		}
		return s
	})
	writeList(w, "\n## Notes\n\n", "- %s\n", r.Notes, asText)
}

func joinIDs(ids []int64) string {
	var b strings.Builder
	for i, id := range ids {
		if i > 0 {
			b.WriteString(", ")
		}
		if i == 10 {
			fmt.Fprintf(&b, "… (%d more)", len(ids)-10)
			break
		}
		fmt.Fprint(&b, id)
	}
	return b.String()
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// basisText says in a few words what a verdict rests on.
func basisText(b analyze.Basis) string {
	switch b {
	case analyze.BasisCorrelation:
		return " (by correlation)"
	case analyze.BasisSustained:
		return " (sustained: the slowest checkpoints wait for barriers under constant backpressure)"
	case analyze.BasisBottleneck:
		return " (by the slowest checkpoints' bottleneck)"
	case analyze.BasisSlowCheckpoints:
		return " (from the slow checkpoints' phases; too few checkpoints to correlate)"
	case analyze.BasisContrast:
		return " (the slow checkpoints against the others: far more backpressure in their windows)"
	}
	return ""
}
