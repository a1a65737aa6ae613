package capture

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/testenv/fuzzenv"
)

// fuzzLimits are small, so that memory stays small whatever the input (the reader holds at
// most one line of MaxLineBytes), and so that the limits themselves are hit.
var fuzzLimits = Limits{MaxLineBytes: 256 << 10, MaxDepth: 24, MaxStringBytes: 32 << 10, MaxSubtasks: 2000, MaxTasks: 200}

// cutCapture keeps of a real capture its header and at most per records of each type, with an
// end record that counts them: a seed of a few KB instead of a recording of hundreds.
func cutCapture(tb testing.TB, path string, per int) []byte {
	tb.Helper()
	file, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	var out bytes.Buffer
	kept := map[string]int{}
	records := 0
	sc := bufio.NewScanner(bytes.NewReader(gunzip(tb, file)))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var r struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			tb.Fatal(err)
		}
		switch {
		case r.Type == TypeEnd:
			continue
		case r.Type == TypeHeader:
		case kept[r.Type] >= per:
			continue
		default:
			records++
		}
		kept[r.Type]++
		out.Write(sc.Bytes())
		out.WriteByte('\n')
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	fmt.Fprintf(&out, `{"type":"end","records":%d}`+"\n", records)
	return out.Bytes()
}

// cutSample keeps the first n checkpoint records and time series points of the Flink
// checkpoint metrics artifact; the other keys and every kept entry are as recorded.
func cutSample(tb testing.TB, path string, n int) []byte {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(b, &doc); err != nil {
		tb.Fatal(err)
	}
	for _, k := range []string{"checkpoint_records", "time_series"} {
		var list []json.RawMessage
		if err := json.Unmarshal(doc[k], &list); err != nil {
			tb.Fatal(err)
		}
		if doc[k], err = json.Marshal(list[:min(n, len(list))]); err != nil {
			tb.Fatal(err)
		}
	}
	out, err := json.Marshal(doc)
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

// delivered is what a Visitor was handed, each record checked against the package's own
// validation as it arrives.
type delivered struct {
	t       *testing.T
	headers int
	counts  Summary
	order   []string
}

func (d *delivered) visitor() Visitor {
	return Visitor{
		Header: func(h Header) error {
			d.headers++
			if err := checkHeader(h); err != nil {
				d.t.Fatalf("delivered header: %v", err)
			}
			if err := validateHeader(&h, fuzzLimits.withDefaults()); err != nil {
				d.t.Fatalf("delivered header: %v", err)
			}
			return nil
		},
		Cluster: checked(d, TypeCluster, &d.counts.Clusters, validateCluster, func(c *model.Cluster) {
			if c.Auth.Password != "" || c.Auth.Token != "" || !c.ReadOnly ||
				strings.Contains(c.BaseURL, "@") && stripUserinfo(c.BaseURL) != c.BaseURL ||
				strings.Contains(c.PrometheusURL, "@") && stripUserinfo(c.PrometheusURL) != c.PrometheusURL {
				d.t.Fatalf("delivered cluster holds a credential or is writable: %+v", *c)
			}
		}),
		Job: checked(d, TypeJob, &d.counts.Jobs, validateJob, nil),
		Checkpoint: func(cp *model.Checkpoint) error {
			d.counts.Checkpoints++
			return d.check(TypeCheckpoint, validateCheckpoint(cp, fuzzLimits.withDefaults()))
		},
		AckSample:      checked(d, TypeAckSample, &d.counts.AckSamples, validateAckSample, nil),
		MetricSample:   checked(d, TypeMetricSample, &d.counts.MetricSamples, validateMetricSample, nil),
		Gap:            checked(d, TypeGap, &d.counts.Gaps, validateGap, nil),
		Reconciliation: checked(d, TypeReconciliation, &d.counts.Reconciliations, validateReconciliation, nil),
		JobConfig: checked(d, TypeJobConfig, &d.counts.JobConfigs, validateJobConfig, func(c *model.JobConfig) {
			for k := range c.Keys {
				if model.SecretKey(k) {
					d.t.Fatalf("delivered job config holds a secret-looking key %q", k)
				}
			}
		}),
	}
}

// check fails the test when a record comes before the header or fails validation.
func (d *delivered) check(typ string, err error) error {
	if d.headers != 1 {
		d.t.Fatalf("%s delivered after %d headers", typ, d.headers)
	}
	if err != nil {
		d.t.Fatalf("delivered %s fails validation: %v", typ, err)
	}
	d.order = append(d.order, typ)
	return nil
}

// checked counts each delivered record of typ, lets inspect (if not nil) look
// at it, and checks it against the package's own validation.
func checked[T any](d *delivered, typ string, count *int64, validate func(*T, Limits) error, inspect func(*T)) func(T) error {
	return func(v T) error {
		*count++
		if inspect != nil {
			inspect(&v)
		}
		return d.check(typ, validate(&v, fuzzLimits.withDefaults()))
	}
}

// FuzzRead feeds anything to the reader, plain or gzip: the real captures in app/sample cut
// down to a few records of each type, and the bundled Flink checkpoint metrics artifact cut
// down, both as they are and gzipped. The reader must not panic, must stay within its Limits,
// must name the problem when it refuses, and must deliver only records that pass its own
// validation, counted as its Summary says. Read and ReadFile must agree.
//
// `go test` runs every seed and every input under testdata/fuzz/ (found problems, kept as
// regressions); testenv/fuzz.sh (make fuzz) fuzzes it for a while.
func FuzzRead(f *testing.F) {
	samples := filepath.Join("..", "..", "app", "sample")
	for _, name := range []string{"flink-knobs.ckpt.gz", "flink120-iceberg.ckpt.gz", "flink120-mixed.ckpt.gz"} {
		plain := cutCapture(f, filepath.Join(samples, name), 2)
		f.Add(plain)
		f.Add(gzipBytes(f, plain))
	}
	artifact := cutSample(f, filepath.Join(samples, "phase-2.3-checkpoint-metrics.json"), 4)
	f.Add(artifact)
	f.Add(gzipBytes(f, artifact))
	f.Add([]byte(headerLine + "\n" + `{"type":"end","records":0}` + "\n"))
	f.Add([]byte(headerLine + "\n" + `{"type":"job_config","cluster":"c","job_id":"j","seen_ms":1,"interval_ms":1000,"unaligned":true,"keys":{"a.password":"x","state.backend.type":"rocksdb"}}` +
		"\n" + `{"type":"end","records":1}` + "\n"))

	path := filepath.Join(f.TempDir(), "fuzz.ckpt")
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzenv.Count()
		d := &delivered{t: t}
		sum, err := Read(context.Background(), bytes.NewReader(data), fuzzLimits, d.visitor())
		if err != nil {
			if msg := err.Error(); !strings.HasPrefix(msg, "capture: ") || len(msg) < len("capture: line 1: x") {
				t.Fatalf("error %q does not name the problem", msg)
			}
		} else {
			if d.headers != 1 {
				t.Fatalf("a read without error delivered %d headers", d.headers)
			}
			got := d.counts
			got.Header, got.Skipped = sum.Header, sum.Skipped
			if got != sum {
				t.Fatalf("summary %+v, delivered %+v", sum, got)
			}
		}

		// ReadFile reads the same bytes the same way (it only names converted samples' files).
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		d2 := &delivered{t: t}
		sum2, err2 := ReadFile(context.Background(), path, fuzzLimits, d2.visitor())
		if sum2.Header.Source != nil && sum.Header.Source != nil {
			s := *sum2.Header.Source
			s.Name = sum.Header.Source.Name
			sum2.Header.Source = &s
		}
		if (err == nil) != (err2 == nil) || err != nil && err.Error() != err2.Error() ||
			!reflect.DeepEqual(sum, sum2) || !reflect.DeepEqual(d.order, d2.order) {
			t.Fatalf("Read and ReadFile differ:\n%+v %v\n%+v %v", sum, err, sum2, err2)
		}
	})
}
