//go:build !desktop

package main

import "checkpoint-explorer/app/cli"

// openWindow runs the desktop build installed beside this one.
var openWindow = cli.ExecWindow
