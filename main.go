// Command checkpoint-explorer explains the checkpoints of Flink and SeaTunnel
// jobs. Without arguments it opens the desktop window; `serve` gives the same
// UI to a browser; the other commands work on the command line.
package main

import (
	"context"
	"embed"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/signal"
	"runtime"
	"syscall"

	"checkpoint-explorer/app"
)

//go:embed all:frontend/dist
var frontendDist embed.FS

func assets() fs.FS {
	sub, err := fs.Sub(frontendDist, "frontend/dist")
	if err != nil {
		panic(err) // the embed pattern guarantees the directory
	}
	return sub
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

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if errors.Is(err, flag.ErrHelp) {
		os.Exit(0)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "checkpoint-explorer:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	g := &globals{stdout: stdout, stderr: stderr}
	root := flag.NewFlagSet("checkpoint-explorer", flag.ContinueOnError)
	root.SetOutput(stderr)
	g.register(root)
	root.Usage = func() { usage(stderr) }
	if err := root.Parse(args); err != nil {
		return err
	}
	rest := root.Args()
	if len(rest) == 0 {
		return runDesktop(ctx, g)
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

func openApp(ctx context.Context, g *globals, opts app.Options) (*app.App, error) {
	opts.DataDir = g.dataDir
	opts.Logger = g.logger()
	a, err := app.New(ctx, opts)
	if err != nil {
		return nil, err
	}
	if err := app.Start(ctx, a); err != nil {
		app.Close(a)
		return nil, err
	}
	return a, nil
}
