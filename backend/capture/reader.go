package capture

import (
	"bufio"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/dustin/go-humanize"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"

	"checkpoint-explorer/backend/model"
)

// Visitor receives records in file order; returning an error stops reading
// and Read returns that error wrapped (errors.Is works). Nil funcs skip the
// record type (it is still validated and counted).
type Visitor struct {
	Header       func(Header) error
	Cluster      func(model.Cluster) error
	Job          func(model.Job) error
	Checkpoint   func(*model.Checkpoint) error
	AckSample    func(model.AckSample) error
	MetricSample func(model.MetricSample) error
	Gap          func(model.Gap) error
	// Reconciliation receives each job's reconciliation (files of 1.1 on).
	Reconciliation func(model.Reconciliation) error
	// JobConfig receives each of a job's configurations, oldest first (files of 1.3 on).
	JobConfig func(model.JobConfig) error
	// JobNote receives each note on a job's timeline (files of 1.4 on).
	JobNote func(model.Change) error
	// RestoreCount receives each of a job's restore counts (files of 1.5 on).
	RestoreCount func(model.RestoreCount) error
	// BytesRead, when set, counts the bytes ReadFile has read from the file
	// (compressed, as on disk): a caller's progress against the file's size.
	BytesRead *atomic.Int64
}

// Summary counts what a read delivered. Skipped counts records of types this
// version does not know (written by a newer 1.x writer).
type Summary struct {
	Header        Header `json:"header"`
	Clusters      int64  `json:"clusters"`
	Jobs          int64  `json:"jobs"`
	Checkpoints   int64  `json:"checkpoints"`
	AckSamples    int64  `json:"ack_samples"`
	MetricSamples int64  `json:"metric_samples"`
	Gaps          int64  `json:"gaps"`
	// Reconciliations count the jobs' reconciliation records.
	Reconciliations int64 `json:"reconciliations,omitempty"`
	// JobConfigs count the jobs' configuration records.
	JobConfigs int64 `json:"job_configs,omitempty"`
	// JobNotes count the notes on the jobs' timelines.
	JobNotes int64 `json:"job_notes,omitempty"`
	// RestoreCounts count the jobs' restore count records.
	RestoreCounts int64 `json:"restore_counts,omitempty"`
	Skipped       int64 `json:"skipped"`
}

// Records is the number of records after the header (the end record excluded).
func (s Summary) Records() int64 {
	return s.Clusters + s.Jobs + s.Checkpoints + s.AckSamples + s.MetricSamples + s.Gaps + s.Reconciliations + s.JobConfigs + s.JobNotes + s.RestoreCounts + s.Skipped
}

const ioBufSize = 64 << 10

// ReadFile reads a capture file, or a foreign file this package understands
// (see Read). The format is recognised from the content, not the file name.
func ReadFile(ctx context.Context, path string, lim Limits, v Visitor) (Summary, error) {
	f, err := os.Open(path)
	if err != nil {
		return Summary{}, fmt.Errorf("capture: open %s: %w", path, err)
	}
	defer f.Close()
	rd := newReader(ctx, lim, v)
	rd.name = filepath.Base(path)
	if v.BytesRead != nil {
		return rd.run(countingReader{f, v.BytesRead})
	}
	return rd.run(f)
}

// Read reads a capture from r: gzip-compressed or plain JSON Lines, or the
// Flink checkpoint metrics artifact (plain or gzip JSON, see SampleFormat).
// Records are validated and handed to v in file order. Read fails on any
// problem, including a file that ends before its end record, so a caller
// importing inside a transaction can roll back: a nil error means every
// record was delivered. Memory stays bounded by lim.MaxLineBytes whatever the
// file size.
func Read(ctx context.Context, r io.Reader, lim Limits, v Visitor) (Summary, error) {
	return newReader(ctx, lim, v).run(r)
}

// countingReader counts what passes through it.
type countingReader struct {
	r io.Reader
	n *atomic.Int64
}

