// Package flinkenv gives tests a real Flink cluster: it runs testenv/flink/start.sh once per
// test binary (or uses the cluster named by FLINK_REST_URL) and submits the knob job.
//
// The shared cluster serves every test binary at once. A test that disturbs its cluster
// (restarting the JobManager) takes a Dedicated one instead. Both run DefaultVersion unless
// FLINK_VERSION says otherwise; EnsureVersion and DedicatedVersion pick another Flink (1.20.5),
// whose distribution and knob job live next to the default one in testenv/.cache/flink.
//
// Tests using it skip only when CE_SKIP_REAL=1; otherwise a cluster that cannot start fails them.
package flinkenv

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"checkpoint-explorer/testenv/envscript"
)

// Env describes the running cluster.
type Env struct {
	RESTURL    string
	JMPromURL  string // "" when unknown (an external cluster without FLINK_JM_PROM_PORT)
	TMPromURL  string
	JMPromPort int
	TMPromPort int
	Version    string
	// RunDir holds conf/, log/ and checkpoints/ of a cluster started here; "" for an external one.
	RunDir string
	LogDir string
	// TracesEndpoint is the OTLP/gRPC receiver Flink sends its checkpoint spans to
	// (DedicatedTraced); "" when the cluster has no trace reporter.
	TracesEndpoint string
	// TracesService is the service.name of those spans.
	TracesService string
}

// startTimeout covers a first run that downloads the distribution (~330 MB; pip unpacks 1.x from
// a 232 MB sdist, over ten minutes once on a machine loaded many times over).
const startTimeout = 20 * time.Minute

// DefaultVersion is the Flink version the scripts run when FLINK_VERSION is unset; it must match
// FLINK_DEFAULT_VERSION in testenv/flink/lib.sh.
const DefaultVersion = "2.3.0"

// realCluster completes the skip message of a test using a cluster.
const realCluster = "a real Flink cluster"

var (
	// cluster is Ensure's.
	cluster = envscript.Shared[Env]{Pkg: "flinkenv", What: realCluster, Timeout: startTimeout}
	// clusters are EnsureVersion's and EnsureNamed's, by start.sh's variables.
	clusters = envscript.SharedSet[Env]{Pkg: "flinkenv", What: realCluster, Timeout: startTimeout}
)

// Ensure returns the cluster, starting it on first use. It skips the test when CE_SKIP_REAL=1.
func Ensure(t testing.TB) Env {
	t.Helper()
	return cluster.Get(t, ensure)
}

func ensure(ctx context.Context) (Env, error) {
	if url := os.Getenv("FLINK_REST_URL"); url != "" {
		vars := map[string]string{}
		for _, k := range []string{"FLINK_REST_URL", "FLINK_JM_PROM_PORT", "FLINK_TM_PROM_PORT", "FLINK_VERSION"} {
			vars[k] = os.Getenv(k)
		}
		return fromVars(vars)
	}
	return start(ctx, nil)
}

// start runs start.sh with vars and reads the cluster from what it prints.
func start(ctx context.Context, vars []string) (Env, error) {
	v, _, err := envscript.RunEnv(ctx, vars, "flink", "start.sh")
	if err != nil {
		return Env{}, err
	}
	return fromVars(v)
}

// EnsureVersion returns a shared cluster running Flink version (e.g. "1.20.5"), starting it on
// first use in testenv/.run/flink-<version> on free ports; for DefaultVersion it is Ensure. The
// cluster serves every test binary and stays up after the tests, like Ensure's: testenv/stop-all.sh
// (testenv/flink/stop.sh) stops it. FLINK_REST_URL is used only when FLINK_VERSION names the same
// version. The first start of a version downloads it (~230 MB for 1.20) and builds its jars.
func EnsureVersion(t testing.TB, version string) Env {
	t.Helper()
	if err := checkVersion(version); err != nil {
		t.Fatal(err)
	}
	if version == envVersion() {
		return Ensure(t)
	}
	// The version's own run dir (lib.sh's default for it), on ports of its own.
	return sharedCluster(t, "Flink "+version, "FLINK_VERSION="+version, "FLINK_RUN_DIR=")
}

