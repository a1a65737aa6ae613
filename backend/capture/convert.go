package capture

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"checkpoint-explorer/backend/model"
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
	needWriter := errors.New("capture: record before header") // cannot happen: Read delivers the header first
	v := Visitor{
		Header: func(h Header) error {
			var err error
			w, err = NewWriter(tmp, h)
			return err
		},
		Cluster: func(c model.Cluster) error {
			if w == nil {
				return needWriter
			}
			return w.Cluster(c)
		},
		Job: func(j model.Job) error {
			if w == nil {
				return needWriter
			}
			return w.Job(j)
		},
		Checkpoint: func(cp *model.Checkpoint) error {
			if w == nil {
				return needWriter
			}
			return w.Checkpoint(cp)
		},
		AckSample: func(a model.AckSample) error {
			if w == nil {
				return needWriter
			}
			return w.AckSample(a)
		},
		MetricSample: func(m model.MetricSample) error {
			if w == nil {
				return needWriter
			}
			return w.MetricSample(m)
		},
		Gap: func(g model.Gap) error {
			if w == nil {
				return needWriter
			}
			return w.Gap(g)
		},
		JobConfig: func(c model.JobConfig) error {
			if w == nil {
				return needWriter
			}
			return w.JobConfig(c)
		},
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
