package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"sync"

	segjson "github.com/segmentio/encoding/json"

	"checkpoint-explorer/app"
	"checkpoint-explorer/backend/analyze"
)

// jsonReportWriter writes `report --format json` as the analyses stream in.
// The document is what an indented json.Encoder writes, except that each
// checkpoint's analysis is one compact line: indenting them took a third of
// the time, and a line per checkpoint greps and diffs well.
//
// The lines are encoded in chunks on every core and written in order, in
// their final form ("    {…},\n"), before the top level that precedes them
// is known. When the output is a regular file they are written into it
// directly and moved into place at the end (finishInPlace): a spill file
// would cost a second copy of every byte, and on a VM whose free memory the
// host takes back, every fresh page of it a fault in the host
// (docs/reliability.md). Otherwise (a pipe, a terminal, a buffer) they go
// to a spill file, copied out at the end. The few analyses revised at the
// end are kept aside and take their lines' places then. Memory stays at a
// few chunks and a line offset per checkpoint.
type jsonReportWriter struct {
	file    *os.File // the output itself (inPlace) or the spill file
	inPlace bool
	base    int64 // the offset in file of the first line
	out     *bufio.Writer
	starts  []int64 // each line's offset from base, appended by the writing goroutine
	size    int64   // the lines' bytes, once written
	chunk   []analyze.CheckpointAnalysis
	n       int
	revised map[int][]byte
	pending chan chan encodedChunk
	written chan error
	bufs    sync.Pool // chunks' buffers, once written
	done    bool      // finish completed the document
}

type encodedChunk struct {
	b    []byte
	ends []int // each line's end in b
	err  error
}

const reportChunk = 512

// reportLineBytes is about the length of one checkpoint's line (2 KB over
// 4 vertices), to size a chunk's buffer.
const reportLineBytes = 2048

// reportCopyBytes is the buffer the lines are moved or copied out through.
const reportCopyBytes = 1 << 20

// reportMemoryLimit is the report command's soft memory limit (GOMEMLIMIT
// overrides it). Over a day at 1 s the live heap is some 130 MB at its
// largest; with the binary's own 20 MiB the process peaks at about 216 MiB.
// Each step up made it faster on the soak cache (160 MiB: 3.20 s mean,
// 200: 2.87 s, 230: 2.73 s, same sitting) but 230 peaked at 245 MiB, too
// near the 256 MiB aim. Longer histories only make the collector work
// harder, never fail.
const reportMemoryLimit = 200 << 20

// newJSONReportWriter starts a document that finish writes to dst.
func newJSONReportWriter(dst io.Writer) (*jsonReportWriter, error) {
	w := &jsonReportWriter{revised: map[int][]byte{},
		pending: make(chan chan encodedChunk, runtime.GOMAXPROCS(0)), written: make(chan error, 1)}
	if f, base, ok := reopenForUpdate(dst); ok {
		w.file, w.inPlace, w.base = f, true, base
		if _, err := f.Seek(base, io.SeekStart); err != nil {
			f.Close()
			return nil, fmt.Errorf("report: the output file: %w", err)
		}
	} else {
		f, err := os.CreateTemp("", "checkpoint-explorer-report-*.jsonl")
		if err != nil {
			return nil, fmt.Errorf("report: a file for the checkpoints' lines: %w", err)
		}
		w.file = f
	}
	w.out = bufio.NewWriterSize(w.file, reportCopyBytes)
	pending := w.pending // finish clears the field
	go func() {
		var err error
		var off int64
		for ch := range pending {
			res := <-ch
			if err == nil {
				err = res.err
			}
			if err == nil {
				_, err = w.out.Write(res.b)
				start := 0
				for _, end := range res.ends {
					w.starts = append(w.starts, off+int64(start))
					start = end
				}
				off += int64(len(res.b))
			}
			w.bufs.Put(res.b[:0])
		}
		if err == nil {
			err = w.out.Flush()
		}
		w.size = off
		w.written <- err
	}()
	return w, nil
}

// emit takes checkpoint k's analysis (k counts up from 0).
func (w *jsonReportWriter) emit(k int, ca *analyze.CheckpointAnalysis) error {
	if k != w.n {
		return fmt.Errorf("report: checkpoint %d came as the %dth", k, w.n)
	}
	w.n++
	w.chunk = append(w.chunk, *ca)
	if len(w.chunk) == reportChunk {
		w.send()
	}
	return nil
}

