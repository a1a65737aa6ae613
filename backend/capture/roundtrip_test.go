package capture

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"

	"checkpoint-explorer/backend/model"
)

func i64(v int64) *int64 { return &v }

// got collects everything a Read delivers, in order.
type got struct {
	header  []Header
	records []any
}

func (g *got) visitor() Visitor {
	return Visitor{
		Header:       func(h Header) error { g.header = append(g.header, h); return nil },
		Cluster:      func(c model.Cluster) error { g.records = append(g.records, c); return nil },
		Job:          func(j model.Job) error { g.records = append(g.records, j); return nil },
		Checkpoint:   func(cp *model.Checkpoint) error { g.records = append(g.records, cp); return nil },
		AckSample:    func(a model.AckSample) error { g.records = append(g.records, a); return nil },
		MetricSample: func(m model.MetricSample) error { g.records = append(g.records, m); return nil },
		Gap:          func(gp model.Gap) error { g.records = append(g.records, gp); return nil },
		Reconciliation: func(r model.Reconciliation) error {
			g.records = append(g.records, r)
			return nil
		},
		JobConfig: func(c model.JobConfig) error { g.records = append(g.records, c); return nil },
		JobNote:   func(c model.Change) error { g.records = append(g.records, c); return nil },
	}
}

func testHeader() Header {
	return Header{
		RecordedBy: "ops@example",
		RecordedAt: time.Date(2026, 5, 27, 23, 31, 35, 123456789, time.UTC),
		AppVersion: "0.1.0-test",
		Host:       "laptop-7",
		Note:       "backpressure on the sink, <see> & \"quotes\"",
	}
}

// testRecords covers every record type and the shapes that are easy to get
// wrong: nil vs zero pointers, empty vs absent strings, unicode, extremes.
func testRecords() []any {
	return []any{
		model.Cluster{Name: "prod-flink", Engine: model.EngineFlink, BaseURL: "https://jm.example:8081",
			PrometheusURL: "http://prom:9090", Auth: model.Auth{Kind: model.AuthBasic}, CAFile: "/etc/ca.pem", ReadOnly: true},
		model.Cluster{Name: "zeta", Engine: model.EngineSeaTunnel, BaseURL: "http://st:8080", Auth: model.Auth{Kind: model.AuthNone}, ReadOnly: true},
		model.Job{Cluster: "prod-flink", ID: "469237c073b0c1ea872fc0403694fc68", Name: "CDC → Iceberg 作业", Engine: model.EngineFlink,
			State: "RUNNING", StartMs: 1779924578000, UpdatedMs: 1779924695000,
			Vertices: []model.Vertex{{ID: "v1", Name: "Source: MySQL", Parallelism: 1}, {ID: "v2", Name: "Sink: Iceberg", Parallelism: 4}},
			Edges:    []model.Edge{{Source: "v1", Target: "v2", ShipStrategy: "HASH"}}},
		model.Job{Cluster: "zeta", ID: "98765", Engine: model.EngineSeaTunnel, State: "FINISHED",
			Vertices: []model.Vertex{{ID: "1", Name: "src", Parallelism: 2, Pipeline: 1}}},
		&model.Checkpoint{Cluster: "prod-flink", JobID: "469237c073b0c1ea872fc0403694fc68", ID: 28, Kind: model.KindCheckpoint,
			Status: model.StatusCompleted, TriggerMs: 1779924618333, LatestAckMs: 1779924637355, CompletionMs: 1779924637400,
			EndToEndMs: 19022, FinalizeMs: i64(0), StateSize: 1 << 40, CheckpointedSize: 12316, ProcessedData: 22248,
			NumSubtasks: 5, NumAcknowledged: 5, ExternalPath: "s3://bucket/chk-28",
			Tasks: []model.TaskStats{
				{VertexID: "v1", LatestAckMs: 1779924618400, EndToEndMs: 67, NumSubtasks: 1, NumAcknowledged: 1,
					Subtasks: []model.SubtaskStats{{Index: 0, Status: model.SubtaskCompleted, AckMs: 1779924618400, EndToEndMs: 67, SyncMs: 1, AsyncMs: 3}}},
				{VertexID: "v2", LatestAckMs: 1779924637355, EndToEndMs: 19022, NumSubtasks: 4, NumAcknowledged: 4,
					Subtasks: []model.SubtaskStats{
						{Index: 0, Status: model.SubtaskCompleted, AckMs: 1779924637355, EndToEndMs: 19022, StartDelayMs: 2120, AlignmentMs: 16882, Unaligned: true},
						{Index: 1, Status: model.SubtaskPendingOrFailed},
						{Index: 2, Status: model.SubtaskCompleted, Aborted: true},
						{Index: 3, Status: model.SubtaskCompleted, StateSize: 9_223_372_036_854_775_807},
					}},
			}},
		&model.Checkpoint{Cluster: "prod-flink", JobID: "469237c073b0c1ea872fc0403694fc68", ID: 29, Kind: model.KindUnaligned,
			Status: model.StatusFailed, TriggerMs: 1779924640000, FailureMs: 1779924700000, EndToEndMs: 60000,
			FailureMessage: "Checkpoint expired before completing.\n\tat org.apache.flink…", FinalizeMs: nil},
		&model.Checkpoint{Cluster: "zeta", JobID: "98765", ID: 9_223_372_036_854_775_807, Pipeline: 1, Kind: model.KindSavepoint,
			Status: model.StatusInProgress, TriggerMs: 1, StateBlobs: i64(0)},
		&model.Checkpoint{Cluster: "zeta", JobID: "98765", ID: 0, Pipeline: 2, Kind: model.KindCheckpoint,
			Status: model.StatusCompleted, TriggerMs: 5, StateBlobs: i64(3), FinalizeMs: i64(12)},
		model.AckSample{Cluster: "zeta", JobID: "98765", Pipeline: 1, CheckpointID: 7, TimeMs: 1779924600000, Acknowledged: 3, Total: 8},
		model.AckSample{Cluster: "zeta", JobID: "98765", CheckpointID: 0, TimeMs: 0, Acknowledged: 0, Total: 0},
		model.MetricSample{Cluster: "prod-flink", JobID: "469237c073b0c1ea872fc0403694fc68", VertexID: "v2", Subtask: -1,
			Metric: model.MetricBackPressuredMsPerSec, Agg: model.AggMax, TimeMs: 1779924620000, Value: 0.1, Source: "prometheus"},
		model.MetricSample{Cluster: "zeta", JobID: "98765", VertexID: "1", Target: "2", Subtask: 3,
			Metric: model.MetricBPRatio, TimeMs: 1779924620000, Value: 1e-300, Source: "rest"},
		model.MetricSample{Cluster: "zeta", JobID: "98765", VertexID: "", Subtask: -1, Metric: "x", Value: -42.5},
		model.Gap{Cluster: "prod-flink", JobID: "469237c073b0c1ea872fc0403694fc68", FromID: 4, ToID: 12, DetectedMs: 1779924602055, Reason: "evicted"},
		model.Gap{Cluster: "zeta", JobID: "98765", Pipeline: 1, FromID: 0, ToID: 0},
	}
}

