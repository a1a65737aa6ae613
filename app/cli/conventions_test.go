package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"checkpoint-explorer/app"
	"checkpoint-explorer/backend/capture"
	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/model/modeltest"
)

// The command line's conventions (issue #17): exit statuses, one error line,
// the help's format, progress on stderr, Ctrl-C, shell completion.

// TestMain lets a test run this package's Main as its own process, the way
// main.go does (CE_CLI_TEST_MAIN=1 and the command line as arguments), to
// see its exit status and send it signals.
func TestMain(m *testing.M) {
	if os.Getenv("CE_CLI_TEST_MAIN") == "1" {
		progressFirst = 200 * time.Millisecond // the interrupt test waits for the first line
		ctx, stop := NotifyContext(context.Background())
		code := Main(ctx, os.Args[1:], os.Stdout, os.Stderr, Options{})
		stop()
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// cliProcess is the command line args as a process of its own.
func cliProcess(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), "CE_CLI_TEST_MAIN=1")
	return cmd
}

// mainCLI runs Main in-process and returns the exit status and the output.
func mainCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(context.Background(), args, &out, &errb, Options{})
	return code, out.String(), errb.String()
}

var bigCaptures = struct {
	sync.Mutex
	paths map[int]string
}{paths: map[int]string{}}

// largeCapture is a capture of one job's n checkpoints of 4×4 subtasks
// (~0.7 KB each gzipped), written once per n for the tests that need an
// import lasting a while.
func largeCapture(t *testing.T, n int) string {
	t.Helper()
	bigCaptures.Lock()
	defer bigCaptures.Unlock()
	if p, ok := bigCaptures.paths[n]; ok {
		return p
	}
	dir, err := os.MkdirTemp("", "ce-cli-big-*")
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "big.ckpt.gz")
	if err := writeLargeCapture(p, n); err != nil {
		t.Fatal(err)
	}
	bigCaptures.paths[n] = p
	return p
}

func writeLargeCapture(path string, n int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	w, err := capture.NewWriter(f, capture.Header{RecordedBy: "test", RecordedAt: time.Now().UTC(), AppVersion: "t"})
	if err != nil {
		return err
	}
	const job = "0123456789abcdef0123456789abcdef"
	if err := w.Cluster(model.Cluster{Name: "big", Engine: model.EngineFlink, BaseURL: "http://127.0.0.1:8081"}); err != nil {
		return err
	}
	if err := w.Job(model.Job{Cluster: "big", ID: job, Name: "big", Engine: model.EngineFlink, State: "RUNNING"}); err != nil {
		return err
	}
	for i := 1; i <= n; i++ {
		c := modeltest.Checkpoint("big", job, int64(i), 1_780_000_000_000+int64(i)*1000, 4, 4)
		if err := w.Checkpoint(&c); err != nil {
			return err
		}
	}
	if err := w.Close(); err != nil {
		return err
	}
	return f.Close()
}

// cachedCheckpoints is the number of checkpoints in dir's cache, as
// `clusters list --json` tells it.
func cachedCheckpoints(t *testing.T, dir string) int64 {
	t.Helper()
	code, out, stderr := mainCLI(t, "clusters", "list", "--json", "--data-dir", dir)
	if code != 0 {
		t.Fatalf("clusters list: exit %d: %s", code, stderr)
	}
	var v struct {
		Retention struct{ Checkpoints int64 } `json:"retention"`
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("clusters list --json: %v\n%s", err, out)
	}
	return v.Retention.Checkpoints
}

