// Command checkpoint-explorer explains the checkpoints of Flink and SeaTunnel
// jobs. Without arguments it opens the desktop window; `serve` gives the same
// UI to a browser; the other commands work on the command line. This file only
// wires the doors (app/cli, app/window) to the built UI.
package main

import (
	"context"
	"embed"
	"io/fs"
	"os"

	"checkpoint-explorer/app/cli"
	"checkpoint-explorer/app/window"
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

func main() {
	ctx, stop := cli.NotifyContext(context.Background())
	code := cli.Main(ctx, os.Args[1:], os.Stdout, os.Stderr, cli.Options{Assets: assets(), Window: window.Run})
	stop()
	os.Exit(code)
}
