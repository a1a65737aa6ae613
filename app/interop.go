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

	"checkpoint-explorer/backend/export"
	"checkpoint-explorer/backend/interop"
	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/store"
)

// Export formats besides the capture (docs/interop.md).
const (
	FormatCapture  = export.FormatCapture
	FormatPerfetto = export.FormatPerfetto
	FormatOTLP     = export.FormatOTLP
	FormatCSV      = export.FormatCSV
)

// maxOTLPBytes bounds an OTLP file read whole: spans of a day at 1 s with
// per-subtask children are a few hundred MB.
const maxOTLPBytes = 1 << 30

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
