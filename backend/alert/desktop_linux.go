//go:build linux

package alert

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/godbus/dbus/v5"
)

// The freedesktop notification service (Desktop Notifications Specification 1.2).
const (
	notifyService = "org.freedesktop.Notifications"
	notifyPath    = dbus.ObjectPath("/org/freedesktop/Notifications")
	notifyIface   = "org.freedesktop.Notifications"
	// defaultAction is the action a click on the notification's body invokes.
	defaultAction = "default"
)

// Urgency levels of the spec's "urgency" hint: a firing alert is critical
// (daemons keep it until dismissed), a resolved one normal.
const (
	urgencyNormal   byte = 1
	urgencyCritical byte = 2
)

// Desktop notifies through the freedesktop notification service on the
// D-Bus session bus (any Linux desktop's daemon: GNOME Shell, KDE Plasma,
// dunst, mako, …). It connects on first use, and again after the bus went
// away; a click on a notification calls OnClick with its job. A resolved
// alert closes its firing notification and shows its own.
type Desktop struct {
	opts DesktopOptions

	mu     sync.Mutex
	conn   *dbus.Conn
	firing map[stateKey]uint32 // the notification of each firing alert shown
	jobs   map[uint32]JobRef   // each notification shown, by its id, until the daemon closes it
}

// NewDesktop makes the desktop notifier; it connects on the first Notify.
func NewDesktop(opts DesktopOptions) *Desktop {
	opts.DesktopEntry = cmp.Or(opts.DesktopEntry, DefaultDesktopEntry)
	return &Desktop{opts: opts, firing: map[stateKey]uint32{}, jobs: map[uint32]JobRef{}}
}

// Notify shows the alert: Notify on the service, with a default action
// (a click) that opens the job.
func (d *Desktop) Notify(ctx context.Context, a Alert) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	conn, err := d.connect()
	if err != nil {
		return err
	}
	obj := conn.Object(notifyService, notifyPath)
	urgency := urgencyCritical
	if a.State == StateResolved {
		urgency = urgencyNormal
		if id, ok := d.firing[a.key()]; ok {
			// Its firing goes away; a daemon that closed it already answers an error, which changes nothing.
			_ = obj.CallWithContext(ctx, notifyIface+".CloseNotification", 0, id).Err
		}
	}
	delete(d.firing, a.key())
	hints := map[string]dbus.Variant{"urgency": dbus.MakeVariant(urgency), "desktop-entry": dbus.MakeVariant(d.opts.DesktopEntry)}
	var id uint32
	err = obj.CallWithContext(ctx, notifyIface+".Notify", 0, AppName, uint32(0), d.opts.Icon, a.Summary, a.Body,
		[]string{defaultAction, "Open the job"}, hints, int32(-1)).Store(&id)
	if err != nil {
		return d.failed(conn, err)
	}
	d.jobs[id] = a.Job
	if a.State == StateFiring {
		d.firing[a.key()] = id
	}
	return nil
}

// connect returns the connection, connecting first when there is none (the
// caller holds mu). It never starts a bus (godbus' autolaunch would).
func (d *Desktop) connect() (*dbus.Conn, error) {
	if d.conn != nil && d.conn.Connected() {
		return d.conn, nil
	}
	addr := cmp.Or(d.opts.BusAddress, sessionBusAddress())
	if addr == "" {
		return nil, fmt.Errorf("alert: %w: DBUS_SESSION_BUS_ADDRESS is not set and $XDG_RUNTIME_DIR/bus does not exist (no desktop session?)", ErrNoSessionBus)
	}
	conn, err := dbus.Connect(addr)
	if err != nil {
		return nil, fmt.Errorf("alert: %w at %s: %v", ErrNoSessionBus, addr, err)
	}
	// ActionInvoked and NotificationClosed come to the notification's
	// sender; some daemons broadcast them instead.
	if err := conn.AddMatchSignal(dbus.WithMatchInterface(notifyIface), dbus.WithMatchObjectPath(notifyPath)); err != nil {
		conn.Close()
		return nil, fmt.Errorf("alert: listening for notification clicks on %s: %w", addr, err)
	}
	signals := make(chan *dbus.Signal, 16)
	conn.Signal(signals)
	go d.listen(signals)
	d.conn = conn
	return conn, nil
}

// sessionBusAddress is the session bus' address: $DBUS_SESSION_BUS_ADDRESS,
// else systemd's per-user bus; "" when there is neither.
func sessionBusAddress() string {
	if addr := os.Getenv("DBUS_SESSION_BUS_ADDRESS"); addr != "" && addr != "autolaunch:" {
		return addr
	}
	if dir := os.Getenv("XDG_RUNTIME_DIR"); dir != "" {
		if fi, err := os.Stat(filepath.Join(dir, "bus")); err == nil && fi.Mode()&os.ModeSocket != 0 {
			return "unix:path=" + filepath.Join(dir, "bus")
		}
	}
	return ""
}

// failed explains a failed Notify call; a connection that broke is dropped,
// so the next Notify connects again.
func (d *Desktop) failed(conn *dbus.Conn, err error) error {
	// No daemon owns the name, and the bus could not start one (Spawn.*: its service file's daemon failed).
	var derr dbus.Error
	if errors.As(err, &derr) && (derr.Name == "org.freedesktop.DBus.Error.ServiceUnknown" ||
		derr.Name == "org.freedesktop.DBus.Error.NameHasNoOwner" || strings.HasPrefix(derr.Name, "org.freedesktop.DBus.Error.Spawn.")) {
		return fmt.Errorf("alert: %w: %v", ErrNoNotificationService, err)
	}
	if !conn.Connected() {
		d.conn = nil
	}
	return fmt.Errorf("alert: notification over D-Bus: %w", err)
}

// listen follows the service's signals until the connection closes: a
// click (the default action) calls OnClick with the notification's job, a
// closed notification is forgotten.
func (d *Desktop) listen(signals <-chan *dbus.Signal) {
	for sig := range signals {
		if len(sig.Body) < 2 {
			continue
		}
		id, _ := sig.Body[0].(uint32)
		switch sig.Name {
		case notifyIface + ".ActionInvoked":
			action, _ := sig.Body[1].(string)
			d.mu.Lock()
			job, ours := d.jobs[id]
			d.mu.Unlock()
			if ours && action == defaultAction && d.opts.OnClick != nil {
				d.opts.OnClick(job)
			}
		case notifyIface + ".NotificationClosed":
			d.mu.Lock()
			delete(d.jobs, id)
			d.mu.Unlock()
		}
	}
}

// Close closes the connection; a later Notify opens another.
func (d *Desktop) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.conn == nil {
		return nil
	}
	err := d.conn.Close()
	d.conn = nil
	return err
}
