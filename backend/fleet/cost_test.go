package fleet

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"checkpoint-explorer/backend/analyze"
	"checkpoint-explorer/backend/store"
)

// TestPrintFleetCost is `make bench`'s fleet figures (testenv/bench.sh) over
// the cache CE_BENCH_FLEET_DB that genhistory -fleet made: the fleet read
// cold (a store just opened) and warm, beside the same read of one cluster
// and of one job in the same run, and one job's row with and without the
// rest of its day. With CE_BENCH_FLEET_JSON it writes the fleet there, for
// the browser's part (frontend/bench/fleet-bench.mjs). Skipped unless set.
func TestPrintFleetCost(t *testing.T) {
	st, path := openBenchFleet(t)
	ctx := context.Background()
	read := func(only string) (analyze.Fleet, time.Duration) {
		t0 := time.Now()
		f, err := Read(ctx, st, capturesOnly, only, 0, time.Now().UnixMilli())
		if err != nil {
			t.Fatal(err)
		}
		return f, time.Since(t0)
	}
	cpu0 := cpuTime()
	all, cold := read("")
	cpu1 := cpuTime()
	_, warm := read("")
	coldCPU, warmCPU := cpu1-cpu0, cpuTime()-cpu1
	jobs, err := st.Jobs(ctx, "")
	if err != nil || len(jobs) == 0 || len(all.Jobs) == 0 {
		t.Fatalf("%s: %d jobs, %d rows, %v: not a generated fleet", path, len(jobs), len(all.Jobs), err)
	}
	clusters := map[string]int{}
	for _, j := range jobs {
		clusters[j.Cluster]++
	}
	one := jobs[0].Cluster
	cluster, clusterWarm := read(one)

	// One row: of 20 jobs keeping their window and its baseline, and of
	// the jobs keeping their whole day.
	var whole, part []store.JobSummary
	for _, j := range jobs {
		if j.Total > 2*int(analyze.FleetBaselineMax+DefaultWindowMs/10_000) {
			whole = append(whole, j)
		} else if len(part) < 20 {
			part = append(part, j)
		}
	}
	// Each group read three times, the two in turn (the machine's load
	// moves meanwhile); the median read.
	perRow := func(js []store.JobSummary) time.Duration {
		t0 := time.Now()
		for _, j := range js {
			if _, err := readRow(ctx, st, j.Job, nil, DefaultWindowMs, j.LastTriggerMs); err != nil {
				t.Fatal(err)
			}
		}
		return time.Since(t0) / time.Duration(len(js))
	}
	var partTimes, wholeTimes []time.Duration
	for range 3 {
		partTimes = append(partTimes, perRow(part))
		if len(whole) > 0 {
			wholeTimes = append(wholeTimes, perRow(whole))
		}
	}
	median := func(ds []time.Duration) float64 {
		if len(ds) == 0 {
			return 0
		}
		slices.Sort(ds)
		return ms(ds[len(ds)/2])
	}
	partMs, wholeMs := median(partTimes), median(wholeTimes)
	n := len(all.Jobs)
	// A live update: the app's Cache told of the jobs whose checkpoints
	// were stored, one job's and the tenth of the fleet's that a second
	// brings (every job checkpoints every 10 s), re-reads their rows and
	// merges them into its last answer (here the warm read's).
	cache := NewCache(st, CacheOptions{FullEvery: time.Hour})
	defer cache.Close()
	e := cache.entry(cacheKey{"", DefaultWindowMs})
	e.fleet, e.fullAt = &all, time.Now()
	liveMs := func(js []store.JobSummary) float64 {
		for _, j := range js {
			cache.Touched(j.Cluster, j.ID)
		}
		t0 := time.Now()
		f, err := cache.Read(ctx, capturesOnly, "", 0, time.Now().UnixMilli())
		if err != nil || len(f.Jobs) != n {
			t.Fatalf("the fleet after %d jobs were touched: %d rows, %v; want %d", len(js), len(f.Jobs), err, n)
		}
		return ms(time.Since(t0))
	}
	tenth := make([]store.JobSummary, 0, n/10)
	for i := 0; i < len(jobs) && len(tenth) < n/10; i += 10 {
		tenth = append(tenth, jobs[i])
	}
	oneLive, tenthLive := liveMs(part[:1]), liveMs(tenth)
	// The same rows read whole (subtask stats and samples), as a live update did before light rows.
	tenthKeys := make([]JobKey, len(tenth))
	for i, j := range tenth {
		tenthKeys[i] = JobKey{j.Cluster, j.ID}
	}
	t0 := time.Now()
	if _, err := ReadJobs(ctx, st, capturesOnly, tenthKeys, 0, time.Now().UnixMilli()); err != nil {
		t.Fatal(err)
	}
	tenthFull := ms(time.Since(t0))
	t.Logf("fleet query, %s jobs in %d clusters: cold %.0f ms (the store just opened; %.0f ms of CPU), warm %.0f ms (%.0f ms of CPU; target <= 100 ms); "+
		"baseline in the same run: one cluster's %d jobs %.0f ms (%.1f× for %.1f× the jobs), one job's row %.1f ms (%.0f×); %s",
		count(n), len(clusters), ms(cold), ms(coldCPU), ms(warm), ms(warmCPU), len(cluster.Jobs), ms(clusterWarm),
		ms(warm)/ms(clusterWarm), float64(n)/float64(len(cluster.Jobs)), partMs, ms(warm)/partMs, machineLoad())
	if len(whole) > 0 {
		t.Logf("fleet row with the rest of the day: %d jobs holding all %s checkpoints of their day %.1f ms a row, %d holding their newest %d %.1f ms a row: ratio %.2f",
			len(whole), count(whole[0].Total), wholeMs, len(part), part[0].Total, partMs, wholeMs/partMs)
	}
	t.Logf("fleet live update: the rows of the jobs whose checkpoints were stored, merged into the last answer (target <= 100 ms): "+
		"one job %.0f ms, the %d whose checkpoints a second brings (each job every 10 s) %.0f ms in light rows; "+
		"baselines in the same run: the same rows whole %.0f ms (%.1f× the light ones), the whole fleet again %.0f ms (%.1f× the second's)",
		oneLive, len(tenth), tenthLive, tenthFull, tenthFull/tenthLive, ms(warm), ms(warm)/tenthLive)
	// A start: the window's first answer is the last run's kept read (its
	// whole read goes on in the background; Close cancels it here).
	dir := t.TempDir()
	kept := NewCache(st, CacheOptions{Dir: dir})
	if err := kept.save(cacheKey{"", DefaultWindowMs}, all, time.Now().UnixMilli()); err != nil {
		t.Fatal(err)
	}
	kept.Close()
	started := NewCache(st, CacheOptions{Dir: dir, FromDir: true})
	t0 = time.Now()
	first, err := started.Read(ctx, capturesOnly, "", 0, time.Now().UnixMilli())
	firstMs := ms(time.Since(t0))
	started.Close()
	if err != nil || first.AsOfMs == 0 || len(first.Jobs) != n {
		t.Fatalf("the first answer after a start: as of %d, %d rows, %v; want the kept read's %d", first.AsOfMs, len(first.Jobs), err, n)
	}
	t.Logf("fleet first answer after a start: the last run's %s rows from their kept read %.0f ms (target <= 1 s with the paint); "+
		"baseline in the same run: the whole read it then makes in the background %.0f ms (%.0f×)", count(n), firstMs, ms(cold), ms(cold)/firstMs)
	if out := os.Getenv("CE_BENCH_FLEET_JSON"); out != "" {
		b, err := json.Marshal(all)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(out, b, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("fleet JSON: %s jobs, %d bytes, written to %s", count(n), len(b), out)
	}
}

// BenchmarkRead is the whole fleet read from the cache CE_BENCH_FLEET_DB
// (TestPrintFleetCost's), warm: an operation is a read of every row.
func BenchmarkRead(b *testing.B) {
	st, _ := openBenchFleet(b)
	ctx := context.Background()
	rows := 0
	for b.Loop() {
		f, err := Read(ctx, st, capturesOnly, "", 0, time.Now().UnixMilli())
		if err != nil {
			b.Fatal(err)
		}
		rows = len(f.Jobs)
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N)/float64(max(rows, 1)), "ms/row")
}

