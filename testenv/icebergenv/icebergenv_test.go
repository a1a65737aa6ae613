package icebergenv

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"checkpoint-explorer/testenv/flinkenv"
)

func TestCommitterMetricID(t *testing.T) {
	tests := []struct{ operator, table, want string }{
		{FlinkSinkCommitter, DefaultTable,
			"0.IcebergFilesCommitter.IcebergFilesCommitter.table.ce_hadoop_ce_events.lastCommitDurationMs"},
		{"ice-IcebergFilesCommitter", "db.t1",
			"0.ice-IcebergFilesCommitter.IcebergFilesCommitter.table.ce_hadoop_db_t1.lastCommitDurationMs"},
		{V2Committer(DefaultTable), DefaultTable,
			"0.ce_hadoop_ce_events__Committer.IcebergFilesCommitter.table.ce_hadoop_ce_events.lastCommitDurationMs"},
	}
	for _, tt := range tests {
		if got := CommitterMetricID(tt.operator, tt.table, "lastCommitDurationMs"); got != tt.want {
			t.Errorf("CommitterMetricID(%q, %q) = %q, want %q", tt.operator, tt.table, got, tt.want)
		}
	}
}

func TestMetadata(t *testing.T) {
	wh := t.TempDir()
	dir := TableDir(wh, "db.t1")
	if want := filepath.Join(wh, "db", "t1"); dir != want {
		t.Fatalf("TableDir = %q, want %q", dir, want)
	}
	if err := os.MkdirAll(filepath.Join(dir, "metadata"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"v1.metadata.json", "v2.metadata.json", ".v2.metadata.json.crc",
		"0f1e-4a2b.metadata.json", "snap-123-1-abc.avro", ".snap-123-1-abc.avro.crc", "abc-m0.avro", "version-hint.text"} {
		if err := os.WriteFile(filepath.Join(dir, "metadata", n), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	versions, snapshots, err := Metadata(dir)
	if err != nil || versions != 2 || snapshots != 1 {
		t.Errorf("Metadata = %d, %d, %v; want 2, 1", versions, snapshots, err)
	}
}

// TestIcebergSinkCommits runs two Iceberg sink jobs side by side on the shared Flink 1.20
// cluster, one plain and one whose metadata store is slowed by --commit-delay-ms, and checks what
// Checkpoint Explorer relies on: snapshots appear in the table with the checkpoints, the
// committer's metrics are listed by the REST API (and the Prometheus reporter) under the names
// documented in testenv/iceberg/README.md, files are committed, and the knob slows the commits.
func TestIcebergSinkCommits(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: two Iceberg jobs for about a minute")
	}
	env := flinkenv.EnsureVersion(t, Version)
	const delayMs = 300
	jobs := []*job{
		{name: "icebergenv-normal"},
		{name: "icebergenv-slow-commit", args: []string{"--commit-delay-ms", strconv.Itoa(delayMs)}},
	}
	var wg sync.WaitGroup
	for _, j := range jobs {
		args := append([]string{"--name", j.name, "--rate", "200", "--interval-ms", "1000"}, j.args...)
		// Submit sequentially (t.Fatal must run on the test goroutine), wait in parallel.
		j.id, j.warehouse = Submit(t, env, args...)
		t.Logf("%s: job %s, warehouse %s", j.name, j.id, j.warehouse)
	}
	for _, j := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			j.err = j.observe(env)
		}()
	}
	wg.Wait()
	for _, j := range jobs {
		if j.err != nil {
			t.Errorf("%s: %v", j.name, j.err)
		}
		t.Logf("%s: %d completed checkpoints; metadata versions %d → %d, snapshots %d → %d; committedDataFilesCount %d → %d; lastCommitDurationMs %v",
			j.name, j.checkpoints, j.versions[0], j.versions[1], j.snapshots[0], j.snapshots[1], j.files[0], j.files[1], j.commitMs)
	}
	if t.Failed() {
		return
	}
	normal, slow := jobs[0].lastCommitMs(), jobs[1].lastCommitMs()
	t.Logf("lastCommitDurationMs: normal %d ms, --commit-delay-ms %d: %d ms", normal, delayMs, slow)
	// About six creates/renames in metadata/ per commit; demand half of that over the plain job.
	if slow < normal+3*delayMs {
		t.Errorf("--commit-delay-ms %d: lastCommitDurationMs %d ms, normal job %d ms: want at least %d ms more",
			delayMs, slow, normal, 3*delayMs)
	}

	// The Prometheus reporter exports the same metrics, the table as a label.
	if env.TMPromURL == "" {
		return
	}
	body, err := get(env.TMPromURL)
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range jobs {
		name := "flink_taskmanager_job_task_operator_IcebergFilesCommitter_table_lastCommitDurationMs{"
		found := false
		for _, line := range strings.Split(string(body), "\n") {
			if strings.HasPrefix(line, name) && strings.Contains(line, `job_id="`+j.id+`"`) &&
				strings.Contains(line, `table="ce_hadoop_ce_events"`) {
				found = true
				t.Logf("prometheus: %s", line)
			}
		}
		if !found {
			t.Errorf("%s: no %s…job_id=%q…} on %s", j.name, name, j.id, env.TMPromURL)
		}
	}
}

type job struct {
	name, id, warehouse string
	args                []string

	checkpoints         int
	versions, snapshots [2]int
	files               [2]int64
	commitMs            []int64
	err                 error
}

