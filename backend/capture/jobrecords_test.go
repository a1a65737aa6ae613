// The job-level records a capture carries: configurations (their secrets masked) and notes.
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

func testNotes() []model.Change {
	const job = "469237c073b0c1ea872fc0403694fc68"
	return []model.Change{
		{Kind: model.ChangeNote, TimeMs: 1779924600000, Source: model.ChangeFromUser, Cluster: "prod-flink", JobID: job,
			Detail: model.ChangeDetail{Text: "deployed v42 — 发布"}},
		{Kind: model.ChangeNote, TimeMs: 1779924700000, Source: model.ChangeFromUser, Cluster: "prod-flink", JobID: job,
			Detail: model.ChangeDetail{Text: "raised the sink's batch size\nsecond line"}},
	}
}

// A job's notes go into a capture as job_note records after its job record
// and read back the same; the end record counts them.
func TestJobNoteRoundTrip(t *testing.T) {
	notes, sum, file := writeRead(t, testNotes(), (*Writer).JobNote, func(v *Visitor) *func(model.Change) error { return &v.JobNote })
	if sum.JobNotes != 2 || sum.Skipped != 0 || sum.Records() != 5 {
		t.Errorf("summary = %+v, want 2 notes of 5 records", sum)
	}
	if !reflect.DeepEqual(notes, testNotes()) {
		t.Errorf("read\n%+v\nwant\n%+v", notes, testNotes())
	}
	if !strings.Contains(file, `{"type":"job_note","kind":"note","time_ms":1779924600000`) {
		t.Errorf("no job_note line in the file")
	}
}

// A note that is not one (another kind, no text, no job) is neither written
// nor read.
func TestJobNoteBadRecordsAreRefused(t *testing.T) {
	w, _ := newTestWriter(t, testHeader())
	bad := testNotes()[0]
	bad.Kind = model.ChangeRestart
	if err := w.JobNote(bad); err == nil || !strings.Contains(err.Error(), "job_note") {
		t.Errorf("writing a restart as a note: %v, want a refusal", err)
	}
	wantRefused(t, "1.4", []refusal{
		{`{"type":"job_note","kind":"note","time_ms":5,"job_id":"j","detail":{"text":"x"}}`, "empty cluster"},
		{`{"type":"job_note","kind":"note","time_ms":5,"cluster":"c","job_id":"j","detail":{}}`, "without text"},
		{`{"type":"job_note","kind":"config","time_ms":5,"cluster":"c","job_id":"j","detail":{"text":"x"}}`, "kind"},
		{`{"type":"job_note","kind":"note","time_ms":0,"cluster":"c","job_id":"j","detail":{"text":"x"}}`, "no time"},
	})
}

// A file of a later 1.x beside its notes still opens: a record type this
// version does not know is skipped and counted, as before.
func TestJobNoteBesideUnknownRecords(t *testing.T) {
	data := lines(
		`{"type":"header","format":"checkpoint-explorer-capture","version":"1.9","recorded_by":"x","recorded_at":"2026-01-01T00:00:00Z","app_version":"0.1"}`,
		`{"type":"job_note","kind":"note","time_ms":5,"source":"user","cluster":"c","job_id":"j","detail":{"text":"x"}}`,
		`{"type":"job_marker","time_ms":6,"cluster":"c","job_id":"j"}`,
		`{"type":"end","records":2}`)
	n := 0
	sum, err := Read(context.Background(), bytes.NewReader(data), Limits{}, Visitor{JobNote: func(model.Change) error { n++; return nil }})
	if err != nil || n != 1 || sum.JobNotes != 1 || sum.Skipped != 1 {
		t.Errorf("read %d notes, summary %+v (%v); want the note and one skipped record", n, sum, err)
	}
}

// A job's restore counts go into a capture as restore_count records and read
// back the same; one without a time or with a negative count is refused.
func TestRestoreCountRoundTrip(t *testing.T) {
	want := []model.RestoreCount{
		{Cluster: "prod-flink", JobID: "469237c073b0c1ea872fc0403694fc68", AtMs: 1779924600000},
		{Cluster: "prod-flink", JobID: "469237c073b0c1ea872fc0403694fc68", AtMs: 1779924610000, Restored: 1, LastRestoreMs: 1779924605000},
	}
	got, sum, file := writeRead(t, want, (*Writer).RestoreCount, func(v *Visitor) *func(model.RestoreCount) error { return &v.RestoreCount })
	if sum.RestoreCounts != 2 || sum.Skipped != 0 || sum.Records() != 5 {
		t.Errorf("summary = %+v, want 2 restore counts of 5 records", sum)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("read\n%+v\nwant\n%+v", got, want)
	}
	if !strings.Contains(file, `{"type":"restore_count","cluster":"prod-flink","job_id":"469237c073b0c1ea872fc0403694fc68","at_ms":1779924610000,"restored":1,"last_restore_ms":1779924605000}`) {
		t.Errorf("no restore_count line in the file:\n%s", file)
	}
	wantRefused(t, "1.5", []refusal{
		{`{"type":"restore_count","job_id":"j","at_ms":5,"restored":1}`, "empty cluster"},
		{`{"type":"restore_count","cluster":"c","job_id":"j","at_ms":0,"restored":1}`, "at_ms 0"},
		{`{"type":"restore_count","cluster":"c","job_id":"j","at_ms":5,"restored":-1}`, "restored -1"},
	})
}

