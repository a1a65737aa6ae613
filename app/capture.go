package app

import (
	"context"
	_ "embed"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"checkpoint-explorer/backend/connect"
	"checkpoint-explorer/backend/export"
	"checkpoint-explorer/backend/ingest"
)

// The bundled samples, opened on a first run so that a new user sees real
// data at once: a capture of the knob job on a real Flink 2.3 cluster taken
// through each knob in turn (testenv/flink/record-sample.sh), a capture of
// the knob job on a real Flink 1.20 cluster with two problems at once
// (testenv/flink/record-mixed-sample.sh: barriers queue behind a
// backpressured source, and a slow synchronous snapshot downstream), and the
// artifact of a real Flink CDC job under induced backpressure.
//
//go:embed sample/flink-knobs.ckpt.gz
var sampleKnobs []byte

//go:embed sample/flink120-mixed.ckpt.gz
var sampleMixed []byte

//go:embed sample/flink120-iceberg.ckpt.gz
var sampleIceberg []byte

//go:embed sample/phase-2.3-checkpoint-metrics.json
var samplePhase23 []byte

type bundledSample struct {
	file string
	data []byte
	// name is the source name the sample gets ("" keeps the file's own "sample: …" name).
	name string
}

var bundledSamples = []bundledSample{
	{file: "flink-knobs.ckpt.gz", data: sampleKnobs, name: "sample: Flink 2.3 knob job"},
	{file: "flink120-mixed.ckpt.gz", data: sampleMixed, name: "sample: Flink 1.20 mixed causes"},
	{file: "flink120-iceberg.ckpt.gz", data: sampleIceberg, name: "sample: Flink 1.20 Iceberg slow commits"},
	{file: "phase-2.3-checkpoint-metrics.json", data: samplePhase23},
}

// ImportResult says what opening a capture added to the cache.
type ImportResult struct {
	Sources       []string `json:"sources"`
	Jobs          int64    `json:"jobs"`
	Checkpoints   int64    `json:"checkpoints"`
	AckSamples    int64    `json:"ack_samples"`
	MetricSamples int64    `json:"metric_samples"`
	Gaps          int64    `json:"gaps"`
	Skipped       int64    `json:"skipped"`
	// Renamed: sources named anew because the cache held their names (the file is its own source).
	Renamed []ingest.Renamed `json:"renamed,omitempty"`
}

// capturePrefix marks sources that came from a file, so they never mix with a
// configured cluster of the same name.
const capturePrefix = "capture: "

func captureSourceName(name string) string {
	for _, p := range connect.ReservedPrefixes {
		if strings.HasPrefix(name, p) {
			return name
		}
	}
	return capturePrefix + name
}

// OpenCapture imports a capture file (or a foreign format the capture package
// recognises) as read-only sources. The whole file goes in one transaction: a
// truncated, corrupt or hostile file leaves the cache exactly as it was.
func (a *App) OpenCapture(path string) (ImportResult, error) { return a.openCapture(path, false) }

// MergeCapture is OpenCapture adding to the sources of the same names the cache holds (import --merge).
func (a *App) MergeCapture(path string) (ImportResult, error) { return a.openCapture(path, true) }

func (a *App) openCapture(path string, merge bool) (ImportResult, error) {
	if path == "" {
		return ImportResult{}, badRequest("no file given")
	}
	ctx, cancel := a.callCtx()
	defer cancel()
	res, err := a.importCapture(ctx, path, captureSourceName, merge)
	if err != nil {
		return res, err
	}
	a.log.Info("capture opened", "file", filepath.Base(path), "sources", res.Sources, "checkpoints", res.Checkpoints)
	a.emit(SourcesEvent{})
	return res, nil
}

