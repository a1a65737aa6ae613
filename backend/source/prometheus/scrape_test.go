package prometheus_test

import (
	"bufio"
	"context"
	"errors"
	"math"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/source/prometheus"
)

// testdata/flink-2.3-*.txt.gz are what the test cluster's reporters served while the knob job
// below ran with --sleep-ms 5 --rate 0 next to another knob job (whose vertex ids are the same:
// the knob job's graph is fixed).
const recordedJob = "19783ed6f73657829c4516c1e44835e0"

const textFormat = "text/plain; version=0.0.4; charset=utf-8" // what Flink's reporter sends

func page(contentType string, body []byte) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentType)
		w.Write(body)
	}
}

var (
	sampleLine = regexp.MustCompile(`^([a-zA-Z_:][a-zA-Z0-9_:]*)\{(.*)\}\s+(\S+)$`)
	labelPair  = regexp.MustCompile(`([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"`)
)

// oracle computes, independently of expfmt, what Scrape should return for one metric of a job:
// vertex → {max, avg} over subtasks ("" vertex for job metrics), scaled.
func oracle(t *testing.T, text []byte, promName, jobID string, scale float64) map[string][2]float64 {
	t.Helper()
	bySub := map[string]map[string]float64{}
	sc := bufio.NewScanner(strings.NewReader(string(text)))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		m := sampleLine.FindStringSubmatch(sc.Text())
		if m == nil || m[1] != promName {
			continue
		}
		labels := map[string]string{}
		for _, p := range labelPair.FindAllStringSubmatch(m[2], -1) {
			labels[p[1]] = p[2]
		}
		v, err := strconv.ParseFloat(m[3], 64)
		if err != nil || labels["job_id"] != jobID || math.IsNaN(v) || v < 0 {
			continue
		}
		if bySub[labels["task_id"]] == nil {
			bySub[labels["task_id"]] = map[string]float64{}
		}
		bySub[labels["task_id"]][labels["subtask_index"]] = max(bySub[labels["task_id"]][labels["subtask_index"]], v*scale)
	}
	out := map[string][2]float64{}
	for vertex, subs := range bySub {
		hi, sum := math.Inf(-1), 0.0
		for _, v := range subs {
			hi, sum = max(hi, v), sum+v
		}
		out[vertex] = [2]float64{hi, sum / float64(len(subs))}
	}
	return out
}

func TestScrapeRealReporterPages(t *testing.T) {
	tm, jm := prometheus.RealPage(t, "flink-2.3-taskmanager.txt.gz"), prometheus.RealPage(t, "flink-2.3-jobmanager.txt.gz")
	tmURL := serve(t, page(textFormat, tm)) + "/metrics"
	jmURL := serve(t, page(textFormat, jm)) + "/metrics"
	now := time.UnixMilli(1_795_966_900_000)
	s := prometheus.Scraper{Cluster: "c1", Now: func() time.Time { return now }}
	got, err := s.Scrape(context.Background(), recordedJob, jmURL, tmURL)
	if err != nil {
		t.Fatal(err)
	}
	n := prometheus.DefaultNames()
	for _, tc := range []struct {
		metric, prom string
		text         []byte
		scale        float64
	}{
		{model.MetricBackPressuredMsPerSec, n.BackPressured, tm, 1},
		{model.MetricBusyMsPerSec, n.Busy, tm, 1},
		{model.MetricIdleMsPerSec, n.Idle, tm, 1},
		{prometheus.MetricIsBackPressured, n.IsBackPressured, tm, 1},
		{prometheus.MetricAlignmentTime, n.AlignmentTime, tm, 1e-6},
		{prometheus.MetricStartDelayMs, n.StartDelay, tm, 1e-6},
		{prometheus.MetricInPoolUsage, n.InPoolUsage, tm, 1},
		{prometheus.MetricOutPoolUsage, n.OutPoolUsage, tm, 1},
		{prometheus.MetricLastCheckpointDuration, n.LastCheckpointDuration, jm, 1},
		{prometheus.MetricTotalNumberOfCheckpoints, n.TotalNumberOfCheckpoints, jm, 1},
		{prometheus.MetricNumberOfFailedCheckpoints, n.NumberOfFailedCheckpoints, jm, 1},
		{prometheus.MetricLastCheckpointSize, n.LastCheckpointSize, jm, 1},
	} {
		want := oracle(t, tc.text, tc.prom, recordedJob, tc.scale)
		if len(want) == 0 {
			t.Fatalf("the recorded page has no %s for the job: the oracle or the testdata is wrong", tc.prom)
		}
		for vertex, w := range want {
			if vertex == "" { // job scope: one value
				checkOne(t, got, vertex, tc.metric, model.AggNone, w[0])
				continue
			}
			checkOne(t, got, vertex, tc.metric, model.AggMax, w[0])
			checkOne(t, got, vertex, tc.metric, model.AggAvg, w[1])
		}
	}
	for _, x := range got {
		if x.JobID != recordedJob || x.Cluster != "c1" || x.TimeMs != now.UnixMilli() || x.Subtask != -1 || x.Source != "reporter" {
			t.Fatalf("sample %+v", x)
		}
	}
	// The recording: the source is backpressured by the slow map (checked against REST when it
	// was taken: 1000 and 998 ms/s).
	if v := values(pick(got, "ca88eee0095684d687a1b6495617f957", model.MetricBackPressuredMsPerSec, model.AggMax)); len(v) != 1 || v[0] < 500 {
		t.Errorf("source backpressure %v", v)
	}
	if v := values(pick(got, "2c893a3eb04f42bf85ab34544f6f051f", model.MetricBusyMsPerSec, model.AggMax)); len(v) != 1 || v[0] < 500 {
		t.Errorf("Slow Map busy %v", v)
	}
}

