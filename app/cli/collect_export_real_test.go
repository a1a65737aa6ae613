package cli

import (
	"checkpoint-explorer/app/apptest"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	_ "github.com/mattn/go-sqlite3"

	"checkpoint-explorer/backend/capture/capturetest"
	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/store"
	"checkpoint-explorer/testenv/flinkenv"
	"checkpoint-explorer/testenv/jaegerenv"
	"checkpoint-explorer/testenv/keyringenv"
	"checkpoint-explorer/testenv/seatunnelenv"
	"checkpoint-explorer/testenv/toxienv"
)

// exportTarget is the name the cache marks what was sent to an OTLP/HTTP root under.
func exportTarget(root string) string { return strings.TrimRight(root, "/") + "/v1/traces" }

// exportedKeys are the checkpoints of a job the cache at dir marks sent to target.
func exportedKeys(t *testing.T, dir, target, cluster, jid string) []model.Key {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+filepath.Join(dir, "cache.db")+"?mode=ro&_busy_timeout=5000")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT pipeline, checkpoint_id FROM exports WHERE target = ? AND cluster = ? AND job_id = ?
		ORDER BY pipeline, checkpoint_id`, target, cluster, jid)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var keys []model.Key
	for rows.Next() {
		k := model.Key{Cluster: cluster, JobID: jid}
		if err := rows.Scan(&k.Pipeline, &k.ID); err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k)
	}
	return keys
}

// exportCount is what the cache at st counts of a job for target.
func exportCount(t *testing.T, st *store.Store, target, cluster, jid string) store.ExportCount {
	t.Helper()
	jobs, _, err := st.ExportCounts(context.Background(), target, store.Query{Cluster: cluster, JobID: jid})
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) == 0 {
		return store.ExportCount{}
	}
	return jobs[0]
}

// exportingCache is a collector's cache (its data dir, opened) as the read-back compares it.
type exportingCache struct {
	st  *store.Store
	dir string
}

// checkTracesEqualTheCache reads the job back from Jaeger (capture --traces-url, the service the
// collector's spans carry) and compares it with the cache for the ids the cache marks sent: each
// is read back once, with the same status, trigger, end-to-end time and each acknowledged
// subtask's phases to the millisecond; the traces hold no checkpoint the cache lacks.
func checkTracesEqualTheCache(t *testing.T, st *store.Store, queryURL, target, dir, jid string) {
	t.Helper()
	checkTracesEqualTheCaches(t, []exportingCache{{st, dir}}, queryURL, target, jid)
}

// checkTracesEqualTheCaches is checkTracesEqualTheCache for collectors exporting the same job to
// the same endpoint: each id one of them marks sent is read back once and equals every cache
// that marks it sent.
func checkTracesEqualTheCaches(t *testing.T, caches []exportingCache, queryURL, target, jid string) {
	t.Helper()
	senders := map[model.Key][]*store.Store{}
	var sent []model.Key
	for _, c := range caches {
		for _, k := range exportedKeys(t, c.dir, target, "lab", jid) {
			if senders[k] == nil {
				sent = append(sent, k)
			}
			senders[k] = append(senders[k], c.st)
		}
	}
	if len(sent) == 0 {
		t.Fatal("no cache marks anything sent")
	}
	// Jaeger acknowledges a batch when its receiver takes it; its batch processor stores it later
	// (seconds on a loaded machine), so a read right after the last acknowledgement can miss it.
	deadline := time.Now().Add(2 * time.Minute)
	for held := jaegerCheckpoints(t, queryURL, jid); held < len(sent); held = jaegerCheckpoints(t, queryURL, jid) {
		if time.Now().After(deadline) {
			t.Fatalf("Jaeger holds %d traces of job %s two minutes after the caches marked %d sent (%d traces of the service in all)",
				held, jid, len(sent), jaegerCheckpoints(t, queryURL, ""))
		}
		time.Sleep(500 * time.Millisecond)
	}
	out := filepath.Join(t.TempDir(), "traced.ckpt.gz")
	if stdout, stderr, err := runCLI(t, "capture", "--traces-url", queryURL, "--traces-service", "checkpoint-explorer",
		"--job", jid, "--out", out, "--since", "2h"); err != nil {
		t.Fatalf("capture --traces-url: %v\n%s%s", err, stdout, stderr)
	}
	rec := capturetest.Read(t, out)
	traced := map[model.Key][]model.Checkpoint{}
	for _, c := range rec.Checkpoints {
		k := c.Key()
		k.Cluster = "lab"
		traced[k] = append(traced[k], c)
	}
	failed, twice := 0, 0
	var differ []string
	for _, k := range sent {
		got := traced[k]
		if len(got) != 1 {
			t.Errorf("checkpoint %d: read back %d times, want once", k.ID, len(got))
			continue
		}
		if len(senders[k]) > 1 {
			twice++
		}
		var versions []model.Checkpoint
		for _, st := range senders[k] {
			want, err := st.Checkpoint(context.Background(), k)
			if err != nil {
				t.Fatal(err)
			}
			versions = append(versions, want)
		}
		if versions[0].Status == model.StatusFailed {
			failed++
		}
		delete(traced, k)
		// Known limitation: two collectors that stored different versions of one checkpoint
		// (one from Flink's REST, one from the JobManager log after a late poll; a busy machine)
		// send spans under the same ids, and a reader gets a mix of the two. Logged, and counted
		// against a bound; each version agreed on is compared.
		if len(versions) > 1 && !sameCheckpoint(versions[0], versions[1]) {
			differ = append(differ, fmt.Sprintf("%d (%s/%s %d ms, %s/%s %d ms)", k.ID, versions[0].Source, versions[0].Status,
				versions[0].EndToEndMs, versions[1].Source, versions[1].Status, versions[1].EndToEndMs))
			continue
		}
		compareCheckpoint(t, got[0], versions[0])
	}
	if len(differ) > 0 {
		t.Logf("the collectors' caches hold different versions of checkpoints %v: readers see a mix of their spans (a known limitation)", differ)
	}
	if len(differ)*3 > len(sent) {
		t.Errorf("%d of %d checkpoints differ between the collectors' caches", len(differ), len(sent))
	}
	// What the traces hold beyond the marks (sent just before a kill, or just before the stop)
	// must still be a cache's.
	for k := range traced {
		held := false
		for _, c := range caches {
			if _, err := c.st.Checkpoint(context.Background(), k); err == nil {
				held = true
			}
		}
		if !held {
			t.Errorf("the traces hold checkpoint %d, which no cache does", k.ID)
		}
	}
	t.Logf("%d checkpoints sent (%d failed, %d by more than one collector) read back from Jaeger equal to the caches",
		len(sent), failed, twice)
}

// sameCheckpoint: two caches hold the same version of a checkpoint, as its spans would carry it.
func sameCheckpoint(a, b model.Checkpoint) bool {
	sub := func(c model.Checkpoint) string {
		var out []string
		for _, task := range c.Tasks {
			for _, st := range task.Subtasks {
				if st.Acknowledged() {
					out = append(out, fmt.Sprint(task.VertexID, st.Index, st.AckMs, st.EndToEndMs, st.StartDelayMs, st.AlignmentMs, st.SyncMs, st.AsyncMs))
				}
			}
		}
		slices.Sort(out)
		return strings.Join(out, ";")
	}
	return a.Status == b.Status && a.TriggerMs == b.TriggerMs && a.EndToEndMs == b.EndToEndMs && sub(a) == sub(b)
}

// compareCheckpoint compares what the spans carry of a checkpoint.
func compareCheckpoint(t *testing.T, got, want model.Checkpoint) {
	t.Helper()
	if got.Status != want.Status || got.TriggerMs != want.TriggerMs || got.EndToEndMs != want.EndToEndMs {
		t.Errorf("checkpoint %d: read back %s trigger %d end-to-end %d; cache %s %d %d", want.ID,
			got.Status, got.TriggerMs, got.EndToEndMs, want.Status, want.TriggerMs, want.EndToEndMs)
	}
	subtasks := map[string]model.SubtaskStats{}
	for _, task := range got.Tasks {
		for _, s := range task.Subtasks {
			subtasks[task.VertexID+"/"+strconv.Itoa(s.Index)] = s
		}
	}
	for _, task := range want.Tasks {
		for _, w := range task.Subtasks {
			if !w.Acknowledged() {
				continue
			}
			g, ok := subtasks[task.VertexID+"/"+strconv.Itoa(w.Index)]
			phases := func(s model.SubtaskStats) string {
				return fmt.Sprint(s.AckMs, s.EndToEndMs, s.StartDelayMs, s.AlignmentMs, s.SyncMs, s.AsyncMs)
			}
			if !ok || phases(g) != phases(w) {
				t.Errorf("checkpoint %d subtask %s/%d: read back %v (%s), cache %s", want.ID, task.VertexID, w.Index, ok, phases(g), phases(w))
			}
		}
	}
}

// A collector exporting to a real Jaeger (Flink 2.3 and 1.20 checkpoints with per-subtask
// stats, failed ones among them; a SeaTunnel 2.3.13 job's, per pipeline): a desktop reading the
// job back from the traces sees what the collector's cache holds for the same ids.
func TestCollectExportsToJaegerAndTheTracesReadBack(t *testing.T) {
	for _, tc := range []struct {
		name   string
		engine string
		start  func(t *testing.T) (restURL, jid string)
		want   int64
	}{
		{"flink 2.3", "flink", func(t *testing.T) (string, string) {
			env := flinkenv.Ensure(t)
			return env.RESTURL, env.Submit(t, "--name", "ce-cli-export", "--interval-ms", "1000", "--rate", "50", "--fail-every", "3")
		}, 12},
		{"flink 1.20", "flink", func(t *testing.T) (string, string) {
			env := flinkenv.EnsureVersion(t, "1.20.5")
			return env.RESTURL, env.Submit(t, "--name", "ce-cli-export-120", "--interval-ms", "1000", "--rate", "50", "--fail-every", "3")
		}, 12},
		{"seatunnel 2.3.13", "seatunnel", func(t *testing.T) (string, string) {
			e := seatunnelenv.Ensure(t)
			return e.RESTURL, seatunnelenv.SubmitJob(t, e, "SEATUNNEL_JOB_NAME=ce-cli-export")
		}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			j := jaegerenv.Ensure(t)
			restURL, jid := tc.start(t)
			dir := t.TempDir()
			if _, stderr, err := runCLI(t, "clusters", "add", "--name", "lab", "--engine", tc.engine, "--url", restURL, "--data-dir", dir); err != nil {
				t.Fatalf("clusters add: %v\n%s", err, stderr)
			}
			out, errb, stop := collectInProcess(t, "--data-dir", dir, "--metrics-addr", "", "--export-otlp", j.OTLPHTTPURL)
			waitUntil(t, time.Minute, "collect to start exporting", func() bool { return strings.Contains(out.String(), "exporting the final checkpoints to") })
			st := openCache(t, dir)
			target := exportTarget(j.OTLPHTTPURL)
			waitUntil(t, 5*time.Minute, fmt.Sprintf("%d checkpoints sent", tc.want), func() bool {
				return exportCount(t, st, target, "lab", jid).Exported >= tc.want
			})
			if code := stop(); code != ExitOK {
				t.Fatalf("collect: exit %d\n%s", code, errb.String())
			}
			checkTracesEqualTheCache(t, st, j.QueryURL, target, dir, jid)
		})
	}
}

// jaegerCheckpoints counts the job's checkpoints in Jaeger (the traces of its Checkpoint spans
// under the collector's service; every job's when jid is ""), a checkpoint sent twice once.
func jaegerCheckpoints(t *testing.T, queryURL, jid string) int {
	t.Helper()
	q := url.Values{"service": {"checkpoint-explorer"}, "operation": {"Checkpoint"},
		"start": {strconv.FormatInt(time.Now().Add(-2*time.Hour).UnixMicro(), 10)}, "end": {strconv.FormatInt(time.Now().UnixMicro(), 10)},
		"limit": {"10000"}}
	if jid != "" {
		q.Set("tags", `{"jobId":"`+jid+`"}`)
	}
	resp, err := http.Get(queryURL + "/api/traces?" + q.Encode())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var answer struct{ Data []struct{ TraceID string } }
	if err := json.NewDecoder(resp.Body).Decode(&answer); err != nil {
		t.Fatal(err)
	}
	traces := map[string]bool{}
	for _, tr := range answer.Data {
		traces[tr.TraceID] = true
	}
	return len(traces)
}

// openCache opens the cache at dir beside the collector writing it, as another process would.
func openCache(t *testing.T, dir string) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(dir, "cache.db"), store.Retention{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// collectProcess is `collect` as a process of its own (this test binary, see TestMain), its
// stdout kept; killed when the test ends.
type collectProcess struct {
	cmd *exec.Cmd
	out *apptest.Buffer
}

func startCollectProcess(t *testing.T, args ...string) *collectProcess {
	t.Helper()
	p := &collectProcess{cmd: cliProcess(t, append([]string{"collect", "--metrics-addr", "127.0.0.1:0"}, args...)...), out: &apptest.Buffer{}}
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.out
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		p.cmd.Process.Kill()
		p.cmd.Wait()
	})
	return p
}

// metric is the value of a /metrics line of the process (0 before it serves them).
func (p *collectProcess) metric(name string) float64 {
	m := regexp.MustCompile(`metrics at (http://\S+/metrics)`).FindStringSubmatch(p.out.String())
	if m == nil {
		return 0
	}
	resp, err := http.Get(m[1])
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	v := regexp.MustCompile(`(?m)^` + name + `(\{[^}]*\})? (\S+)$`).FindSubmatch(body)
	if v == nil {
		return 0
	}
	f, _ := strconv.ParseFloat(string(v[2]), 64)
	return f
}

