package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"checkpoint-explorer/app"
	"checkpoint-explorer/backend/model"
)

func clustersCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "clusters COMMAND [flags]",
		Short: "list, add or remove clusters; show or set retention",
		Long:  "Lists, adds and removes the clusters the app polls (and the captures opened); shows or sets how long\nthe cache keeps checkpoints.",
		Example: `  checkpoint-explorer clusters list
  checkpoint-explorer clusters add --name prod --url http://jobmanager:8081 --prometheus http://prom:9090
  CE_PASSWORD=… checkpoint-explorer clusters add --name st --engine seatunnel --url https://st:8080 --auth basic --user ops
  checkpoint-explorer clusters remove prod
  checkpoint-explorer clusters retention --max-age 30d --max-db-size 512MiB`,
		Args: cobra.ArbitraryArgs,
		RunE: groupRunE("list", "add", "remove", "retention"),
	}
	cmd.AddCommand(clustersListCmd(g), clustersAddCmd(g), clustersRemoveCmd(g), clustersRetentionCmd(g))
	for _, c := range cmd.Commands() {
		c.Flags().SortFlags = false
	}
	return cmd
}

func clustersListCmd(g *globals) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:     "list [flags]",
		Short:   "list clusters, opened captures, the cache and its retention",
		Long:    "Lists clusters, opened captures, the cache size and the retention limits.",
		Example: "  checkpoint-explorer clusters list\n  checkpoint-explorer clusters list --json | jq '.retention.checkpoints'",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withCache(cmd.Context(), g, func(svc *app.Service) error { return clustersList(g, svc.App(), asJSON) })
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// clustersList prints the clusters and opened captures, the cache and its
// retention: a table, or JSON.
func clustersList(g *globals, a *app.App, asJSON bool) error {
	list, err := a.ListClusters()
	if err != nil {
		return err
	}
	ret, err := a.Retention()
	if err != nil {
		return err
	}
	if asJSON {
		enc := json.NewEncoder(g.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(map[string]any{"clusters": list, "retention": ret})
	}
	tw := tabwriter.NewWriter(g.stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tKIND\tENGINE\tURL\tAUTH\tPROMETHEUS\tTRACES\tBUDGET")
	for _, c := range list {
		traces := orDash(c.TracesURL)
		if c.TracesURL != "" {
			traces += " (" + c.TracesService + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", c.Name, c.Kind, c.Engine, orDash(c.BaseURL), c.AuthKind, orDash(c.PrometheusURL), traces, budgetText(c))
	}
	tw.Flush()
	fmt.Fprintf(g.stdout, "\nCache %s: %s of %s, %d checkpoints (%d subtask rows) in %d jobs\n",
		ret.Path, app.HumanBytes(ret.FileBytes), limitText(ret.Limits.MaxBytes, app.HumanBytes), ret.Checkpoints, ret.SubtaskRows, ret.Jobs)
	fmt.Fprintf(g.stdout, "Retention: at most %s checkpoints per job, kept %s\n",
		limitText(int64(ret.Limits.MaxCheckpointsPerJob), func(n int64) string { return strconv.FormatInt(n, 10) }),
		limitText(ret.Limits.MaxAgeMs, func(ms int64) string { return "for " + (time.Duration(ms) * time.Millisecond).String() }))
	return nil
}

// budgetText shows a configured cluster's request budget ("20/s, 4 in flight");
// opened captures are not polled and have none.
func budgetText(c app.SourceView) string {
	if c.ReadOnly {
		return "-"
	}
	rps, inFlight := app.RequestBudget(c.RequestsPerSecond, c.MaxInFlight)
	return fmt.Sprintf("%s/s, %d in flight", strconv.FormatFloat(rps, 'f', -1, 64), inFlight)
}

type clustersAddFlags struct {
	in                          app.ClusterInput
	engine, auth                string
	pwStdin, tokStdin, testConn bool
}

func clustersAddCmd(g *globals) *cobra.Command {
	var f clustersAddFlags
	cmd := &cobra.Command{
		Use:   "add [flags] --name NAME --url URL",
		Short: "add a cluster, or replace the one of the same name",
		Long: `Adds a cluster, or replaces the one of the same name; the connection is tested first (--test=false
saves without). Secrets are read from stdin or from $CE_PASSWORD / $CE_TOKEN, never from the
command line.`,
		Example: `  checkpoint-explorer clusters add --name prod --url http://jobmanager:8081
  checkpoint-explorer clusters add --name prod --url http://jm:8081 --prometheus http://prom:9090 \
      --lane gc=metric:Status.JVM.GarbageCollector.All.Time --requests-per-second 5
  checkpoint-explorer clusters add --name prod --url http://jm:8081 \
      --traces-url http://jaeger:16686 --traces-service flink-prod
  printf '%s\n' "$TOKEN" | checkpoint-explorer clusters add --name st --engine seatunnel \
      --url https://st:8080 --auth bearer --token-stdin`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return clustersAdd(cmd.Context(), g, &f) },
	}
	fs := cmd.Flags()
	in := &f.in
	fs.StringVar(&in.Name, "name", "", "a name for the cluster")
	fs.StringVar(&f.engine, "engine", "flink", "flink or seatunnel")
	fs.StringVar(&in.BaseURL, "url", "", "REST base URL (Flink: the JobManager's; SeaTunnel: the REST v2 port)")
	fs.BoolVar(&f.testConn, "test", true, "test the connection before saving")
	fs.StringVar(&in.PrometheusURL, "prometheus", "", "optional Prometheus server URL")
	fs.Var(funcValue{"url", func(v string) error {
		in.ReporterURLs = append(in.ReporterURLs, v)
		return nil
	}}, "reporter", "a Flink Prometheus reporter endpoint to scrape for backpressure (repeat for each JobManager and TaskManager)")
	fs.Var(funcValue{"key=name", func(v string) error {
		k, n, ok := strings.Cut(v, "=")
		if !ok || k == "" {
			return fmt.Errorf("want KEY=NAME, got %q", v)
		}
		if in.PrometheusNames == nil {
			in.PrometheusNames = map[string]string{}
		}
		in.PrometheusNames[k] = n
		return nil
	}}, "prometheus-name", "a metric or label name of a relabelled setup (keys in docs/prometheus.md; repeat)")
	addLaneFlag(fs, &in.Lanes)
	addJobManagerLogFlag(fs, &in.JobManagerLog)
	fs.StringVar(&in.TracesURL, "traces-url", "", "optional Jaeger query URL Flink's trace reporter sends checkpoint spans to (history beyond REST)")
	fs.StringVar(&in.TracesService, "traces-service", "", "with --traces-url: the service name of those spans (traces.reporter.<name>.service.name)")
	fs.StringVar(&f.auth, "auth", "none", "none, basic or bearer")
	fs.StringVar(&in.Auth.Username, "user", "", "user name for basic auth")
	addSecretFlags(fs, &f.pwStdin, &f.tokStdin)
	fs.StringVar(&in.CAFile, "ca-file", "", "PEM file of a custom CA")
	fs.BoolVar(&in.InsecureSkipVerify, "insecure", false, "skip TLS certificate verification")
	addBudgetFlags(fs, &in.RequestsPerSecond, &in.MaxInFlight)
	flagGroup(fs, "The cluster", "name", "engine", "url", "test")
	flagGroup(fs, "Metrics and logs", "prometheus", "reporter", "prometheus-name", "lane", "jobmanager-log")
	flagGroup(fs, "Traces", "traces-url", "traces-service")
	engineFlagGroups(cmd, fs)
	return cmd
}

func clustersAdd(ctx context.Context, g *globals, f *clustersAddFlags) error {
	in := f.in
	in.Engine = model.Engine(f.engine)
	if in.Engine != model.EngineFlink && in.JobManagerLog == model.JobManagerLogAuto {
		in.JobManagerLog = "" // the default applies to Flink only
	}
	in.Auth.Kind = model.AuthKind(f.auth)
	if err := readAuthSecret(&in.Auth, f.pwStdin, f.tokStdin); err != nil {
		return err
	}
	return withCache(ctx, g, func(svc *app.Service) error {
		a := svc.App()
		if f.testConn {
			res, err := a.TestConnection(in)
			if err != nil {
				return err
			}
			if !res.OK {
				return fmt.Errorf("clusters add: connection test failed: %s (use --test=false to save anyway)", res.Message)
			}
			fmt.Fprintf(g.stdout, "Connected: %s %s, %d jobs\n", in.Engine, res.Version, res.Jobs)
		}
		if err := a.SaveCluster(in); err != nil {
			return err
		}
		fmt.Fprintf(g.stdout, "Saved cluster %q\n", in.Name)
		return nil
	})
}

func clustersRemoveCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:     "remove NAME",
		Short:   "remove a cluster or an opened capture and its cached data",
		Long:    "Removes a cluster or an opened capture and its cached data.",
		Example: "  checkpoint-explorer clusters remove prod\n  checkpoint-explorer clusters remove 'capture: recorded'",
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageErrorf(cmd, "clusters remove: give one name")
			}
			return withCache(cmd.Context(), g, func(svc *app.Service) error { return clustersRemove(g, svc.App(), args[0]) })
		},
	}
}