// sharedCluster starts, once per test binary, the cluster start.sh starts with vars (on ports
// of its own), named name in errors; later calls return it.
func sharedCluster(t testing.TB, name string, vars ...string) Env {
	t.Helper()
	return clusters.Get(t, strings.Join(vars, " "), func(ctx context.Context) (Env, error) {
		e, err := start(ctx, append(vars, noPorts...))
		if err != nil {
			return Env{}, fmt.Errorf("%s: %w", name, err)
		}
		return e, nil
	})
}

// envVersion is the version Ensure's cluster runs: FLINK_VERSION, else DefaultVersion.
func envVersion() string {
	if v := os.Getenv("FLINK_VERSION"); v != "" {
		return v
	}
	return DefaultVersion
}

// checkVersion refuses anything but x.y.z: the version becomes a directory and a pip requirement.
func checkVersion(v string) error {
	parts := strings.Split(v, ".")
	if len(parts) != 3 {
		return fmt.Errorf("flinkenv: Flink version %q is not like 1.20.5", v)
	}
	for _, p := range parts {
		if _, err := strconv.ParseUint(p, 10, 16); err != nil {
			return fmt.Errorf("flinkenv: Flink version %q is not like 1.20.5", v)
		}
	}
	return nil
}

// noPorts empties the port variables: a cluster of its own never takes the ports meant for the
// shared one.
var noPorts = []string{"FLINK_REST_URL=", "FLINK_REST_PORT=", "FLINK_JM_RPC_PORT=", "FLINK_JM_PROM_PORT=", "FLINK_TM_PROM_PORT="}

// Dedicated starts a cluster of the test's own, in testenv/.run/flink-<name> on free ports, and
// stops it when the test ends. Use it for tests that restart or stop the cluster, so they do not
// pull it from under tests running in parallel. It costs ~10 s and ~550 MB while it runs.
// It runs FLINK_VERSION, else DefaultVersion; DedicatedVersion picks the version.
func Dedicated(t testing.TB, name string) Env {
	t.Helper()
	return DedicatedVersion(t, name, envVersion())
}

// DedicatedVersion is Dedicated running Flink version (e.g. "1.20.5").
func DedicatedVersion(t testing.TB, name, version string) Env {
	t.Helper()
	return dedicated(t, name, version)
}

// DedicatedTraced is Dedicated (DefaultVersion, or FLINK_VERSION) with Flink's OpenTelemetry
// trace reporter sending checkpoint spans, at the per-subtask detail level, over OTLP/gRPC to
// otlpEndpoint (http://127.0.0.1:PORT, e.g. jaegerenv's OTLPGRPCEndpoint) as service serviceName
// ("" for start.sh's default, flink-testenv).
func DedicatedTraced(t testing.TB, name, otlpEndpoint, serviceName string) Env {
	t.Helper()
	return DedicatedTracedVersion(t, name, envVersion(), otlpEndpoint, serviceName)
}

// DedicatedTracedVersion is DedicatedTraced running Flink version. For 1.19/1.20, which ship no
// OpenTelemetry reporter, start.sh fetches flink-metrics-otel 2.0.0 and its SDK with mvn; their
// spans are job-level only (no span-detail-level).
func DedicatedTracedVersion(t testing.TB, name, version, otlpEndpoint, serviceName string) Env {
	t.Helper()
	if otlpEndpoint == "" {
		t.Fatal("flinkenv: DedicatedTraced needs an OTLP endpoint")
	}
	return dedicated(t, name, version, "FLINK_TRACES_OTLP_ENDPOINT="+otlpEndpoint, "FLINK_TRACES_SERVICE_NAME="+serviceName)
}

// DedicatedAdaptive is Dedicated (DefaultVersion, or FLINK_VERSION) with Flink's adaptive
// scheduler (jobmanager.scheduler: adaptive): a running job is rescaled by changing its resource
// requirements (PUT /jobs/:jobid/resource-requirements), which restarts it at the new
// parallelism from its latest checkpoint.
func DedicatedAdaptive(t testing.TB, name string) Env {
	t.Helper()
	return dedicated(t, name, envVersion(), "FLINK_SCHEDULER=adaptive")
}