// kill9 kills the process with SIGKILL: no last poll, no last marks.
func (p *collectProcess) kill9(t *testing.T) {
	t.Helper()
	if err := p.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	p.cmd.Wait()
}

// The endpoint down for a while (a fault proxy in front of Jaeger refusing connections) and the
// collector killed with SIGKILL twice, once while the endpoint is down and once while it sends
// through a 1.5 s latency (a batch is out most of the time): collection goes on throughout, and
// once all is back every final checkpoint of the job is read back from Jaeger once, none missing,
// equal to the cache.
func TestCollectExportSurvivesAnOutageAndKills(t *testing.T) {
	env := flinkenv.Ensure(t)
	j := jaegerenv.Ensure(t)
	tp := toxienv.Ensure(t)
	u, err := url.Parse(j.OTLPHTTPURL)
	if err != nil {
		t.Fatal(err)
	}
	proxy := tp.NewProxy(t, u.Host)
	jid := env.Submit(t, "--name", "ce-cli-export-outage", "--interval-ms", "1000", "--rate", "50", "--fail-every", "4")
	dir := t.TempDir()
	if _, stderr, err := runCLI(t, "clusters", "add", "--name", "lab", "--url", env.RESTURL, "--data-dir", dir); err != nil {
		t.Fatalf("clusters add: %v\n%s", err, stderr)
	}
	args := []string{"--data-dir", dir, "--export-otlp", proxy.URL()}
	target := exportTarget(proxy.URL())
	st := openCache(t, dir)
	count := func() store.ExportCount { return exportCount(t, st, target, "lab", jid) }

	first := startCollectProcess(t, args...)
	waitUntil(t, 5*time.Minute, "the first checkpoints sent", func() bool { return count().Exported >= 4 })
	if err := proxy.Disable(); err != nil {
		t.Fatal(err)
	}
	before := count()
	waitUntil(t, 5*time.Minute, "failed exports while collection goes on", func() bool {
		c := count()
		return first.metric("checkpoint_explorer_export_errors_total") >= 1 && c.Final >= before.Final+6
	})
	t.Logf("endpoint down: %+v", count())
	first.kill9(t)

	// Back, but each answer comes 3 s late: the second process is killed once Jaeger holds
	// checkpoints it has not marked sent, its request still out.
	if err := proxy.Enable(); err != nil {
		t.Fatal(err)
	}
	slow := proxy.Latency(t, toxienv.Downstream, 3*time.Second, 0)
	second := startCollectProcess(t, args...)
	// The window is a few seconds a round: a busy machine may not catch it; killed all the same.
	caught := false
	for deadline := time.Now().Add(2 * time.Minute); !caught && time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		caught = jaegerCheckpoints(t, j.QueryURL, jid) > int(count().Exported)
	}
	if !caught {
		t.Logf("no batch caught in flight within 2 minutes; the second process is killed between batches")
	}
	second.kill9(t)
	t.Logf("second process killed with a batch out: Jaeger holds %d checkpoints, the cache marks %+v",
		jaegerCheckpoints(t, j.QueryURL, jid), count())
	if err := proxy.RemoveToxic(slow); err != nil {
		t.Fatal(err)
	}

	// The job ends; a third process takes its last checkpoints and drains the spool.
	if err := flinkenv.Cancel(env, jid); err != nil {
		t.Fatal(err)
	}
	third := startCollectProcess(t, args...)
	waitUntil(t, 5*time.Minute, "every final checkpoint of the job sent", func() bool {
		c := count()
		return c.Final > 0 && c.Pending == 0 && third.metric("checkpoint_explorer_export_checkpoints_total") > 0
	})
	final := count()
	if err := third.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	third.cmd.Wait()
	if sent := exportedKeys(t, dir, target, "lab", jid); int64(len(sent)) != final.Final {
		t.Errorf("%d marked sent of %d final checkpoints", len(sent), final.Final)
	}
	checkTracesEqualTheCache(t, st, j.QueryURL, target, dir, jid)
}