func (w *jsonReportWriter) send() {
	if len(w.chunk) == 0 {
		return
	}
	cps := w.chunk
	w.chunk = make([]analyze.CheckpointAnalysis, 0, reportChunk)
	ch := make(chan encodedChunk, 1)
	w.pending <- ch
	go func() {
		buf, _ := w.bufs.Get().([]byte)
		if buf == nil {
			buf = make([]byte, 0, reportLineBytes*len(cps))
		}
		ends := make([]int, len(cps))
		for k := range cps {
			var err error
			if buf, err = appendReportLine(buf, &cps[k]); err != nil {
				ch <- encodedChunk{err: err}
				return
			}
			ends[k] = len(buf)
		}
		ch <- encodedChunk{b: buf, ends: ends}
	}()
}

// appendJSONLine appends ca's line to b: what encoding/json writes, by
// segmentio's encoder, which writes the same bytes in half the time and
// into b without allocating (a test holds the two equal).
func appendJSONLine(b []byte, ca *analyze.CheckpointAnalysis) ([]byte, error) {
	b, err := segjson.Append(b, ca, segjson.EscapeHTML|segjson.SortMapKeys)
	if err != nil {
		return nil, fmt.Errorf("report: checkpoint %d: %w", ca.ID, err)
	}
	return append(b, '\n'), nil
}

// appendReportLine appends ca's line as the document holds it: indented
// under "checkpoints", a comma after it (finish drops the last one).
func appendReportLine(b []byte, ca *analyze.CheckpointAnalysis) ([]byte, error) {
	b, err := appendJSONLine(append(b, "    "...), ca)
	if err != nil {
		return nil, err
	}
	b[len(b)-1] = ','
	return append(b, '\n'), nil
}

// revise replaces checkpoint k's analysis, already emitted.
func (w *jsonReportWriter) revise(k int, ca *analyze.CheckpointAnalysis) error {
	b, err := appendReportLine(nil, ca)
	if err != nil {
		return err
	}
	w.revised[k] = b
	return nil
}

// reportRun is a piece of the lines part of the document: bytes of the
// file ([from, to) from base) or a revised line's bytes.
type reportRun struct {
	from, to int64
	line     []byte
	at       int64 // where it goes, from the document's start
}

