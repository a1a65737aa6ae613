package prometheus

import (
	"fmt"
	"testing"
	"time"

	pmodel "github.com/prometheus/common/model"

	"checkpoint-explorer/backend/model"
)

// BenchmarkParseTaskManagerPage parses a real TaskManager reporter page (2 jobs, ~870 series)
// and aggregates one job: with the line filter Scrape uses, and without it.
func BenchmarkParseTaskManagerPage(b *testing.B) {
	page := RealPage(b, "flink-2.3-taskmanager.txt.gz")
	names := DefaultNames()
	want := scrapeIndex(names)
	const job = "19783ed6f73657829c4516c1e44835e0"
	b.Run("filtered", func(b *testing.B) {
		b.SetBytes(int64(len(page)))
		b.ReportAllocs()
		for b.Loop() {
			a := newAggregator(names)
			a.add(parseFiltered(b, page, want), want, job)
			if len(a.samples("", job, 1)) == 0 {
				b.Fatal("no samples")
			}
		}
	})
	b.Run("full", func(b *testing.B) {
		b.SetBytes(int64(len(page)))
		b.ReportAllocs()
		for b.Loop() {
			a := newAggregator(names)
			a.add(parseFull(b, page), want, job)
			if len(a.samples("", job, 1)) == 0 {
				b.Fatal("no samples")
			}
		}
	})
}

// BenchmarkConvertRange converts a full-size answer to Range(SeriesAll): 600 points for every
// series of a 20-vertex job.
func BenchmarkConvertRange(b *testing.B) {
	c, err := New(Config{URL: "http://127.0.0.1:9090"})
	if err != nil {
		b.Fatal(err)
	}
	specs := c.pick(SeriesAll)
	var m pmodel.Matrix
	for _, s := range specs {
		aggs := []string{model.AggMax, model.AggAvg}
		vertices := 20
		if s.scope == scopeJob {
			aggs, vertices = []string{model.AggNone}, 1
		}
		for _, agg := range aggs {
			for v := 0; v < vertices; v++ {
				ss := &pmodel.SampleStream{Metric: pmodel.Metric{
					seriesLabel: pmodel.LabelValue(s.metric + "/" + agg),
					"task_id":   pmodel.LabelValue(fmt.Sprintf("%032x", v)),
				}}
				for i := 0; i < MaxPoints; i++ {
					ss.Values = append(ss.Values, pmodel.SamplePair{Timestamp: pmodel.Time(1_700_000_000_000 + int64(i)*15_000), Value: pmodel.SampleValue(i)})
				}
				m = append(m, ss)
			}
		}
	}
	b.ReportAllocs()
	var n int
	for b.Loop() {
		out, err := c.convert(m, "j", specs)
		if err != nil {
			b.Fatal(err)
		}
		n = len(out)
	}
	b.ReportMetric(float64(n), "samples/op")
}

// BenchmarkBuildQuery is the PromQL for SeriesAll: its size is what every request carries.
func BenchmarkBuildQuery(b *testing.B) {
	names := DefaultNames()
	specs := names.series()
	var q string
	for b.Loop() {
		q = buildQuery(names, specs, "0123456789abcdef0123456789abcdef", 16*time.Second)
	}
	b.ReportMetric(float64(len(q)), "query-bytes")
}