// Usage errors exit 2, failures 1, success 0; an error is one line on
// stderr, starting with the program's name, and nothing on stdout.
func TestExitStatusAndOneErrorLine(t *testing.T) {
	dir := t.TempDir()
	sample := filepath.Join("..", "sample", "phase-2.3-checkpoint-metrics.json")
	for _, tc := range []struct {
		args []string
		code int
		want string // in the error line
	}{
		{[]string{"nope"}, ExitUsage, `unknown command "nope"`},
		{[]string{"import", "--nope", sample}, ExitUsage, "import: unknown flag: --nope (see 'checkpoint-explorer import --help')"},
		{[]string{"report", sample, "-x"}, ExitUsage, "unknown shorthand flag: 'x'"},
		{[]string{"clusters", "retention", "--max-checkpoints", "many"}, ExitUsage, `invalid argument "many" for "--max-checkpoints"`},
		{[]string{"report", sample, "--format", "xml"}, ExitUsage, `--format "xml": choose text, json or markdown`},
		{[]string{"export", "--cluster", "c", "--job", "j", "--out", "x", "--from", "yesterday"}, ExitUsage, `--from: time "yesterday"`},
		{[]string{"capture", "--url", "http://127.0.0.1:1", "--job", "j", "--out", "x", "--duration", "-1s"}, ExitUsage, `--duration "-1s"`},
		{[]string{"import"}, ExitUsage, "import: give at least one file"},
		{[]string{"export", "--cluster", "c"}, ExitUsage, "export: --cluster, --job and --out are required"},
		{[]string{"export", "--cluster", "c", "--job", "j", "--out", "x", "--format", "svg"}, ExitUsage, `export: --format "svg": choose capture, perfetto, otlp or csv`},
		{[]string{"export", "--cluster", "c", "--job", "j", "--out", "x", "--per-subtask"}, ExitUsage, "export: --per-subtask goes with --format csv"},
		{[]string{"clusters"}, ExitUsage, "clusters: give a subcommand"},
		{[]string{"clusters", "nope"}, ExitUsage, `clusters: unknown subcommand "nope"`},
		{[]string{"clusters", "remove"}, ExitUsage, "clusters remove: give one name"},
		{[]string{"version", "extra"}, ExitUsage, `version takes no arguments, got "extra"`},
		{[]string{"import", filepath.Join(dir, "missing.ckpt.gz")}, ExitFailure, "import: " + filepath.Join(dir, "missing.ckpt.gz") + ": no such file or directory"},
		{[]string{"report", filepath.Join(dir, "missing.ckpt.gz")}, ExitFailure, "report: " + filepath.Join(dir, "missing.ckpt.gz") + ": no such file or directory"},
		{[]string{"import", "--", "--nope"}, ExitFailure, "import: --nope: no such file or directory"},
		{[]string{"export", "--cluster", "c", "--job", "j", "--out", filepath.Join(dir, "x.ckpt.gz")}, ExitFailure, "job j on c is not in the cache"},
	} {
		code, out, stderr := mainCLI(t, append([]string{"--data-dir", dir}, tc.args...)...)
		lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
		if code != tc.code || len(lines) != 1 || !strings.HasPrefix(lines[0], "checkpoint-explorer: ") ||
			!strings.Contains(lines[0], tc.want) || out != "" {
			t.Errorf("%q: exit %d (want %d), stdout %q, stderr:\n%s(want one line with %q)", tc.args, code, tc.code, out, stderr, tc.want)
		}
		if strings.Contains(stderr, "bad request") {
			t.Errorf("%q: the HTTP door's words reach the user: %s", tc.args, stderr)
		}
	}
	for _, args := range [][]string{
		{"version"},
		{"report", sample},
		{"-data-dir", dir, "-v", "version"}, // the Go flag package's single-dash long flags still read
		{"import", sample, "-q", "--data-dir", dir},
	} {
		code, out, stderr := mainCLI(t, append(args, "--data-dir", dir)...)
		if code != ExitOK || out == "" || strings.Contains(stderr, "checkpoint-explorer:") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 0 and output", args, code, out, stderr)
		}
	}

	// The process itself exits with the status.
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"import", "--nope"}, ExitUsage},
		{[]string{"import", filepath.Join(dir, "missing.ckpt.gz")}, ExitFailure},
		{[]string{"version"}, ExitOK},
	} {
		cmd := cliProcess(t, append(tc.args, "--data-dir", dir)...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		if code := cmd.ProcessState.ExitCode(); code != tc.code {
			t.Errorf("process %q: exit %d (%v), want %d\n%s", tc.args, code, err, tc.code, stderr.String())
		}
	}
}

// flagLineRE is a flag in the help: "  -v, --verbose", "      --out FILE".
var flagLineRE = regexp.MustCompile(`^  (-[a-z], |    )--[a-z][a-z-]*( [A-Z][A-Za-z=:|.]*)?(  |$)`)

