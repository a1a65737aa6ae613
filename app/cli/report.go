package cli

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"checkpoint-explorer/app"
	"checkpoint-explorer/backend/analyze"
	"checkpoint-explorer/backend/model"
)

func runReport(ctx context.Context, g *globals, args []string) error {
	fs := newFlagSet(g, "report", "[--format text|json|markdown] (CAPTURE_FILE | --cluster NAME --job ID) [--from T] [--to T]",
		"Prints what is slow or failing, where, and since when, for a cached job or a capture file.")
	format := fs.String("format", "text", "text, json or markdown")
	cluster := fs.String("cluster", "", "cluster or capture name (with --job)")
	job := fs.String("job", "", "job id (optional with a capture file holding one job)")
	from := fs.String("from", "", "first trigger time (RFC 3339, epoch ms, or a duration ago)")
	to := fs.String("to", "", "last trigger time")
	files, err := parseAnywhere(fs, args)
	if err != nil {
		return err
	}
	switch *format {
	case "text", "json", "markdown":
	default:
		return fmt.Errorf("report: --format %q: choose text, json or markdown", *format)
	}
	now := time.Now()
	fromMs, err := parseTime(*from, now)
	if err != nil {
		return fmt.Errorf("report: --from: %w", err)
	}
	toMs, err := parseTime(*to, now)
	if err != nil {
		return fmt.Errorf("report: --to: %w", err)
	}
	opts := app.Options{NoSample: true, NoCollect: true}
	gg := *g
	if len(files) > 0 {
		if len(files) > 1 || *cluster != "" {
			return errors.New("report: give one capture file, or --cluster and --job")
		}
		// A capture is read into a throwaway cache: the user's cache is not touched.
		tmp, err := os.MkdirTemp("", "checkpoint-explorer-report-*")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		gg.dataDir = tmp
	} else if *cluster == "" || *job == "" {
		fs.Usage()
		return errors.New("report: give a capture file, or --cluster and --job")
	}
	svc, err := openApp(ctx, &gg, opts)
	if err != nil {
		return err
	}
	defer svc.Close()
	a := svc.App()
	if len(files) > 0 {
		res, err := a.OpenCapture(files[0])
		if err != nil {
			return err
		}
		jobs, err := a.ListJobs("")
		if err != nil {
			return err
		}
		var match []app.JobView
		for _, j := range jobs {
			if *job == "" || j.ID == *job {
				match = append(match, j)
			}
		}
		switch {
		case len(match) == 0 && *job != "":
			return fmt.Errorf("report: job %s is not in %s", *job, fs.Arg(0))
		case len(match) == 0:
			return fmt.Errorf("report: %s holds no job (sources: %s)", fs.Arg(0), strings.Join(res.Sources, ", "))
		case len(match) > 1:
			var ids []string
			for _, j := range match {
				ids = append(ids, j.ID)
			}
			return fmt.Errorf("report: %s holds %d jobs; choose one with --job (%s)", fs.Arg(0), len(match), strings.Join(ids, ", "))
		}
		*cluster, *job = match[0].Cluster, match[0].ID
	}
	r, err := a.Report(*cluster, *job, fromMs, toMs)
	if err != nil {
		return err
	}
	switch *format {
	case "json":
		return writeReportJSON(g.stdout, r)
	case "markdown":
		writeReportMarkdown(g.stdout, r)
	default:
		writeReportText(g.stdout, r)
	}
	return nil
}

// writeReportJSON writes r as an indented json.Encoder would, except that each
// per-checkpoint analysis is one compact line: over 100,000 checkpoints they
// are hundreds of MB of JSON, which encoding the report in one piece held in
// memory twice (the encoding, then its indented copy), and indenting them
// took a third of the time. A line per checkpoint also greps and diffs well.
func writeReportJSON(w io.Writer, r app.Report) error {
	whole := func() error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	}
	cps := r.Checkpoints
	if len(cps) == 0 {
		return whole()
	}
	r.Checkpoints = nil
	head, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	// The top-level field, at the top level's indentation: no string value
	// can hold it (its quotes would be escaped).
	marker := []byte("\n  \"checkpoints\": null")
	i := bytes.Index(head, marker)
	if i < 0 {
		r.Checkpoints = cps
		return whole()
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	bw.Write(head[:i+len(marker)-len("null")])
	bw.WriteString("[\n")
	if err := writeCheckpointLines(bw, cps); err != nil {
		return err
	}
	bw.WriteString("  ]")
	bw.Write(head[i+len(marker):])
	bw.WriteByte('\n')
	return bw.Flush()
}

