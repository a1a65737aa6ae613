package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"runtime"

	"checkpoint-explorer/app"
)

// Options are what the binary gives the CLI: the built UI, and the window
// (the desktop build's; nil where there is none).
type Options struct {
	Assets fs.FS
	Window func(ctx context.Context, w WindowOptions) error
}

// WindowOptions are what the window needs from the command line.
type WindowOptions struct {
	DataDir string
	Logger  *slog.Logger
	Assets  fs.FS
}

// command is one subcommand of the CLI.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, g *globals, args []string) error
}

// globals are flags every command takes.
type globals struct {
	dataDir string
	verbose bool
	// quiet keeps one-shot commands' output to their result and warnings.
	quiet  bool
	stdout io.Writer
	stderr io.Writer
	opts   Options
}

func (g *globals) register(fs *flag.FlagSet) {
	fs.StringVar(&g.dataDir, "data-dir", g.dataDir, "where the config and the cache live (default: the OS's user config and cache dirs)")
	fs.BoolVar(&g.verbose, "v", g.verbose, "log debug detail")
}

func (g *globals) logger() *slog.Logger {
	lvl := slog.LevelInfo
	if g.quiet {
		lvl = slog.LevelWarn
	}
	if g.verbose {
		lvl = slog.LevelDebug
	}
	return slog.New(slog.NewTextHandler(g.stderr, &slog.HandlerOptions{Level: lvl}))
}

func commands() []command {
	return []command{
		{"serve", "serve the UI and the local JSON API to a browser on loopback", runServe},
		{"import", "open capture files into the cache as read-only sources", runImport},
		{"export", "write a job's cached checkpoints to a capture file", runExport},
		{"clusters", "list, add or remove clusters; show or set retention", runClusters},
		{"report", "print what is slow, where and why for a job or a capture", runReport},
		{"capture", "record a live job into a capture file, without the cache", runCapture},
		{"version", "print the version", runVersion},
	}
}

func usage(w io.Writer) {
	fmt.Fprintf(w, `Checkpoint Explorer explains the checkpoints of Flink and SeaTunnel jobs.

Usage:
  checkpoint-explorer [--data-dir DIR]            open the desktop window
  checkpoint-explorer COMMAND [flags] [args]

Commands:
`)
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-9s %s\n", c.name, c.summary)
	}
	fmt.Fprintf(w, "\nRun 'checkpoint-explorer COMMAND --help' for a command's flags.\n")
}

// Run runs the command line args (without the program name). Without a
// command it opens the window, or without a display serves the UI.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer, opts Options) error {
	g := &globals{stdout: stdout, stderr: stderr, opts: opts}
	root := flag.NewFlagSet("checkpoint-explorer", flag.ContinueOnError)
	root.SetOutput(stderr)
	g.register(root)
	root.Usage = func() { usage(stderr) }
	if err := root.Parse(args); err != nil {
		return err
	}
	rest := root.Args()
	if len(rest) == 0 {
		return runWindow(ctx, g)
	}
	if rest[0] == "help" {
		usage(stdout)
		return nil
	}
	for _, c := range commands() {
		if c.name == rest[0] {
			g.quiet = c.name != "serve"
			return c.run(ctx, g, rest[1:])
		}
	}
	usage(stderr)
	return fmt.Errorf("unknown command %q", rest[0])
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

// runWindow opens the window; without a display, or in a build without one,
// it serves the browser UI instead.
func runWindow(ctx context.Context, g *globals) error {
	if !hasDisplay() || g.opts.Window == nil {
		fmt.Fprintln(g.stderr, "No display found: serving the UI for a browser instead (see `checkpoint-explorer serve --help`).")
		return runServe(ctx, g, nil)
	}
	return g.opts.Window(ctx, WindowOptions{DataDir: g.dataDir, Logger: g.logger(), Assets: g.opts.Assets})
}