// Every command's help is on stdout, GNU-style: a usage line, `--flag VALUE`
// lines under headings, the global flags, and examples; never the Go flag
// package's "-flag string".
func TestHelpIsGNUStyleWithGroupsAndExamples(t *testing.T) {
	var paths [][]string
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		paths = append(paths, path)
		for _, s := range c.Commands() {
			if s.IsAvailableCommand() && s.Name() != "help" {
				walk(s, append(append([]string{}, path...), s.Name()))
			}
		}
	}
	root := newRoot(&globals{stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}})
	root.InitDefaultCompletionCmd()
	walk(root, nil)
	if len(paths) < 14 {
		t.Fatalf("%d commands: %q", len(paths), paths)
	}
	goStyle := regexp.MustCompile(`(?m)^\s+-[a-z][a-z-]+ (string|int|float|value|duration)\b`)
	for _, path := range paths {
		code, out, stderr := mainCLI(t, append(path, "--help")...)
		name := strings.Join(append([]string{"checkpoint-explorer"}, path...), " ")
		if code != 0 || stderr != "" {
			t.Errorf("%s --help: exit %d, stderr %q", name, code, stderr)
		}
		if !strings.HasPrefix(out, "Usage:\n  "+name) {
			t.Errorf("%s --help does not start with its usage:\n%s", name, out)
		}
		if goStyle.MatchString(out) {
			t.Errorf("%s --help has Go flag-style lines:\n%s", name, out)
		}
		if !strings.Contains(out, "\nGlobal flags:\n") || !strings.Contains(out, "      --data-dir DIR  ") || !strings.Contains(out, "  -h, --help") {
			t.Errorf("%s --help lacks the global flags:\n%s", name, out)
		}
		// Under each heading ending in "flags:" or naming a group, the lines are flags.
		var flags int
		sc := bufio.NewScanner(strings.NewReader(out))
		inFlags := false
		for sc.Scan() {
			l := sc.Text()
			switch {
			case l == "":
				inFlags = false
			case !strings.HasPrefix(l, " ") && strings.HasSuffix(l, ":"):
				inFlags = l != "Usage:" && l != "Examples:" && l != "Commands:" && !strings.HasSuffix(l, "checkpoints:") &&
					l != "Move checkpoints in and out:" && l != "Set up:"
			case inFlags && strings.HasPrefix(l, "  ") && !strings.HasPrefix(l, "   "+strings.Repeat(" ", 10)):
				if !flagLineRE.MatchString(l) {
					t.Errorf("%s --help: %q is not a --flag VALUE line", name, l)
				}
				flags++
			}
		}
		if flags < 4 {
			t.Errorf("%s --help lists %d flags:\n%s", name, flags, out)
		}
		if len(path) > 0 && path[0] != "completion" && !strings.Contains(out, "\nExamples:\n  checkpoint-explorer ") &&
			!strings.Contains(out, "\nExamples:\n  CE_") {
			t.Errorf("%s --help has no examples:\n%s", name, out)
		}
	}

	// The top level groups the commands and tells the exit statuses.
	_, out, _ := mainCLI(t, "--help")
	for _, want := range []string{"Look at checkpoints:\n  serve ", "Move checkpoints in and out:\n  import ", "Set up:\n  clusters ",
		"  completion  ", "Exit status: 0 done, 1 failed, 2 a usage error"} {
		if !strings.Contains(out, want) {
			t.Errorf("checkpoint-explorer --help lacks %q:\n%s", want, out)
		}
	}
	// A command's flags are in its groups, with their value names and defaults.
	_, out, _ = mainCLI(t, "report", "--help")
	for _, want := range []string{"What to report:\n      --cluster NAME ", "      --from TIME ", "Output:\n      --format FORMAT  text, json or markdown (default text)",
		"\nExamples:\n  checkpoint-explorer report recording.ckpt.gz\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("report --help lacks %q:\n%s", want, out)
		}
	}
	_, out, _ = mainCLI(t, "clusters", "add", "--help")
	for _, want := range []string{"Authentication and TLS:\n      --auth KIND ", "      --test  ", "(default true;",
		"--lane NAME=promql:QUERY|NAME=metric:METRIC", "Request budget:\n      --requests-per-second N "} {
		if !strings.Contains(out, want) {
			t.Errorf("clusters add --help lacks %q:\n%s", want, out)
		}
	}
	// `help COMMAND` is the same help.
	_, viaHelp, _ := mainCLI(t, "help", "report")
	if _, direct, _ := mainCLI(t, "report", "--help"); viaHelp != direct {
		t.Errorf("help report differs from report --help:\n%s", viaHelp)
	}
}

// progressRE is a non-terminal progress line of an import.
var progressRE = regexp.MustCompile(`(?m)^reading big\.ckpt\.gz: [0-9.]+ [KMG]?i?B of [0-9.]+ [KMG]?i?B \(\d+ %\), [\d,]+ checkpoints, [0-9.]+ [KMG]?i?B/s$`)