// Two collectors on the same cluster, for failover, both exporting to one Jaeger: the ids derived
// from cluster, job and checkpoint make what both send the same spans, and a desktop reading the
// job back sees each checkpoint once, equal to both caches. One collector stops halfway (the
// failover); the other goes on alone.
func TestTwoCollectorsExportOneHistory(t *testing.T) {
	env := flinkenv.Ensure(t)
	j := jaegerenv.Ensure(t)
	jid := env.Submit(t, "--name", "ce-cli-export-failover", "--interval-ms", "1000", "--rate", "50", "--fail-every", "5")
	target := exportTarget(j.OTLPHTTPURL)
	var caches []exportingCache
	var procs []*collectProcess
	for range 2 {
		dir := t.TempDir()
		if _, stderr, err := runCLI(t, "clusters", "add", "--name", "lab", "--url", env.RESTURL, "--data-dir", dir); err != nil {
			t.Fatalf("clusters add: %v\n%s", err, stderr)
		}
		caches = append(caches, exportingCache{openCache(t, dir), dir})
		procs = append(procs, startCollectProcess(t, "--data-dir", dir, "--export-otlp", j.OTLPHTTPURL))
	}
	sentBy := func(i int) int64 { return exportCount(t, caches[i].st, target, "lab", jid).Exported }
	waitUntil(t, 5*time.Minute, "both collectors to send 5 checkpoints", func() bool { return sentBy(0) >= 5 && sentBy(1) >= 5 })
	stopProcess(t, procs[0])
	alone := sentBy(1)
	waitUntil(t, 5*time.Minute, "the second collector to send 5 more alone", func() bool { return sentBy(1) >= alone+5 })
	stopProcess(t, procs[1])
	checkTracesEqualTheCaches(t, caches, j.QueryURL, target, jid)
}

