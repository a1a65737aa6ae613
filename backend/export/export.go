// Package export writes a job's cached data to a file: a capture
// (backend/capture, the default) or another tool's format (backend/interop:
// Perfetto's trace events, OTLP JSON spans, CSV), to a temporary file beside
// it renamed into place once whole.
package export

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"checkpoint-explorer/backend/capture"
	"checkpoint-explorer/backend/interop"
	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/store"
)

// The formats (docs/interop.md).
const (
	FormatCapture  = "capture"
	FormatPerfetto = "perfetto"
	FormatOTLP     = "otlp"
	FormatCSV      = "csv"
)

// ErrFormat is the error of a format none of the above.
var ErrFormat = errors.New("export format")

// Request says what to write where.
type Request struct {
	// Cluster and Job are the source and job as the cache holds them (the
	// cluster written without secrets).
	Cluster model.Cluster
	Job     model.Job
	// FromMs and ToMs bound the checkpoints' trigger times (0: unbounded);
	// only a whole export carries the job's reconciliation.
	FromMs, ToMs int64
	Path         string
	// Format is one of the formats above ("" is a capture).
	Format string
	// PerSubtask makes a csv export one row per subtask phase.
	PerSubtask bool
	// AppVersion is written in a capture's header.
	AppVersion string
	// Progress, when set, is called after each checkpoint written.
	Progress func(checkpoints int64)
}

// Result says what was written.
type Result struct {
	Path        string
	Checkpoints int64
	Records     int64
	Bytes       int64
}

// Write writes what r asks for.
func Write(ctx context.Context, st *store.Store, r Request) (Result, error) {
	if r.Format != "" && r.Format != FormatCapture {
		return writeFormat(ctx, st, r)
	}
	tmp, err := newTempFile(r.Path, ".export-*.ckpt.gz")
	if err != nil {
		return Result{}, err
	}
	defer tmp.discard()
	host, _ := os.Hostname()
	w, err := capture.NewWriter(tmp, capture.Header{
		RecordedBy: "checkpoint-explorer export", RecordedAt: time.Now().UTC(),
		AppVersion: r.AppVersion, Host: host,
	})
	if err != nil {
		tmp.Close()
		return Result{}, err
	}
	res := Result{Path: r.Path}
	q := store.Query{Cluster: r.Cluster.Name, JobID: r.Job.ID, FromMs: r.FromMs, ToMs: r.ToMs}
	err = func() error {
		if err := w.Cluster(r.Cluster.Public()); err != nil {
			return err
		}
		if err := w.Job(r.Job); err != nil {
			return err
		}
		// The job's configuration history and its notes, whole: they are
		// small and say how every part of the range ran and what happened.
		configs, err := st.JobConfigs(ctx, r.Cluster.Name, r.Job.ID)
		if err := writeEach(configs, err, w.JobConfig); err != nil {
			return err
		}
		notes, err := st.Notes(ctx, r.Cluster.Name, r.Job.ID)
		if err := writeEach(notes, err, w.JobNote); err != nil {
			return err
		}
		restores, err := st.RestoreCounts(ctx, r.Cluster.Name, r.Job.ID)
		if err := writeEach(restores, err, w.RestoreCount); err != nil {
			return err
		}
		if err := st.ScanCheckpoints(ctx, q, true, func(c *model.Checkpoint) error {
			res.Checkpoints++
			if r.Progress != nil {
				r.Progress(res.Checkpoints)
			}
			return w.Checkpoint(c)
		}); err != nil {
			return err
		}
		acks, err := st.AckSamples(ctx, q)
		if err := writeEach(acks, err, w.AckSample); err != nil {
			return err
		}
		if err := st.ScanMetricSamples(ctx, q, func(s model.MetricSample) error { return w.MetricSample(s) }); err != nil {
			return err
		}
		gaps, err := st.Gaps(ctx, store.Query{Cluster: r.Cluster.Name, JobID: r.Job.ID})
		if err := writeEach(gaps, err, w.Gap); err != nil {
			return err
		}
		// The reconciliation accounts for the whole history: only a whole export carries it.
		if r.FromMs == 0 && r.ToMs == 0 {
			rec, ok, err := st.Reconciliation(ctx, r.Cluster.Name, r.Job.ID)
			if err != nil {
				return err
			}
			if ok {
				if err := w.Reconciliation(rec); err != nil {
					return err
				}
			}
		}
		return w.Close()
	}()
	if res.Bytes, err = tmp.finish(err); err != nil {
		return Result{}, err
	}
	res.Records = w.Records()
	return res, nil
}