func checkOne(t *testing.T, got []model.MetricSample, vertex, metric, agg string, want float64) {
	t.Helper()
	v := values(pick(got, vertex, metric, agg))
	if len(v) != 1 || math.Abs(v[0]-want) > 1e-9*max(1, math.Abs(want)) {
		t.Errorf("%s %s %s = %v, want [%v]", vertex, metric, agg, v, want)
	}
}

func TestScrapeAggregatesAcrossEndpoints(t *testing.T) {
	const task = "flink_taskmanager_job_task_"
	tm1 := `# HELP flink_taskmanager_job_task_backPressuredTimeMsPerSecond backPressuredTimeMsPerSecond (scope: taskmanager_job_task)
# TYPE flink_taskmanager_job_task_backPressuredTimeMsPerSecond gauge
` + task + `backPressuredTimeMsPerSecond{job_id="J1",task_id="v1",subtask_index="0",} 200.0
` + task + `backPressuredTimeMsPerSecond{job_id="OTHER",task_id="v1",subtask_index="0",} 999.0
# TYPE flink_taskmanager_job_task_busyTimeMsPerSecond gauge
` + task + `busyTimeMsPerSecond{job_id="J1",task_id="v1",subtask_index="0",} NaN
` + task + `checkpointAlignmentTime{job_id="J1",task_id="v2",subtask_index="0",} 3500000.0
` + task + `buffers_inPoolUsage{job_id="J1",task_id="v2",subtask_index="0",} 0.25
flink_taskmanager_Status_JVM_CPU_Load{host="h",} 0.5
`
	tm2 := task + `backPressuredTimeMsPerSecond{job_id="J1",task_id="v1",subtask_index="1",task_attempt_num="0",} 800.0
` + task + `backPressuredTimeMsPerSecond{job_id="J1",task_id="v1",subtask_index="1",task_attempt_num="1",} 900.0
` + task + `busyTimeMsPerSecond{job_id="J1",task_id="v1",subtask_index="1",} 300.0
` + task + `checkpointStartDelayNanos{job_id="J1",task_id="v2",subtask_index="1",} 1e6
` + task + `buffers_inPoolUsage{job_id="J1",task_id="v2",subtask_index="1",} 0.75
` + task + `isBackPressured{job_id="J1",task_id="v1",subtask_index="1",} 1.0`
	jm := `flink_jobmanager_job_lastCheckpointDuration{job_id="J1",} 1234.0
flink_jobmanager_job_lastCheckpointDuration{job_id="OTHER",} 5.0
flink_jobmanager_job_lastCheckpointSize{job_id="J1",} -1.0
`
	urls := []string{
		serve(t, page(textFormat, []byte(tm1))) + "/metrics",
		serve(t, page(textFormat, []byte(tm2))) + "/metrics",
		serve(t, page("", []byte(jm))), // no Content-Type: accepted as text
	}
	got, err := prometheus.Scrape(context.Background(), nil, "J1", urls...)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []struct {
		vertex, metric, agg string
		v                   float64
	}{
		{"v1", model.MetricBackPressuredMsPerSec, model.AggMax, 900}, // two attempts of subtask 1: the larger
		{"v1", model.MetricBackPressuredMsPerSec, model.AggAvg, 550}, // (200 + 900) / 2 subtasks
		{"v1", model.MetricBusyMsPerSec, model.AggMax, 300},          // NaN skipped
		{"v1", model.MetricBusyMsPerSec, model.AggAvg, 300},
		{"v1", prometheus.MetricIsBackPressured, model.AggMax, 1},
		{"v2", prometheus.MetricAlignmentTime, model.AggMax, 3.5}, // ns → ms
		{"v2", prometheus.MetricStartDelayMs, model.AggAvg, 1},
		{"v2", prometheus.MetricInPoolUsage, model.AggMax, 0.75}, // Flink 1.x name
		{"v2", prometheus.MetricInPoolUsage, model.AggAvg, 0.5},
		{"", prometheus.MetricLastCheckpointDuration, model.AggNone, 1234},
	} {
		checkOne(t, got, w.vertex, w.metric, w.agg, w.v)
	}
	if len(got) != 13 { // 6 vertex metrics × 2 aggregations + 1 job gauge; not the -1 size
		t.Errorf("got %d samples: %+v", len(got), got)
	}
}

