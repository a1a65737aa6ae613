package cli

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"checkpoint-explorer/app"
	"checkpoint-explorer/backend/model"
)

type captureFlags struct {
	engine, url, prom, promEvery, auth, user, caFile, job, namePrefix, dur, out, name string
	tracesURL, tracesService, since                                                   string
	pwStdin, tokStdin, insecure, newJobs                                              bool
	rps                                                                               float64
	inFlight                                                                          int
	jmLog                                                                             model.JobManagerLogMode
	lanes                                                                             []model.Lane
}

func captureCmd(g *globals) *cobra.Command {
	var f captureFlags
	cmd := &cobra.Command{
		Use:   "capture [flags] (--url URL | --traces-url URL) (--job ID | --new-jobs) --out FILE",
		Short: "record a live job into a capture file, without the cache",
		Long: `Records a live job into a capture file, without the desktop app or the local cache (e.g. on a
bastion host). Ctrl-C stops early and keeps what was recorded (exit status 0). Secrets come from
stdin or $CE_PASSWORD / $CE_TOKEN, never from the command line.

With --traces-url instead of --url, the job is read from the checkpoint spans Flink's trace
reporter sent to a Jaeger, from the last --since, and written at once: no engine is asked.`,
		Example: `  checkpoint-explorer capture --url http://jobmanager:8081 --job 3f1c… --duration 30m --out prod.ckpt.gz
  CE_TOKEN=… checkpoint-explorer capture --engine seatunnel --url https://st:8080 --auth bearer \
      --new-jobs --job-name-prefix etl- --duration 2h --out etl.ckpt.gz
  checkpoint-explorer capture --url http://jm:8081 --job 3f1c… --prometheus http://prom:9090 --out bp.ckpt.gz
  checkpoint-explorer capture --traces-url http://jaeger:16686 --traces-service flink-prod --job 3f1c… \
      --since 48h --out history.ckpt.gz`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runCapture(cmd, g, &f) },
	}
	fs := cmd.Flags()
	fs.StringVar(&f.engine, "engine", "flink", "flink or seatunnel")
	fs.StringVar(&f.url, "url", "", "REST base URL")
	fs.StringVar(&f.job, "job", "", "job id to record")
	fs.BoolVar(&f.newJobs, "new-jobs", false, "instead of --job: record every job that starts during the recording")
	fs.StringVar(&f.namePrefix, "job-name-prefix", "", "with --new-jobs: only jobs whose name starts with this")
	fs.StringVar(&f.dur, "duration", "10m", "how long to record (e.g. 90s, 10m, 2h)")
	fs.StringVar(&f.out, "out", "", "capture file to write (.ckpt.gz)")
	fs.StringVar(&f.name, "name", "recorded", "a name for the cluster in the file")
	fs.StringVar(&f.prom, "prometheus", "", "Prometheus URL to read backpressure from while recording (Flink; checked before recording starts)")
	fs.StringVar(&f.promEvery, "prometheus-every", "30s", "with --prometheus: how often to read it (one range query per job each time)")
	addLaneFlag(fs, &f.lanes)
	addJobManagerLogFlag(fs, &f.jmLog)
	fs.StringVar(&f.tracesURL, "traces-url", "", "instead of --url: read the job from the checkpoint spans in this Jaeger (query URL)")
	fs.StringVar(&f.tracesService, "traces-service", "", "with --traces-url: the service name of Flink's spans (traces.reporter.<name>.service.name)")
	fs.StringVar(&f.since, "since", "7d", "with --traces-url: how far back to read (e.g. 6h, 2d)")
	fs.StringVar(&f.auth, "auth", "none", "none, basic or bearer")
	fs.StringVar(&f.user, "user", "", "user name for basic auth")
	addSecretFlags(fs, &f.pwStdin, &f.tokStdin)
	fs.StringVar(&f.caFile, "ca-file", "", "PEM file of a custom CA")
	fs.BoolVar(&f.insecure, "insecure", false, "skip TLS certificate verification")
	addBudgetFlags(fs, &f.rps, &f.inFlight)
	flagGroup(fs, "What to record", "engine", "url", "job", "new-jobs", "job-name-prefix", "duration")
	flagGroup(fs, "Output", "out", "name")
	flagGroup(fs, "Metrics and logs", "prometheus", "prometheus-every", "lane", "jobmanager-log")
	flagGroup(fs, "From traces alone", "traces-url", "traces-service", "since")
	engineFlagGroups(cmd, fs)
	return cmd
}