// writeEach writes the records a read gave (err: the read's error).
func writeEach[T any](records []T, err error, write func(T) error) error {
	for _, v := range records {
		if err != nil {
			break
		}
		err = write(v)
	}
	return err
}

// writeFormat writes a job's checkpoints in another tool's format.
func writeFormat(ctx context.Context, st *store.Store, r Request) (Result, error) {
	tmp, err := newTempFile(r.Path, ".export-*")
	if err != nil {
		return Result{}, err
	}
	defer tmp.discard()
	res := Result{Path: r.Path}
	q := store.Query{Cluster: r.Cluster.Name, JobID: r.Job.ID, FromMs: r.FromMs, ToMs: r.ToMs}
	each := func(add func(c *model.Checkpoint) error) error {
		return st.ScanCheckpoints(ctx, q, true, func(c *model.Checkpoint) error {
			res.Checkpoints++
			if r.Progress != nil {
				r.Progress(res.Checkpoints)
			}
			return add(c)
		})
	}
	err = func() error {
		switch r.Format {
		case FormatCSV:
			w := interop.NewCSVWriter(tmp, r.PerSubtask)
			if err := each(w.Add); err != nil {
				return err
			}
			return w.Close()
		case FormatOTLP:
			w := interop.NewOTLPWriter(r.Job)
			if err := each(func(c *model.Checkpoint) error { w.Add(c); return nil }); err != nil {
				return err
			}
			_, err := w.WriteTo(tmp)
			return err
		case FormatPerfetto:
			w := interop.NewPerfettoWriter(r.Job)
			if err := each(func(c *model.Checkpoint) error { w.Add(c); return nil }); err != nil {
				return err
			}
			mq := q
			if mq.ToMs > 0 {
				mq.ToMs += 10 * 60 * 1000
			}
			if err := st.ScanMetricSamples(ctx, mq, func(s model.MetricSample) error { w.AddMetric(&s); return nil }); err != nil {
				return err
			}
			_, err := w.WriteTo(tmp)
			return err
		}
		return fmt.Errorf("%w %q: choose capture, perfetto, otlp or csv", ErrFormat, r.Format)
	}()
	if res.Bytes, err = tmp.finish(err); err != nil {
		return Result{}, err
	}
	res.Records = res.Checkpoints
	return res, nil
}

// tempFile is an export being written: a temporary file beside its path, which replaces the
// path only when the export is whole.
type tempFile struct {
	*os.File
	path string
}

func newTempFile(path, pattern string) (*tempFile, error) {
	f, err := os.CreateTemp(filepath.Dir(path), pattern)
	if err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	return &tempFile{File: f, path: path}, nil
}

// discard removes the temporary file (nothing once finish moved it).
func (t *tempFile) discard() { os.Remove(t.Name()) }

// finish closes the file and, when writing it went well (err is nil), moves it to its path; it
// returns the size of the export.
func (t *tempFile) finish(err error) (int64, error) {
	if cerr := t.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, fmt.Errorf("export %s: %w", t.path, err)
	}
	if err := os.Rename(t.Name(), t.path); err != nil {
		return 0, fmt.Errorf("export: %w", err)
	}
	var size int64
	if fi, err := os.Stat(t.path); err == nil {
		size = fi.Size()
	}
	return size, nil
}

// Ext is the file name ending a format's export gets by default.
func Ext(format string) string {
	switch format {
	case FormatPerfetto:
		return ".perfetto.json"
	case FormatOTLP:
		return ".otlp.json"
	case FormatCSV:
		return ".csv"
	}
	return ".ckpt.gz"
}
