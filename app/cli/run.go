package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"runtime"
	"strings"

	"github.com/spf13/cobra"

	"checkpoint-explorer/app"
)

// Options are what the binary gives the CLI: the built UI, and the window
// (window.Run in the desktop build, ExecWindow in the others; nil: none).
type Options struct {
	Assets fs.FS
	Window func(ctx context.Context, w WindowOptions) error
}

// WindowOptions are what the window needs from the command line.
type WindowOptions struct {
	DataDir string
	Logger  *slog.Logger
	Assets  fs.FS
	// Args are the command line's arguments, for a window in another binary.
	Args []string
}

// globals are flags every command takes, and where the commands write.
type globals struct {
	dataDir string
	verbose bool
	// quiet (--quiet) turns off the progress lines and logs only warnings.
	quiet bool
	// quietLog keeps one-shot commands' log to warnings (every command but
	// serve and the window).
	quietLog bool
	stdout   io.Writer
	stderr   io.Writer
	opts     Options
	args     []string // as Run was given them
}

func (g *globals) logger() *slog.Logger {
	lvl := slog.LevelInfo
	if g.quiet || g.quietLog {
		lvl = slog.LevelWarn
	}
	if g.verbose {
		lvl = slog.LevelDebug
	}
	return slog.New(slog.NewTextHandler(g.stderr, &slog.HandlerOptions{Level: lvl}))
}

// The groups of commands in the top-level help.
const (
	groupLook  = "look"
	groupMove  = "move"
	groupSetup = "setup"
)

// addGroup adds cmds to root under a group of the help titled title.
func addGroup(root *cobra.Command, id, title string, cmds ...*cobra.Command) {
	root.AddGroup(&cobra.Group{ID: id, Title: title})
	for _, c := range cmds {
		c.GroupID = id
	}
	root.AddCommand(cmds...)
}

// newRoot is the whole command line: the window without a command, and the
// commands, each in its own file.
func newRoot(g *globals) *cobra.Command {
	cobra.EnableCommandSorting = false // the order below is the help's
	// Windows: the desktop app is started from Explorer without arguments;
	// cobra would refuse that ("This is a command line tool").
	cobra.MousetrapHelpText = ""
	root := &cobra.Command{
		Use:   "checkpoint-explorer",
		Short: "Checkpoint Explorer explains the checkpoints of Flink and SeaTunnel jobs.",
		Long: "Checkpoint Explorer explains the checkpoints of Flink and SeaTunnel jobs: what is slow or failing,\n" +
			"where, and since when. Without a command it opens the desktop window (without a display it\n" +
			"serves the same UI to a browser, as `serve` does).",
		Example: `  checkpoint-explorer                                   open the desktop window
  checkpoint-explorer clusters add --name prod --url http://jobmanager:8081
  checkpoint-explorer report --cluster prod --job 3f1c… --from 2h
  checkpoint-explorer import recording.ckpt.gz
  checkpoint-explorer completion bash > /etc/bash_completion.d/checkpoint-explorer`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				msg := fmt.Sprintf("unknown command %q", args[0])
				if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
					msg += fmt.Sprintf(" (did you mean %s?)", strings.Join(s, " or "))
				}
				return usageErrorf(cmd, "%s", msg)
			}
			return runWindow(cmd.Context(), g)
		},
		PersistentPreRun: func(cmd *cobra.Command, _ []string) {
			g.quietLog = cmd.HasParent() && cmd.Name() != "serve"
		},
		SilenceErrors:     true,
		SilenceUsage:      true,
		CompletionOptions: cobra.CompletionOptions{HiddenDefaultCmd: false},
	}
	root.SetOut(g.stdout)
	root.SetErr(g.stderr)
	root.Flags().SortFlags = false
	pf := root.PersistentFlags()
	pf.SortFlags = false
	pf.StringVar(&g.dataDir, "data-dir", "", "one directory for the config, the cache and the log (default: the OS's config, data and state dirs)")
	pf.BoolVarP(&g.verbose, "verbose", "v", false, "log debug detail")
	pf.BoolVarP(&g.quiet, "quiet", "q", false, "no progress lines on stderr; log only warnings")
	pf.BoolVar(&g.verbose, "v", false, "the same as --verbose (the name of earlier versions)")
	pf.Lookup("v").Hidden = true
	// The top-level help lists the commands by group, in this order.
	addGroup(root, groupLook, "Look at checkpoints:", serveCmd(g), reportCmd(g), statusCmd(g), jobsCmd(g))
	addGroup(root, groupMove, "Move checkpoints in and out:", importCmd(g), exportCmd(g), captureCmd(g), collectCmd(g))
	addGroup(root, groupSetup, "Set up:", clustersCmd(g), keychainCmd(g), versionCmd(g))
	root.SetHelpCommandGroupID(groupSetup)
	root.SetCompletionCommandGroupID(groupSetup)
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		switch c.Name() {
		case "help":
			c.Short = "show the help of a command"
		case "completion":
			c.Short = "write the shell completion script for bash, zsh, fish or powershell"
			c.Example = `  source <(checkpoint-explorer completion bash)                          # this shell
  checkpoint-explorer completion bash > /etc/bash_completion.d/checkpoint-explorer
  checkpoint-explorer completion zsh > "${fpath[1]}/_checkpoint-explorer"
  checkpoint-explorer completion fish > ~/.config/fish/completions/checkpoint-explorer.fish`
		}
	}
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		if cmd.HasParent() {
			return usageErrorf(cmd, "%s: %v", strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name()+" "), err)
		}
		return usageErrorf(cmd, "%v", err)
	})
	root.SetHelpFunc(func(cmd *cobra.Command, _ []string) { writeHelp(cmd.OutOrStdout(), cmd) })
	root.SetUsageFunc(func(cmd *cobra.Command) error { writeHelp(cmd.OutOrStderr(), cmd); return nil })
	for _, c := range root.Commands() {
		c.Flags().SortFlags = false
	}
	return root
}