// runs lays out the lines part: the written lines with the revised ones in
// their places, the last comma dropped, starting at off in the document.
// It returns the runs and the document offset after them.
func (w *jsonReportWriter) runs(off int64) ([]reportRun, int64) {
	ks := make([]int, 0, len(w.revised))
	for k := range w.revised {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	var runs []reportRun
	add := func(r reportRun) {
		r.at = off
		if r.line != nil {
			off += int64(len(r.line))
		} else if r.to > r.from {
			off += r.to - r.from
		} else {
			return
		}
		runs = append(runs, r)
	}
	var prev int64
	for _, k := range ks {
		end := w.size
		if k+1 < w.n {
			end = w.starts[k+1]
		}
		add(reportRun{from: prev, to: w.starts[k]})
		add(reportRun{line: w.revised[k]})
		prev = end
	}
	add(reportRun{from: prev, to: w.size})
	// The last line's ",\n" (every line ends so) becomes what follows it.
	last := &runs[len(runs)-1]
	if last.line != nil {
		last.line = last.line[:len(last.line)-2]
	} else {
		last.to -= 2
	}
	return runs, off - 2
}

// finish writes the whole document to dst: r without its checkpoints, and
// the lines emitted in place of them.
func (w *jsonReportWriter) finish(dst io.Writer, r app.Report) error {
	w.send()
	close(w.pending)
	w.pending = nil
	if err := <-w.written; err != nil {
		return fmt.Errorf("report: writing the checkpoints' lines: %w", err)
	}
	r.Checkpoints = []analyze.CheckpointAnalysis{}
	head, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	// The top-level field, at the top level's indentation: no string value
	// can hold it (its quotes would be escaped).
	marker := []byte("\n  \"checkpoints\": []")
	i := bytes.Index(head, marker)
	if i < 0 {
		return errors.New("report: the report has no checkpoints field")
	}
	if w.n == 0 {
		// Nothing was written: dst's offset is where the document starts.
		_, err := dst.Write(append(head, '\n'))
		w.done = err == nil
		return err
	}
	pre := append(slices.Clip(head[:i+len(marker)-len("]")]), '\n')
	post := append([]byte("\n  ]"), head[i+len(marker):]...)
	post = append(post, '\n')
	runs, end := w.runs(int64(len(pre)))
	if w.inPlace {
		err = w.finishInPlace(dst, pre, runs, end, post)
	} else {
		err = w.finishFromSpill(dst, pre, runs, post)
	}
	w.done = err == nil
	return err
}

// finishFromSpill copies the document out: the top level around the
// spilled lines.
func (w *jsonReportWriter) finishFromSpill(dst io.Writer, pre []byte, runs []reportRun, post []byte) error {
	bw := bufio.NewWriterSize(dst, reportCopyBytes)
	bw.Write(pre)
	buf := make([]byte, reportCopyBytes)
	for _, r := range runs {
		if r.line != nil {
			bw.Write(r.line)
			continue
		}
		for off := r.from; off < r.to; {
			n, err := w.file.ReadAt(buf[:min(int64(len(buf)), r.to-off)], off)
			if err != nil && !(errors.Is(err, io.EOF) && off+int64(n) == r.to) {
				return fmt.Errorf("report: reading back the checkpoints' lines: %w", err)
			}
			bw.Write(buf[:n])
			off += int64(n)
		}
	}
	bw.Write(post)
	return bw.Flush()
}

// finishInPlace moves the lines, written at base, to where the document
// holds them (after the top level that precedes them, revised ones
// replaced), then writes the rest around them. A run moving left is moved
// before any after it, one moving right after any after it: no run is
// overwritten before it is moved, however the revisions changed the
// lengths. It leaves dst's offset at the document's end.
func (w *jsonReportWriter) finishInPlace(dst io.Writer, pre []byte, runs []reportRun, end int64, post []byte) error {
	f := w.file
	buf := make([]byte, reportCopyBytes)
	move := func(r reportRun) error {
		shift := r.at - r.from
		n := r.to - r.from
		for done := int64(0); done < n; {
			c := min(int64(len(buf)), n-done)
			src := r.from + done // left: front to back
			if shift > 0 {
				src = r.to - done - c // right: back to front
			}
			if _, err := f.ReadAt(buf[:c], w.base+src); err != nil {
				return fmt.Errorf("report: reading back the checkpoints' lines: %w", err)
			}
			if _, err := f.WriteAt(buf[:c], w.base+src+shift); err != nil {
				return fmt.Errorf("report: moving the checkpoints' lines: %w", err)
			}
			done += c
		}
		return nil
	}
	for _, r := range runs {
		if r.line == nil && r.at < r.from {
			if err := move(r); err != nil {
				return err
			}
		}
	}
	for k := len(runs) - 1; k >= 0; k-- {
		if r := runs[k]; r.line == nil && r.at > r.from {
			if err := move(r); err != nil {
				return err
			}
		}
	}
	if _, err := f.WriteAt(pre, w.base); err != nil {
		return fmt.Errorf("report: the output file: %w", err)
	}
	for _, r := range runs {
		if r.line != nil {
			if _, err := f.WriteAt(r.line, w.base+r.at); err != nil {
				return fmt.Errorf("report: the output file: %w", err)
			}
		}
	}
	if _, err := f.WriteAt(post, w.base+end); err != nil {
		return fmt.Errorf("report: the output file: %w", err)
	}
	last := w.base + end + int64(len(post))
	if last < w.base+w.size {
		// The revisions made the lines shorter than written.
		if err := f.Truncate(last); err != nil {
			return fmt.Errorf("report: the output file: %w", err)
		}
	}
	// Whatever writes to dst next (a shell's group of commands) follows
	// the document, as after a plain write.
	if s, ok := dst.(io.Seeker); ok {
		if _, err := s.Seek(last, io.SeekStart); err != nil {
			return fmt.Errorf("report: the output file: %w", err)
		}
	}
	return nil
}

// close removes the spill file, or takes the lines out of an output the
// report did not finish; after a failure it also lets the encoders end.
func (w *jsonReportWriter) close() {
	if w.pending != nil {
		close(w.pending)
		<-w.written
	}
	if w.inPlace {
		if !w.done {
			w.file.Truncate(w.base)
		}
		w.file.Close()
		return
	}
	w.file.Close()
	os.Remove(w.file.Name())
}
