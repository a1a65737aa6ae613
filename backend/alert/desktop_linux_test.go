package alert

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"checkpoint-explorer/testenv/notifyenv"
)

// Without a session bus the notifier says so, and the Engine keeps
// announcing: its log lines are written, the failure said once.
func TestDesktopWithoutSessionBus(t *testing.T) {
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	err := NewDesktop(DesktopOptions{}).Notify(context.Background(), Alert{})
	if !errors.Is(err, ErrNoSessionBus) || !strings.Contains(err.Error(), "DBUS_SESSION_BUS_ADDRESS is not set") {
		t.Errorf("no bus in the environment: %v", err)
	}
	addr := "unix:path=" + filepath.Join(t.TempDir(), "bus")
	err = NewDesktop(DesktopOptions{BusAddress: addr}).Notify(context.Background(), Alert{})
	if !errors.Is(err, ErrNoSessionBus) || !strings.Contains(err.Error(), addr) {
		t.Errorf("a bus that is not there: %v", err)
	}

	var logs bytes.Buffer
	e, err := New(Options{Rules: []Rule{{Kind: KindCheckpointFailed, Cluster: "prod"}}, Notifier: NewDesktop(DesktopOptions{BusAddress: addr}),
		Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"a", "b"} {
		e.Evaluate(context.Background(), []Job{history(id, 0, 10*sec, always)})
	}
	if out := logs.String(); strings.Count(out, "alert firing") != 2 || strings.Count(out, "alert notification failed") != 1 {
		t.Errorf("log:\n%s", out)
	}
}

// On a real notification daemon (dunst on a private session bus, under
// Xvfb): a burst of failures of one job gives one notification, its
// recovery one more, a healthy job none, as the daemon's own history
// records them; a click on the notification gives the callback its job.
func TestRealDesktopNotifications(t *testing.T) {
	env := notifyenv.Start(t)
	clicks := make(chan JobRef, 4)
	desktop := NewDesktop(DesktopOptions{BusAddress: env.BusAddress, OnClick: func(j JobRef) { clicks <- j }})
	clk := &clock{ms: time.Now().UnixMilli()}
	start := clk.ms
	e, err := New(Options{Rules: []Rule{{Kind: KindCheckpointFailed, Cluster: "prod"}}, Notifier: desktop, Now: clk.now,
		MinInterval: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	evaluate := func(from, to int64, failing func(int64) bool) {
		for clk.ms = start + from; clk.ms <= start+to; clk.ms += sec {
			failed := history("a", clk.ms-start, sec, failing)
			failed.LatestFailure = "Checkpoint expired before completing."
			e.Evaluate(context.Background(), []Job{failed, history("b", clk.ms-start, sec, never)})
		}
	}
	// A failure every second for 30 s.
	evaluate(0, 30*sec, always)
	if displayed, history := env.Count(t); displayed != 1 || history != 0 {
		t.Fatalf("after the burst the daemon holds %d on screen and %d in its history, want 1 and 0", displayed, history)
	}
	env.Click(t, 0)
	select {
	case j := <-clicks:
		if j != (JobRef{Cluster: "prod", JobID: "a"}) {
			t.Errorf("the click opened %+v, want prod's a", j)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no ActionInvoked reached the callback in 10 s")
	}
	// Completes from 31 s on; the resolved comes a minute after the firing.
	evaluate(31*sec, 120*sec, func(t int64) bool { return t <= 30*sec })
	// The resolved closed the firing one, which the daemon keeps in its history.
	if displayed, history := env.Count(t); displayed != 1 || history != 1 {
		t.Errorf("after the recovery the daemon holds %d on screen and %d in its history, want 1 and 1", displayed, history)
	}
	got := env.History(t)
	want := []struct{ summary, body string }{
		{"Checkpoint failed: job a on prod", "The newest checkpoint failed: Checkpoint expired before completing."},
		{"Resolved: job a on prod", "A checkpoint completed in 100 ms. It lasted 1 min."},
	}
	if len(got) != len(want) {
		t.Fatalf("the daemon recorded %d notifications, want %d: %v", len(got), len(want), got)
	}
	for i, w := range want {
		n := got[i]
		if n.AppName != AppName || n.Summary != w.summary || !strings.HasPrefix(n.Body, w.body) || n.DefaultAction != defaultAction {
			t.Errorf("notification %d: %v; want %q, %q…, app %q, default action", i, n, w.summary, w.body, AppName)
		}
	}
}

// A session bus without a notification daemon is told apart from no bus.
func TestRealNoNotificationService(t *testing.T) {
	addr := notifyenv.Bus(t)
	d := NewDesktop(DesktopOptions{BusAddress: addr})
	defer d.Close()
	err := d.Notify(context.Background(), Alert{Summary: "x"})
	if !errors.Is(err, ErrNoNotificationService) {
		t.Errorf("a bus with no daemon: %v", err)
	}
}
