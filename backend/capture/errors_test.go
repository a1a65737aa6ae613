package capture

import (
	"bytes"
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"checkpoint-explorer/backend/model"
)

func nan() float64 { return math.NaN() }

const headerLine = `{"type":"header","format":"checkpoint-explorer-capture","version":"1.0","recorded_by":"t","recorded_at":"2026-05-27T23:31:35Z","app_version":"x"}`

// lines builds a plain capture from raw lines.
func lines(ls ...string) []byte { return []byte(strings.Join(ls, "\n") + "\n") }

func readErr(t *testing.T, data []byte, lim Limits) (Summary, error) {
	t.Helper()
	var g got
	return Read(context.Background(), bytes.NewReader(data), lim, g.visitor())
}

func TestTruncated(t *testing.T) {
	file := encode(t, testHeader(), testRecords())
	plain := gunzip(t, file)
	cuts := []struct {
		name string
		data []byte
	}{
		{"empty", nil},
		{"gzip 1 byte", file[:1]},
		{"gzip 5 bytes", file[:5]},
		{"gzip header only", file[:10]},
		{"gzip quarter", file[:len(file)/4]},
		{"gzip half", file[:len(file)/2]},
		{"gzip without footer", file[:len(file)-8]},
		{"gzip without last byte", file[:len(file)-1]},
		{"plain inside header", plain[:20]},
		{"plain mid-line", plain[:len(plain)/2]},
		{"plain without end record", plain[:bytes.LastIndex(plain[:len(plain)-1], []byte("\n"))+1]},
		{"plain end record cut", plain[:len(plain)-5]},
	}
	for _, tc := range cuts {
		t.Run(tc.name, func(t *testing.T) {
			_, err := readErr(t, tc.data, Limits{})
			if err == nil || !strings.Contains(err.Error(), "truncated") {
				t.Fatalf("error = %v, want truncation", err)
			}
		})
	}
	// Every cut of the gzip file fails: a partial import never looks complete.
	for n := 0; n < len(file); n += 7 {
		if _, err := readErr(t, file[:n], Limits{}); err == nil {
			t.Fatalf("a file cut at byte %d of %d read without error", n, len(file))
		}
	}
}

func TestCorruptGzip(t *testing.T) {
	file := encode(t, testHeader(), testRecords())
	for _, tc := range []struct {
		name   string
		mutate func([]byte)
	}{
		{"deflate data", func(b []byte) {
			for i := 20; i < 60; i++ {
				b[i] ^= 0xff
			}
		}},
		{"crc", func(b []byte) { b[len(b)-6] ^= 0x01 }},
		{"size", func(b []byte) { b[len(b)-2] ^= 0x01 }},
		{"header method", func(b []byte) { b[2] = 7 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := append([]byte(nil), file...)
			tc.mutate(data)
			_, err := readErr(t, data, Limits{})
			if err == nil || !(strings.Contains(err.Error(), "corrupt") || strings.Contains(err.Error(), "truncated")) {
				t.Fatalf("error = %v, want corrupt gzip", err)
			}
		})
	}
	// Bytes after the gzip stream are read as the start of another member.
	t.Run("trailing garbage", func(t *testing.T) {
		_, err := readErr(t, append(append([]byte(nil), file...), "garbage after the stream"...), Limits{})
		if err == nil || !strings.Contains(err.Error(), "corrupt gzip stream after line 17") {
			t.Fatalf("error = %v, want corrupt gzip", err)
		}
	})
	t.Run("short trailing garbage", func(t *testing.T) {
		_, err := readErr(t, append(append([]byte(nil), file...), "junk"...), Limits{})
		if err == nil || !strings.Contains(err.Error(), "after line 17") {
			t.Fatalf("error = %v, want an error after the last line", err)
		}
	})
}