// openDropped opens captures dropped on the window. No call waits for the
// answer, so each file that does not open is told as an ImportErrorEvent.
func openDropped(a *App, paths []string) {
	for _, p := range paths {
		fi, err := os.Stat(p)
		switch {
		case errors.Is(err, os.ErrNotExist):
			a.emit(ImportErrorEvent{File: filepath.Base(p), Error: "the file is gone (moved or deleted before it could be read)"})
			continue
		case err == nil && fi.IsDir():
			a.emit(ImportErrorEvent{File: filepath.Base(p), Error: "it is a folder: drop the capture files (.ckpt.gz) in it instead"})
			continue
		}
		res, err := a.OpenCapture(p)
		if err != nil {
			reason := dropReason(p, err)
			a.log.Warn("a file dropped on the window did not open", "file", p, "reason", reason)
			a.emit(ImportErrorEvent{File: filepath.Base(p), Error: reason})
			continue
		}
		a.log.Info("a capture dropped on the window opened", "file", p, "sources", res.Sources, "checkpoints", res.Checkpoints)
		a.emit(ImportDoneEvent{File: filepath.Base(p), Sources: res.Sources, Checkpoints: res.Checkpoints})
	}
}

// dropReason is why a dropped file did not open, without the layers' prefixes
// the toast already says ("Could not open FILE: ..."), and what would open.
func dropReason(path string, err error) string {
	msg := err.Error()
	for _, p := range []string{errBadRequest.Error() + ": ", "open " + filepath.Base(path) + ": ", "store: bulk: ", "capture: "} {
		msg = strings.TrimPrefix(msg, p)
	}
	if strings.Contains(msg, "not a capture file") {
		msg += "; Checkpoint Explorer opens capture files (.ckpt.gz) written by Export… or `checkpoint-explorer capture`"
	}
	return msg
}

// OpenCaptureDialog asks for a file with the desktop's dialog, then opens it.
func (a *App) OpenCaptureDialog() (ImportResult, error) {
	if a.dialogs == nil {
		return ImportResult{}, badRequest("no file dialog here: upload the file instead")
	}
	path, err := a.dialogs.OpenFile("Open capture or OTLP spans", []string{"*.ckpt.gz", "*.gz", "*.jsonl", "*.json"})
	if err != nil {
		return ImportResult{}, err
	}
	if path == "" {
		return ImportResult{}, nil // cancelled
	}
	return a.OpenCapture(path)
}

// importCapture imports a file in one transaction, naming each of its
// clusters with sourceName.
func (a *App) importCapture(ctx context.Context, path string, sourceName func(string) string, merge bool) (ImportResult, error) {
	taken := map[string]bool{}
	a.mu.Lock()
	for _, c := range a.clusters {
		taken[c.Name] = true
	}
	a.mu.Unlock()
	lastProgress := time.Now()
	res, err := ingest.File(ctx, a.store, path, ingest.Options{SourceName: sourceName, Taken: taken, Merge: merge, Progress: func(p ingest.Progress) {
		if time.Since(lastProgress) >= progressEvery {
			lastProgress = time.Now()
			a.emit(ImportProgressEvent{File: filepath.Base(path), Checkpoints: p.Checkpoints, MetricSamples: p.MetricSamples,
				Bytes: p.Bytes, Size: p.Size})
		}
	}})
	if err != nil {
		return ImportResult{}, badRequest("open %s: %v (nothing was imported)", filepath.Base(path), err)
	}
	return ImportResult(res), nil
}

// ensureSample opens the bundled sample on a first run: no configured cluster
// and no source of any kind in the cache yet.
func (a *App) ensureSample(ctx context.Context) error {
	a.mu.Lock()
	n := len(a.clusters)
	a.mu.Unlock()
	if n > 0 {
		return nil
	}
	stored, err := a.store.Clusters(ctx)
	if err != nil {
		return err
	}
	if len(stored) > 0 {
		return nil
	}
	for _, smp := range bundledSamples {
		if err := a.openSample(ctx, smp); err != nil {
			return fmt.Errorf("sample %s: %w", smp.file, err)
		}
	}
	return nil
}

func (a *App) openSample(ctx context.Context, smp bundledSample) error {
	f, err := os.CreateTemp("", "checkpoint-explorer-sample-*-"+smp.file)
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(smp.data); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	rename := func(n string) string {
		if smp.name != "" {
			return smp.name
		}
		return captureSourceName(n)
	}
	res, err := a.importCapture(ctx, f.Name(), rename, false)
	if err != nil {
		return err
	}
	a.log.Info("bundled sample opened", "sources", res.Sources, "checkpoints", res.Checkpoints)
	return nil
}