// lastCommitMs is the last lastCommitDurationMs read (the first commits of a job can be slower:
// class loading, JIT).
func (j *job) lastCommitMs() int64 {
	if len(j.commitMs) == 0 {
		return 0
	}
	return j.commitMs[len(j.commitMs)-1]
}

// observe waits for 5 completed checkpoints, then checks the table's metadata and the
// committer's metrics, waiting until both have grown.
func (j *job) observe(env flinkenv.Env) error {
	rest := env.RESTURL
	if err := waitFor(2*time.Minute, "5 completed checkpoints", func() (bool, error) {
		var c struct {
			Counts struct {
				Completed int `json:"completed"`
			} `json:"counts"`
		}
		if err := getJSON(rest+"/jobs/"+j.id+"/checkpoints", &c); err != nil {
			return false, err
		}
		j.checkpoints = c.Counts.Completed
		return j.checkpoints >= 5, nil
	}); err != nil {
		return err
	}

	// (a) Iceberg snapshots in the table's metadata directory.
	dir := TableDir(j.warehouse, DefaultTable)
	var err error
	if j.versions[0], j.snapshots[0], err = Metadata(dir); err != nil {
		return err
	}
	if j.snapshots[0] < 3 {
		return fmt.Errorf("%d completed checkpoints but %d snapshots in %s/metadata", j.checkpoints, j.snapshots[0], dir)
	}

	// (b) The committer's metrics on its vertex.
	var vertices struct {
		Vertices []struct{ ID, Name string }
	}
	if err := getJSON(rest+"/jobs/"+j.id, &vertices); err != nil {
		return err
	}
	vid := ""
	for _, v := range vertices.Vertices {
		if v.Name == FlinkSinkCommitter {
			vid = v.ID
		}
	}
	if vid == "" {
		return fmt.Errorf("no vertex named %q in %+v", FlinkSinkCommitter, vertices.Vertices)
	}
	metricsURL := rest + "/jobs/" + j.id + "/vertices/" + vid + "/metrics"
	ids := make([]string, len(CommitterMetrics))
	for i, m := range CommitterMetrics {
		ids[i] = CommitterMetricID(FlinkSinkCommitter, DefaultTable, m)
	}
	// Flink's metric fetcher refreshes every 10 s: the list can lag the job's start.
	if err := waitFor(time.Minute, "the committer's metrics in the vertex's metric list", func() (bool, error) {
		var list []struct{ ID string }
		if err := getJSON(metricsURL, &list); err != nil {
			return false, err
		}
		have := map[string]bool{}
		for _, m := range list {
			have[m.ID] = true
		}
		for _, id := range ids {
			if !have[id] {
				return false, nil
			}
		}
		return true, nil
	}); err != nil {
		return err
	}
	values := func() (map[string]int64, error) {
		var got []struct{ ID, Value string }
		if err := getJSON(metricsURL+"?get="+url.QueryEscape(strings.Join(ids, ",")), &got); err != nil {
			return nil, err
		}
		out := map[string]int64{}
		for _, m := range got {
			name := m.ID[strings.LastIndex(m.ID, ".")+1:]
			v, err := strconv.ParseFloat(m.Value, 64)
			if err != nil {
				return nil, fmt.Errorf("%s = %q: %v", m.ID, m.Value, err)
			}
			out[name] = int64(v)
		}
		return out, nil
	}
	var first map[string]int64
	if err := waitFor(time.Minute, "committedDataFilesCount > 0", func() (bool, error) {
		v, err := values()
		first = v
		return err == nil && v["committedDataFilesCount"] > 0 && v["lastCommitDurationMs"] > 0, err
	}); err != nil {
		return err
	}
	j.files[0] = first["committedDataFilesCount"]
	j.commitMs = append(j.commitMs, first["lastCommitDurationMs"])
	if err := waitFor(time.Minute, "committedDataFilesCount to grow", func() (bool, error) {
		v, err := values()
		if err != nil {
			return false, err
		}
		if v["committedDataFilesCount"] > j.files[0] {
			j.files[1] = v["committedDataFilesCount"]
			j.commitMs = append(j.commitMs, v["lastCommitDurationMs"])
			return true, nil
		}
		return false, nil
	}); err != nil {
		return err
	}
	// A slowed metadata store writes the snapshot's manifest list some seconds before the new
	// table version: seen once as snapshots 5 → 6 with versions still 6 under a loaded make test.
	if err := waitFor(30*time.Second, "a new snapshot and table version", func() (bool, error) {
		j.versions[1], j.snapshots[1], err = Metadata(dir)
		return err == nil && j.snapshots[1] > j.snapshots[0] && j.versions[1] > j.versions[0], err
	}); err != nil {
		return fmt.Errorf("no new snapshot in %s/metadata: versions %d → %d, snapshots %d → %d: %w",
			dir, j.versions[0], j.versions[1], j.snapshots[0], j.snapshots[1], err)
	}
	return nil
}

func waitFor(timeout time.Duration, what string, cond func() (bool, error)) error {
	deadline := time.Now().Add(timeout)
	for {
		ok, err := cond()
		if ok {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("waited %v for %s (last error: %v)", timeout, what, err)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

func getJSON(u string, out any) error {
	b, err := get(u)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, out)
}

// get reads u's body; any status but 200 is an error.
func get(u string) ([]byte, error) {
	resp, err := http.Get(u)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("GET %s: HTTP %d: %.512s", u, resp.StatusCode, b)
	}
	return b, err
}