// writeCheckpointLines writes each analysis as an indented line, all but the
// last followed by a comma. Chunks are encoded on every core and written in
// order.
func writeCheckpointLines(w io.Writer, cps []analyze.CheckpointAnalysis) error {
	const chunk = 512
	type result struct {
		b   []byte
		err error
	}
	encode := func(lo, hi int) result {
		var buf bytes.Buffer
		for k := lo; k < hi; k++ {
			b, err := json.Marshal(&cps[k])
			if err != nil {
				return result{err: err}
			}
			buf.WriteString("    ")
			buf.Write(b)
			if k < len(cps)-1 {
				buf.WriteByte(',')
			}
			buf.WriteByte('\n')
		}
		return result{b: buf.Bytes()}
	}
	// A bounded queue of pending chunks keeps memory at a few of them.
	pending := make(chan chan result, runtime.GOMAXPROCS(0))
	go func() {
		defer close(pending)
		for lo := 0; lo < len(cps); lo += chunk {
			ch := make(chan result, 1)
			pending <- ch
			go func(lo, hi int) { ch <- encode(lo, hi) }(lo, min(lo+chunk, len(cps)))
		}
	}()
	var err error
	for ch := range pending {
		res := <-ch
		if err == nil {
			err = res.err
		}
		if err == nil {
			_, err = w.Write(res.b)
		}
	}
	return err
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
			s += fmt.Sprintf(" (%d failed before they got an id)", r.WithoutID)
		}
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

// commitsText sums up the sink commits that followed the checkpoints:
// "18 checkpoints with a commit after them; commit median 1.9 s, max 1.9 s;
// 40 files, 12000 records"; "" without committer metrics.
func commitsText(r app.Report) string {
	var durs []int64
	var files, records int64
	with := 0
	seen := map[int64]bool{} // a commit shared by the checkpoints of one window counts once
	for _, c := range r.Checkpoints {
		cm := c.Commit
		if cm == nil {
			continue
		}
		with++
		if seen[cm.AtMs] {
			continue
		}
		seen[cm.AtMs] = true
		if cm.DurationMs != nil {
			durs = append(durs, *cm.DurationMs)
		}
		if cm.Files != nil {
			files += *cm.Files
		}
		if cm.Records != nil {
			records += *cm.Records
		}
	}
	if with == 0 {
		return ""
	}
	s := fmt.Sprintf("%d checkpoints with a commit after them (%d sampled windows)", with, len(seen))
	if len(durs) > 0 {
		slices.Sort(durs)
		s += fmt.Sprintf("; last commit's duration median %s, max %s", fmtMs(durs[len(durs)/2]), fmtMs(durs[len(durs)-1]))
	}
	if files > 0 || records > 0 {
		s += fmt.Sprintf("; %d files, %d records committed", files, records)
	}
	return s
}

