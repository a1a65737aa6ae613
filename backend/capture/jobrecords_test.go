package capture

import (
	"bytes"
	"context"
	"reflect"
	"strings"
	"testing"

	"checkpoint-explorer/backend/model"
)

func bp(v bool) *bool { return &v }

func testJobConfigs() []model.JobConfig {
	return []model.JobConfig{
		{Cluster: "prod-flink", JobID: "469237c073b0c1ea872fc0403694fc68", SeenMs: 1779924578000, Mode: "exactly_once",
			IntervalMs: i64(1000), TimeoutMs: i64(600000), MinPauseMs: i64(0), MaxConcurrent: i64(1), TolerableFailures: i64(3),
			Unaligned: bp(false), AlignedTimeoutMs: i64(0), StateBackend: "rocksdb", Changelog: bp(false),
			CheckpointStorage: "filesystem", Keys: map[string]string{"execution-config.job-parallelism": "4"}},
		// The job resubmitted with unaligned checkpoints; incremental and debloat not reported (nil).
		{Cluster: "prod-flink", JobID: "469237c073b0c1ea872fc0403694fc68", SeenMs: 1779928178000, Mode: "exactly_once",
			IntervalMs: i64(1000), Unaligned: bp(true), Incremental: nil, StateBackend: "rocksdb"},
	}
}

func TestJobConfigRoundTrip(t *testing.T) {
	configs, sum, file := writeRead(t, testJobConfigs(), (*Writer).JobConfig, func(v *Visitor) *func(model.JobConfig) error { return &v.JobConfig })
	if sum.JobConfigs != 2 || sum.Skipped != 0 || sum.Header.Version != Version {
		t.Errorf("summary = %+v, want 2 job configs of a %s file", sum, Version)
	}
	if !reflect.DeepEqual(configs, testJobConfigs()) {
		t.Errorf("read\n%+v\nwant\n%+v", configs, testJobConfigs())
	}
	if !strings.Contains(file, `{"type":"job_config","cluster":"prod-flink"`) {
		t.Errorf("no job_config line in the file")
	}
}

// writeRead writes a capture of the clusters and the first job of
// testRecords and then recs (with write), reads it back, and returns what
// the visitor's field (of the record type) received, the summary and the
// file's lines.
func writeRead[T any](t *testing.T, recs []T, write func(*Writer, T) error, field func(*Visitor) *func(T) error) ([]T, Summary, string) {
	t.Helper()
	w, buf := newTestWriter(t, testHeader())
	writeAll(t, w, testRecords()[:3])
	for _, r := range recs {
		if err := write(w, r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	var read []T
	v := (&got{}).visitor()
	*field(&v) = func(r T) error { read = append(read, r); return nil }
	sum, err := Read(context.Background(), bytes.NewReader(buf.Bytes()), Limits{}, v)
	if err != nil {
		t.Fatal(err)
	}
	return read, sum, string(gunzip(t, buf.Bytes()))
}

func TestCaptureWithoutJobConfigsStillOpens(t *testing.T) {
	data := lines(
		`{"type":"header","format":"checkpoint-explorer-capture","version":"1.2","recorded_by":"x","recorded_at":"2026-01-01T00:00:00Z","app_version":"0.1"}`,
		`{"type":"cluster","name":"c","engine":"flink","base_url":"http://jm:8081","auth":{"kind":"none"},"read_only":true}`,
		`{"type":"job","cluster":"c","id":"j","name":"n","engine":"flink","state":"RUNNING","start_ms":1,"end_ms":0,"updated_ms":1}`,
		`{"type":"end","records":2}`,
	)
	n := 0
	v := (&got{}).visitor()
	v.JobConfig = func(model.JobConfig) error { n++; return nil }
	sum, err := Read(context.Background(), bytes.NewReader(data), Limits{}, v)
	if err != nil || sum.Jobs != 1 || sum.JobConfigs != 0 || n != 0 {
		t.Fatalf("a 1.2 capture: %+v, %v", sum, err)
	}
}

func TestJobConfigNeverCarriesSecrets(t *testing.T) {
	w, _ := newTestWriter(t, testHeader())
	c := testJobConfigs()[0]
	c.Keys = map[string]string{"s3.secret-key": "hunter2"}
	if err := w.JobConfig(c); err == nil || !strings.Contains(err.Error(), "s3.secret-key") {
		t.Errorf("writing a secret key: %v, want a refusal naming it", err)
	}
	// A hand-edited file with one: the key is dropped on reading, the rest kept.
	data := lines(
		`{"type":"header","format":"checkpoint-explorer-capture","version":"1.3","recorded_by":"x","recorded_at":"2026-01-01T00:00:00Z","app_version":"0.1"}`,
		`{"type":"job_config","cluster":"c","job_id":"j","seen_ms":5,"interval_ms":1000,"keys":{"jdbc.password":"hunter2","state.backend.type":"rocksdb"}}`,
		`{"type":"end","records":1}`,
	)
	var got []model.JobConfig
	_, err := Read(context.Background(), bytes.NewReader(data), Limits{}, Visitor{JobConfig: func(c model.JobConfig) error {
		got = append(got, c)
		return nil
	}})
	if err != nil || len(got) != 1 || len(got[0].Keys) != 1 || got[0].Keys["state.backend.type"] != "rocksdb" || *got[0].IntervalMs != 1000 {
		t.Errorf("read %+v (%v), want the config without the password", got, err)
	}
}

func TestJobConfigBadRecordsAreRefused(t *testing.T) {
	wantRefused(t, "1.3", []refusal{
		{`{"type":"job_config","job_id":"j","seen_ms":1}`, "empty cluster"},
		{`{"type":"job_config","cluster":"c","job_id":"j","seen_ms":1,"timeout_ms":-5}`, "negative timeout_ms"},
		{`{"type":"job_config","cluster":"c","job_id":"j","seen_ms":1,"unaligned":"yes"}`, "job_config"},
	})
}

// refusal is a record line and what the error refusing it says.
type refusal struct{ line, want string }

// wantRefused reads each line as the one record of a capture of version
// and wants it refused with an error saying its want.
func wantRefused(t *testing.T, version string, cases []refusal) {
	t.Helper()
	for _, tc := range cases {
		data := lines(
			`{"type":"header","format":"checkpoint-explorer-capture","version":"`+version+`","recorded_by":"x","recorded_at":"2026-01-01T00:00:00Z","app_version":"0.1"}`,
			tc.line, `{"type":"end","records":1}`)
		_, err := Read(context.Background(), bytes.NewReader(data), Limits{}, Visitor{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error with %q", tc.line, err, tc.want)
		}
	}
}
