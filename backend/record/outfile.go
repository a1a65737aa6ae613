package record

import (
	"fmt"
	"os"
	"path/filepath"

	"checkpoint-explorer/backend/capture"
)

// outFile is a capture written beside the path it is for, and renamed there
// only once complete: an interrupted recording never leaves half a file
// under the name asked for.
type outFile struct {
	path string
	tmp  *os.File
	w    *capture.Writer
}

// createOut starts the capture for path with header h, recorded by this
// program on this host.
func createOut(path string, h capture.Header) (*outFile, error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".capture-*.ckpt.gz")
	if err != nil {
		return nil, fmt.Errorf("capture: %w", err)
	}
	h.RecordedBy = "checkpoint-explorer capture"
	h.Host, _ = os.Hostname()
	w, err := capture.NewWriter(tmp, h)
	if err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return nil, err
	}
	return &outFile{path: path, tmp: tmp, w: w}, nil
}

// finish completes the capture and puts it in place, unless err (what went
// wrong while writing it) says it is not whole.
func (f *outFile) finish(err error) error {
	if err == nil {
		err = f.w.Close()
	}
	if cerr := f.tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("capture: write %s: %w", f.path, err)
	}
	if err := os.Rename(f.tmp.Name(), f.path); err != nil {
		return fmt.Errorf("capture: %w", err)
	}
	return nil
}

// discard removes what finish did not put in place (deferred: after a
// rename there is nothing left to remove).
func (f *outFile) discard() {
	f.tmp.Close()
	os.Remove(f.tmp.Name())
}
