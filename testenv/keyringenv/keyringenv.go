// Package keyringenv runs a real Secret Service for a test: a private D-Bus
// session bus and Debian's GNOME keyring daemon on it, with a throwaway
// home, unlocked with a test password. Both are children of the test and
// stop with it; nothing touches the user's own keyring or session.
package keyringenv

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Start runs the bus and the keyring daemon and returns the environment a
// process needs to use them (DBUS_SESSION_BUS_ADDRESS, HOME,
// XDG_RUNTIME_DIR). It fails the test when the daemons are not installed
// (testenv/install-deps.sh installs gnome-keyring).
func Start(t testing.TB) []string {
	t.Helper()
	for _, bin := range []string{"dbus-daemon", "gnome-keyring-daemon"} {
		if _, err := exec.LookPath(bin); err != nil {
			t.Fatalf("keyringenv: %s is not installed (testenv/install-deps.sh installs dbus and gnome-keyring)", bin)
		}
	}
	dir := t.TempDir()
	home, run := filepath.Join(dir, "home"), filepath.Join(dir, "run")
	for _, d := range []string{home, run} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	bus := exec.Command("dbus-daemon", "--session", "--nofork", "--nopidfile", "--print-address=1",
		"--address=unix:path="+filepath.Join(run, "bus"))
	out, err := bus.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := bus.Start(); err != nil {
		t.Fatalf("keyringenv: dbus-daemon: %v", err)
	}
	t.Cleanup(func() { bus.Process.Kill(); bus.Wait() })
	addr := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(out).ReadString('\n')
		addr <- strings.TrimSpace(line)
	}()
	var address string
	select {
	case address = <-addr:
	case <-time.After(10 * time.Second):
		t.Fatal("keyringenv: dbus-daemon printed no address in 10 s")
	}
	env := []string{"DBUS_SESSION_BUS_ADDRESS=" + address, "HOME=" + home, "XDG_RUNTIME_DIR=" + run,
		"XDG_DATA_HOME=" + filepath.Join(home, ".local", "share")}
	keyring := exec.Command("gnome-keyring-daemon", "--foreground", "--unlock", "--components=secrets")
	keyring.Env = append(os.Environ(), env...)
	keyring.Stdin = strings.NewReader("test-password")
	if err := keyring.Start(); err != nil {
		t.Fatalf("keyringenv: gnome-keyring-daemon: %v", err)
	}
	t.Cleanup(func() { keyring.Process.Kill(); keyring.Wait() })
	// The daemon owns org.freedesktop.secrets once it serves.
	deadline := time.Now().Add(10 * time.Second)
	for {
		probe := exec.Command("dbus-send", "--session", "--print-reply", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus",
			"org.freedesktop.DBus.NameHasOwner", "string:org.freedesktop.secrets")
		probe.Env = append(os.Environ(), env...)
		if b, err := probe.Output(); err == nil && strings.Contains(string(b), "boolean true") {
			return env
		}
		if time.Now().After(deadline) {
			t.Fatal("keyringenv: the keyring daemon did not serve org.freedesktop.secrets in 10 s")
		}
		time.Sleep(100 * time.Millisecond)
	}
}
