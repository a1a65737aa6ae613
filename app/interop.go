package app

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"checkpoint-explorer/backend/interop"
	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/store"
)

// Export formats besides the capture (docs/interop.md).
const (
	FormatCapture  = "capture"
	FormatPerfetto = "perfetto"
	FormatOTLP     = "otlp"
	FormatCSV      = "csv"
)

// maxOTLPBytes bounds an OTLP file read whole: spans of a day at 1 s with
// per-subtask children are a few hundred MB.
const maxOTLPBytes = 1 << 30

// exportFormat writes a job's checkpoints in another tool's format, to a
// temporary file renamed into place once whole.
func (a *App) exportFormat(ctx context.Context, req ExportRequest, job model.Job) (ExportResult, error) {
	dir := filepath.Dir(req.Path)
	tmp, err := os.CreateTemp(dir, ".export-*")
	if err != nil {
		return ExportResult{}, fmt.Errorf("export: %w", err)
	}
	defer os.Remove(tmp.Name())
	res := ExportResult{Path: req.Path}
	q := store.Query{Cluster: req.Cluster, JobID: req.Job, FromMs: req.FromMs, ToMs: req.ToMs}
	lastProgress := time.Now()
	each := func(add func(c *model.Checkpoint) error) error {
		return a.store.ScanCheckpoints(ctx, q, true, func(c *model.Checkpoint) error {
			res.Checkpoints++
			if time.Since(lastProgress) >= progressEvery {
				lastProgress = time.Now()
				a.emit(ExportProgressEvent{File: filepath.Base(req.Path), Checkpoints: res.Checkpoints})
			}
			return add(c)
		})
	}
	err = func() error {
		switch req.Format {
		case FormatCSV:
			w := interop.NewCSVWriter(tmp, req.PerSubtask)
			if err := each(w.Add); err != nil {
				return err
			}
			return w.Close()
		case FormatOTLP:
			w := interop.NewOTLPWriter(job)
			if err := each(func(c *model.Checkpoint) error { w.Add(c); return nil }); err != nil {
				return err
			}
			_, err := w.WriteTo(tmp)
			return err
		case FormatPerfetto:
			w := interop.NewPerfettoWriter(job)
			if err := each(func(c *model.Checkpoint) error { w.Add(c); return nil }); err != nil {
				return err
			}
			mq := q
			if mq.ToMs > 0 {
				mq.ToMs += 10 * 60 * 1000
			}
			if err := a.store.ScanMetricSamples(ctx, mq, func(s model.MetricSample) error { w.AddMetric(&s); return nil }); err != nil {
				return err
			}
			_, err := w.WriteTo(tmp)
			return err
		}
		return badRequest("export format %q: choose capture, perfetto, otlp or csv", req.Format)
	}()
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return ExportResult{}, fmt.Errorf("export %s: %w", req.Path, err)
	}
	if err := os.Rename(tmp.Name(), req.Path); err != nil {
		return ExportResult{}, fmt.Errorf("export: %w", err)
	}
	res.Records = res.Checkpoints
	if fi, err := os.Stat(req.Path); err == nil {
		res.Bytes = fi.Size()
	}
	return res, nil
}

// exportExt is the file name ending a format's export gets by default.
func exportExt(format string) string {
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

// isOTLP tells an OTLP JSON file from a capture by its first bytes: a
// capture is gzip or starts with its header record.
func isOTLP(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 4096)
	n, _ := io.ReadFull(f, head)
	head = bytes.TrimLeft(head[:n], " \t\r\n")
	return len(head) > 0 && head[0] == '{' && bytes.Contains(head, []byte(`"resourceSpans"`))
}

// importOTLP opens a file of Flink checkpoint spans like a capture: a
// read-only source named after the file, in one transaction.
func (a *App) importOTLP(ctx context.Context, path string, sourceName func(string) string) (ImportResult, error) {
	fail := func(err error) (ImportResult, error) {
		return ImportResult{}, badRequest("open %s: %v (nothing was imported)", filepath.Base(path), err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return fail(err)
	}
	if fi.Size() > maxOTLPBytes {
		return fail(fmt.Errorf("%d bytes of OTLP JSON: more than the %d this reads at once", fi.Size(), maxOTLPBytes))
	}
	f, err := os.Open(path)
	if err != nil {
		return fail(err)
	}
	defer f.Close()
	base := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(path), ".json"), ".otlp")
	name := sourceName("traces-" + base)
	a.mu.Lock()
	for _, c := range a.clusters {
		if c.Name == name {
			a.mu.Unlock()
			return fail(fmt.Errorf("its source %q would replace the configured cluster %q", name, name))
		}
	}
	a.mu.Unlock()
	spans, err := interop.ReadOTLP(f, name)
	if err != nil {
		return fail(err)
	}
	if len(spans.Checkpoints) == 0 {
		return fail(errors.New("no Flink checkpoint span (name Checkpoint) in it"))
	}
	res := ImportResult{Sources: []string{name}, Skipped: int64(spans.Skipped)}
	err = a.store.Bulk(ctx, func(w store.Writer) error {
		if err := w.PutCluster(model.Cluster{Name: name, Engine: model.EngineFlink, ReadOnly: true}); err != nil {
			return err
		}
		for _, j := range spans.Jobs {
			j.Cluster = name
			res.Jobs++
			if err := w.PutJob(j); err != nil {
				return err
			}
		}
		for i := range spans.Checkpoints {
			c := &spans.Checkpoints[i]
			c.Cluster = name
			res.Checkpoints++
			if err := w.PutCheckpoint(c); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fail(err)
	}
	return res, nil
}
