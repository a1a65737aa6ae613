//go:build desktop

package main

import "checkpoint-explorer/app/window"

// openWindow is the window itself: this is the desktop build.
var openWindow = window.Run
