package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/pkg/browser"

	"checkpoint-explorer/app"
	"checkpoint-explorer/backend/model"
)

// parseAnywhere parses flags given before, between or after the positional
// arguments ("report FILE --job ID" as well as "report --job ID FILE"), and
// returns the positionals; "--" ends the flags.
func parseAnywhere(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if len(args) > len(rest) && args[len(args)-len(rest)-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

func newFlagSet(g *globals, name, args, summary string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(g.stderr)
	g.register(fs)
	fs.Usage = func() {
		fmt.Fprintf(g.stderr, "Usage: checkpoint-explorer %s %s\n\n%s\n\nFlags:\n", name, args, summary)
		fs.PrintDefaults()
	}
	return fs
}

func runServe(ctx context.Context, g *globals, args []string) error {
	fs := newFlagSet(g, "serve", "[--addr 127.0.0.1:PORT] [--open]",
		"Serves the UI and the facade's methods as a local JSON API (docs/api.md). Every request needs the\n"+
			"per-run token in the printed URL; requests with a foreign Host or Origin are refused.")
	addr := fs.String("addr", "127.0.0.1:0", "listen address (loopback only; port 0 picks a free one)")
	open := fs.Bool("open", false, "open the URL in the default browser")
	token := fs.String("token", "", "use this token instead of a random one (for scripts; keep it secret)")
	noCollect := fs.Bool("no-collect", false, "do not poll clusters; only show what is cached")
	if err := fs.Parse(args); err != nil {
		return err
	}
	a, err := openApp(ctx, g, app.Options{NoCollect: *noCollect})
	if err != nil {
		return err
	}
	defer app.Close(a)
	srv, err := app.NewServer(a, app.ServeOptions{
		Addr: *addr, Assets: assets(), Token: *token, Metrics: app.MetricsHandler(a),
		Ready: func(u string) {
			fmt.Fprintf(g.stdout, "Checkpoint Explorer is serving at\n  %s\n(only this machine can reach it; the token in the URL is required; Ctrl-C stops)\n", u)
			if f, ok := g.stdout.(*os.File); ok {
				f.Sync()
			}
			if *open {
				if err := browser.OpenURL(u); err != nil {
					fmt.Fprintf(g.stderr, "could not open a browser: %v\n", err)
				}
			}
		},
	})
	if err != nil {
		return err
	}
	return srv.ListenAndServe(ctx)
}

func runImport(ctx context.Context, g *globals, args []string) error {
	fs := newFlagSet(g, "import", "FILE...",
		"Opens capture files (or the foreign sample format) into the cache as read-only sources.\n"+
			"Each file is imported whole or not at all.")
	files, err := parseAnywhere(fs, args)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		fs.Usage()
		return errors.New("import: give at least one file")
	}
	a, err := openApp(ctx, g, app.Options{NoSample: true, NoCollect: true})
	if err != nil {
		return err
	}
	defer app.Close(a)
	var failed int
	for _, f := range files {
		res, err := a.OpenCapture(f)
		if err != nil {
			fmt.Fprintf(g.stderr, "%s: %v\n", f, err)
			failed++
			continue
		}
		fmt.Fprintf(g.stdout, "%s: %s: %d jobs, %d checkpoints, %d ack samples, %d metric samples, %d gaps",
			f, strings.Join(res.Sources, ", "), res.Jobs, res.Checkpoints, res.AckSamples, res.MetricSamples, res.Gaps)
		if res.Skipped > 0 {
			fmt.Fprintf(g.stdout, " (%d unknown records skipped)", res.Skipped)
		}
		fmt.Fprintln(g.stdout)
	}
	if failed > 0 {
		return fmt.Errorf("import: %d of %d files failed", failed, len(files))
	}
	return nil
}

// parseTime accepts RFC 3339, epoch milliseconds, or a duration meaning "that long ago".
func parseTime(s string, now time.Time) (int64, error) {
	if s == "" {
		return 0, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t.UnixMilli(), nil
	}
	if ms, err := strconv.ParseInt(s, 10, 64); err == nil && ms >= 0 {
		return ms, nil
	}
	if d, err := parseDuration(s); err == nil {
		return now.Add(-d).UnixMilli(), nil
	}
	return 0, fmt.Errorf("time %q: give RFC 3339 (2026-11-29T14:00:00Z), epoch milliseconds, or a duration ago (2h, 7d)", s)
}

// parseDuration is time.ParseDuration plus a "d" suffix for days.
func parseDuration(s string) (time.Duration, error) {
	if strings.HasSuffix(s, "d") {
		n, err := strconv.ParseFloat(strings.TrimSuffix(s, "d"), 64)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("duration %q", s)
		}
		return time.Duration(n * float64(24*time.Hour)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("duration %q", s)
	}
	return d, nil
}

// parseSize accepts bytes or a number with KiB/MiB/GiB (KB/MB/GB taken as the same).
func parseSize(s string) (int64, error) {
	u := strings.ToUpper(strings.TrimSpace(s))
	mult := int64(1)
	for _, suf := range []struct {
		s string
		m int64
	}{{"GIB", 1 << 30}, {"MIB", 1 << 20}, {"KIB", 1 << 10}, {"GB", 1 << 30}, {"MB", 1 << 20}, {"KB", 1 << 10}, {"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}, {"B", 1}} {
		if strings.HasSuffix(u, suf.s) {
			u, mult = strings.TrimSpace(strings.TrimSuffix(u, suf.s)), suf.m
			break
		}
	}
	n, err := strconv.ParseFloat(u, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("size %q: give bytes or a number with KiB, MiB or GiB", s)
	}
	return int64(n * float64(mult)), nil
}

func runExport(ctx context.Context, g *globals, args []string) error {
	fs := newFlagSet(g, "export", "--cluster C --job J [--from T] [--to T] --out FILE",
		"Writes a job's cached checkpoints, samples and gaps to a capture file (no secrets).\n"+
			"T is RFC 3339, epoch milliseconds, or a duration ago (2h, 7d).")
	cluster := fs.String("cluster", "", "cluster or capture name")
	job := fs.String("job", "", "job id")
	from := fs.String("from", "", "first trigger time to include")
	to := fs.String("to", "", "last trigger time to include")
	out := fs.String("out", "", "capture file to write (.ckpt.gz)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *cluster == "" || *job == "" || *out == "" {
		fs.Usage()
		return errors.New("export: --cluster, --job and --out are required")
	}
	now := time.Now()
	fromMs, err := parseTime(*from, now)
	if err != nil {
		return fmt.Errorf("export: --from: %w", err)
	}
	toMs, err := parseTime(*to, now)
	if err != nil {
		return fmt.Errorf("export: --to: %w", err)
	}
	a, err := openApp(ctx, g, app.Options{NoSample: true, NoCollect: true})
	if err != nil {
		return err
	}
	defer app.Close(a)
	res, err := a.ExportCapture(app.ExportRequest{Cluster: *cluster, Job: *job, FromMs: fromMs, ToMs: toMs, Path: *out})
	if err != nil {
		return err
	}
	fmt.Fprintf(g.stdout, "%s: %d checkpoints, %d records, %d bytes\n", res.Path, res.Checkpoints, res.Records, res.Bytes)
	return nil
}

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
	a, err := openApp(ctx, g, app.Options{NoSample: true, NoCollect: true})
	if err != nil {
		return err
	}
	defer app.Close(a)
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

// addBudgetFlags registers the request budget flags of clusters add and capture.
func addBudgetFlags(fs *flag.FlagSet, requestsPerSecond *float64, maxInFlight *int) {
	fs.Float64Var(requestsPerSecond, "requests-per-second", 0, "request budget: the most requests per second sent to the cluster (0: the default, 20)")
	fs.IntVar(maxInFlight, "max-in-flight", 0, "request budget: the most requests in flight at once (0: the default, 4)")
}

// addJobManagerLogFlag registers --jobmanager-log of clusters add and capture.
func addJobManagerLogFlag(fs *flag.FlagSet, mode *string) {
	fs.StringVar(mode, "jobmanager-log", "auto", "Flink: read the JobManager log for finalize times and history beyond REST: auto (when it grew, at most once a minute, up to 16 MiB), on (whatever its size) or off")
}

// addLaneFlag registers --lane of clusters add and capture.
func addLaneFlag(fs *flag.FlagSet, lanes *[]model.Lane) {
	fs.Func("lane", "a custom timeline lane, NAME=promql:QUERY (on --prometheus; $job_id is the job's id) or NAME=metric:METRIC (a Flink metric of the job's vertices); repeat for more", func(v string) error {
		l, err := app.ParseLane(v)
		if err != nil {
			return err
		}
		*lanes = append(*lanes, l)
		return nil
	})
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

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func limitText(n int64, f func(int64) string) string {
	if n <= 0 {
		return "unlimited"
	}
	return f(n)
}

func readSecret(stdin bool, env string) (string, error) {
	if stdin {
		line, err := bufio.NewReader(os.Stdin).ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return "", fmt.Errorf("read secret from stdin: %w", err)
		}
		return strings.TrimRight(line, "\r\n"), nil
	}
	return os.Getenv(env), nil
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
	a, err := openApp(ctx, g, app.Options{NoSample: true, NoCollect: true})
	if err != nil {
		return err
	}
	defer app.Close(a)
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
	a, err := openApp(ctx, g, app.Options{NoSample: true, NoCollect: true})
	if err != nil {
		return err
	}
	defer app.Close(a)
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
	a, err := openApp(ctx, g, app.Options{NoSample: true, NoCollect: true})
	if err != nil {
		return err
	}
	defer app.Close(a)
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

func runVersion(_ context.Context, g *globals, args []string) error {
	fs := newFlagSet(g, "version", "", "Prints the version.")
	if err := fs.Parse(args); err != nil {
		return err
	}
	v := (&app.App{}).Version()
	fmt.Fprintf(g.stdout, "checkpoint-explorer %s (commit %s, %s)\n", v.Version, v.Commit, v.GoVersion)
	return nil
}
