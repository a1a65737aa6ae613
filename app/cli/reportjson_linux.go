package cli

import (
	"fmt"
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// reopenForUpdate opens the regular file dst writes to for reading and
// writing at offsets, and tells where dst's next write would go: a report
// can then write its lines straight into it (jsonReportWriter). It says no
// for anything else: not a file, not a regular one, opened to append (the
// kernel would put every write at the end), or one this process may not
// read (a shell's `>` opens it write-only; /proc reopens it by its name).
func reopenForUpdate(dst io.Writer) (*os.File, int64, bool) {
	f, ok := dst.(*os.File)
	if !ok {
		return nil, 0, false
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return nil, 0, false
	}
	flags, err := unix.FcntlInt(f.Fd(), unix.F_GETFL, 0)
	if err != nil || flags&unix.O_APPEND != 0 {
		return nil, 0, false
	}
	base, err := f.Seek(0, io.SeekCurrent)
	if err != nil {
		return nil, 0, false
	}
	rw, err := os.OpenFile(fmt.Sprintf("/proc/self/fd/%d", f.Fd()), os.O_RDWR, 0)
	if err != nil {
		return nil, 0, false
	}
	if rfi, err := rw.Stat(); err != nil || !os.SameFile(fi, rfi) {
		rw.Close()
		return nil, 0, false
	}
	return rw, base, true
}
