// Package promenv gives tests a real Prometheus server scraping the real Flink test cluster's
// reporters: it runs testenv/prometheus/start.sh once per test binary (after flinkenv has the
// cluster up), or uses the server named by PROMETHEUS_URL.
//
// Tests using it skip only when CE_SKIP_REAL=1; otherwise a server that cannot start fails them.
package promenv

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"checkpoint-explorer/testenv/envscript"
	"checkpoint-explorer/testenv/flinkenv"
)

// Env describes the running server.
type Env struct {
	URL string
	// ScrapeInterval is how often it scrapes the Flink reporters: the smallest useful step.
	ScrapeInterval time.Duration
	// RunDir holds its config, TSDB and log; "" for an external server.
	RunDir string
	// Flink is the cluster it scrapes.
	Flink flinkenv.Env
}

const startTimeout = 3 * time.Minute

var shared = envscript.Shared[Env]{Pkg: "promenv", What: "a real Prometheus server", Timeout: startTimeout}

// Ensure returns the server, starting it (and the Flink cluster) on first use. It skips the test
// when CE_SKIP_REAL=1.
func Ensure(t testing.TB) Env {
	t.Helper()
	shared.SkipUnlessReal(t) // before flinkenv starts a cluster for nothing
	fe := flinkenv.Ensure(t)
	return shared.Get(t, func(ctx context.Context) (Env, error) { return ensure(ctx, fe) })
}

func ensure(ctx context.Context, fe flinkenv.Env) (Env, error) {
	if url := os.Getenv("PROMETHEUS_URL"); url != "" {
		iv, err := interval(os.Getenv("PROMETHEUS_SCRAPE_INTERVAL"))
		if err != nil {
			return Env{}, err
		}
		return Env{URL: strings.TrimRight(url, "/"), ScrapeInterval: iv, Flink: fe}, nil
	}
	if fe.JMPromURL == "" || fe.TMPromURL == "" {
		return Env{}, errors.New("the Flink cluster has no reporter URLs (FLINK_JM_PROM_PORT, FLINK_TM_PROM_PORT) to scrape")
	}
	vars, err := envscript.Start(ctx, []string{"FLINK_JM_PROM_URL=" + fe.JMPromURL, "FLINK_TM_PROM_URL=" + fe.TMPromURL},
		"prometheus", "PROMETHEUS_URL")
	if err != nil {
		return Env{}, err
	}
	iv, err := interval(vars["PROMETHEUS_SCRAPE_INTERVAL"])
	if err != nil {
		return Env{}, err
	}
	return Env{URL: vars["PROMETHEUS_URL"], ScrapeInterval: iv, RunDir: vars["PROMETHEUS_RUN_DIR"], Flink: fe}, nil
}

// interval parses a Prometheus duration such as "1s" or "15s"; "" is Prometheus' default 15s.
func interval(s string) (time.Duration, error) {
	if s == "" {
		return 15 * time.Second, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < time.Second {
		return 0, fmt.Errorf("promenv: scrape interval %q: want a duration of at least 1s", s)
	}
	return d, nil
}
