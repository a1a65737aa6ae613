package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"checkpoint-explorer/app"
	"checkpoint-explorer/backend/model"
)

func runClusters(ctx context.Context, g *globals, args []string) error {
	if len(args) == 0 || args[0] == "--help" || args[0] == "-h" || args[0] == "help" {
		fmt.Fprint(g.stderr, `Usage:
  checkpoint-explorer clusters list
  checkpoint-explorer clusters add --name N --engine flink|seatunnel --url URL [--prometheus URL]
        [--auth none|basic|bearer] [--user U] [--password-stdin | --token-stdin] [--ca-file F] [--insecure]
        [--reporter URL]... [--prometheus-name KEY=NAME]... [--requests-per-second R] [--max-in-flight N]
        [--jobmanager-log auto|on|off] [--lane NAME=promql:QUERY|NAME=metric:METRIC]...
        (secrets are read from stdin or from $CE_PASSWORD / $CE_TOKEN, never from the command line)
  checkpoint-explorer clusters remove NAME
  checkpoint-explorer clusters retention [--max-checkpoints N] [--max-age 30d] [--max-db-size 512MiB]
`)
		if len(args) == 0 {
			return errors.New("clusters: give a subcommand")
		}
		return flag.ErrHelp
	}
	switch args[0] {
	case "list":
		return clustersList(ctx, g, args[1:])
	case "add":
		return clustersAdd(ctx, g, args[1:])
	case "remove":
		return clustersRemove(ctx, g, args[1:])
	case "retention":
		return clustersRetention(ctx, g, args[1:])
	}
	return fmt.Errorf("clusters: unknown subcommand %q (list, add, remove, retention)", args[0])
}

