package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"golang.org/x/term"

	"checkpoint-explorer/app"
	"checkpoint-explorer/backend/model"
)

func runCapture(ctx context.Context, g *globals, args []string) error {
	fs := newFlagSet(g, "capture", "--engine flink|seatunnel --url URL --job ID [--prometheus URL] --duration D --out FILE [flags]",
		"Records a live job into a capture file, without the desktop app or the local cache (e.g. on a\n"+
			"bastion host). Ctrl-C stops early and keeps what was recorded. Secrets come from stdin or\n"+
			"$CE_PASSWORD / $CE_TOKEN, never from the command line.")
	engine := fs.String("engine", "flink", "flink or seatunnel")
	url := fs.String("url", "", "REST base URL")
	prom := fs.String("prometheus", "", "Prometheus URL to read backpressure from while recording (Flink; checked before recording starts)")
	promEvery := fs.String("prometheus-every", "30s", "with --prometheus: how often to read it (one range query per job each time)")
	auth := fs.String("auth", "none", "none, basic or bearer")
	user := fs.String("user", "", "user name for basic auth")
	pwStdin := fs.Bool("password-stdin", false, "read the basic-auth password from stdin (else $CE_PASSWORD)")
	tokStdin := fs.Bool("token-stdin", false, "read the bearer token from stdin (else $CE_TOKEN)")
	caFile := fs.String("ca-file", "", "PEM file of a custom CA")
	insecure := fs.Bool("insecure", false, "skip TLS certificate verification")
	job := fs.String("job", "", "job id to record")
	newJobs := fs.Bool("new-jobs", false, "instead of --job: record every job that starts during the recording")
	namePrefix := fs.String("job-name-prefix", "", "with --new-jobs: only jobs whose name starts with this")
	dur := fs.String("duration", "10m", "how long to record (e.g. 90s, 10m, 2h)")
	out := fs.String("out", "", "capture file to write (.ckpt.gz)")
	name := fs.String("name", "recorded", "a name for the cluster in the file")
	var rps float64
	var inFlight int
	addBudgetFlags(fs, &rps, &inFlight)
	var jmLog model.JobManagerLogMode
	addJobManagerLogFlag(fs, &jmLog)
	var lanes []model.Lane
	addLaneFlag(fs, &lanes)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := app.CheckJobManagerLogMode(jmLog); err != nil {
		return fmt.Errorf("capture: --jobmanager-log: %w", err)
	}
	if *url == "" || (*job == "") == !*newJobs || *out == "" {
		fs.Usage()
		return errors.New("capture: --url, --out and one of --job or --new-jobs are required")
	}
	d, err := parseDuration(*dur)
	if err != nil || d <= 0 {
		return fmt.Errorf("capture: --duration %q: give a positive duration such as 90s, 10m or 2h", *dur)
	}
	pe, err := parseDuration(*promEvery)
	if err != nil || pe < time.Second {
		return fmt.Errorf("capture: --prometheus-every %q: give a duration of at least 1s such as 30s or 1m", *promEvery)
	}
	c := model.Cluster{Name: *name, Engine: model.Engine(*engine), BaseURL: *url, PrometheusURL: *prom,
		Auth: model.Auth{Kind: model.AuthKind(*auth), Username: *user}, CAFile: *caFile, InsecureSkipVerify: *insecure,
		RequestsPerSecond: rps, MaxInFlight: inFlight}
	if c.Engine == model.EngineFlink {
		c.JobManagerLog = jmLog
	}
	c.Lanes = lanes
	if err := app.CheckLanes(c); err != nil {
		return fmt.Errorf("capture: --lane: %w", err)
	}
	switch c.Auth.Kind {
	case model.AuthBasic:
		c.Auth.Password, err = readSecret(*pwStdin, "CE_PASSWORD")
	case model.AuthBearer:
		c.Auth.Token, err = readSecret(*tokStdin, "CE_TOKEN")
	}
	if err != nil {
		return err
	}
	tty := false
	if f, ok := g.stderr.(*os.File); ok {
		tty = term.IsTerminal(int(f.Fd()))
	}
	every := time.Second
	if !tty {
		every = 10 * time.Second
	}
	show := func(p app.RecordProgress, end string) {
		line := fmt.Sprintf("%s elapsed, %s left: %d checkpoints (%d failed)%s, %d missed, %d metric samples, %d requests",
			p.Elapsed, p.Remaining, p.Checkpoints, p.Failed, engineCounted(p), missed(p), p.MetricSamples, p.Requests)
		if *prom != "" {
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
	what := "job " + *job
	if *newJobs {
		what = "the jobs that start"
	}
	withProm := ""
	if *prom != "" {
		withProm = fmt.Sprintf(", with backpressure from Prometheus every %s", pe)
	}
	fmt.Fprintf(g.stderr, "Recording %s on %s for %s into %s%s (Ctrl-C stops and keeps what was recorded)\n", what, *url, d, *out, withProm)
	res, err := app.Record(ctx, app.RecordOptions{
		Cluster: c, JobID: *job, NewJobs: *newJobs, NamePrefix: *namePrefix, Duration: d, Out: *out, Logger: g.logger(), Every: every,
		PromEvery: pe,
		Progress:  func(p app.RecordProgress) { show(p, "") },
	})
	if err != nil {
		return err
	}
	if tty {
		fmt.Fprintln(g.stderr)
	}
	promPart := ""
	if *prom != "" {
		promPart = fmt.Sprintf(" (%d from Prometheus in %d requests)", res.PromSamples, res.PromRequests)
	}
	fmt.Fprintf(g.stdout, "%s: %d checkpoints (%d failed)%s, %d missed, %d metric samples%s, %d requests in %s\n",
		*out, res.Checkpoints, res.Failed, engineCounted(res), missed(res), res.MetricSamples, promPart, res.Requests, res.Elapsed)
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