func dedicated(t testing.TB, name, version string, extra ...string) Env {
	t.Helper()
	envscript.SkipUnlessReal(t, realCluster)
	if name == "" || strings.ContainsAny(name, "/ ") {
		t.Fatalf("flinkenv: bad dedicated cluster name %q", name)
	}
	if err := checkVersion(version); err != nil {
		t.Fatal(err)
	}
	if checkVersion(name) == nil {
		t.Fatalf("flinkenv: dedicated cluster name %q is a version: testenv/.run/flink-%s is that version's shared cluster", name, name)
	}
	root, err := envscript.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	runDir := filepath.Join(root, "testenv", ".run", "flink-"+name)
	vars := append([]string{"FLINK_RUN_DIR=" + runDir, "FLINK_VERSION=" + version}, noPorts...)
	vars = append(vars, extra...)
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		if _, err := envscript.RunScript(ctx, vars, "flink", "stop.sh"); err != nil {
			t.Logf("flinkenv: %v", err)
		}
	})
	e, err := start(ctx, vars)
	if err != nil {
		t.Fatalf("flinkenv: dedicated cluster %s: %v", name, err)
	}
	return e
}

// SubmitJob submits the knob job to the shared cluster; see Env.Submit.
func SubmitJob(t testing.TB, args ...string) string {
	t.Helper()
	return Ensure(t).Submit(t, args...)
}

// Submit submits the knob job with args (see testenv/flink/README.md; also submit.sh's
// --job-id and --restore) and returns its job id. The job is cancelled, and its retained
// checkpoints deleted, when the test ends.
func (e Env) Submit(t testing.TB, args ...string) string {
	t.Helper()
	// The flink CLI is a JVM of its own: seconds on an idle machine, minutes on a starved one.
	return e.SubmitWith(t, "flink", 6*time.Minute, args...)
}

// SubmitWith submits a job with testenv/<dir>/submit.sh, a script over testenv/flink's (as
// testenv/iceberg's is), pointed at e and bounded by timeout, and returns its job id. The job is
// cancelled, and its retained checkpoints deleted, when the test ends.
func (e Env) SubmitWith(t testing.TB, dir string, timeout time.Duration, args ...string) string {
	t.Helper()
	return envscript.Submit(t, envscript.Submission{
		Pkg: "flinkenv", Dir: dir, Env: e.scriptEnv(), Args: args, Timeout: timeout,
		IsID:   func(id string) bool { return len(id) == 32 },
		Cancel: func(id string) error { return Cancel(e, id) },
	})
}

// Cancel cancels a job and deletes its retained checkpoints.
func Cancel(e Env, jid string) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := envscript.RunScript(ctx, e.scriptEnv(), "flink", "cancel.sh", jid)
	return err
}