// openBenchFleet opens the generated cache CE_BENCH_FLEET_DB names, closed
// when tb ends; it skips tb without one.
func openBenchFleet(tb testing.TB) (*store.Store, string) {
	path := os.Getenv("CE_BENCH_FLEET_DB")
	if path == "" {
		tb.Skip("CE_BENCH_FLEET_DB not set: run by make bench (testenv/bench.sh generates the cache)")
	}
	// Opening a path that is not there would make an empty cache (a relative path is the
	// package's folder): say so rather than measure nothing.
	if _, err := os.Stat(path); err != nil {
		tb.Fatalf("CE_BENCH_FLEET_DB: %v", err)
	}
	return openStore(tb, path), path
}

// capturesOnly is the bench's configured clusters: none. The generated
// clusters are captures, each job's window ending at its newest checkpoint
// whenever the cache is read; it costs what a configured cluster's window
// ending now would.
func capturesOnly(string) bool { return false }

// cpuTime is the CPU time the process has used, user and system: the
// reads' cost whatever else the machine runs meanwhile.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// machineLoad says how busy the machine was: the figures are CPU time.
func machineLoad() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return fmt.Sprintf("%d cores", runtime.NumCPU())
	}
	return fmt.Sprintf("load average %s on %d cores", strings.Fields(string(b))[0], runtime.NumCPU())
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// count writes n with thousands separators.
func count(n int) string {
	s := fmt.Sprint(n)
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}
