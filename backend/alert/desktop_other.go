//go:build !linux

package alert

import (
	"context"
	"fmt"
	"runtime"
)

// Desktop stands for the platform's notifier where none is built (only
// the freedesktop one, on Linux, is): Notify says so, and alerts are still
// logged and counted.
type Desktop struct{}

// NewDesktop makes the notifier that says notifications are not supported here.
func NewDesktop(DesktopOptions) *Desktop { return &Desktop{} }

func (*Desktop) Notify(context.Context, Alert) error {
	return fmt.Errorf("alert: %w (%s)", ErrNotSupported, runtime.GOOS)
}

func (*Desktop) Close() error { return nil }