// Run runs the command line args (without the program name). Without a
// command it opens the window, or without a display serves the UI. A usage
// error is a *UsageError (ExitCode tells the status).
func Run(ctx context.Context, args []string, stdout, stderr io.Writer, opts Options) error {
	g := &globals{stdout: stdout, stderr: stderr, opts: opts, args: args}
	root := newRoot(g)
	root.SetArgs(dashDashLongFlags(root, args))
	return root.ExecuteContext(ctx)
}

// hasDisplay reports whether a desktop window can open here.
func hasDisplay() bool {
	if runtime.GOOS != "linux" {
		return true
	}
	return os.Getenv("DISPLAY") != "" || os.Getenv("WAYLAND_DISPLAY") != ""
}

// openApp opens and starts the app for a command; the caller closes it.
func openApp(ctx context.Context, g *globals, opts app.Options) (*app.Service, error) {
	opts.DataDir = g.dataDir
	opts.Logger = g.logger()
	svc, err := app.NewService(ctx, opts)
	if err != nil {
		return nil, err
	}
	if err := svc.Start(ctx); err != nil {
		svc.Close()
		return nil, err
	}
	return svc, nil
}

// withCache runs f on the app opened on the cache alone (no sample, no
// polling), as the one-shot commands need it, and closes it after.
func withCache(ctx context.Context, g *globals, f func(svc *app.Service) error) error {
	svc, err := openApp(ctx, g, app.Options{NoSample: true, NoCollect: true})
	if err != nil {
		return err
	}
	defer svc.Close()
	return f(svc)
}

// runWindow opens the window; without a display, or where the window is
// not installed, it serves the browser UI instead.
func runWindow(ctx context.Context, g *globals) error {
	serve := func(why string) error {
		fmt.Fprintf(g.stderr, "%s: serving the UI for a browser instead (see `checkpoint-explorer serve --help`).\n", why)
		return runServe(ctx, g, serveFlags{addr: "127.0.0.1:0"})
	}
	switch {
	case !hasDisplay():
		return serve("No display found")
	case g.opts.Window == nil:
		return serve("This build has no window")
	}
	err := g.opts.Window(ctx, WindowOptions{DataDir: g.dataDir, Logger: g.logger(), Assets: g.opts.Assets, Args: g.args})
	if isNoWindow(err) {
		msg := err.Error()
		return serve(strings.ToUpper(msg[:1]) + msg[1:])
	}
	return err
}

// checkReadable says plainly when a file given to read is not there, before
// the app's longer account of a failed import.
func checkReadable(path string) error {
	f, err := os.Open(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return fmt.Errorf("%s: %w", path, pe.Err)
		}
		return err
	}
	return f.Close()
}

// errorsAsUsage reports whether err is a usage error.
func errorsAsUsage(err error) bool {
	var u *UsageError
	return errors.As(err, &u)
}