func writeAll(t testing.TB, w *Writer, recs []any) {
	t.Helper()
	for _, r := range recs {
		var err error
		switch r := r.(type) {
		case model.Cluster:
			err = w.Cluster(r)
		case model.Job:
			err = w.Job(r)
		case *model.Checkpoint:
			err = w.Checkpoint(r)
		case model.AckSample:
			err = w.AckSample(r)
		case model.MetricSample:
			err = w.MetricSample(r)
		case model.Gap:
			err = w.Gap(r)
		case model.Reconciliation:
			err = w.Reconciliation(r)
		case model.JobConfig:
			err = w.JobConfig(r)
		case model.Change:
			err = w.JobNote(r)
		default:
			t.Fatalf("unknown record %T", r)
		}
		if err != nil {
			t.Fatalf("write %T: %v", r, err)
		}
	}
}

// newTestWriter starts a capture with header h in memory.
func newTestWriter(t testing.TB, h Header) (*Writer, *bytes.Buffer) {
	t.Helper()
	buf := new(bytes.Buffer)
	w, err := NewWriter(buf, h)
	if err != nil {
		t.Fatal(err)
	}
	return w, buf
}

// encode writes a whole capture to memory.
func encode(t testing.TB, h Header, recs []any) []byte {
	t.Helper()
	w, buf := newTestWriter(t, h)
	writeAll(t, w, recs)
	if got := w.Records(); got != int64(len(recs)) {
		t.Fatalf("Records() = %d, want %d", got, len(recs))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func gunzip(t testing.TB, b []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func gzipBytes(t testing.TB, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestRoundTrip(t *testing.T) {
	h := testHeader()
	recs := testRecords()
	file := encode(t, h, recs)

	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"gzip", file},
		{"plain JSON Lines", gunzip(t, file)},
		{"plain with CRLF", bytes.ReplaceAll(gunzip(t, file), []byte("\n"), []byte("\r\n"))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var g got
			sum, err := Read(context.Background(), bytes.NewReader(tc.data), Limits{}, g.visitor())
			if err != nil {
				t.Fatal(err)
			}
			wantHeader := h
			wantHeader.Format, wantHeader.Version = Format, Version
			if len(g.header) != 1 || !reflect.DeepEqual(g.header[0], wantHeader) {
				t.Fatalf("header = %+v, want %+v", g.header, wantHeader)
			}
			if !reflect.DeepEqual(sum.Header, wantHeader) {
				t.Errorf("summary header = %+v", sum.Header)
			}
			if len(g.records) != len(recs) {
				t.Fatalf("read %d records, wrote %d", len(g.records), len(recs))
			}
			for i := range recs {
				if !reflect.DeepEqual(g.records[i], recs[i]) {
					t.Errorf("record %d:\n got %#v\nwant %#v", i, g.records[i], recs[i])
				}
			}
			want := Summary{Header: wantHeader, Clusters: 2, Jobs: 2, Checkpoints: 4, AckSamples: 2, MetricSamples: 3, Gaps: 2}
			if sum != want {
				t.Errorf("summary = %+v, want %+v", sum, want)
			}
		})
	}
}

// The header is the first line and "type" is every line's first key, so a
// capture can be told apart by its first bytes.
func TestLineShape(t *testing.T) {
	lines := strings.Split(strings.TrimSuffix(string(gunzip(t, encode(t, testHeader(), testRecords()))), "\n"), "\n")
	if !strings.HasPrefix(lines[0], `{"type":"header","format":"checkpoint-explorer-capture","version":"`+Version+`",`) {
		t.Errorf("header line = %s", lines[0])
	}
	if !strings.Contains(lines[0], `"recorded_at":"2026-05-27T23:31:35.123456789Z"`) {
		t.Errorf("recorded_at not RFC3339 UTC: %s", lines[0])
	}
	if last := lines[len(lines)-1]; last != `{"type":"end","records":15}` {
		t.Errorf("end line = %s", last)
	}
	if got := len(lines); got != 17 {
		t.Errorf("%d lines, want header + 15 + end", got)
	}
	if !strings.Contains(lines[5], `"finalize_ms":0`) || strings.Contains(lines[6], `"finalize_ms"`) {
		t.Errorf("finalize_ms: a zero pointer must be written, a nil one omitted:\n%s\n%s", lines[5], lines[6])
	}
}

func TestWriterDeterministic(t *testing.T) {
	a := encode(t, testHeader(), testRecords())
	b := encode(t, testHeader(), testRecords())
	if !bytes.Equal(a, b) {
		t.Error("the same records gave different bytes")
	}
}

func TestWriterRefusesInvalidRecords(t *testing.T) {
	cp := func(f func(*model.Checkpoint)) *model.Checkpoint {
		c := &model.Checkpoint{Cluster: "c", JobID: "j", ID: 1, Kind: model.KindCheckpoint, Status: model.StatusCompleted, TriggerMs: 1}
		f(c)
		return c
	}
	for _, tc := range []struct {
		name  string
		write func(*Writer) error
		want  string
	}{
		{"cluster without name", func(w *Writer) error { return w.Cluster(model.Cluster{Engine: model.EngineFlink}) }, "cluster: empty name"},
		{"cluster unknown engine", func(w *Writer) error { return w.Cluster(model.Cluster{Name: "x", Engine: "spark"}) }, `cluster: unknown engine "spark"`},
		{"job without id", func(w *Writer) error { return w.Job(model.Job{Cluster: "c", Engine: model.EngineFlink}) }, "job: empty id"},
		{"checkpoint bad status", func(w *Writer) error { return w.Checkpoint(cp(func(c *model.Checkpoint) { c.Status = "BOGUS" })) }, `checkpoint: invalid status "BOGUS"`},
		{"checkpoint bad kind", func(w *Writer) error { return w.Checkpoint(cp(func(c *model.Checkpoint) { c.Kind = "" })) }, `checkpoint: invalid kind ""`},
		{"checkpoint negative id", func(w *Writer) error { return w.Checkpoint(cp(func(c *model.Checkpoint) { c.ID = -1 })) }, "checkpoint: negative id -1"},
		{"checkpoint negative finalize", func(w *Writer) error { return w.Checkpoint(cp(func(c *model.Checkpoint) { c.FinalizeMs = i64(-1) })) }, "checkpoint: negative finalize_ms -1"},
		{"checkpoint nil", func(w *Writer) error { return w.Checkpoint(nil) }, "checkpoint: nil"},
		{"subtask bad status", func(w *Writer) error {
			return w.Checkpoint(cp(func(c *model.Checkpoint) {
				c.Tasks = []model.TaskStats{{VertexID: "v", Subtasks: []model.SubtaskStats{{Index: 0, Status: "done"}}}}
			}))
		}, `checkpoint: task v subtask 0: invalid status "done"`},
		{"metric NaN", func(w *Writer) error {
			return w.MetricSample(model.MetricSample{Cluster: "c", JobID: "j", Metric: "m", Value: nan()})
		}, "metric_sample: metric m: value NaN is not a finite number"},
		{"metric bad subtask", func(w *Writer) error {
			return w.MetricSample(model.MetricSample{Cluster: "c", JobID: "j", Metric: "m", Subtask: -2})
		}, "metric_sample: invalid subtask -2"},
		{"gap reversed", func(w *Writer) error { return w.Gap(model.Gap{Cluster: "c", JobID: "j", FromID: 5, ToID: 4}) }, "gap: to_id 4 is before from_id 5"},
		{"ack without job", func(w *Writer) error { return w.AckSample(model.AckSample{Cluster: "c"}) }, "ack_sample: empty job_id"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, buf := newTestWriter(t, testHeader())
			err := tc.write(w)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v, want it to contain %q", err, tc.want)
			}
			// Nothing was written and the writer goes on.
			if w.Records() != 0 {
				t.Errorf("Records() = %d after a refused record", w.Records())
			}
			writeAll(t, w, testRecords()[:1])
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			sum, err := Read(context.Background(), buf, Limits{}, Visitor{})
			if err != nil || sum.Records() != 1 {
				t.Fatalf("read back: %+v, %v", sum, err)
			}
		})
	}
}