// Import and report FILE tell their progress on stderr, as plain lines when
// stderr is not a terminal; stdout holds only the result; --quiet has none.
func TestProgressGoesToStderrAsPlainLines(t *testing.T) {
	const n = 6000 / raceScale
	big := largeCapture(t, n)
	old := progressFirst
	progressFirst = 200 * time.Millisecond // the app tells its progress every 500 ms
	t.Cleanup(func() { progressFirst = old })
	dir := t.TempDir()
	start := time.Now()
	code, out, stderr := mainCLI(t, "import", big, "--data-dir", dir)
	took := time.Since(start)
	if code != 0 {
		t.Fatalf("import: exit %d\n%s", code, stderr)
	}
	if took < 700*time.Millisecond {
		t.Skipf("the import took %s: too quick for a progress line (progressFirst %s)", took, progressFirst)
	}
	if !progressRE.MatchString(stderr) {
		t.Errorf("import of %s for %s: no progress line on stderr:\n%s", big, took, stderr)
	}
	if want := fmt.Sprintf("%s: capture: big: 1 jobs, %d checkpoints, 0 ack samples, 0 metric samples, 0 gaps\n", big, n); out != want {
		t.Errorf("import stdout = %q, want only %q", out, want)
	}
	if strings.Contains(stderr, "\r") || strings.Contains(stderr, "\033[") {
		t.Errorf("terminal redraws in a non-terminal's progress: %q", stderr)
	}
	// No line more often than progressEvery: one at progressFirst, then one each progressEvery.
	if n, most := len(progressRE.FindAllString(stderr, -1)), int((took-progressFirst)/progressEvery)+1; n > most {
		t.Errorf("%d progress lines in %s, want at most %d (one every %s)", n, took, most, progressEvery)
	}

	code, out, stderr = mainCLI(t, "report", big, "--format", "json", "--data-dir", t.TempDir())
	if code != 0 {
		t.Fatalf("report: exit %d\n%s", code, stderr)
	}
	var r struct {
		Checkpoints []json.RawMessage `json:"checkpoints"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil || len(r.Checkpoints) != n {
		t.Errorf("report stdout is not the JSON report alone (%v, %d checkpoints): %.300s", err, len(r.Checkpoints), out)
	}
	if !progressRE.MatchString(stderr) {
		t.Errorf("report of a capture: no progress line on stderr:\n%s", stderr)
	}

	code, _, stderr = mainCLI(t, "import", big, "--quiet", "--data-dir", t.TempDir())
	if code != 0 || strings.Contains(stderr, "reading ") {
		t.Errorf("import --quiet: exit %d, stderr:\n%s", code, stderr)
	}

	// Export tells how many checkpoints it has written.
	code, out, stderr = mainCLI(t, "export", "--cluster", "capture: big", "--job", "0123456789abcdef0123456789abcdef",
		"--out", filepath.Join(t.TempDir(), "out.ckpt.gz"), "--data-dir", dir)
	if code != 0 || !strings.Contains(out, fmt.Sprintf(": %d checkpoints, ", n)) || strings.Contains(out, "writing") {
		t.Fatalf("export: exit %d, stdout %q\n%s", code, out, stderr)
	}
	if !regexp.MustCompile(`(?m)^writing out\.ckpt\.gz: [\d,]+ checkpoints, [\d,]+ checkpoints/s$`).MatchString(stderr) {
		t.Logf("export: no progress line (an export quicker than the app's first progress event): %q", stderr)
	} else {
		t.Logf("export: %s", stderr)
	}
}

// On a terminal the progress is one line, redrawn, and cleared at the end.
func TestProgressRedrawsOneLineOnATerminal(t *testing.T) {
	var buf bytes.Buffer
	p := &progress{w: &buf, tty: true, start: time.Now()}
	p.show("reading a: 1 KiB")
	p.show("reading a: 2 KiB")
	p.done()
	if got, want := buf.String(), "\r\033[Kreading a: 1 KiB\r\033[Kreading a: 2 KiB\r\033[K"; got != want {
		t.Errorf("terminal progress = %q, want %q", got, want)
	}
	buf.Reset()
	(&progress{w: &buf, tty: true, cols: 10}).show("reading a: 1 KiB")
	if got, want := buf.String(), "\r\033[Kreading …"; got != want {
		t.Errorf("a line wider than the terminal = %q, want %q (cut to redraw in place)", got, want)
	}
	buf.Reset()
	(&progress{w: &buf, tty: true, off: true}).show("x")
	if buf.Len() != 0 {
		t.Errorf("--quiet drew %q", buf.String())
	}
	if got := importLine(app.ImportProgressEvent{File: "big.ckpt.gz", Bytes: 3 << 20, Size: 12 << 20, Checkpoints: 2500}, 2*time.Second); got != "reading big.ckpt.gz: 3.0 MiB of 12 MiB (25 %), 2,500 checkpoints, 1.5 MiB/s" {
		t.Errorf("import line = %q", got)
	}
}

// Ctrl-C during a large import ends the process promptly with status 130
// and one line saying so; the cache holds what it held before. SIGTERM
// likewise, with 143.
func TestInterruptDuringALargeImportLeavesTheCacheAsItWas(t *testing.T) {
	big := largeCapture(t, 20_000/raceScale)
	dir := t.TempDir()
	sample := filepath.Join("..", "sample", "phase-2.3-checkpoint-metrics.json")
	if code, _, stderr := mainCLI(t, "import", sample, "--data-dir", dir); code != 0 {
		t.Fatalf("import %s: %s", sample, stderr)
	}
	before := cachedCheckpoints(t, dir)
	if before == 0 {
		t.Fatal("the cache is empty before the import")
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		cmd := cliProcess(t, "import", big, "--data-dir", dir)
		stderr, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		var stdout bytes.Buffer
		cmd.Stdout = &stdout
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(stderr)
		var lines []string
		for sc.Scan() {
			lines = append(lines, sc.Text())
			if strings.HasPrefix(sc.Text(), "reading big.ckpt.gz: ") {
				break
			}
		}
		if err := cmd.Process.Signal(sig); err != nil {
			t.Fatal(err)
		}
		sent := time.Now()
		for sc.Scan() {
			lines = append(lines, sc.Text())
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("%v: the import had not ended 15 s after the signal; stderr:\n%s", sig, strings.Join(lines, "\n"))
		}
		took := time.Since(sent)
		want := 128 + int(sig)
		if code := cmd.ProcessState.ExitCode(); code != want {
			t.Errorf("%v: exit %d, want %d; stderr:\n%s", sig, code, want, strings.Join(lines, "\n"))
		}
		wantLine := "checkpoint-explorer: interrupted by " + map[syscall.Signal]string{syscall.SIGINT: "SIGINT", syscall.SIGTERM: "SIGTERM"}[sig] +
			": import of " + big + " stopped; nothing of it was imported (the cache is as it was)"
		if last := lines[len(lines)-1]; last != wantLine {
			t.Errorf("%v: the last line is %q, want %q", sig, last, wantLine)
		}
		if n := strings.Count(strings.Join(lines, "\n"), "checkpoint-explorer:"); n != 1 {
			t.Errorf("%v: %d error lines:\n%s", sig, n, strings.Join(lines, "\n"))
		}
		if stdout.Len() != 0 {
			t.Errorf("%v: stdout %q", sig, stdout.String())
		}
		if after := cachedCheckpoints(t, dir); after != before {
			t.Errorf("%v: the cache holds %d checkpoints after the interrupted import, %d before", sig, after, before)
		}
		t.Logf("%v: ended %s after the signal", sig, took.Round(time.Millisecond))
	}
}

// Completion scripts come for bash, zsh and fish; bash's parses, and the
// completion answers with the commands' values.
func TestCompletionScripts(t *testing.T) {
	for _, shell := range []string{"bash", "zsh", "fish"} {
		code, out, stderr := mainCLI(t, "completion", shell)
		if code != 0 || !strings.Contains(out, "checkpoint-explorer") || len(out) < 1000 {
			t.Errorf("completion %s: exit %d, %d bytes\n%s", shell, code, len(out), stderr)
			continue
		}
		if _, err := exec.LookPath(shell); err != nil {
			if shell == "bash" {
				t.Errorf("no bash to check the bash completion with")
			}
			continue
		}
		check := exec.Command(shell, "-n")
		check.Stdin = strings.NewReader(out)
		if b, err := check.CombinedOutput(); err != nil {
			t.Errorf("%s -n on the %s completion: %v\n%s", shell, shell, err, b)
		}
	}
	_, out, _ := mainCLI(t, "__complete", "report", "--format", "")
	if !strings.HasPrefix(out, "text\njson\nmarkdown\n") {
		t.Errorf("completing report --format: %q", out)
	}
	_, out, _ = mainCLI(t, "__complete", "")
	for _, c := range []string{"serve", "report", "import", "export", "capture", "clusters", "completion"} {
		if !strings.Contains(out, "\n"+c+"\t") && !strings.HasPrefix(out, c+"\t") {
			t.Errorf("completing a command lacks %s: %q", c, out)
		}
	}
}
