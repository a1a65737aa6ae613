// Package notifyenv runs a real desktop notification service for a test: a private D-Bus
// session bus, an Xvfb display on a free display number, and Debian's dunst (which needs a
// display) serving org.freedesktop.Notifications on that bus. The daemon's own record is read
// back with dunstctl against the same bus.
//
//	env := notifyenv.Start(t)
//	notifier := alert.NewDesktop(alert.DesktopOptions{BusAddress: env.BusAddress})
//	// ... notify, then
//	got := env.History(t)
//
// Everything is a child of the test, started at most once per test (a second Start in the same
// test returns the same Env) and killed by its pid in t.Cleanup; nothing touches the user's own
// session. Start skips the test when CE_SKIP_REAL=1 and fails it when a program is missing
// (testenv/install-deps.sh test installs dbus, xvfb and dunst).
package notifyenv

import (
	"bufio"
	"encoding/json"
	"fmt"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"checkpoint-explorer/testenv/envscript"
)

// Env is a running notification service.
type Env struct {
	// BusAddress is the private session bus (DBUS_SESSION_BUS_ADDRESS).
	BusAddress string
	// Display is the Xvfb display dunst draws on, e.g. ":3".
	Display string
	// Environ is what a child process needs to reach them (DBUS_SESSION_BUS_ADDRESS, DISPLAY,
	// HOME, XDG_RUNTIME_DIR, XDG_CONFIG_HOME), appended to os.Environ().
	Environ []string
}

// Notification is one notification as the daemon recorded it.
type Notification struct {
	ID            int
	AppName       string
	Summary       string
	Body          string
	DefaultAction string // the name of its default action; "" without one
}

const readyTimeout = time.Minute // Xvfb and dunst start slowly on a busy machine

// dunstrc keeps every notification on screen until closed (timeout 0) and in the history
// after (none is dropped: no limit on screen, a long history).
const dunstrc = `[global]
    notification_limit = 0
    history_length = 1000
    sticky_history = yes
    idle_threshold = 0
[urgency_low]
    timeout = 0
[urgency_normal]
    timeout = 0
[urgency_critical]
    timeout = 0
`

var (
	mu      sync.Mutex
	running = map[testing.TB]*Env{}
)

// Start returns the test's notification service, starting the bus, Xvfb and dunst on the
// test's first call.
func Start(t testing.TB) *Env {
	t.Helper()
	envscript.SkipUnlessReal(t, "a real notification daemon")
	mu.Lock()
	defer mu.Unlock()
	if env := running[t]; env != nil {
		return env
	}
	need(t, "dbus-daemon", "Xvfb", "dunst", "dunstctl")
	dir := t.TempDir()
	env := &Env{BusAddress: bus(t, dir)}
	env.Display = ":" + firstLine(t, exec.Command("Xvfb", "-displayfd", "1", "-nolisten", "tcp", "-screen", "0", "1280x800x24"), "Xvfb")
	home := filepath.Join(dir, "home")
	if err := os.MkdirAll(filepath.Join(home, ".config", "dunst"), 0o700); err != nil {
		t.Fatal(err)
	}
	conf := filepath.Join(home, ".config", "dunst", "dunstrc")
	if err := os.WriteFile(conf, []byte(dunstrc), 0o600); err != nil {
		t.Fatal(err)
	}
	env.Environ = append(environ(), "DBUS_SESSION_BUS_ADDRESS="+env.BusAddress, "DISPLAY="+env.Display, "HOME="+home,
		"XDG_RUNTIME_DIR="+dir, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"))
	dunst := exec.Command("dunst", "-conf", conf)
	dunst.Env = env.Environ
	logf, err := os.Create(filepath.Join(dir, "dunst.log"))
	if err != nil {
		t.Fatal(err)
	}
	dunst.Stdout, dunst.Stderr = logf, logf
	startChild(t, dunst, "dunst")
	logf.Close() // dunst has its own descriptor
	// It serves once dunstctl, which asks it over the bus, gets an answer.
	deadline := time.Now().Add(readyTimeout)
	for _, err := env.dunstctl("count", "displayed"); err != nil; _, err = env.dunstctl("count", "displayed") {
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(logf.Name())
			t.Fatalf("notifyenv: dunst did not answer on the bus in %s; its log:\n%s", readyTimeout, log)
		}
		time.Sleep(100 * time.Millisecond)
	}
	running[t] = env
	t.Cleanup(func() { mu.Lock(); delete(running, t); mu.Unlock() })
	return env
}

// Bus starts a private session bus with nothing on it, for the test alone, and returns its
// address.
func Bus(t testing.TB) string {
	t.Helper()
	envscript.SkipUnlessReal(t, "a real notification daemon")
	need(t, "dbus-daemon")
	return bus(t, t.TempDir())
}

