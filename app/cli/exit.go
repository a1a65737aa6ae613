package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"checkpoint-explorer/app"
)

// The exit statuses (docs/user-guide.md, "Exit status").
const (
	ExitOK      = 0
	ExitFailure = 1 // the command could not do its work
	ExitUsage   = 2 // the command line is wrong: an unknown command or flag, a bad value, a missing argument
	// ExitAttention: `status` found jobs that need attention (failing, slow
	// or slower than usual); the table it printed says which.
	ExitAttention = 3
	// A command stopped by a signal exits 128 + the signal's number: 130
	// for Ctrl-C (SIGINT), 143 for SIGTERM.
	exitSignalBase = 128
)

// UsageError is a command line the CLI cannot run; it says what is wrong and
// where the help is.
type UsageError struct {
	Command string // "checkpoint-explorer import"
	Err     error
}

func (e *UsageError) Error() string {
	return fmt.Sprintf("%v (see '%s --help')", e.Err, e.Command)
}

func (e *UsageError) Unwrap() error { return e.Err }

func usageErrorf(cmd *cobra.Command, format string, args ...any) error {
	return &UsageError{Command: cmd.CommandPath(), Err: fmt.Errorf(format, args...)}
}

// groupRunE is the RunE of a command that only groups subcommands (clusters, keychain): run
// without one, or with one it does not know, it is a usage error naming them.
func groupRunE(subs ...string) func(*cobra.Command, []string) error {
	list := strings.Join(subs, ", ")
	return func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			return usageErrorf(cmd, "%s: give a subcommand (%s)", cmd.Name(), list)
		}
		return usageErrorf(cmd, "%s: unknown subcommand %q (%s)", cmd.Name(), args[0], list)
	}
}

// attentionError is `status`'s answer that jobs need attention: exit status
// ExitAttention and no error line, the table on stdout having said which.
type attentionError struct{ jobs int }

func (e attentionError) Error() string { return fmt.Sprintf("%d job(s) need attention", e.jobs) }

// signalError is the cause of the root context's end when a signal arrived.
type signalError struct{ sig os.Signal }

func (e signalError) Error() string { return "interrupted by " + signalName(e.sig) }

func signalName(s os.Signal) string {
	switch s {
	case os.Interrupt:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return s.String()
}

// stoppedError is a command's account of what an interruption left: printed
// after "interrupted" instead of the error the cancellation caused.
type stoppedError struct{ msg string }

func (e stoppedError) Error() string { return e.msg }

// NotifyContext is the root context of a run: the first SIGINT or SIGTERM
// ends it (its cause names the signal), after which the signals' default
// comes back, so a second Ctrl-C ends the process at once.
func NotifyContext(parent context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(parent)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-ch:
			signal.Stop(ch)
			cancel(signalError{s})
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(ch)
		close(done)
		cancel(context.Canceled)
	}
}

// Main runs the command line under ctx (NotifyContext's), writes the one
// line an error gets on stderr, and returns the exit status.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer, opts Options) int {
	err := Run(ctx, args, stdout, stderr, opts)
	return exitWith(ctx, err, stderr)
}

// exitWith tells err on stderr, once, and picks the status: 0 done (also a
// serve or capture that Ctrl-C ended as it should), 1 failed, 2 a usage
// error, 3 jobs needing attention (no line: the table said which), 128+N
// stopped by signal N before the work was done.
func exitWith(ctx context.Context, err error, stderr io.Writer) int {
	if err == nil {
		return ExitOK
	}
	var sig signalError
	if errors.As(context.Cause(ctx), &sig) {
		line := "checkpoint-explorer: " + sig.Error()
		var stopped stoppedError
		if errors.As(err, &stopped) {
			line += ": " + stopped.msg
		}
		fmt.Fprintln(stderr, line)
		if n, ok := sig.sig.(syscall.Signal); ok {
			return exitSignalBase + int(n)
		}
		return exitSignalBase + int(syscall.SIGINT)
	}
	if errors.As(err, new(attentionError)) {
		return ExitAttention
	}
	fmt.Fprintln(stderr, "checkpoint-explorer:", errorText(err))
	return ExitCode(err)
}

// errorText is err's text for a person: without the "bad request: " the
// HTTP door needs.
func errorText(err error) string {
	if app.IsBadRequest(err) {
		return strings.Replace(err.Error(), "bad request: ", "", 1)
	}
	return err.Error()
}

// ExitCode is the status err exits with (without a signal): 2 for a usage
// error, 3 for jobs needing attention, 1 for any other, 0 for none.
func ExitCode(err error) int {
	switch {
	case err == nil:
		return ExitOK
	case errorsAsUsage(err):
		return ExitUsage
	case errors.As(err, new(attentionError)):
		return ExitAttention
	}
	return ExitFailure
}