func (c countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

type reader struct {
	ctx  context.Context
	lim  Limits
	v    Visitor
	name string // base name of the file, for converted headers
	scan scanner
	sum  Summary
}

func newReader(ctx context.Context, lim Limits, v Visitor) *reader {
	lim = lim.withDefaults()
	return &reader{ctx: ctx, lim: lim, v: v, scan: scanner{lim: lim}}
}

func (rd *reader) run(r io.Reader) (Summary, error) {
	br := bufio.NewReaderSize(r, ioBufSize)
	magic, err := br.Peek(2)
	switch {
	case len(magic) == 0 && err == io.EOF:
		return rd.sum, errors.New("capture: truncated: the file is empty")
	case len(magic) == 0:
		return rd.sum, fmt.Errorf("capture: read: %w", err)
	}
	lr := &lineReader{br: br, max: rd.lim.MaxLineBytes}
	if magic[0] == 0x1f && (len(magic) == 1 || magic[1] == 0x8b) {
		if len(magic) == 1 {
			return rd.sum, errors.New("capture: truncated: the gzip stream ends in its header")
		}
		zr, err := gzip.NewReader(br)
		if err != nil {
			return rd.sum, streamErr(err, 0)
		}
		defer zr.Close()
		lr.br = bufio.NewReaderSize(zr, ioBufSize)
	}

	first, newline, err := lr.next()
	if err != nil {
		if err == io.EOF {
			return rd.sum, errors.New("capture: truncated: the file is empty")
		}
		return rd.sum, streamErr(err, 0)
	}
	first = bytes.TrimPrefix(first, []byte("\xef\xbb\xbf"))
	res, err := rd.scan.scan(first)
	if err != nil {
		return rd.sum, fmt.Errorf("capture: line 1: %w", err)
	}
	switch {
	case res.complete && res.typ == TypeHeader:
		if err := rd.header(first); err != nil {
			return rd.sum, err
		}
		return rd.sum, rd.records(lr)
	case res.complete && res.typ != "":
		return rd.sum, fmt.Errorf("capture: line 1: expected a header record, found %q", res.typ)
	}
	if !newline && !res.complete && bytes.HasPrefix(first, []byte(`{"type":"header"`)) {
		return rd.sum, errors.New("capture: truncated: the file ends inside its header")
	}
	// Not ours: maybe a foreign JSON document whose first line is only part of it.
	doc := io.MultiReader(bytes.NewReader(append(append([]byte(nil), first...), '\n')), lr.br)
	return rd.sample(doc)
}

func (rd *reader) header(line []byte) error {
	var h Header
	if err := json.Unmarshal(line, &h); err != nil {
		return fmt.Errorf("capture: line 1: header: %w", err)
	}
	if err := checkHeader(h); err != nil {
		return err
	}
	if err := validateHeader(&h, rd.lim); err != nil {
		return fmt.Errorf("capture: line 1: %w", err)
	}
	rd.sum.Header = h
	if rd.v.Header != nil {
		if err := rd.v.Header(h); err != nil {
			return fmt.Errorf("capture: line 1: %w", err)
		}
	}
	return nil
}

// records reads every line after the header and insists on the end record.
func (rd *reader) records(lr *lineReader) error {
	sawEnd := false
	for {
		if err := rd.ctx.Err(); err != nil {
			return fmt.Errorf("capture: reading stopped after line %d: %w", lr.n, err)
		}
		line, newline, err := lr.next()
		if err == io.EOF {
			if !sawEnd {
				return fmt.Errorf("capture: truncated: no end record after line %d (the file was cut short or its writer did not finish)", lr.n)
			}
			return nil
		}
		if err != nil {
			return streamErr(err, lr.n)
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if sawEnd {
			return fmt.Errorf("capture: line %d: data after the end record", lr.n)
		}
		res, err := rd.scan.scan(line)
		if err != nil {
			return fmt.Errorf("capture: line %d: %w", lr.n, err)
		}
		if !res.complete {
			if !newline {
				return fmt.Errorf("capture: truncated: line %d is cut short", lr.n)
			}
			return fmt.Errorf("capture: line %d: not a complete JSON object", lr.n)
		}
		if res.typ == TypeEnd {
			if err := rd.end(line); err != nil {
				return fmt.Errorf("capture: line %d: %w", lr.n, err)
			}
			sawEnd = true
			continue
		}
		if err := rd.record(res.typ, line); err != nil {
			return fmt.Errorf("capture: line %d: %w", lr.n, err)
		}
	}
}

// record decodes, validates and delivers one line. The "type" key is not a
// field of any model type, so a line decodes straight into the model value.
func (rd *reader) record(typ string, line []byte) error {
	switch typ {
	case "":
		return errors.New(`record without a "type"`)
	case TypeHeader:
		return errors.New("a second header record")
	case TypeCluster:
		return readRecord(rd, typ, line, &rd.sum.Clusters, validatePublicCluster, rd.v.Cluster)
	case TypeJob:
		return readRecord(rd, typ, line, &rd.sum.Jobs, validateJob, rd.v.Job)
	case TypeCheckpoint:
		cp := new(model.Checkpoint)
		if err := decode(typ, line, cp); err != nil {
			return err
		}
		if err := validateCheckpoint(cp, rd.lim); err != nil {
			return err
		}
		rd.sum.Checkpoints++
		return visit(rd.v.Checkpoint, cp)
	case TypeAckSample:
		return readRecord(rd, typ, line, &rd.sum.AckSamples, validateAckSample, rd.v.AckSample)
	case TypeMetricSample:
		return readRecord(rd, typ, line, &rd.sum.MetricSamples, validateMetricSample, rd.v.MetricSample)
	case TypeGap:
		return readRecord(rd, typ, line, &rd.sum.Gaps, validateGap, rd.v.Gap)
	case TypeReconciliation:
		return readRecord(rd, typ, line, &rd.sum.Reconciliations, validateReconciliation, rd.v.Reconciliation)
	case TypeJobConfig:
		return readRecord(rd, typ, line, &rd.sum.JobConfigs, validateJobConfigWithoutSecrets, rd.v.JobConfig)
	case TypeJobNote:
		return readRecord(rd, typ, line, &rd.sum.JobNotes, validateJobNote, rd.v.JobNote)
	case TypeRestoreCount:
		return readRecord(rd, typ, line, &rd.sum.RestoreCounts, validateRestoreCount, rd.v.RestoreCount)
	default:
		// A newer 1.x writer's record type: skipping it is the compatibility rule.
		rd.sum.Skipped++
		return nil
	}
}

// readRecord decodes a line into a T, validates it, counts it and hands it to
// deliver (which may be nil).
func readRecord[T any](rd *reader, typ string, line []byte, count *int64, validate func(*T, Limits) error, deliver func(T) error) error {
	var v T
	if err := decode(typ, line, &v); err != nil {
		return err
	}
	if err := validate(&v, rd.lim); err != nil {
		return err
	}
	*count++
	return visit(deliver, v)
}

// validatePublicCluster drops a read cluster's credentials before validating
// it: they must never leave a capture, whoever wrote it.
func validatePublicCluster(c *model.Cluster, lim Limits) error {
	*c = publicCluster(*c)
	return validateCluster(c, lim)
}

// validateJobConfigWithoutSecrets drops a read configuration's secret-looking
// keys before validating it: a file never holds a secret; one that does
// (hand-edited) loses it here.
func validateJobConfigWithoutSecrets(c *model.JobConfig, lim Limits) error {
	for k := range c.Keys {
		if model.SecretKey(k) {
			delete(c.Keys, k)
		}
	}
	return validateJobConfig(c, lim)
}

func (rd *reader) end(line []byte) error {
	var e struct {
		Records *int64 `json:"records"`
	}
	if err := decode(TypeEnd, line, &e); err != nil {
		return err
	}
	if e.Records == nil {
		return errors.New(`end: no "records" count`)
	}
	if got := rd.sum.Records(); *e.Records != got {
		return fmt.Errorf("end: the file says it holds %d records but %d were read (records lost or added)", *e.Records, got)
	}
	return nil
}

func decode(typ string, line []byte, v any) error {
	if err := json.Unmarshal(line, v); err != nil {
		return fmt.Errorf("%s: %w", typ, err)
	}
	return nil
}

func visit[T any](f func(T) error, v T) error {
	if f == nil {
		return nil
	}
	return f(v)
}

// streamErr names what went wrong below the JSON: a cut or corrupt stream.
func streamErr(err error, afterLine int) error {
	var corrupt flate.CorruptInputError
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return fmt.Errorf("capture: truncated: the compressed stream ends early after line %d: %w", afterLine, err)
	case errors.Is(err, gzip.ErrChecksum), errors.Is(err, gzip.ErrHeader), errors.As(err, &corrupt):
		return fmt.Errorf("capture: corrupt gzip stream after line %d: %w", afterLine, err)
	case errors.As(err, new(*lineTooLongError)):
		return err
	default:
		return fmt.Errorf("capture: read after line %d: %w", afterLine, err)
	}
}

// lineReader returns one line at a time, refusing lines over max bytes. Lines
// that fit the bufio buffer are returned without copying.
type lineReader struct {
	br  *bufio.Reader
	max int
	buf []byte // assembles lines longer than the bufio buffer; reused
	n   int    // number of the line last returned (1-based)
}

type lineTooLongError struct {
	line, max int
}

func (e *lineTooLongError) Error() string {
	return fmt.Sprintf("capture: line %d: longer than the %s line limit", e.line, humanize.IBytes(uint64(e.max)))
}

// keepBuf is the largest assembly buffer kept between lines, so one big
// record does not pin its memory for the rest of the file.
const keepBuf = 8 << 20

// next returns the next line without its line ending, whether it ended in a
// newline, and io.EOF after the last line. The slice is valid until the next call.
func (lr *lineReader) next() ([]byte, bool, error) {
	if cap(lr.buf) > keepBuf {
		lr.buf = nil
	}
	lr.buf = lr.buf[:0]
	for {
		frag, err := lr.br.ReadSlice('\n')
		switch {
		case err == nil:
			lr.n++
			frag = frag[:len(frag)-1]
			if len(lr.buf)+len(frag) > lr.max {
				return nil, false, &lineTooLongError{line: lr.n, max: lr.max}
			}
			line := frag
			if len(lr.buf) > 0 {
				lr.buf = appendCapped(lr.buf, frag, lr.max)
				line = lr.buf
			}
			return bytes.TrimSuffix(line, []byte{'\r'}), true, nil
		case errors.Is(err, bufio.ErrBufferFull):
			if len(lr.buf)+len(frag) > lr.max {
				return nil, false, &lineTooLongError{line: lr.n + 1, max: lr.max}
			}
			lr.buf = appendCapped(lr.buf, frag, lr.max)
		case errors.Is(err, io.EOF) && len(lr.buf)+len(frag) > 0:
			lr.n++
			if len(lr.buf)+len(frag) > lr.max {
				return nil, false, &lineTooLongError{line: lr.n, max: lr.max}
			}
			lr.buf = append(lr.buf, frag...)
			return bytes.TrimSuffix(lr.buf, []byte{'\r'}), false, nil
		default:
			return nil, false, err
		}
	}
}

// appendCapped appends like append but never grows capacity past max, so a
// line just under the limit does not cost twice the limit.
func appendCapped(buf, frag []byte, max int) []byte {
	need := len(buf) + len(frag)
	if need > cap(buf) {
		c := 2 * cap(buf)
		if c < need {
			c = need
		}
		if c > max {
			c = max
		}
		nb := make([]byte, len(buf), c)
		copy(nb, buf)
		buf = nb
	}
	return append(buf, frag...)
}
