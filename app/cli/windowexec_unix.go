//go:build unix

package cli

import (
	"os"
	"syscall"
)

// replaceProcess runs path, named argv0, with args in place of this process.
func replaceProcess(path, argv0 string, args []string) error {
	return syscall.Exec(path, append([]string{argv0}, args...), os.Environ())
}
