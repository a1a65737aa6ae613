// Package ingest reads a file into the cache as read-only sources, in one
// transaction: a capture (backend/capture, or a foreign format it
// recognises) or OTLP JSON spans with Flink's names (backend/interop). A
// truncated, corrupt or hostile file leaves the cache as it was.
package ingest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"

	"checkpoint-explorer/backend/capture"
	"checkpoint-explorer/backend/interop"
	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/store"
)

// Options configure File.
type Options struct {
	// SourceName names the source of each cluster the file holds (an OTLP
	// file's: "traces-" and its base name).
	SourceName func(string) string
	// Taken holds the names of the configured clusters, which no source may take.
	Taken map[string]bool
	// Merge adds the file to a source of the same name the cache already
	// holds. Without it the file is a source of its own: a name already held
	// gets " (2)", " (3)"..., so a capture never replaces the checkpoints of
	// an earlier one with the same job id.
	Merge bool
	// Progress, when set, is called as records are read.
	Progress func(Progress)
}

// Progress is how far a read has come: records, and bytes of the file
// against its size (0 when unknown).
type Progress struct {
	Checkpoints, MetricSamples int64
	Bytes, Size                int64
}

// Result says what a file added to the cache (app.ImportResult).
type Result struct {
	Sources       []string
	Jobs          int64
	Checkpoints   int64
	AckSamples    int64
	MetricSamples int64
	Gaps          int64
	Skipped       int64
	// Renamed lists the file's sources that took another name because the
	// cache already held one of theirs (none with Merge).
	Renamed []Renamed
}

// Renamed says that a source of the file was named To because the cache
// already held a source named From.
type Renamed struct {
	From string `json:"from"`
	To   string `json:"to"`
	// Jobs are the file's job ids the cache already held under From: without
	// the new name the file would have replaced their checkpoints.
	Jobs []string `json:"jobs,omitempty"`
}

// sourceNames picks the names of a file's sources in the cache.
type sourceNames struct {
	merge bool
	taken map[string]bool            // configured clusters
	held  map[string]map[string]bool // the cache's sources and their job ids
	used  map[string]bool            // names this file took
}

func newSourceNames(ctx context.Context, st *store.Store, o Options) (*sourceNames, error) {
	n := &sourceNames{merge: o.Merge, taken: o.Taken, held: map[string]map[string]bool{}, used: map[string]bool{}}
	clusters, err := st.Clusters(ctx)
	if err != nil {
		return nil, err
	}
	for _, c := range clusters {
		n.held[c.Name] = map[string]bool{}
	}
	jobs, err := st.Jobs(ctx, "")
	if err != nil {
		return nil, err
	}
	for _, j := range jobs {
		if n.held[j.Cluster] == nil {
			n.held[j.Cluster] = map[string]bool{}
		}
		n.held[j.Cluster][j.ID] = true
	}
	return n, nil
}

// pick returns the name for a source the file would name want, and the
// renaming when the cache already holds want (nil otherwise).
func (n *sourceNames) pick(want string) (string, *Renamed, error) {
	if n.taken[want] {
		return "", nil, fmt.Errorf("the file's source %q would replace the configured cluster %q", want, want)
	}
	if _, held := n.held[want]; !held || n.merge || n.used[want] {
		n.used[want] = true
		return want, nil, nil
	}
	for i := 2; ; i++ {
		name := fmt.Sprintf("%s (%d)", want, i)
		if _, held := n.held[name]; !held && !n.taken[name] && !n.used[name] {
			n.used[name] = true
			return name, &Renamed{From: want, To: name}, nil
		}
	}
}

// clash notes a job of the file that the renamed source's namesake holds.
func (n *sourceNames) clash(r *Renamed, jobID string) {
	if r != nil && n.held[r.From][jobID] && !slices.Contains(r.Jobs, jobID) {
		r.Jobs = append(r.Jobs, jobID)
	}
}

// maxOTLPBytes bounds an OTLP file read whole: spans of a day at 1 s with
// per-subtask children are a few hundred MB.
const maxOTLPBytes = 1 << 30

