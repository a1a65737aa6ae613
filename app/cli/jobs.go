package cli

import (
	"encoding/json"
	"fmt"
	"slices"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"checkpoint-explorer/app"
)

type jobsFlags struct{ cluster, format, split, join string }

var jobsFormats = formats{"text", "json"}

func jobsCmd(g *globals) *cobra.Command {
	var f jobsFlags
	cmd := &cobra.Command{
		Use:   "jobs [flags]",
		Short: "list the cached jobs and their ids",
		Long: `Lists the jobs the cache holds, of every cluster and opened capture: cluster, engine, job id, name,
state, how many checkpoints are cached and when the newest was triggered. The ids are what 'report
--cluster NAME --job ID' and 'export' take.

With --split ID a run the app matched by name with the earlier runs of that name (a resubmission)
becomes a logical job of its own in the fleet, 'status' and the job's changes; --join ID matches it
again (docs/fleet.md, "Jobs across restarts").`,
		Example: `  checkpoint-explorer jobs
  checkpoint-explorer jobs --cluster prod
  checkpoint-explorer jobs --format json | jq -r '.jobs[] | select(.state == "RUNNING") | .id'
  checkpoint-explorer jobs --cluster prod --split 3f1c…`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := jobsFormats.check(cmd, f.format); err != nil {
				return err
			}
			if f.split != "" || f.join != "" {
				if f.cluster == "" || f.split != "" && f.join != "" {
					return usageErrorf(cmd, "--split and --join take one job id each, one of them at a time, with --cluster")
				}
				return withCache(cmd.Context(), g, func(svc *app.Service) error { return splitRun(g, svc.App(), f) })
			}
			return withCache(cmd.Context(), g, func(svc *app.Service) error { return listJobs(g, svc.App(), f) })
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&f.cluster, "cluster", "", "only the jobs of this cluster or capture")
	jobsFormats.addFlag(cmd, &f.format)
	fs.StringVar(&f.split, "split", "", "split this run (a job id of --cluster) from the earlier runs of its name")
	fs.StringVar(&f.join, "join", "", "match a run split before (a job id of --cluster) with the earlier runs of its name again")
	flagGroup(fs, "What to list", "cluster")
	flagGroup(fs, "Runs of one job", "split", "join")
	return cmd
}

// jobLine is a job as `jobs --format json` prints it (docs/user-guide.md).
type jobLine struct {
	Cluster     string `json:"cluster"`
	Engine      string `json:"engine"`
	ID          string `json:"id"`
	Name        string `json:"name"`
	State       string `json:"state"`
	Checkpoints int    `json:"checkpoints"`
	// NewestMs is when the newest cached checkpoint was triggered (0: none).
	NewestMs int64 `json:"newest_trigger_ms"`
}

func listJobs(g *globals, a *app.App, f jobsFlags) error {
	jobs, err := a.ListJobs(f.cluster)
	if err != nil {
		return err
	}
	if len(jobs) == 0 && f.cluster != "" {
		if err := knownSource(a, "jobs", f.cluster); err != nil {
			return err
		}
	}
	lines := make([]jobLine, len(jobs))
	for i, j := range jobs {
		lines[i] = jobLine{Cluster: j.Cluster, Engine: string(j.Engine), ID: j.ID, Name: j.Name, State: j.State,
			Checkpoints: j.Total, NewestMs: j.LastTriggerMs}
	}
	if f.format == "json" {
		enc := json.NewEncoder(g.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(map[string]any{"jobs": lines})
	}
	if len(lines) == 0 {
		fmt.Fprintln(g.stdout, "No job is cached: add a cluster (clusters add) or import a capture.")
		return nil
	}
	tw := tabwriter.NewWriter(g.stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CLUSTER\tENGINE\tJOB\tNAME\tSTATE\tCHECKPOINTS\tNEWEST")
	for _, j := range lines {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%s\n", j.Cluster, orDash(j.Engine), j.ID, orDash(j.Name), orDash(j.State),
			j.Checkpoints, fmtTime(j.NewestMs))
	}
	return tw.Flush()
}

// knownSource is nil when name is a configured cluster or an opened capture,
// else the error command gives for it.
func knownSource(a *app.App, command, name string) error {
	list, err := a.ListClusters()
	if err != nil {
		return err
	}
	if slices.ContainsFunc(list, func(s app.SourceView) bool { return s.Name == name }) {
		return nil
	}
	return fmt.Errorf("%s: no cluster or capture is named %q (see 'checkpoint-explorer clusters list')", command, name)
}

// splitRun splits a run from the earlier runs of its name, or joins it again.
func splitRun(g *globals, a *app.App, f jobsFlags) error {
	id, split := f.split, true
	if id == "" {
		id, split = f.join, false
	}
	if err := a.SplitRun(f.cluster, id, split); err != nil {
		return err
	}
	if split {
		fmt.Fprintf(g.stdout, "%s on %s is a logical job of its own now: the earlier runs of its name keep their row\n", id, f.cluster)
	} else {
		fmt.Fprintf(g.stdout, "%s on %s is matched with the earlier runs of its name again\n", id, f.cluster)
	}
	return nil
}