// stopProcess stops a collect process with SIGTERM and waits for its exit status 0.
func stopProcess(t *testing.T, p *collectProcess) {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Wait(); err != nil {
		t.Fatalf("collect after SIGTERM: %v\n%s", err, p.out.String())
	}
}

// Export credentials from the OS keychain (a real Secret Service on a private bus): `keychain
// set` stores them from stdin, `collect --export-token-keychain/--export-header-keychain` sends
// them with every request, and neither command prints them; an entry that is not there is an
// error naming the entry.
func TestCollectExportCredentialsFromTheKeychain(t *testing.T) {
	env := flinkenv.Ensure(t)
	keyring := keyringenv.Start(t)
	const token, orgKey = "tok-3e9d1c7b-keychain", "org-55aa-keychain"
	run := func(stdin string, args ...string) (string, error) {
		cmd := cliProcess(t, args...)
		cmd.Env = append(cmd.Env, keyring...)
		cmd.Stdin = strings.NewReader(stdin)
		out, err := cmd.CombinedOutput()
		if strings.Contains(string(out), token) || strings.Contains(string(out), orgKey) {
			t.Errorf("%v printed a secret: %s", args, out)
		}
		return string(out), err
	}
	for name, secret := range map[string]string{"team-otlp": token, "team-org": orgKey} {
		if out, err := run(secret+"\n", "keychain", "set", name); err != nil || !strings.Contains(out, `stored "`+name+`"`) {
			t.Fatalf("keychain set %s: %v\n%s", name, err, out)
		}
	}

	type seen struct{ auth, org string }
	got := make(chan seen, 100)
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case got <- seen{r.Header.Get("Authorization"), r.Header.Get("X-Org-Key")}:
		default:
		}
	}))
	defer rcv.Close()
	dir := t.TempDir()
	if _, stderr, err := runCLI(t, "clusters", "add", "--name", "lab", "--url", env.RESTURL, "--data-dir", dir); err != nil {
		t.Fatalf("clusters add: %v\n%s", err, stderr)
	}
	env.Submit(t, "--name", "ce-cli-export-keychain", "--interval-ms", "1000")
	if out, err := run("", "collect", "--data-dir", dir, "--metrics-addr", "", "--export-otlp", rcv.URL,
		"--export-token-keychain", "no-such-entry"); err == nil || !strings.Contains(out, `entry "no-such-entry": no such entry in the OS keychain`) {
		t.Errorf("collect with a missing keychain entry: %v\n%s", err, out)
	}

	cmd := cliProcess(t, "collect", "--data-dir", dir, "--metrics-addr", "", "--export-otlp", rcv.URL,
		"--export-token-keychain", "team-otlp", "--export-header-keychain", "X-Org-Key=team-org")
	cmd.Env = append(cmd.Env, keyring...)
	out := &apptest.Buffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	select {
	case s := <-got:
		if s.auth != "Bearer "+token || s.org != orgKey {
			t.Errorf("the endpoint got Authorization %q, X-Org-Key %q; want the keychain's", s.auth, s.org)
		}
	case <-time.After(5 * time.Minute):
		t.Fatalf("no export request in 5 minutes\n%s", out.String())
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("collect after SIGTERM: %v\n%s", err, out.String())
	}
	if strings.Contains(out.String(), token) || strings.Contains(out.String(), orgKey) {
		t.Errorf("collect printed a secret:\n%s", out.String())
	}
}
