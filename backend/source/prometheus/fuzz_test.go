package prometheus

// Fuzz targets for what the package decodes: Flink reporter pages (the text exposition format,
// through Scraper.Scrape) and the Prometheus HTTP API's answers (through Check, Range, Value
// and ScrapeInterval). Each serves the fuzz input from one loopback server, reused across
// iterations, to the real method. Seeds: the real reporter pages in testdata/ (Flink 2.3, cut
// down to the families read plus some others) and real API answers in testdata/api/ (recorded
// from the testenv Prometheus; see its README).
//
// `go test` runs every seed and every input under testdata/fuzz/ (found problems, kept as
// regressions); testenv/fuzz.sh (make fuzz) fuzzes each target for a while.

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	pmodel "github.com/prometheus/common/model"

	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/testenv/fuzzenv"
)

const (
	fuzzPageJob = "19783ed6f73657829c4516c1e44835e0" // a job on the recorded reporter pages
	fuzzAPIJob  = "b5ca7d45bbaf94c96793c46abb82fb39" // the job of the recorded API answers
)

// cutPage keeps of a real reporter page the first lines (families the filter drops) and, of
// each family read, its HELP and TYPE lines, perJob samples of job and one of another job: a
// few KB instead of hundreds.
func cutPage(page []byte, want map[string]series, job string, perJob int) []byte {
	var out bytes.Buffer
	kept := map[string]int{}
	for i, line := range bytes.SplitAfter(page, []byte("\n")) {
		name := lineMetric(line)
		_, wanted := want[name]
		switch {
		case i < 12:
		case !wanted:
			continue
		case !bytes.HasPrefix(line, []byte("#")):
			key, limit := name+" other", 1
			if bytes.Contains(line, []byte(job)) {
				key, limit = name, perJob
			}
			if kept[key] >= limit {
				continue
			}
			kept[key]++
		}
		out.Write(line)
	}
	return out.Bytes()
}

// FuzzScrape: a reporter page through Scrape. Besides the samples' own checks, the line filter
// that keeps only the families read must change nothing: where the whole page parses, the
// filtered one gives the same samples.
func FuzzScrape(f *testing.F) {
	names := DefaultNames()
	want := scrapeIndex(names)
	for _, name := range []string{"flink-2.3-taskmanager.txt.gz", "flink-2.3-jobmanager.txt.gz"} {
		page := RealPage(f, name)
		f.Add(uint8(0), cutPage(page, want, fuzzPageJob, 2))
	}
	srv := fuzzenv.New(f)
	now := time.UnixMilli(1_796_129_700_000)
	s := &Scraper{HTTP: &http.Client{Timeout: 10 * time.Second}, Cluster: "fz", MaxBodyBytes: 1 << 20,
		Now: func() time.Time { return now }}
	f.Fuzz(func(t *testing.T, status uint8, page []byte) {
		fuzzenv.Count()
		code := fuzzenv.Status(status)
		srv.Answer(code, "text/plain; version=0.0.4; charset=utf-8", page)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		samples, err := s.Scrape(ctx, fuzzPageJob, srv.URL+"/metrics")
		if err != nil {
			if len(samples) > 0 {
				t.Fatalf("%d samples with the error of the only endpoint: %v", len(samples), err)
			}
			var pe *Error
			if !errors.As(err, &pe) || !strings.HasPrefix(err.Error(), "prometheus: scrape http://") {
				t.Fatalf("error %q does not say what failed", err)
			}
			if code != 200 && pe.Status != code {
				t.Fatalf("HTTP %d reported as %d", code, pe.Status)
			}
			return
		}
		if code != 200 {
			t.Fatalf("HTTP %d accepted", code)
		}
		for _, m := range samples {
			if m.Cluster != "fz" || m.JobID != fuzzPageJob || m.Subtask != -1 || m.TimeMs != now.UnixMilli() ||
				m.Source != ReporterSource || math.IsNaN(m.Value) || math.IsInf(m.Value, 0) || m.Value < 0 {
				t.Fatalf("sample %+v", m)
			}
			switch m.Agg {
			case model.AggMax, model.AggAvg:
				if m.VertexID == "" {
					t.Fatalf("task sample without vertex %+v", m)
				}
			case model.AggNone:
			default:
				t.Fatalf("sample %+v", m)
			}
		}
		parser := expfmt.NewTextParser(pmodel.UTF8Validation)
		full, err := parser.TextToMetricFamilies(bytes.NewReader(page))
		if err != nil {
			return
		}
		a := newAggregator(names)
		a.add(full, want, fuzzPageJob)
		if got := a.samples("fz", fuzzPageJob, now.UnixMilli()); !reflect.DeepEqual(got, samples) && len(got)+len(samples) > 0 {
			t.Fatalf("the filtered page gives other samples than the whole one:\nfiltered %+v\nwhole    %+v", samples, got)
		}
	})
}