// ExportRequest selects what goes into a capture file.
type ExportRequest struct {
	Cluster string `json:"cluster"`
	Job     string `json:"job"`
	FromMs  int64  `json:"from_ms"`
	ToMs    int64  `json:"to_ms"`
	Path    string `json:"path"`
	// Format is capture (the default), perfetto, otlp or csv (docs/interop.md).
	Format string `json:"format,omitempty"`
	// PerSubtask makes a csv export one row per subtask phase.
	PerSubtask bool `json:"per_subtask,omitempty"`
}

// ExportResult says what was written.
type ExportResult struct {
	Path        string `json:"path"`
	Checkpoints int64  `json:"checkpoints"`
	Records     int64  `json:"records"`
	Bytes       int64  `json:"bytes"`
}

// ExportCapture writes a job's cached data to a capture file (no secrets).
// In the window an empty path asks with a save dialog.
func (a *App) ExportCapture(req ExportRequest) (ExportResult, error) {
	if req.Cluster == "" || req.Job == "" {
		return ExportResult{}, badRequest("cluster and job are required")
	}
	if req.Path == "" {
		if a.dialogs == nil {
			return ExportResult{}, badRequest("give the path of the file to write")
		}
		p, err := a.dialogs.SaveFile("Export", safeFileName(req.Job)+export.Ext(req.Format))
		if err != nil || p == "" {
			return ExportResult{}, err
		}
		req.Path = p
	}
	ctx, cancel := a.callCtx()
	defer cancel()
	return a.exportCapture(ctx, req)
}

func (a *App) exportCapture(ctx context.Context, req ExportRequest) (ExportResult, error) {
	job, err := a.cachedJob(ctx, req.Cluster, req.Job)
	if err != nil {
		return ExportResult{}, err
	}
	cluster, err := a.namedSource(ctx, req.Cluster)
	if err != nil {
		return ExportResult{}, err
	}
	switch req.Format {
	case "", FormatCapture, FormatPerfetto, FormatOTLP, FormatCSV:
	default:
		return ExportResult{}, fmt.Errorf("export %s: %w", req.Path, badRequest("export format %q: choose capture, perfetto, otlp or csv", req.Format))
	}
	lastProgress := time.Now()
	res, err := export.Write(ctx, a.store, export.Request{Cluster: cluster, Job: job, FromMs: req.FromMs, ToMs: req.ToMs,
		Path: req.Path, Format: req.Format, PerSubtask: req.PerSubtask, AppVersion: BuildVersion,
		Progress: func(n int64) {
			if time.Since(lastProgress) >= progressEvery {
				lastProgress = time.Now()
				a.emit(ExportProgressEvent{File: filepath.Base(req.Path), Checkpoints: n})
			}
		}})
	return ExportResult(res), err
}

func safeFileName(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == ':' || r < ' ' {
			return '_'
		}
		return r
	}, s)
}

// maxSaveBytes caps what SaveFile writes: a PNG or a text, not a capture.
const maxSaveBytes = 64 << 20

// SaveFile asks where to save a file the page made (a view as PNG, a
// summary) with the desktop's save dialog and writes it there. It returns
// the path, or "" if the user cancelled. In a browser the page downloads
// files itself.
func (a *App) SaveFile(name, dataBase64 string) (string, error) {
	if a.dialogs == nil {
		return "", badRequest("no save dialog here: the browser downloads the file itself")
	}
	b, err := base64.StdEncoding.DecodeString(dataBase64)
	if err != nil {
		return "", badRequest("save %s: the data is not base64: %v", name, err)
	}
	if len(b) > maxSaveBytes {
		return "", badRequest("save %s: %d bytes is more than %d", name, len(b), maxSaveBytes)
	}
	p, err := a.dialogs.SaveFile("Save", safeFileName(name))
	if err != nil || p == "" {
		return "", err
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		return "", fmt.Errorf("save %s: %w", p, err)
	}
	return p, nil
}
