package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// WindowBinary is the file name of the desktop build, the one binary that
// links the window's libraries (WebKitGTK, GTK: 169 shared libraries).
// The command line and serve run from a build without them: the dynamic
// loader took some 80 ms of every command's start binding them, and they
// were some 40 MiB of every command's memory (docs/reliability.md).
const WindowBinary = "checkpoint-explorer-window"

// windowDirs are where the desktop build is looked for, relative to the
// directory of the running binary: beside it (build/bin, a tarball's
// bin/ run in place) and in the package's private directory
// (/usr/lib/checkpoint-explorer beside /usr/bin).
var windowDirs = []string{".", filepath.Join("..", "lib", "checkpoint-explorer")}

// errNoWindow says the desktop build is not installed beside this one.
type errNoWindow struct{ looked []string }

func (e errNoWindow) Error() string {
	return "the window is not installed here (no " + strings.Join(e.looked, ", no ") + ")"
}

// findWindow returns the desktop build installed beside the binary at exe.
func findWindow(exe string) (string, error) {
	if resolved, err := filepath.EvalSymlinks(exe); err == nil {
		exe = resolved
	}
	dir := filepath.Dir(exe)
	var looked []string
	for _, d := range windowDirs {
		p := filepath.Join(dir, d, WindowBinary)
		st, err := os.Stat(p)
		if err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o111 != 0 {
			return p, nil
		}
		looked = append(looked, p)
	}
	return "", errNoWindow{looked: looked}
}

// ExecWindow is the window of a build without one: it runs the desktop
// build installed beside this binary with the same arguments, in place of
// this process where the OS allows (the same pid: whoever started the app
// still holds it). It returns only when that could not start. The program
// name stays this one's: GTK names the window's class after it
// (StartupWMClass in the desktop entry).
func ExecWindow(_ context.Context, w WindowOptions) error {
	exe, err := os.Executable()
	if err != nil {
		return errNoWindow{looked: []string{fmt.Sprintf("%s (this binary's path: %v)", WindowBinary, err)}}
	}
	path, err := findWindow(exe)
	if err != nil {
		return err
	}
	if err := replaceProcess(path, os.Args[0], w.Args); err != nil {
		return fmt.Errorf("opening the window (%s): %w", path, err)
	}
	return nil
}

// isNoWindow reports whether err says the desktop build is missing.
func isNoWindow(err error) bool {
	var e errNoWindow
	return errors.As(err, &e)
}