func TestHeaderRefused(t *testing.T) {
	for _, tc := range []struct {
		name, first, want string
	}{
		{"wrong format", `{"type":"header","format":"something-else","version":"1.0"}`, `capture: not a capture file: format is "something-else", want "checkpoint-explorer-capture"`},
		{"version 2.0", `{"type":"header","format":"checkpoint-explorer-capture","version":"2.0"}`, "capture: version 2.0 is not supported (this app reads 1.x)"},
		{"version 0.9", `{"type":"header","format":"checkpoint-explorer-capture","version":"0.9"}`, "capture: version 0.9 is not supported (this app reads 1.x)"},
		{"malformed version", `{"type":"header","format":"checkpoint-explorer-capture","version":"one"}`, `capture: malformed version "one"`},
		{"missing version", `{"type":"header","format":"checkpoint-explorer-capture"}`, `capture: malformed version ""`},
		{"first record not a header", `{"type":"cluster","name":"x","engine":"flink"}`, `capture: line 1: expected a header record, found "cluster"`},
		{"not JSON", `hello world`, "capture: not a capture file"},
		{"some other JSON", `{"a":1}`, "capture: not a capture file"},
		{"bad recorded_at", `{"type":"header","format":"checkpoint-explorer-capture","version":"1.0","recorded_at":"yesterday"}`, "capture: line 1: header:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, data := range [][]byte{lines(tc.first, `{"type":"end","records":0}`), gzipBytes(t, lines(tc.first, `{"type":"end","records":0}`))} {
				var headers int
				_, err := Read(context.Background(), bytes.NewReader(data), Limits{}, Visitor{Header: func(Header) error { headers++; return nil }})
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("error = %v, want %q", err, tc.want)
				}
				if headers != 0 {
					t.Error("a refused header reached the visitor")
				}
			}
		})
	}
}

func TestMinorVersionAndUnknownRecords(t *testing.T) {
	data := lines(
		`{"type":"header","format":"checkpoint-explorer-capture","version":"1.7","recorded_by":"future","recorded_at":"2030-01-01T00:00:00Z","app_version":"9","new_header_field":{"x":[1,2]}}`,
		`{"type":"annotation","text":"added in 1.7","at":123}`,
		`{"type":"gap","cluster":"c","job_id":"j","from_id":1,"to_id":2,"detected_ms":5,"confidence":0.5}`,
		``,
		`{"type":"vertex_profile","data":[[1],[2]]}`,
		`{"type":"end","records":3}`,
		``,
	)
	var g got
	sum, err := Read(context.Background(), bytes.NewReader(data), Limits{}, g.visitor())
	if err != nil {
		t.Fatal(err)
	}
	if sum.Skipped != 2 || sum.Gaps != 1 || sum.Header.Version != "1.7" {
		t.Errorf("summary = %+v, want 2 skipped, 1 gap, version 1.7", sum)
	}
	want := model.Gap{Cluster: "c", JobID: "j", FromID: 1, ToID: 2, DetectedMs: 5}
	if len(g.records) != 1 || g.records[0] != want {
		t.Errorf("records = %#v", g.records)
	}
}

