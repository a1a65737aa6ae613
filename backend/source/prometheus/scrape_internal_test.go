package prometheus

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"reflect"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	pmodel "github.com/prometheus/common/model"
)

// RealPage reads testdata/name, gunzipped: a page a real reporter served. The external tests
// (package prometheus_test) use it too.
func RealPage(tb testing.TB, name string) []byte {
	tb.Helper()
	f, err := os.Open("testdata/" + name)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		tb.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

func parseFull(tb testing.TB, page []byte) map[string]*dto.MetricFamily {
	tb.Helper()
	p := expfmt.NewTextParser(pmodel.UTF8Validation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(page))
	if err != nil {
		tb.Fatal(err)
	}
	return fams
}

func parseFiltered(tb testing.TB, page []byte, want map[string]series) map[string]*dto.MetricFamily {
	tb.Helper()
	filtered, err := filterExposition(bytes.NewReader(page), int64(len(page)), want)
	if err != nil {
		tb.Fatal(err)
	}
	return parseFull(tb, filtered)
}

// The line filter is an optimisation only: on the real reporter pages it must change nothing.
func TestFilterChangesNothingOnRealPages(t *testing.T) {
	names := DefaultNames()
	want := scrapeIndex(names)
	for _, name := range []string{"flink-2.3-taskmanager.txt.gz", "flink-2.3-jobmanager.txt.gz"} {
		page := RealPage(t, name)
		full, filtered := parseFull(t, page), parseFiltered(t, page, want)
		for fam := range want {
			a, b := full[fam], filtered[fam]
			if (a == nil) != (b == nil) || (a != nil && len(a.GetMetric()) != len(b.GetMetric())) {
				t.Errorf("%s: family %s differs after filtering", name, fam)
			}
		}
		for _, job := range []string{"19783ed6f73657829c4516c1e44835e0", "fda5324e433e01a6b1524a25bffcf415"} {
			fa, fb := newAggregator(names), newAggregator(names)
			fa.add(full, want, job)
			fb.add(filtered, want, job)
			if sa, sb := fa.samples("", job, 1), fb.samples("", job, 1); len(sa) == 0 || !reflect.DeepEqual(sa, sb) {
				t.Errorf("%s job %s: %d samples from the full page, %d filtered, or they differ", name, job, len(sa), len(sb))
			}
		}
	}
}

func TestLineMetric(t *testing.T) {
	for line, want := range map[string]string{
		"# HELP flink_a_b help text\n":     "flink_a_b",
		"# TYPE flink_a_b gauge\n":         "flink_a_b",
		"flink_a_b{job_id=\"x\",} 1.0\n":   "flink_a_b",
		"flink_a_b 1.0\n":                  "flink_a_b",
		"flink_a_b\t1.0":                   "flink_a_b",
		"# some other comment\n":           "",
		"\n":                               "",
		"flink_no_newline_at_end":          "flink_no_newline_at_end",
		"# HELP flink_only_name_no_help\n": "flink_only_name_no_help",
	} {
		if got := lineMetric([]byte(line)); got != want {
			t.Errorf("lineMetric(%q) = %q, want %q", line, got, want)
		}
	}
}
