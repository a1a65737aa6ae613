package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"checkpoint-explorer/app"
	"checkpoint-explorer/backend/analyze"
)

type statusFlags struct{ cluster, window, format string }

var statusFormats = formats{"text", "json", "markdown"}

func statusCmd(g *globals) *cobra.Command {
	f := statusFlags{window: "1h"}
	cmd := &cobra.Command{
		Use:   "status [flags]",
		Short: "rank every job by checkpoint health: which needs attention, since when",
		Long: `Ranks the jobs of every cluster and opened capture by checkpoint health over the window: failing,
slow, slower than usual, healthy or without data (docs/fleet.md), the most urgent first, with
since when. A capture's jobs are judged over the window before their newest checkpoint. Exits 3
when a job needs attention (failing, slow or slower than usual), 0 otherwise: a cron job or a CI
gate can run it.`,
		Example: `  checkpoint-explorer status
  checkpoint-explorer status --cluster prod --window 15m || notify-send "checkpoints need attention"
  checkpoint-explorer status --format json | jq '.jobs[] | select(.attention == "failing") | .job_id'`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runStatus(cmd, g, f) },
	}
	fs := cmd.Flags()
	fs.StringVar(&f.cluster, "cluster", "", "only the jobs of this cluster or capture")
	fs.StringVar(&f.window, "window", f.window, "how far back to judge: a duration (15m, 1h, 1d)")
	statusFormats.addFlag(cmd, &f.format)
	flagGroup(fs, "What to judge", "cluster", "window")
	return cmd
}

func runStatus(cmd *cobra.Command, g *globals, f statusFlags) error {
	if err := statusFormats.check(cmd, f.format); err != nil {
		return err
	}
	window, err := parseDuration(f.window)
	if err != nil || window < time.Second {
		return usageErrorf(cmd, "status: --window %q: give a duration of a second or more (15m, 1h, 1d)", f.window)
	}
	return withCache(cmd.Context(), g, func(svc *app.Service) error {
		a := svc.App()
		if f.cluster != "" {
			if err := knownSource(a, "status", f.cluster); err != nil {
				return err
			}
		}
		fl, err := a.Fleet(app.FleetRequest{WindowMs: window.Milliseconds(), Cluster: f.cluster})
		if err != nil {
			return err
		}
		switch f.format {
		case "json":
			enc := json.NewEncoder(g.stdout)
			enc.SetIndent("", "  ")
			if err := enc.Encode(fl); err != nil {
				return err
			}
		case "markdown":
			writeStatusMarkdown(g.stdout, fl)
		default:
			writeStatusText(g.stdout, fl)
		}
		n := 0
		for _, j := range fl.Jobs {
			if j.Attention.NeedsAttention() {
				n++
			}
		}
		if n > 0 {
			return attentionError{n}
		}
		return nil
	})
}

// attentionWords are the attention levels, most urgent first, as the text
// and markdown say them.
var attentionWords = []struct {
	a    analyze.Attention
	word string
}{
	{analyze.AttentionFailing, "failing"},
	{analyze.AttentionSlow, "slow"},
	{analyze.AttentionSlowerThanUsual, "slower than usual"},
	{analyze.AttentionHealthy, "healthy"},
	{analyze.AttentionNoData, "no data"},
}

func attentionWord(a analyze.Attention) string {
	for _, w := range attentionWords {
		if w.a == a {
			return w.word
		}
	}
	return string(a)
}

// windowText is a window as a person writes it: "1h", "1h30m", "15m", "45s".
func windowText(ms int64) string {
	s := (time.Duration(ms) * time.Millisecond).String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// statusSummary: "over the last 1h, 4 jobs: 1 failing, 3 healthy".
func statusSummary(f analyze.Fleet) string {
	var parts []string
	for _, w := range attentionWords {
		n := 0
		for _, j := range f.Jobs {
			if j.Attention == w.a {
				n++
			}
		}
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, w.word))
		}
	}
	s := fmt.Sprintf("over the last %s, %d jobs", windowText(f.WindowMs), len(f.Jobs))
	if len(parts) > 0 {
		s += ": " + strings.Join(parts, ", ")
	}
	return s
}

// statusCells are a fleet row's cells, as the text and markdown tables show
// them (statusHeader's columns).
func statusCells(j analyze.FleetJob) []string {
	ms := func(p *int64) string {
		if p == nil {
			return "-"
		}
		return fmtMs(*p)
	}
	since := "-"
	if j.SinceMs != nil {
		since = fmtTime(*j.SinceMs)
	}
	failed := fmt.Sprint(j.Failed)
	if j.Expired > 0 {
		failed += fmt.Sprintf(" (%d expired)", j.Expired)
	}
	name := orDash(j.Name)
	if len(j.Runs) > 1 {
		name += fmt.Sprintf(" (%d runs)", len(j.Runs))
	}
	return []string{attentionWord(j.Attention), since, j.Cluster, orDash(string(j.Engine)), name, j.JobID,
		orDash(j.State), fmt.Sprint(j.Completed), failed, fmt.Sprint(j.Missed), ms(j.P50Ms), ms(j.P90Ms),
		ms(j.BaselineP90Ms), string(j.Verdict), orDash(truncateText(firstLine(j.LatestFailure), 80))}
}

var statusHeader = []string{"attention", "since", "cluster", "engine", "name", "job", "state", "completed", "failed",
	"missed", "p50", "p90", "baseline p90", "verdict", "latest failure"}

func writeStatusText(w io.Writer, f analyze.Fleet) {
	if len(f.Jobs) == 0 {
		fmt.Fprintln(w, "No job is cached: add a cluster (clusters add) or import a capture.")
		return
	}
	fmt.Fprintf(w, "Checkpoint health %s\n", statusSummary(f))
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, strings.ToUpper(strings.Join(statusHeader, "\t")))
	for _, j := range f.Jobs {
		fmt.Fprintln(tw, strings.Join(statusCells(j), "\t"))
	}
	tw.Flush()
}

func writeStatusMarkdown(w io.Writer, f analyze.Fleet) {
	fmt.Fprintf(w, "# Checkpoint health\n\n%s.\n", strings.ToUpper(statusSummary(f)[:1])+statusSummary(f)[1:])
	if len(f.Jobs) == 0 {
		return
	}
	fmt.Fprintf(w, "\n| %s |\n|%s\n", strings.Join(statusHeader, " | "), strings.Repeat("---|", len(statusHeader)))
	for _, j := range f.Jobs {
		cells := statusCells(j)
		for i := range cells {
			cells[i] = mdEscape(cells[i])
		}
		cells[0] = "**" + cells[0] + "**"
		cells[5] = "`" + cells[5] + "`"
		if j.LatestFailure != "" {
			// A code span: signatures hold <n> and <id>, which would be HTML.
			cells[14] = "`" + strings.ReplaceAll(cells[14], "`", "'") + "`"
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
	}
}

// truncateText cuts s to n runes, with an ellipsis when it was longer.
func truncateText(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