// busConfig is a session bus that starts no service on demand: the daemons installed on the
// machine (dunst's D-Bus service file among them) stay out of the test's bus.
const busConfig = `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:path=%s</listen>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
`

func bus(t testing.TB, dir string) string {
	conf := filepath.Join(dir, "bus.conf")
	if err := os.WriteFile(conf, fmt.Appendf(nil, busConfig, html.EscapeString(filepath.Join(dir, "bus"))), 0o600); err != nil {
		t.Fatal(err)
	}
	return firstLine(t, exec.Command("dbus-daemon", "--config-file="+conf, "--nofork", "--nopidfile", "--print-address=1"), "dbus-daemon")
}

func need(t testing.TB, bins ...string) {
	for _, bin := range bins {
		if _, err := exec.LookPath(bin); err != nil {
			t.Fatalf("notifyenv: %s is not installed (testenv/install-deps.sh test installs it)", bin)
		}
	}
}

// environ is the test's environment without a display or session of the user's own.
func environ() []string {
	return slices.DeleteFunc(os.Environ(), func(kv string) bool {
		name, _, _ := strings.Cut(kv, "=")
		return slices.Contains([]string{"DISPLAY", "WAYLAND_DISPLAY", "DBUS_SESSION_BUS_ADDRESS", "XAUTHORITY"}, name)
	})
}

// startChild starts cmd and stops it, by its pid, when the test ends: TERM (Xvfb then removes
// its display's lock), and KILL after 5 s.
func startChild(t testing.TB, cmd *exec.Cmd, what string) {
	if err := cmd.Start(); err != nil {
		t.Fatalf("notifyenv: %s: %v", what, err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
}

// firstLine starts cmd and returns the first line it prints, once it is ready: the bus
// prints its address, Xvfb the display number it took.
func firstLine(t testing.TB, cmd *exec.Cmd, what string) string {
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	startChild(t, cmd, what)
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(out).ReadString('\n')
		line <- strings.TrimSpace(s)
	}()
	select {
	case s := <-line:
		if s == "" {
			t.Fatalf("notifyenv: %s exited without starting: %s", what, stderr.String())
		}
		return s
	case <-time.After(readyTimeout):
		t.Fatalf("notifyenv: %s printed nothing in %s", what, readyTimeout)
	}
	return ""
}

// dunstctl runs dunstctl against the env's bus.
func (e *Env) dunstctl(args ...string) ([]byte, error) {
	cmd := exec.Command("dunstctl", args...)
	cmd.Env = e.Environ
	return cmd.CombinedOutput()
}

// must runs dunstctl, failing the test when it fails.
func (e *Env) must(t testing.TB, args ...string) []byte {
	t.Helper()
	out, err := e.dunstctl(args...)
	if err != nil {
		t.Fatalf("notifyenv: dunstctl %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// Count is how many notifications the daemon holds: on screen, waiting, and in its history
// (closed). None is dropped, so this is every notification it received.
func (e *Env) Count(t testing.TB) (displayed, history int) {
	t.Helper()
	n := func(what string) int {
		v, err := strconv.Atoi(strings.TrimSpace(string(e.must(t, "count", what))))
		if err != nil {
			t.Fatalf("notifyenv: dunstctl count %s: %v", what, err)
		}
		return v
	}
	return n("displayed") + n("waiting"), n("history")
}

// Click invokes the default action of the notification on screen at position (0: the
// first), as a click on it would: dunst sends ActionInvoked to its sender.
func (e *Env) Click(t testing.TB, position int) {
	t.Helper()
	e.must(t, "action", strconv.Itoa(position))
}

// History closes the notifications on screen, so that all are in the daemon's history, and
// returns that history, oldest first.
func (e *Env) History(t testing.TB) []Notification {
	t.Helper()
	e.must(t, "close-all")
	var h struct {
		Data [][]map[string]struct {
			Data json.RawMessage `json:"data"`
		} `json:"data"`
	}
	out := e.must(t, "history")
	if err := json.Unmarshal(out, &h); err != nil || len(h.Data) != 1 {
		t.Fatalf("notifyenv: dunstctl history: %v\n%s", err, out)
	}
	var ns []Notification
	for _, rec := range h.Data[0] {
		var n Notification
		for field, dst := range map[string]any{"id": &n.ID, "appname": &n.AppName, "summary": &n.Summary, "body": &n.Body,
			"default_action_name": &n.DefaultAction} {
			if v, ok := rec[field]; ok {
				if err := json.Unmarshal(v.Data, dst); err != nil {
					t.Fatalf("notifyenv: dunstctl history: %s: %v", field, err)
				}
			}
		}
		ns = append(ns, n)
	}
	slices.SortFunc(ns, func(a, b Notification) int { return a.ID - b.ID })
	return ns
}

// String is the notification in one line, for test messages.
func (n Notification) String() string {
	return fmt.Sprintf("#%d %s: %q %q", n.ID, n.AppName, n.Summary, n.Body)
}