func clustersRemove(g *globals, a *app.App, name string) error {
	if err := a.RemoveCluster(name); err != nil {
		return err
	}
	fmt.Fprintf(g.stdout, "Removed %q\n", name)
	return nil
}

type retentionFlags struct {
	maxCount        int
	maxAge, maxSize string
}

func clustersRetentionCmd(g *globals) *cobra.Command {
	var f retentionFlags
	cmd := &cobra.Command{
		Use:     "retention [--max-checkpoints N] [--max-age DURATION] [--max-db-size SIZE]",
		Short:   "show the retention limits, or set them",
		Long:    "Shows the retention limits, or sets those given (0 = unlimited) and applies them at once.",
		Example: "  checkpoint-explorer clusters retention\n  checkpoint-explorer clusters retention --max-checkpoints 50000 --max-age 30d --max-db-size 2GiB",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var lim retentionChange
			if f.maxAge != "" {
				d, err := parseDuration(f.maxAge)
				if err != nil {
					return usageErrorf(cmd, "clusters retention: --max-age: %w: give e.g. 30d or 12h", err)
				}
				ms := d.Milliseconds()
				lim.maxAgeMs = &ms
			}
			if f.maxSize != "" {
				n, err := parseSize(f.maxSize)
				if err != nil {
					return usageErrorf(cmd, "clusters retention: --max-db-size: %w", err)
				}
				lim.maxBytes = &n
			}
			if f.maxCount >= 0 {
				lim.maxCount = &f.maxCount
			}
			return withCache(cmd.Context(), g, func(svc *app.Service) error { return clustersRetention(g, svc.App(), lim) })
		},
	}
	fs := cmd.Flags()
	fs.IntVar(&f.maxCount, "max-checkpoints", -1, "checkpoints kept per job")
	fs.StringVar(&f.maxAge, "max-age", "", "how long checkpoints are kept (e.g. 30d, 12h)")
	fs.StringVar(&f.maxSize, "max-db-size", "", "cap on the cache file (e.g. 512MiB)")
	return cmd
}