type countingBudget struct {
	acquired, released atomic.Int32
	err                error
}

func (b *countingBudget) Acquire(ctx context.Context) (func(), error) {
	if b.err != nil {
		return nil, b.err
	}
	b.acquired.Add(1)
	return func() { b.released.Add(1) }, nil
}

func TestScrapeSpendsTheBudget(t *testing.T) {
	ok := serve(t, page(textFormat, []byte(`flink_jobmanager_job_lastCheckpointDuration{job_id="J1",} 7.0`)))
	b := &countingBudget{}
	s := prometheus.Scraper{Budget: b}
	if _, err := s.Scrape(context.Background(), "J1", ok, ok, ok); err != nil {
		t.Fatal(err)
	}
	if b.acquired.Load() != 3 || b.released.Load() != 3 {
		t.Errorf("acquired %d, released %d; want 3 each", b.acquired.Load(), b.released.Load())
	}
	s.Budget = &countingBudget{err: errors.New("collect: budget closed")}
	if _, err := s.Scrape(context.Background(), "J1", ok); err == nil || !strings.Contains(err.Error(), "request budget: collect: budget closed") {
		t.Errorf("err = %v", err)
	}
}

func TestScrapeFaults(t *testing.T) {
	good := serve(t, page(textFormat, []byte(`flink_taskmanager_job_task_busyTimeMsPerSecond{job_id="J1",task_id="v1",subtask_index="0",} 10.0`)))
	for _, tc := range []struct {
		name    string
		handler http.HandlerFunc // nil: a closed port
		maxBody int64
		want    error
		says    string
	}{
		{"down", nil, 0, prometheus.ErrUnreachable, "connection refused"},
		{"slow", slow(5 * time.Second), 0, prometheus.ErrTimeout, "no answer within 200ms"},
		{"HTML", page("text/html", []byte("<!doctype html><title>Apache Flink Web Dashboard</title>")), 0, prometheus.ErrNotPrometheus, `Content-Type "text/html"`},
		{"JSON as text", page("text/plain", []byte(`{"errors":["Not found: /metrics"]}`)), 0, prometheus.ErrNotPrometheus, "HTML or JSON"},
		{"not found", http.NotFound, 0, prometheus.ErrNotPrometheus, "HTTP 404"},
		{"server error", answer(500, "text/plain", "reporter failed"), 0, prometheus.ErrQuery, "HTTP 500 Internal Server Error: reporter failed"},
		{"malformed", page(textFormat, []byte("flink_taskmanager_job_task_busyTimeMsPerSecond{job_id=\"J1\" 12\n")), 0, prometheus.ErrNotPrometheus, "line 1"},
		{"too large", page(textFormat, []byte(strings.Repeat("# just a comment line\n", 100))), 1000, prometheus.ErrTooLarge, "1000 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bad := closedPort(t)
			if tc.handler != nil {
				bad = serve(t, tc.handler)
			}
			s := prometheus.Scraper{HTTP: &http.Client{Timeout: 200 * time.Millisecond}, MaxBodyBytes: tc.maxBody}
			got, err := s.Scrape(context.Background(), "J1", good, bad)
			t.Logf("%v", err)
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.says) || !strings.Contains(err.Error(), bad) {
				t.Fatalf("err = %v; want %v naming %s and saying %q", err, tc.want, bad, tc.says)
			}
			// The good endpoint's data is kept.
			if v := values(pick(got, "v1", model.MetricBusyMsPerSec, model.AggMax)); len(v) != 1 || v[0] != 10 {
				t.Errorf("samples from the good endpoint: %+v", got)
			}
			// Alone, the bad endpoint gives only the error.
			if got, err := s.Scrape(context.Background(), "J1", bad); got != nil || !errors.Is(err, tc.want) {
				t.Errorf("alone: %v, %v", got, err)
			}
		})
	}
}

func TestScrapeBadArguments(t *testing.T) {
	ctx := context.Background()
	var s prometheus.Scraper
	for _, tc := range []struct {
		name string
		job  string
		urls []string
		says string
	}{
		{"job id", `J1",x="`, []string{"http://127.0.0.1:1/metrics"}, "bad job id"},
		{"no URLs", "J1", nil, "no reporter URLs"},
		{"URL scheme", "J1", []string{"127.0.0.1:9249"}, "reporter URL"},
		{"URL credentials", "J1", []string{"http://a:b@127.0.0.1:9249/metrics"}, "must not contain credentials"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := s.Scrape(ctx, tc.job, tc.urls...); err == nil || !strings.Contains(err.Error(), tc.says) {
				t.Errorf("err = %v, want %q", err, tc.says)
			}
		})
	}
	s.Names = prometheus.MetricNames{Busy: "busy time"}
	if _, err := s.Scrape(ctx, "J1", "http://127.0.0.1:1/metrics"); err == nil || !strings.Contains(err.Error(), "not a valid metric name") {
		t.Errorf("err = %v", err)
	}
}
