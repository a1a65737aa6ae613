package capture

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// ConvertFile reads any file ReadFile understands and writes it to out as a
// capture in this package's format (gzip JSON Lines, current version). The
// output appears only when complete: it is written to a temporary file beside
// out and renamed. The result is deterministic: the same input gives the same
// bytes.
func ConvertFile(ctx context.Context, in, out string) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(out), "."+filepath.Base(out)+".*.tmp")
	if err != nil {
		return fmt.Errorf("capture: convert %s: %w", in, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()

	var w *Writer
	v := Visitor{
		Header: func(h Header) error {
			var err error
			w, err = NewWriter(tmp, h)
			return err
		},
		Cluster:        toWriter(&w, (*Writer).Cluster),
		Job:            toWriter(&w, (*Writer).Job),
		Checkpoint:     toWriter(&w, (*Writer).Checkpoint),
		AckSample:      toWriter(&w, (*Writer).AckSample),
		MetricSample:   toWriter(&w, (*Writer).MetricSample),
		Gap:            toWriter(&w, (*Writer).Gap),
		Reconciliation: toWriter(&w, (*Writer).Reconciliation),
		JobConfig:      toWriter(&w, (*Writer).JobConfig),
		JobNote:        toWriter(&w, (*Writer).JobNote),
		RestoreCount:   toWriter(&w, (*Writer).RestoreCount),
	}
	if _, err := ReadFile(ctx, in, Limits{}, v); err != nil {
		return fmt.Errorf("capture: convert %s: %w", in, err)
	}
	if w == nil {
		return fmt.Errorf("capture: convert %s: no header was read", in)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("capture: convert %s: %w", in, err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("capture: convert %s: sync %s: %w", in, tmp.Name(), err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("capture: convert %s: close %s: %w", in, tmp.Name(), err)
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return fmt.Errorf("capture: convert %s: %w", in, err)
	}
	if err := os.Rename(tmp.Name(), out); err != nil {
		return fmt.Errorf("capture: convert %s: %w", in, err)
	}
	return nil
}

// toWriter hands each record to *w with write, once the header has made *w.
func toWriter[T any](w **Writer, write func(*Writer, T) error) func(T) error {
	return func(v T) error {
		if *w == nil {
			return errors.New("capture: record before header") // cannot happen: Read delivers the header first
		}
		return write(*w, v)
	}
}