func runCapture(cmd *cobra.Command, g *globals, f *captureFlags) error {
	ctx := cmd.Context()
	if err := app.CheckJobManagerLogMode(f.jmLog); err != nil {
		return usageErrorf(cmd, "capture: --jobmanager-log: %w", err)
	}
	if f.tracesURL != "" {
		return runTracesCapture(cmd, g, f)
	}
	if f.url == "" || (f.job == "") == !f.newJobs || f.out == "" {
		return usageErrorf(cmd, "capture: --url, --out and one of --job or --new-jobs are required")
	}
	d, err := parseDuration(f.dur)
	if err != nil || d <= 0 {
		return usageErrorf(cmd, "capture: --duration %q: give a positive duration such as 90s, 10m or 2h", f.dur)
	}
	pe, err := parseDuration(f.promEvery)
	if err != nil || pe < time.Second {
		return usageErrorf(cmd, "capture: --prometheus-every %q: give a duration of at least 1s such as 30s or 1m", f.promEvery)
	}
	c := model.Cluster{Name: f.name, Engine: model.Engine(f.engine), BaseURL: f.url, PrometheusURL: f.prom,
		Auth: model.Auth{Kind: model.AuthKind(f.auth), Username: f.user}, CAFile: f.caFile, InsecureSkipVerify: f.insecure,
		RequestsPerSecond: f.rps, MaxInFlight: f.inFlight}
	if c.Engine == model.EngineFlink {
		c.JobManagerLog = f.jmLog
	}
	c.Lanes = f.lanes
	if err := app.CheckLanes(c); err != nil {
		return usageErrorf(cmd, "capture: --lane: %w", err)
	}
	if err := readAuthSecret(&c.Auth, f.pwStdin, f.tokStdin); err != nil {
		return err
	}
	tty := isTerminal(g.stderr)
	every := time.Second
	if !tty {
		every = 10 * time.Second
	}
	show := func(p app.RecordProgress, end string) {
		if g.quiet {
			return
		}
		line := fmt.Sprintf("%s elapsed, %s left: %d checkpoints (%d failed)%s, %d missed, %d metric samples, %d requests",
			p.Elapsed, p.Remaining, p.Checkpoints, p.Failed, engineCounted(p), missed(p), p.MetricSamples, p.Requests)
		if f.prom != "" {
			line += fmt.Sprintf(", %d Prometheus samples", p.PromSamples)
		}
		if p.LastError != "" {
			line += " — last error: " + p.LastError
		}
		if p.PromError != "" {
			line += " — Prometheus: " + p.PromError
		}
		if tty {
			fmt.Fprintf(g.stderr, "\r\033[K%s%s", line, end)
		} else {
			fmt.Fprintf(g.stderr, "%s\n", line)
		}
	}
	what := "job " + f.job
	if f.newJobs {
		what = "the jobs that start"
	}
	withProm := ""
	if f.prom != "" {
		withProm = fmt.Sprintf(", with backpressure from Prometheus every %s", pe)
	}
	fmt.Fprintf(g.stderr, "Recording %s on %s for %s into %s%s (Ctrl-C stops and keeps what was recorded)\n", what, f.url, d, f.out, withProm)
	res, err := app.Record(ctx, app.RecordOptions{
		Cluster: c, JobID: f.job, NewJobs: f.newJobs, NamePrefix: f.namePrefix, Duration: d, Out: f.out, Logger: g.logger(), Every: every,
		PromEvery: pe,
		Progress:  func(p app.RecordProgress) { show(p, "") },
	})
	if err != nil {
		return err
	}
	if tty && !g.quiet {
		fmt.Fprintln(g.stderr)
	}
	promPart := ""
	if f.prom != "" {
		promPart = fmt.Sprintf(" (%d from Prometheus in %d requests)", res.PromSamples, res.PromRequests)
	}
	fmt.Fprintf(g.stdout, "%s: %d checkpoints (%d failed)%s, %d missed, %d metric samples%s, %d requests in %s\n",
		f.out, res.Checkpoints, res.Failed, engineCounted(res), missed(res), res.MetricSamples, promPart, res.Requests, res.Elapsed)
	if res.PromError != "" {
		fmt.Fprintf(g.stderr, "warning: the capture is complete but may lack backpressure from Prometheus: %s\n", res.PromError)
	}
	if res.Checkpoints == 0 {
		fmt.Fprintf(g.stderr, "warning: no checkpoint recorded — is the job running, and does it checkpoint? (%s)\n", res.LastError)
	}
	return nil
}

// engineCounted says how many checkpoints the engine counted over the ids
// recorded, when it sends counters.
func engineCounted(p app.RecordProgress) string {
	if p.EngineCounted < 0 {
		return ""
	}
	return fmt.Sprintf(" of %d the engine counted", p.EngineCounted)
}

// missed is the ids the engine reported that the file does not hold: gaps,
// and ids neither stored nor gapped (the reconciliation's difference).
func missed(p app.RecordProgress) int64 { return max(p.Gaps, p.Missed) }

// runTracesCapture writes a capture of one job read from a Jaeger alone (capture --traces-url).
func runTracesCapture(cmd *cobra.Command, g *globals, f *captureFlags) error {
	switch {
	case f.url != "":
		return usageErrorf(cmd, "capture: give --url (record a live job) or --traces-url (read one from traces), not both")
	case f.newJobs || f.job == "" || f.out == "":
		return usageErrorf(cmd, "capture: with --traces-url, --job and --out are required (--new-jobs is for live recording)")
	case f.tracesService == "":
		return usageErrorf(cmd, "capture: --traces-service is required with --traces-url (the service.name of Flink's trace reporter)")
	case f.engine != string(model.EngineFlink):
		return usageErrorf(cmd, "capture: --traces-url reads Flink's checkpoint spans: --engine must be flink")
	}
	since, err := parseDuration(f.since)
	if err != nil || since <= 0 {
		return usageErrorf(cmd, "capture: --since %q: give a positive duration such as 6h or 2d", f.since)
	}
	c := model.Cluster{Name: f.name, Engine: model.EngineFlink, TracesURL: f.tracesURL, TracesService: f.tracesService}
	if !g.quiet {
		fmt.Fprintf(g.stderr, "Reading job %s from the traces at %s (service %q, the last %s) into %s\n",
			f.job, f.tracesURL, f.tracesService, since, f.out)
	}
	res, err := app.RecordTraces(cmd.Context(), app.TracesRecordOptions{Cluster: c, JobID: f.job, Since: since, Out: f.out})
	if err != nil {
		return err
	}
	fmt.Fprintf(g.stdout, "%s: job %q, %d checkpoints (%d failed) from traces in %d requests\n",
		f.out, res.Job.Name, res.Checkpoints, res.Failed, res.Requests)
	if len(res.Incomplete) > 0 {
		fmt.Fprintf(g.stderr, "warning: %d time ranges were not read whole (the request bound, or more checkpoints than a page in the narrowest range); the first: %s\n",
			len(res.Incomplete), res.Incomplete[0])
	}
	return nil
}