func clustersList(ctx context.Context, g *globals, args []string) error {
	fs := newFlagSet(g, "clusters list", "", "Lists clusters, opened captures, the cache size and the retention limits.")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := fs.Parse(args); err != nil {
		return err
	}
	svc, err := openApp(ctx, g, app.Options{NoSample: true, NoCollect: true})
	if err != nil {
		return err
	}
	defer svc.Close()
	a := svc.App()
	list, err := a.ListClusters()
	if err != nil {
		return err
	}
	ret, err := a.Retention()
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(g.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(map[string]any{"clusters": list, "retention": ret})
	}
	tw := tabwriter.NewWriter(g.stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tKIND\tENGINE\tURL\tAUTH\tPROMETHEUS\tBUDGET")
	for _, c := range list {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", c.Name, c.Kind, c.Engine, orDash(c.BaseURL), c.AuthKind, orDash(c.PrometheusURL), budgetText(c))
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

func clustersAdd(ctx context.Context, g *globals, args []string) error {
	fs := newFlagSet(g, "clusters add", "--name N --engine flink|seatunnel --url URL [flags]", "Adds a cluster, or replaces the one of the same name.")
	var in app.ClusterInput
	fs.StringVar(&in.Name, "name", "", "a name for the cluster")
	engine := fs.String("engine", "flink", "flink or seatunnel")
	fs.StringVar(&in.BaseURL, "url", "", "REST base URL (Flink: the JobManager's; SeaTunnel: the REST v2 port)")
	fs.StringVar(&in.PrometheusURL, "prometheus", "", "optional Prometheus server URL")
	auth := fs.String("auth", "none", "none, basic or bearer")
	fs.StringVar(&in.Auth.Username, "user", "", "user name for basic auth")
	pwStdin := fs.Bool("password-stdin", false, "read the basic-auth password from stdin (else $CE_PASSWORD)")
	tokStdin := fs.Bool("token-stdin", false, "read the bearer token from stdin (else $CE_TOKEN)")
	fs.StringVar(&in.CAFile, "ca-file", "", "PEM file of a custom CA")
	fs.BoolVar(&in.InsecureSkipVerify, "insecure", false, "skip TLS certificate verification")
	test := fs.Bool("test", true, "test the connection before saving")
	addBudgetFlags(fs, &in.RequestsPerSecond, &in.MaxInFlight)
	addJobManagerLogFlag(fs, &in.JobManagerLog)
	addLaneFlag(fs, &in.Lanes)
	fs.Func("reporter", "a Flink Prometheus reporter endpoint to scrape for backpressure (repeat for each JobManager and TaskManager)", func(v string) error {
		in.ReporterURLs = append(in.ReporterURLs, v)
		return nil
	})
	fs.Func("prometheus-name", "KEY=NAME: a metric or label name of a relabelled setup (keys in docs/prometheus.md; repeat)", func(v string) error {
		k, n, ok := strings.Cut(v, "=")
		if !ok || k == "" {
			return fmt.Errorf("want KEY=NAME, got %q", v)
		}
		if in.PrometheusNames == nil {
			in.PrometheusNames = map[string]string{}
		}
		in.PrometheusNames[k] = n
		return nil
	})
	if err := fs.Parse(args); err != nil {
		return err
	}
	in.Engine = model.Engine(*engine)
	if in.Engine != model.EngineFlink && in.JobManagerLog == app.JobManagerLogAuto {
		in.JobManagerLog = "" // the default applies to Flink only
	}
	in.Auth.Kind = model.AuthKind(*auth)
	var err error
	switch in.Auth.Kind {
	case model.AuthBasic:
		in.Auth.Password, err = readSecret(*pwStdin, "CE_PASSWORD")
	case model.AuthBearer:
		in.Auth.Token, err = readSecret(*tokStdin, "CE_TOKEN")
	}
	if err != nil {
		return err
	}
	svc, err := openApp(ctx, g, app.Options{NoSample: true, NoCollect: true})
	if err != nil {
		return err
	}
	defer svc.Close()
	a := svc.App()
	if *test {
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
}

func clustersRemove(ctx context.Context, g *globals, args []string) error {
	fs := newFlagSet(g, "clusters remove", "NAME", "Removes a cluster or an opened capture and its cached data.")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return errors.New("clusters remove: give one name")
	}
	svc, err := openApp(ctx, g, app.Options{NoSample: true, NoCollect: true})
	if err != nil {
		return err
	}
	defer svc.Close()
	a := svc.App()
	if err := a.RemoveCluster(fs.Arg(0)); err != nil {
		return err
	}
	fmt.Fprintf(g.stdout, "Removed %q\n", fs.Arg(0))
	return nil
}

func clustersRetention(ctx context.Context, g *globals, args []string) error {
	fs := newFlagSet(g, "clusters retention", "[--max-checkpoints N] [--max-age D] [--max-db-size S]",
		"Shows the retention limits, or sets those given (0 = unlimited) and applies them at once.")
	maxCount := fs.Int("max-checkpoints", -1, "checkpoints kept per job")
	maxAge := fs.String("max-age", "", "how long checkpoints are kept (e.g. 30d, 12h)")
	maxSize := fs.String("max-db-size", "", "cap on the cache file (e.g. 512MiB)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	svc, err := openApp(ctx, g, app.Options{NoSample: true, NoCollect: true})
	if err != nil {
		return err
	}
	defer svc.Close()
	a := svc.App()
	cur, err := a.Retention()
	if err != nil {
		return err
	}
	lim := cur.Limits
	changed := false
	if *maxCount >= 0 {
		lim.MaxCheckpointsPerJob, changed = *maxCount, true
	}
	if *maxAge != "" {
		d, err := parseDuration(*maxAge)
		if err != nil {
			return fmt.Errorf("--max-age: %w", err)
		}
		lim.MaxAgeMs, changed = d.Milliseconds(), true
	}
	if *maxSize != "" {
		n, err := parseSize(*maxSize)
		if err != nil {
			return fmt.Errorf("--max-db-size: %w", err)
		}
		lim.MaxBytes, changed = n, true
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
