package store

import (
	"encoding/binary"
	"errors"
	"fmt"

	"checkpoint-explorer/backend/model"
)

// A vertex's subtask stats are stored as one packed value in its task_stats
// row, not as one SQL row each: a checkpoint of 8 vertices × 64 subtasks is
// then 8 rows to write and read instead of 520, and a fraction of the bytes.
// Reading them back is what the analysis of a long history spends its time
// on (docs/retention.md, "How detail is stored").
//
// Layout (version 1): the version byte, then uvarint count, then per subtask
// in index order:
//
//	uvarint index delta (first: the index itself)
//	byte    status: 0 completed, 1 pending_or_failed, 2 other (uvarint length, bytes follow)
//	byte    flags: bit 0 unaligned, bit 1 aborted
//	varint  ack_ms delta from the previous subtask's (first: from 0)
//	varint  end_to_end_ms, start_delay_ms, alignment_ms, sync_ms, async_ms,
//	        state_size, checkpointed_size, processed_data, persisted_data
//
// Varints are zig-zag (encoding/binary), so negative values from a skewed
// clock survive. Ack times are delta-coded: within a vertex they are close.
const subtaskCodecVersion = 1

const (
	statusCompleted = iota
	statusPending
	statusOther
)

// maxSubtaskStringLen bounds an unusual status string in a packed value.
const maxSubtaskStringLen = 1 << 10

// encodeSubtasks packs subs (sorted by index) onto dst.
func encodeSubtasks(dst []byte, subs []model.SubtaskStats) []byte {
	dst = append(dst, subtaskCodecVersion)
	dst = binary.AppendUvarint(dst, uint64(len(subs)))
	prevIdx, prevAck := 0, int64(0)
	for i := range subs {
		s := &subs[i]
		if i == 0 {
			dst = binary.AppendUvarint(dst, uint64(s.Index))
		} else {
			dst = binary.AppendUvarint(dst, uint64(s.Index-prevIdx))
		}
		prevIdx = s.Index
		switch s.Status {
		case model.SubtaskCompleted:
			dst = append(dst, statusCompleted)
		case model.SubtaskPendingOrFailed:
			dst = append(dst, statusPending)
		default:
			dst = append(dst, statusOther)
			dst = binary.AppendUvarint(dst, uint64(len(s.Status)))
			dst = append(dst, s.Status...)
		}
		var flags byte
		if s.Unaligned {
			flags |= 1
		}
		if s.Aborted {
			flags |= 2
		}
		dst = append(dst, flags)
		dst = binary.AppendVarint(dst, s.AckMs-prevAck)
		prevAck = s.AckMs
		for _, v := range [...]int64{s.EndToEndMs, s.StartDelayMs, s.AlignmentMs, s.SyncMs, s.AsyncMs,
			s.StateSize, s.CheckpointedSize, s.ProcessedData, s.PersistedData} {
			dst = binary.AppendVarint(dst, v)
		}
	}
	return dst
}

var errPacked = errors.New("packed subtask stats are corrupt")

// subtaskDecoder reads a packed value; the first error sticks.
type subtaskDecoder struct {
	b   []byte
	err error
}

func (d *subtaskDecoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err = errPacked
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *subtaskDecoder) varint() int64 {
	if d.err != nil {
		return 0
	}
	// Most values fit one or two bytes: decode those inline (a third of the
	// time of reading a long history went into the general path).
	if b := d.b; len(b) > 0 && b[0] < 0x80 {
		d.b = b[1:]
		return unzigzag(uint64(b[0]))
	} else if len(b) > 1 && b[1] < 0x80 {
		d.b = b[2:]
		return unzigzag(uint64(b[0]&0x7f) | uint64(b[1])<<7)
	}
	return unzigzag(d.uvarint())
}

// unzigzag undoes the zig-zag encoding binary.AppendVarint writes before the
// uvarint: 0, -1, 1, -2, … as 0, 1, 2, 3, ….
func unzigzag(x uint64) int64 { return int64(x>>1) ^ -int64(x&1) }

func (d *subtaskDecoder) byte() byte {
	if d.err != nil || len(d.b) == 0 {
		d.err = errPacked
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

// decodeSubtasks unpacks a value written by encodeSubtasks, appending to dst.
// want is the count the row says it holds; a mismatch is corruption.
func decodeSubtasks(dst []model.SubtaskStats, b []byte, want int) ([]model.SubtaskStats, error) {
	if len(b) == 0 || b[0] != subtaskCodecVersion {
		if len(b) == 0 {
			return dst, fmt.Errorf("%w: empty", errPacked)
		}
		return dst, fmt.Errorf("%w: unknown version %d", errPacked, b[0])
	}
	d := subtaskDecoder{b: b[1:]}
	n := d.uvarint()
	// Each subtask takes at least 13 bytes: a count beyond that is a lie.
	if d.err == nil && (n != uint64(want) || n > uint64(len(d.b))/13+1) {
		return dst, fmt.Errorf("%w: holds %d subtasks, the row says %d", errPacked, n, want)
	}
	idx, ack := 0, int64(0)
	for i := uint64(0); i < n && d.err == nil; i++ {
		var s model.SubtaskStats
		step := d.uvarint()
		if step > 1<<31 || (i > 0 && step == 0) {
			d.err = fmt.Errorf("%w: subtask indexes out of order", errPacked)
			break
		}
		idx += int(step)
		s.Index = idx
		switch d.byte() {
		case statusCompleted:
			s.Status = model.SubtaskCompleted
		case statusPending:
			s.Status = model.SubtaskPendingOrFailed
		case statusOther:
			l := d.uvarint()
			if d.err == nil && (l > maxSubtaskStringLen || l > uint64(len(d.b))) {
				d.err = fmt.Errorf("%w: status of %d bytes", errPacked, l)
				break
			}
			s.Status = string(d.b[:l])
			d.b = d.b[l:]
		default:
			d.err = fmt.Errorf("%w: unknown status code", errPacked)
		}
		flags := d.byte()
		s.Unaligned, s.Aborted = flags&1 != 0, flags&2 != 0
		ack += d.varint()
		s.AckMs = ack
		s.EndToEndMs = d.varint()
		s.StartDelayMs = d.varint()
		s.AlignmentMs = d.varint()
		s.SyncMs = d.varint()
		s.AsyncMs = d.varint()
		s.StateSize = d.varint()
		s.CheckpointedSize = d.varint()
		s.ProcessedData = d.varint()
		s.PersistedData = d.varint()
		if d.err == nil {
			dst = append(dst, s)
		}
	}
	if d.err == nil && len(d.b) != 0 {
		d.err = fmt.Errorf("%w: %d bytes left over", errPacked, len(d.b))
	}
	return dst, d.err
}