// RestartJobManager runs restart-jm.sh on e (kill: SIGKILL instead of SIGTERM) and waits until
// the cluster is healthy again, on the same ports. The new JobManager knows no jobs (no HA);
// resubmit with Submit(t, "--job-id", jid, "--restore", "latest", ...) to continue one.
// On the shared cluster this disturbs every test running at the time: prefer Dedicated.
func (e Env) RestartJobManager(t testing.TB, kill bool) {
	t.Helper()
	if e.RunDir == "" {
		t.Fatal("flinkenv: cluster not started by testenv (FLINK_REST_URL): cannot restart its JobManager")
	}
	var args []string
	if kill {
		args = append(args, "--kill")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if _, err := envscript.RunScript(ctx, e.scriptEnv(), "flink", "restart-jm.sh", args...); err != nil {
		t.Fatalf("flinkenv: %v", err)
	}
}

// scriptEnv points the scripts at e: its run dir when testenv started it, its URL otherwise. The
// version, when known, picks the job jar built against that Flink.
func (e Env) scriptEnv() []string {
	if e.RunDir != "" {
		// The run dir's env file is the truth after a restart; an inherited URL would shadow it.
		return []string{"FLINK_RUN_DIR=" + e.RunDir, "FLINK_REST_URL=", "FLINK_VERSION=" + e.Version}
	}
	vars := []string{"FLINK_REST_URL=" + e.RESTURL}
	if e.Version != "" {
		vars = append(vars, "FLINK_VERSION="+e.Version)
	}
	return vars
}

// Script returns the path of a testenv/flink script, found from the module root.
func Script(name string) (string, error) { return envscript.Path("flink", name) }

func fromVars(v map[string]string) (Env, error) {
	e := Env{
		RESTURL: strings.TrimRight(v["FLINK_REST_URL"], "/"),
		Version: v["FLINK_VERSION"],
		RunDir:  v["FLINK_RUN_DIR"],
		LogDir:  v["FLINK_LOG_DIR"],

		TracesEndpoint: v["FLINK_TRACES_OTLP_ENDPOINT"],
		TracesService:  v["FLINK_TRACES_SERVICE_NAME"],
	}
	if e.RESTURL == "" {
		return Env{}, errors.New("flinkenv: start.sh printed no FLINK_REST_URL")
	}
	var err error
	if e.JMPromPort, err = optPort(v, "FLINK_JM_PROM_PORT"); err != nil {
		return Env{}, err
	}
	if e.TMPromPort, err = optPort(v, "FLINK_TM_PROM_PORT"); err != nil {
		return Env{}, err
	}
	if e.JMPromPort > 0 {
		e.JMPromURL = fmt.Sprintf("http://127.0.0.1:%d/metrics", e.JMPromPort)
	}
	if e.TMPromPort > 0 {
		e.TMPromURL = fmt.Sprintf("http://127.0.0.1:%d/metrics", e.TMPromPort)
	}
	return e, nil
}

func optPort(v map[string]string, key string) (int, error) {
	s := v[key]
	if s == "" {
		return 0, nil
	}
	p, err := strconv.Atoi(s)
	if err != nil || p <= 0 || p > 65535 {
		return 0, fmt.Errorf("flinkenv: %s=%q is not a port", key, s)
	}
	return p, nil
}

// MatrixVersions returns the Flink versions of the version matrix, testenv/flink/versions.txt
// (the latest patch of every minor PyPI serves, 1.19 on), oldest first. FLINK_MATRIX
// ("1.19.3,2.3.0") narrows it to the versions it names.
func MatrixVersions() ([]string, error) {
	if s := os.Getenv("FLINK_MATRIX"); s != "" {
		var out []string
		for _, v := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' }) {
			if err := checkVersion(v); err != nil {
				return nil, fmt.Errorf("FLINK_MATRIX: %w", err)
			}
			out = append(out, v)
		}
		return out, nil
	}
	path, err := Script("versions.txt")
	if err != nil {
		return nil, err
	}
	return readVersions(path)
}

func readVersions(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line, _, _ := strings.Cut(sc.Text(), "#")
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if err := checkVersion(line); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		out = append(out, line)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s lists no version", path)
	}
	return out, nil
}

// MatrixCluster is one version's cluster of the matrix.
type MatrixCluster struct {
	Version string
	Env     Env
	// Err is why it could not start (then Env is empty).
	Err error
	// Started says this call started it (it is stopped when the test ends); false: it was
	// already running (testenv/flink/matrix.sh start) and is left running.
	Started bool
	// StartTime is how long start.sh took.
	StartTime time.Duration
}