// File imports the file at path; on an error nothing was imported.
func File(ctx context.Context, st *store.Store, path string, o Options) (Result, error) {
	if isOTLP(path) {
		return otlpFile(ctx, st, path, o)
	}
	var res Result
	names := map[string]string{}
	picker, err := newSourceNames(ctx, st, o)
	if err != nil {
		return Result{}, err
	}
	renamed := map[string]*Renamed{} // by the name the file gives the cluster
	var read atomic.Int64
	var size int64
	if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() {
		size = fi.Size()
	}
	progress := func() {
		if o.Progress != nil {
			o.Progress(Progress{Checkpoints: res.Checkpoints, MetricSamples: res.MetricSamples, Bytes: read.Load(), Size: size})
		}
	}
	err = st.Bulk(ctx, func(w store.Writer) error {
		sum, err := capture.ReadFile(ctx, path, capture.DefaultLimits(), capture.Visitor{
			BytesRead: &read,
			Cluster: func(c model.Cluster) error {
				c = c.Public()
				name, r, err := picker.pick(o.SourceName(c.Name))
				if err != nil {
					return err
				}
				if r != nil {
					renamed[c.Name] = r
				}
				names[c.Name] = name
				c.Name, c.ReadOnly = name, true
				res.Sources = append(res.Sources, name)
				return w.PutCluster(c)
			},
			Job: fromFile(names, &res.Jobs, func(j *model.Job) (string, *string) {
				picker.clash(renamed[j.Cluster], j.ID)
				return "job " + j.ID, &j.Cluster
			}, w.PutJob),
			Checkpoint: func(c *model.Checkpoint) error {
				if err := rename(names, fmt.Sprintf("checkpoint %d", c.ID), &c.Cluster); err != nil {
					return err
				}
				res.Checkpoints++
				progress()
				return w.PutCheckpoint(c)
			},
			AckSample: fromFile(names, &res.AckSamples, func(s *model.AckSample) (string, *string) { return "ack sample", &s.Cluster }, w.PutAckSample),
			MetricSample: fromFile(names, &res.MetricSamples, func(s *model.MetricSample) (string, *string) { return "metric sample", &s.Cluster },
				func(s model.MetricSample) error {
					progress()
					return w.PutMetricSample(s)
				}),
			Gap: fromFile(names, &res.Gaps, func(g *model.Gap) (string, *string) { return "gap", &g.Cluster }, w.PutGap),
			Reconciliation: fromFile(names, nil, func(r *model.Reconciliation) (string, *string) { return "reconciliation", &r.Cluster },
				w.PutReconciliation),
			JobConfig: fromFile(names, nil, func(c *model.JobConfig) (string, *string) { return "job configuration", &c.Cluster }, w.PutJobConfig),
			JobNote:   fromFile(names, nil, func(c *model.Change) (string, *string) { return "note", &c.Cluster }, w.(store.TimelineWriter).PutNote),
			RestoreCount: fromFile(names, nil, func(rc *model.RestoreCount) (string, *string) { return "restore count", &rc.Cluster },
				w.(store.TimelineWriter).PutRestoreCount),
		})
		res.Skipped = sum.Skipped
		if err != nil {
			return err
		}
		if len(res.Sources) == 0 {
			return errors.New("the file holds no cluster")
		}
		return nil
	})
	if err != nil {
		return Result{}, err
	}
	for _, src := range res.Sources {
		for _, r := range renamed {
			if r.To == src {
				res.Renamed = append(res.Renamed, *r)
			}
		}
	}
	return res, nil
}

// fromFile stores the records of one type of the file's clusters: ref says
// what a record is (for errors) and where its cluster's name is, which takes
// the name that cluster got here; count (if not nil) counts them.
func fromFile[T any](names map[string]string, count *int64, ref func(*T) (string, *string), put func(T) error) func(T) error {
	return func(v T) error {
		what, cluster := ref(&v)
		if err := rename(names, what, cluster); err != nil {
			return err
		}
		if count != nil {
			*count++
		}
		return put(v)
	}
}

// rename gives a record (what) of one of the file's clusters the name that
// cluster got here.
func rename(names map[string]string, what string, cluster *string) error {
	n, ok := names[*cluster]
	if !ok {
		return fmt.Errorf("%s refers to cluster %q, which the file does not declare", what, *cluster)
	}
	*cluster = n
	return nil
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

// otlpFile opens a file of Flink checkpoint spans like a capture: a
// read-only source named after the file, in one transaction.
func otlpFile(ctx context.Context, st *store.Store, path string, o Options) (Result, error) {
	fail := func(err error) (Result, error) { return Result{}, err }
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
	picker, err := newSourceNames(ctx, st, o)
	if err != nil {
		return fail(err)
	}
	name, renamed, err := picker.pick(o.SourceName("traces-" + base))
	if err != nil {
		return fail(err)
	}
	spans, err := interop.ReadOTLP(f, name)
	if err != nil {
		return fail(err)
	}
	if len(spans.Checkpoints) == 0 {
		return fail(errors.New("no Flink checkpoint span (name Checkpoint) in it"))
	}
	res := Result{Sources: []string{name}, Skipped: int64(spans.Skipped)}
	if renamed != nil {
		for _, j := range spans.Jobs {
			picker.clash(renamed, j.ID)
		}
		res.Renamed = []Renamed{*renamed}
	}
	err = st.Bulk(ctx, func(w store.Writer) error {
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
