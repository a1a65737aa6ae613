//go:build !unix

package cli

import (
	"errors"
	"os"
	"os/exec"
)

// replaceProcess runs path with args and exits with its status: where a
// process cannot be replaced, it waits for the window instead.
func replaceProcess(path, argv0 string, args []string) error {
	cmd := exec.Command(path, args...)
	cmd.Args[0] = argv0
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		os.Exit(exit.ExitCode())
	}
	if err != nil {
		return err
	}
	os.Exit(0)
	return nil
}
