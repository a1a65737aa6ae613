package alert

import (
	"context"
	"errors"

	"checkpoint-explorer/backend/model"
)

// State is an alert's state: what a notification announces.
type State string

const (
	StateFiring   State = "firing"
	StateResolved State = "resolved"
)

// JobRef names a job: what a click on its notification opens.
type JobRef struct {
	Cluster string `json:"cluster"`
	JobID   string `json:"job_id"`
}

// Alert is one change of a rule's state for a job, as announced.
type Alert struct {
	Rule  string `json:"rule"`
	Kind  Kind   `json:"kind"`
	State State  `json:"state"`
	Job   JobRef `json:"job"`
	// JobName and Engine are the job's, as Evaluate was given them.
	JobName string       `json:"job_name"`
	Engine  model.Engine `json:"engine"`
	// AtMs is when it was announced; SinceMs when the trouble began (for a
	// resolved alert, its firing's).
	AtMs    int64 `json:"at_ms"`
	SinceMs int64 `json:"since_ms"`
	// Summary and Body are the notification's text.
	Summary string `json:"summary"`
	Body    string `json:"body"`
}

// key identifies the rule's alerts for the job: a resolved alert has its
// firing's key.
func (a Alert) key() stateKey {
	return stateKey{rule: a.Rule, cluster: a.Job.Cluster, job: a.Job.JobID}
}

// Notifier shows alerts to the user. Notify is called once per alert, one
// call at a time, with a context that bounds it (Options.NotifyTimeout).
type Notifier interface {
	Notify(ctx context.Context, a Alert) error
}

// NotifierFunc makes a function a Notifier.
type NotifierFunc func(ctx context.Context, a Alert) error

func (f NotifierFunc) Notify(ctx context.Context, a Alert) error { return f(ctx, a) }

// Errors a Notifier returns (wrapped, with what was tried).
var (
	// ErrNotSupported: this platform has no desktop notifier here (only
	// the freedesktop one, on Linux, is built).
	ErrNotSupported = errors.New("desktop notifications are not supported on this platform")
	// ErrNoSessionBus: there is no D-Bus session bus to reach the
	// notification service on (no desktop session: a server, ssh, a container).
	ErrNoSessionBus = errors.New("no D-Bus session bus")
	// ErrNoNotificationService: the session bus has no notification
	// service (org.freedesktop.Notifications): no notification daemon runs.
	ErrNoNotificationService = errors.New("no notification service (org.freedesktop.Notifications) on the D-Bus session bus")
)

// AppName is the application name notifications carry.
const AppName = "Checkpoint Explorer"

// DesktopOptions configure the desktop notifier (NewDesktop).
type DesktopOptions struct {
	// BusAddress is the D-Bus session bus; "" is $DBUS_SESSION_BUS_ADDRESS,
	// else $XDG_RUNTIME_DIR/bus. No bus is ever started.
	BusAddress string
	// OnClick is called, on a goroutine of the notifier, with the job of
	// a notification the user clicked (its default action); nil: none.
	OnClick func(JobRef)
	// Icon is the notification's icon (a name of the icon theme or a
	// file://); "" none. DesktopEntry is the application's desktop file
	// name without .desktop, the hint daemons use to find its icon and
	// settings; "" is DefaultDesktopEntry.
	Icon         string
	DesktopEntry string
}

// DefaultDesktopEntry is the desktop file the package installs (packaging/build.sh's APP_ID).
const DefaultDesktopEntry = "io.github.checkpoint_explorer.CheckpointExplorer"
