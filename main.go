// Command checkpoint-explorer explains the checkpoints of Flink and SeaTunnel
// jobs. Without arguments it opens the desktop window; `serve` gives the same
// UI to a browser; the other commands work on the command line. This file only
// wires the doors (app/cli, and the window: window_desktop.go) to the built UI.
//
// It is built twice: with the desktop tag it is checkpoint-explorer-window,
// which links the window's libraries; without, it is checkpoint-explorer,
// the command line and serve, which runs the other for the window.
package main

import (
	"context"
	"embed"
	"io/fs"
	"os"

	"checkpoint-explorer/app/cli"
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
	code := cli.Main(ctx, os.Args[1:], os.Stdout, os.Stderr, cli.Options{Assets: assets(), Window: openWindow})
	stop()
	os.Exit(code)
}