// A write error is sticky and Close leaves the file without its end record,
// so a reader reports it as truncated rather than complete.
func TestWriterErrorIsSticky(t *testing.T) {
	fw := &failingWriter{limit: 200}
	w, err := NewWriter(fw, testHeader())
	if err != nil {
		t.Fatal(err)
	}
	var werr error
	for i := 0; i < 10000 && werr == nil; i++ {
		werr = w.Checkpoint(testRecords()[4].(*model.Checkpoint))
		if werr == nil {
			werr = w.Flush()
		}
	}
	if werr == nil {
		t.Fatal("no error from a failing writer")
	}
	if err := w.Gap(model.Gap{Cluster: "c", JobID: "j"}); err == nil {
		t.Error("write after an I/O error succeeded")
	}
	if err := w.Close(); err == nil {
		t.Error("Close after an I/O error succeeded")
	}
	_, err = Read(context.Background(), bytes.NewReader(fw.buf.Bytes()), Limits{}, Visitor{})
	if err == nil || !strings.Contains(err.Error(), "truncated") {
		t.Errorf("reading what a failed writer left: %v, want truncated", err)
	}
}

type failingWriter struct {
	buf   bytes.Buffer
	limit int
}

func (f *failingWriter) Write(p []byte) (int, error) {
	if f.buf.Len()+len(p) > f.limit {
		n := f.limit - f.buf.Len()
		f.buf.Write(p[:n])
		return n, io.ErrShortWrite
	}
	return f.buf.Write(p)
}