// retentionChange is the limits given; nil ones stay as they are.
type retentionChange struct {
	maxCount           *int
	maxAgeMs, maxBytes *int64
}

// clustersRetention applies the limits given and prints those in force.
func clustersRetention(g *globals, a *app.App, ch retentionChange) error {
	cur, err := a.Retention()
	if err != nil {
		return err
	}
	lim := cur.Limits
	changed := false
	if ch.maxCount != nil {
		lim.MaxCheckpointsPerJob, changed = *ch.maxCount, true
	}
	if ch.maxAgeMs != nil {
		lim.MaxAgeMs, changed = *ch.maxAgeMs, true
	}
	if ch.maxBytes != nil {
		lim.MaxBytes, changed = *ch.maxBytes, true
	}
	if changed {
		if err := a.SetRetention(lim); err != nil {
			return err
		}
		if cur, err = a.Retention(); err != nil {
			return err
		}
	}
	l := cur.Limits
	fmt.Fprintf(g.stdout, "max checkpoints per job: %s\nmax age: %s\nmax cache size: %s\ncache now: %s, %d checkpoints\n",
		limitText(int64(l.MaxCheckpointsPerJob), func(n int64) string { return strconv.FormatInt(n, 10) }),
		limitText(l.MaxAgeMs, func(ms int64) string { return (time.Duration(ms) * time.Millisecond).String() }),
		limitText(l.MaxBytes, app.HumanBytes), app.HumanBytes(cur.FileBytes), cur.Checkpoints)
	return nil
}