// FuzzQueryResponses: the Prometheus HTTP API's answers to Check (vector(1)), Range (every
// series), Value (a custom lane's PromQL) and ScrapeInterval (/api/v1/targets).
func FuzzQueryResponses(f *testing.F) {
	type op struct {
		name  string
		seeds []string
		call  func(ctx context.Context, c *Client, t *testing.T) error
	}
	ops := []op{
		{"Check", []string{"check.json"}, func(ctx context.Context, c *Client, t *testing.T) error {
			return c.Check(ctx)
		}},
		{"Range", []string{"range-all.json", "range-backpressure.json"}, func(ctx context.Context, c *Client, t *testing.T) error {
			samples, err := c.Range(ctx, fuzzAPIJob, 1_796_129_700_000, 1_796_129_704_000, SeriesAll)
			if err != nil && !errors.Is(err, ErrPartial) && len(samples) > 0 {
				t.Fatalf("%d samples with the error %v", len(samples), err)
			}
			for _, m := range samples {
				if m.JobID != fuzzAPIJob || m.Subtask != -1 || m.Source != SourceName || m.Metric == "" || m.TimeMs < 0 ||
					math.IsNaN(m.Value) || math.IsInf(m.Value, 0) {
					t.Fatalf("sample %+v", m)
				}
			}
			if !slices.IsSortedFunc(samples, func(a, b model.MetricSample) int {
				return cmp.Or(strings.Compare(a.VertexID, b.VertexID), strings.Compare(a.Metric, b.Metric),
					strings.Compare(a.Agg, b.Agg), cmp.Compare(a.TimeMs, b.TimeMs))
			}) {
				t.Fatal("samples not sorted by vertex, metric, aggregation and time")
			}
			return err
		}},
		{"Value", []string{"value-vector.json", "value-scalar.json", "value-matrix.json", "value-bad-query.json"},
			func(ctx context.Context, c *Client, t *testing.T) error {
				v, ok, err := c.Value(ctx, `max(flink_taskmanager_job_task_busyTimeMsPerSecond)`, time.UnixMilli(1_796_129_704_000))
				if ok && (math.IsNaN(v) || math.IsInf(v, 0)) || !ok && v != 0 {
					t.Fatalf("value %v, %v", v, ok)
				}
				if ok && err != nil && !errors.Is(err, ErrPartial) {
					t.Fatalf("a value with the error %v", err)
				}
				return err
			}},
		{"ScrapeInterval", []string{"targets.json"}, func(ctx context.Context, c *Client, t *testing.T) error {
			d, err := c.ScrapeInterval(ctx)
			if err == nil && (d < time.Second || d%time.Second != 0) {
				t.Fatalf("scrape interval %s", d)
			}
			return err
		}},
	}
	for i, o := range ops {
		for _, name := range o.seeds {
			b, err := os.ReadFile(filepath.Join("testdata", "api", name))
			if err != nil {
				f.Fatal(err)
			}
			status := 200
			if strings.Contains(name, "bad") {
				status = 400
			}
			f.Add(uint8(i), fuzzenv.StatusByte(status), b)
		}
	}
	srv := fuzzenv.New(f)
	c, err := New(Config{URL: srv.URL, Cluster: "fz", MinStep: time.Second, Timeout: 10 * time.Second, MaxBodyBytes: 1 << 20})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, which, status uint8, body []byte) {
		fuzzenv.Count()
		o := ops[int(which)%len(ops)]
		srv.Answer(fuzzenv.Status(status), "application/json", body)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		err := o.call(ctx, c, t)
		if err != nil && (!strings.HasPrefix(err.Error(), "prometheus: ") || len(err.Error()) < len("prometheus: x")) {
			t.Fatalf("%s: error %q does not say what failed", o.name, err)
		}
	})
}