func TestWriteAfterClose(t *testing.T) {
	w, buf := newTestWriter(t, testHeader())
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if err := w.Gap(model.Gap{Cluster: "c", JobID: "j"}); err == nil {
		t.Error("write after Close succeeded")
	}
	sum, err := Read(context.Background(), buf, Limits{}, Visitor{})
	if err != nil || sum.Records() != 0 {
		t.Errorf("empty capture: %+v, %v", sum, err)
	}
}

// A recording that was flushed but never closed (the app crashed) still has
// its records on disk, and reads as truncated, never as complete.
func TestFlushedButNotClosed(t *testing.T) {
	w, buf := newTestWriter(t, testHeader())
	recs := testRecords()
	writeAll(t, w, recs[:5])
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	var g got
	sum, err := Read(context.Background(), bytes.NewReader(buf.Bytes()), Limits{}, g.visitor())
	if err == nil || !strings.Contains(err.Error(), "truncated") {
		t.Fatalf("error = %v, want truncated", err)
	}
	if len(g.records) != 5 || sum.Records() != 5 || !reflect.DeepEqual(g.records, recs[:5]) {
		t.Errorf("read %d records before the cut, want the 5 flushed", len(g.records))
	}
	// Closing later completes the same file.
	writeAll(t, w, recs[5:])
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err == nil {
		t.Error("Flush after Close succeeded")
	}
	if sum, err := Read(context.Background(), buf, Limits{}, Visitor{}); err != nil || sum.Records() != int64(len(recs)) {
		t.Errorf("after Close: %+v, %v", sum, err)
	}
}