func TestInvalidRecords(t *testing.T) {
	for _, tc := range []struct {
		name string
		line string
		want string
	}{
		{"bad status", `{"type":"checkpoint","cluster":"c","job_id":"j","id":1,"kind":"checkpoint","status":"BOGUS","trigger_ms":1}`, `capture: line 2: checkpoint: invalid status "BOGUS"`},
		{"negative id", `{"type":"checkpoint","cluster":"c","job_id":"j","id":-3,"kind":"checkpoint","status":"COMPLETED"}`, `capture: line 2: checkpoint: negative id -3`},
		{"empty job id", `{"type":"job","cluster":"c","id":"","engine":"flink"}`, `capture: line 2: job: empty id`},
		{"empty cluster name", `{"type":"cluster","name":"","engine":"flink"}`, `capture: line 2: cluster: empty name`},
		{"unknown auth", `{"type":"cluster","name":"x","engine":"flink","auth":{"kind":"kerberos"}}`, `capture: line 2: cluster: unknown auth kind "kerberos"`},
		{"wrong json type", `{"type":"checkpoint","cluster":"c","job_id":"j","id":"seven"}`, `capture: line 2: checkpoint: json: cannot unmarshal string`},
		{"int overflow", `{"type":"gap","cluster":"c","job_id":"j","from_id":1e30,"to_id":2}`, `capture: line 2: gap: json: cannot unmarshal number 1e30`},
		{"bad agg", `{"type":"metric_sample","cluster":"c","job_id":"j","metric":"m","agg":"p99","subtask":-1}`, `capture: line 2: metric_sample: invalid agg "p99"`},
		{"no type", `{"cluster":"c"}`, `capture: line 2: record without a "type"`},
		{"type not a string", `{"type":7}`, `capture: line 2: record without a "type"`},
		{"second header", headerLine, "capture: line 2: a second header record"},
		{"broken JSON", `{"type":"gap","cluster":"c",}`, "capture: line 2: gap: invalid character"},
		{"not an object", `[1,2,3]`, `capture: line 2: record without a "type"`},
		{"unbalanced", `{"type":"gap"`, "capture: line 2: not a complete JSON object"},
		{"trigger failures without a count", `{"type":"reconciliation","cluster":"c","job_id":"j","engine_counted":3,"without_id":1,"trigger_failures":[{"reason":"r","count":0,"first_ms":1,"last_ms":1,"example":"r."}]}`,
			`capture: line 2: reconciliation: trigger_failures: count 0 for "r", want at least 1`},
		{"trigger failures ending before they start", `{"type":"reconciliation","cluster":"c","job_id":"j","engine_counted":3,"without_id":1,"trigger_failures":[{"reason":"r","count":1,"first_ms":5,"last_ms":1,"example":"r."}]}`,
			`capture: line 2: reconciliation: trigger_failures: last_ms 1 is before first_ms 5`},
		{"too many trigger failure reasons", `{"type":"reconciliation","cluster":"c","job_id":"j","engine_counted":6,"without_id":6,"trigger_failures":[` +
			strings.Repeat(`{"reason":"r","count":1,"first_ms":1,"last_ms":1,"example":"r."},`, 5) + `{"reason":"r","count":1,"first_ms":1,"last_ms":1,"example":"r."}]}`,
			`capture: line 2: reconciliation: 6 trigger_failures, over the limit of 5 reasons`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := readErr(t, lines(headerLine, tc.line, `{"type":"end","records":1}`), Limits{})
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Fatalf("error = %v\nwant prefix %q", err, tc.want)
			}
		})
	}
}

func TestEndRecord(t *testing.T) {
	gap := `{"type":"gap","cluster":"c","job_id":"j","from_id":1,"to_id":2}`
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"count too high", lines(headerLine, gap, `{"type":"end","records":2}`), "capture: line 3: end: the file says it holds 2 records but 1 were read"},
		{"count too low", lines(headerLine, gap, gap, `{"type":"end","records":1}`), "capture: line 4: end: the file says it holds 1 records but 2 were read"},
		{"no count", lines(headerLine, `{"type":"end"}`), `capture: line 2: end: no "records" count`},
		{"data after end", lines(headerLine, `{"type":"end","records":0}`, gap), "capture: line 3: data after the end record"},
		{"header only", lines(headerLine), "capture: truncated: no end record after line 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := readErr(t, tc.data, Limits{})
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Fatalf("error = %v\nwant prefix %q", err, tc.want)
			}
		})
	}
}

func TestVisitorErrorStops(t *testing.T) {
	stop := errors.New("store full")
	file := encode(t, testHeader(), testRecords())
	var checkpoints, gaps int
	_, err := Read(context.Background(), bytes.NewReader(file), Limits{}, Visitor{
		Checkpoint: func(*model.Checkpoint) error {
			checkpoints++
			if checkpoints == 2 {
				return stop
			}
			return nil
		},
		Gap: func(model.Gap) error { gaps++; return nil },
	})
	if !errors.Is(err, stop) || !strings.HasPrefix(err.Error(), "capture: line 7: store full") {
		t.Fatalf("error = %v, want the visitor's error at line 7", err)
	}
	if checkpoints != 2 || gaps != 0 {
		t.Errorf("visited %d checkpoints and %d gaps after stopping", checkpoints, gaps)
	}
}

func TestContextCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	file := encode(t, testHeader(), testRecords())
	n := 0
	_, err := Read(ctx, bytes.NewReader(file), Limits{}, Visitor{Job: func(model.Job) error {
		n++
		cancel()
		return nil
	}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error = %v, want context.Canceled", err)
	}
	if n != 1 {
		t.Errorf("%d jobs visited after cancel", n)
	}
}

func TestReadFileErrors(t *testing.T) {
	_, err := ReadFile(context.Background(), t.TempDir()+"/missing.ckpt.gz", Limits{}, Visitor{})
	if err == nil || !strings.Contains(err.Error(), "capture: open") || !strings.Contains(err.Error(), "missing.ckpt.gz") {
		t.Errorf("error = %v, want an open error naming the file", err)
	}
}