// StartMatrix starts one small cluster per version side by side (testenv/flink/matrix.sh start:
// 768 MB JobManager, 1 GB TaskManager with 4 slots, in testenv/.run/flink-matrix-<version>), all
// at once, and waits for every one. A cluster this call started is stopped when t ends unless
// FLINK_MATRIX_KEEP=1; one already running is used and left running. A version that cannot start
// has Err set: its test fails, the others go on. Skips t when CE_SKIP_REAL=1.
//
// A non-empty otlpEndpoint (a loopback OTLP/gRPC receiver, e.g. jaegerenv's OTLPGRPCEndpoint)
// starts every cluster with its trace reporter sending there under the service name
// flink-matrix-<version> (Env.TracesEndpoint, Env.TracesService); "" starts them without one. A
// running cluster started with another endpoint is not reused: its Err says to stop it.
func StartMatrix(t testing.TB, versions []string, otlpEndpoint string) map[string]*MatrixCluster {
	t.Helper()
	envscript.SkipUnlessReal(t, "real Flink clusters")
	script, err := Script("matrix.sh")
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range versions {
		if err := checkVersion(v); err != nil {
			t.Fatal(err)
		}
	}
	started := make(chan *MatrixCluster)
	for _, v := range versions {
		go func() { started <- startMatrixOne(script, v, otlpEndpoint) }()
	}
	out := make(map[string]*MatrixCluster, len(versions))
	for range versions {
		c := <-started
		out[c.Version] = c
	}
	t.Cleanup(func() {
		if os.Getenv("FLINK_MATRIX_KEEP") == "1" {
			return
		}
		var stop []string
		for _, c := range out {
			if c.Started || c.Err != nil { // a failed start may have left half a cluster
				stop = append(stop, c.Version)
			}
		}
		if len(stop) == 0 {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		if _, err := envscript.Run(ctx, nil, script, append([]string{"stop"}, stop...)...); err != nil {
			t.Logf("flinkenv: stopping the matrix: %v", err)
		}
	})
	return out
}

func startMatrixOne(script, version, otlpEndpoint string) *MatrixCluster {
	c := &MatrixCluster{Version: version}
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	c.Started = !matrixRunning(ctx, script, version)
	start := time.Now()
	out, err := envscript.Run(ctx, []string{"FLINK_MATRIX_TRACES_OTLP_ENDPOINT=" + otlpEndpoint}, script, "start", version)
	c.StartTime = time.Since(start)
	if err != nil {
		c.Err = fmt.Errorf("flinkenv: Flink %s of the matrix: %w", version, err)
		return c
	}
	c.Env, c.Err = fromVars(envscript.ParseEnv(out))
	switch {
	case c.Err != nil:
	case c.Env.Version != version:
		c.Err = fmt.Errorf("flinkenv: matrix cluster of %s reports version %q", version, c.Env.Version)
	case c.Env.TracesEndpoint != otlpEndpoint:
		c.Err = fmt.Errorf("flinkenv: matrix cluster of %s sends traces to %q, want %q", version, c.Env.TracesEndpoint, otlpEndpoint)
	}
	return c
}

// matrixRunning reports whether version's matrix cluster runs already: its env file is there
// and its JobManager's pid is alive.
func matrixRunning(ctx context.Context, script, version string) bool {
	out, err := envscript.Run(ctx, nil, script, "rundir", version)
	if err != nil {
		return false
	}
	vars, err := readEnvFile(filepath.Join(envscript.LastLine(out), "env"))
	if err != nil {
		return false
	}
	pid, err := strconv.Atoi(vars["FLINK_JM_PID"])
	if err != nil || pid <= 0 {
		return false
	}
	_, err = os.Stat(fmt.Sprintf("/proc/%d", pid))
	return err == nil
}

func readEnvFile(path string) (map[string]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	vars := envscript.ParseEnv(string(b))
	if len(vars) == 0 {
		return nil, errors.New("empty env file")
	}
	return vars, nil
}

// EnsureNamed returns a shared cluster of its own name running FLINK_VERSION (else
// DefaultVersion), started on first use in testenv/.run/flink-shared-<name> on free ports. Like
// Ensure's, it serves every test binary and stays up after the tests (testenv/stop-all.sh stops
// it): a test binary whose real tests run side by side on more than one cluster of the same
// version takes one per track, so that each track's jobs, request budget and JobManager log are
// its own.
func EnsureNamed(t testing.TB, name string) Env {
	t.Helper()
	if name == "" || strings.ContainsAny(name, "/ .") {
		t.Fatalf("flinkenv: bad shared cluster name %q", name)
	}
	root, err := envscript.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	runDir := filepath.Join(root, "testenv", ".run", "flink-shared-"+name)
	return sharedCluster(t, "shared cluster "+name, "FLINK_VERSION="+envVersion(), "FLINK_RUN_DIR="+runDir)
}
