package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"checkpoint-explorer/app"
	"checkpoint-explorer/backend/model"
)

// Flags and values the commands share: output formats, time ranges,
// durations, sizes, secrets, request budgets and lanes.

// formats are the values a command's --format takes, the first its default.
type formats []string

// addFlag registers --format, listed under "Output" with its values, which
// the shell completes.
func (fm formats) addFlag(cmd *cobra.Command, format *string) {
	cmd.Flags().StringVar(format, "format", fm[0], fm.String())
	flagGroup(cmd.Flags(), "Output", "format")
	completeValues(cmd, "format", fm...)
}

// check refuses a format not among them: a usage error listing them.
func (fm formats) check(cmd *cobra.Command, format string) error {
	if slices.Contains(fm, format) {
		return nil
	}
	return usageErrorf(cmd, "%s: --format %q: choose %s", cmd.Name(), format, fm)
}

// String lists them as the help does: "text, json or markdown".
func (fm formats) String() string {
	return strings.Join(fm[:len(fm)-1], ", ") + " or " + fm[len(fm)-1]
}

// timeRange is a command's --from and --to: the trigger times of the first
// and last checkpoints it takes (parseTime; empty: unbounded).
type timeRange struct{ from, to string }

// addFlags registers --from and --to.
func (r *timeRange) addFlags(fs *pflag.FlagSet) {
	fs.StringVar(&r.from, "from", "", "first trigger time to include (RFC 3339, epoch ms, or a duration ago)")
	fs.StringVar(&r.to, "to", "", "last trigger time to include")
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

// ms reads the range (parseTime, both ends against the same now); a bad end
// is a usage error.
func (r timeRange) ms(cmd *cobra.Command) (fromMs, toMs int64, err error) {
	now := time.Now()
	if fromMs, err = parseTime(r.from, now); err != nil {
		return 0, 0, usageErrorf(cmd, "%s: --from: %w", cmd.Name(), err)
	}
	if toMs, err = parseTime(r.to, now); err != nil {
		return 0, 0, usageErrorf(cmd, "%s: --to: %w", cmd.Name(), err)
	}
	return fromMs, toMs, nil
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

// addBudgetFlags registers the request budget flags of clusters add and capture.
func addBudgetFlags(fs *pflag.FlagSet, requestsPerSecond *float64, maxInFlight *int) {
	fs.Float64Var(requestsPerSecond, "requests-per-second", 0, "request budget: the most requests per second sent to the cluster (0: the default, 20)")
	fs.IntVar(maxInFlight, "max-in-flight", 0, "request budget: the most requests in flight at once (0: the default, 4)")
}

// addJobManagerLogFlag registers --jobmanager-log of clusters add and capture.
func addJobManagerLogFlag(fs *pflag.FlagSet, mode *model.JobManagerLogMode) {
	fs.StringVar((*string)(mode), "jobmanager-log", "auto", "Flink: read the JobManager log for finalize times and history beyond REST: auto (when it grew, at most once a minute, up to 16 MiB), on (whatever its size) or off")
}

// addLaneFlag registers --lane of clusters add and capture.
func addLaneFlag(fs *pflag.FlagSet, lanes *[]model.Lane) {
	fs.Var(funcValue{"lane", func(v string) error {
		l, err := app.ParseLane(v)
		if err != nil {
			return err
		}
		*lanes = append(*lanes, l)
		return nil
	}}, "lane", "a custom timeline lane, NAME=promql:QUERY (on --prometheus; $job_id is the job's id) or NAME=metric:METRIC (a Flink metric of the job's vertices); repeat for more")
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

// addSecretFlags adds --password-stdin and --token-stdin: where the secret of basic or bearer
// auth comes from (else $CE_PASSWORD or $CE_TOKEN).
func addSecretFlags(fs *pflag.FlagSet, pwStdin, tokStdin *bool) {
	fs.BoolVar(pwStdin, "password-stdin", false, "read the basic-auth password from stdin (else $CE_PASSWORD)")
	fs.BoolVar(tokStdin, "token-stdin", false, "read the bearer token from stdin (else $CE_TOKEN)")
}

// readAuthSecret fills in the secret auth's kind needs (see addSecretFlags).
func readAuthSecret(auth *model.Auth, pwStdin, tokStdin bool) error {
	var err error
	switch auth.Kind {
	case model.AuthBasic:
		auth.Password, err = readSecret(pwStdin, "CE_PASSWORD")
	case model.AuthBearer:
		auth.Token, err = readSecret(tokStdin, "CE_TOKEN")
	}
	return err
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