const (
	secretUser     = "alice-the-operator"
	secretPassword = "hunter2-s3cr3t-password"
	secretToken    = "eyJhbGciOiJIUzI1NiJ9.bearer-token-value"
	urlPassword    = "url-embedded-pass"
)

func TestNoSecretsWritten(t *testing.T) {
	clusters := []model.Cluster{
		{Name: "basic", Engine: model.EngineFlink, BaseURL: "https://jm:8081",
			Auth: model.Auth{Kind: model.AuthBasic, Username: secretUser, Password: secretPassword}},
		{Name: "bearer", Engine: model.EngineSeaTunnel, BaseURL: "https://st:8080",
			Auth: model.Auth{Kind: model.AuthBearer, Token: secretToken}},
		{Name: "url", Engine: model.EngineFlink, BaseURL: "https://" + secretUser + ":" + urlPassword + "@jm:8081/base?x=1",
			PrometheusURL: "http://" + secretUser + ":" + urlPassword + "@prom:9090"},
	}
	w, buf := newTestWriter(t, testHeader())
	for _, c := range clusters {
		if err := w.Cluster(c); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	plain := gunzip(t, buf.Bytes())
	for _, s := range []string{secretUser, secretPassword, secretToken, urlPassword, "password", "token", "username"} {
		if bytes.Contains(plain, []byte(s)) {
			t.Errorf("the capture contains %q:\n%s", s, plain)
		}
	}

	var got []model.Cluster
	if _, err := Read(context.Background(), buf, Limits{}, Visitor{Cluster: func(c model.Cluster) error {
		got = append(got, c)
		return nil
	}}); err != nil {
		t.Fatal(err)
	}
	want := []model.Cluster{
		{Name: "basic", Engine: model.EngineFlink, BaseURL: "https://jm:8081", Auth: model.Auth{Kind: model.AuthBasic}, ReadOnly: true},
		{Name: "bearer", Engine: model.EngineSeaTunnel, BaseURL: "https://st:8080", Auth: model.Auth{Kind: model.AuthBearer}, ReadOnly: true},
		{Name: "url", Engine: model.EngineFlink, BaseURL: "https://jm:8081/base?x=1", PrometheusURL: "http://prom:9090",
			Auth: model.Auth{Kind: model.AuthNone}, ReadOnly: true},
	}
	for i := range want {
		if i >= len(got) || !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("cluster %d = %+v, want %+v", i, got, want[i])
		}
	}
}

// A capture written by something else may carry secrets; the reader must not
// pass them on, and must not let the cluster be polled.
func TestReaderDropsSecrets(t *testing.T) {
	data := lines(headerLine,
		`{"type":"cluster","name":"x","engine":"flink","base_url":"https://u:`+urlPassword+`@jm","auth":{"kind":"basic","username":"`+secretUser+`","password":"`+secretPassword+`","token":"`+secretToken+`"},"read_only":false}`,
		`{"type":"cluster","name":"y","engine":"flink","base_url":"://not a url `+urlPassword+`"}`,
		`{"type":"end","records":2}`)
	var got []model.Cluster
	if _, err := Read(context.Background(), bytes.NewReader(data), Limits{}, Visitor{Cluster: func(c model.Cluster) error {
		got = append(got, c)
		return nil
	}}); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("got %d clusters", len(got))
	}
	for _, c := range got {
		s := strings.Join([]string{c.BaseURL, c.Auth.Username, c.Auth.Password, c.Auth.Token}, " ")
		for _, secret := range []string{secretUser, secretPassword, secretToken, urlPassword} {
			if strings.Contains(s, secret) {
				t.Errorf("cluster %s still carries %q", c.Name, secret)
			}
		}
		if !c.ReadOnly {
			t.Errorf("cluster %s read from a capture is not read-only", c.Name)
		}
	}
	if got[0].Auth.Kind != model.AuthBasic || got[0].BaseURL != "https://jm" {
		t.Errorf("cluster x = %+v", got[0])
	}
	if got[1].BaseURL != "" {
		t.Errorf("an unparsable URL was kept: %q", got[1].BaseURL)
	}
}