// slowest returns the longest checkpoint of the report, or nil.
func slowest(r app.Report) *analyze.CheckpointAnalysis {
	var best *analyze.CheckpointAnalysis
	for i := range r.Checkpoints {
		c := &r.Checkpoints[i]
		if best == nil || c.DurationMs > best.DurationMs {
			best = c
		}
	}
	return best
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

func slowRunText(s analyze.SlowRun) string {
	where := s.VertexName
	if where == "" {
		where = s.VertexID
	}
	if where != "" {
		where = " in " + where
	}
	return fmt.Sprintf("%s%s: %d checkpoints (%s) from %s to %s, up to %s against a usual %s",
		s.Phase, where, len(s.CheckpointIDs), joinIDs(s.CheckpointIDs), fmtTime(s.FirstMs), fmtTime(s.LastMs),
		fmtMs(s.MaxMs), fmtMs(int64(s.BaselineMedianMs)))
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

func writeReportText(w io.Writer, r app.Report) {
	s := r.Summary
	fmt.Fprintf(w, "Job %s (%s) on %s, %s\n", r.Job.Name, r.Job.ID, r.Job.Cluster, r.Job.Engine)
	fmt.Fprintf(w, "%d checkpoints from %s to %s: %d completed, %d failed, %d in progress, %d missed\n",
		s.Total, fmtTime(s.FirstMs), fmtTime(s.LastMs), s.Completed, s.Failed, s.InProgress, s.Missed)
	if rc := reconciliationText(r.Reconciliation); rc != "" {
		fmt.Fprintf(w, "Reconciled: %s\n", rc)
	}
	if lt := jobManagerLogText(r.Reconciliation); lt != "" {
		fmt.Fprintf(w, "JobManager log: %s\n", lt)
	}
	if s.Completed > 0 {
		fmt.Fprintf(w, "Duration of completed ones: median %s, p90 %s, p99 %s, max %s\n",
			fmtMs(s.DurationP50), fmtMs(s.DurationP90), fmtMs(s.DurationP99), fmtMs(s.DurationMax))
	}
	if c := slowest(r); c != nil {
		fmt.Fprintf(w, "Slowest: #%d at %s, %s — %s\n", c.ID, fmtTime(c.TriggerMs), fmtMs(c.DurationMs), bottleneckText(c))
	}
	if sc := commitsText(r); sc != "" {
		fmt.Fprintf(w, "Sink commits: %s\n", sc)
	}
	if len(r.SlowPhases)+len(r.SlowCheckpoints) > 0 {
		fmt.Fprintln(w, "Repeatedly slow:")
		for _, sr := range append(append([]analyze.SlowRun{}, r.SlowPhases...), r.SlowCheckpoints...) {
			fmt.Fprintf(w, "  %s\n", slowRunText(sr))
		}
	}
	if len(r.Failures) > 0 {
		fmt.Fprintln(w, "Failures:")
		for _, f := range r.Failures {
			fmt.Fprintf(w, "  %s\n", failureText(f))
		}
	}
	fmt.Fprintf(w, "Why: %s%s — %s\n", r.Correlation.Verdict, basisText(r.Correlation.Basis), r.Correlation.Reason)
	for _, n := range r.Notes {
		fmt.Fprintf(w, "Note: %s\n", n)
	}
}

func mdEscape(s string) string { return strings.ReplaceAll(firstLine(s), "|", "\\|") }

func writeReportMarkdown(w io.Writer, r app.Report) {
	s := r.Summary
	fmt.Fprintf(w, "# Checkpoints of %s\n\n", r.Job.Name)
	fmt.Fprintf(w, "- Job `%s` on `%s` (%s)\n", r.Job.ID, r.Job.Cluster, r.Job.Engine)
	fmt.Fprintf(w, "- %d checkpoints from %s to %s: %d completed, %d failed, %d in progress, %d missed\n",
		s.Total, fmtTime(s.FirstMs), fmtTime(s.LastMs), s.Completed, s.Failed, s.InProgress, s.Missed)
	if rc := reconciliationText(r.Reconciliation); rc != "" {
		fmt.Fprintf(w, "- Reconciled: %s\n", rc)
	}
	if s.Completed > 0 {
		fmt.Fprintf(w, "- Duration: median %s, p90 %s, p99 %s, max %s\n",
			fmtMs(s.DurationP50), fmtMs(s.DurationP90), fmtMs(s.DurationP99), fmtMs(s.DurationMax))
	}
	if c := slowest(r); c != nil {
		fmt.Fprintf(w, "- Slowest: **#%d** at %s, %s — %s\n", c.ID, fmtTime(c.TriggerMs), fmtMs(c.DurationMs), bottleneckText(c))
	}
	fmt.Fprintf(w, "- Why: **%s**%s — %s\n", r.Correlation.Verdict, basisText(r.Correlation.Basis), r.Correlation.Reason)
	if runs := append(append([]analyze.SlowRun{}, r.SlowPhases...), r.SlowCheckpoints...); len(runs) > 0 {
		fmt.Fprintf(w, "\n## Repeatedly slow\n\n")
		for _, sr := range runs {
			fmt.Fprintf(w, "- %s\n", slowRunText(sr))
		}
	}
	if len(r.Failures) > 0 {
		fmt.Fprintf(w, "\n## Failures\n\n| count | phase | checkpoints | message |\n|---|---|---|---|\n")
		for _, f := range r.Failures {
			fmt.Fprintf(w, "| %d | %s | %s | %s |\n", f.Count, mdEscape(orDash(string(f.Phase))), joinIDs(f.CheckpointIDs), mdEscape(f.Example))
		}
	}
	if len(r.Notes) > 0 {
		fmt.Fprintf(w, "\n## Notes\n\n")
		for _, n := range r.Notes {
			fmt.Fprintf(w, "- %s\n", n)
		}
	}
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
	}
	return ""
}
