package capture

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/dustin/go-humanize"
)

// scanner looks at a raw line before it is decoded. encoding/json allocates
// whatever a line asks for and recurses up to 10,000 levels; the scanner
// refuses deep nesting and long strings first, and finds the top-level "type"
// so the line is decoded once, straight into the right type. It does not
// check syntax: encoding/json does that afterwards.
type scanner struct {
	lim   Limits
	stack []byte // open containers, '{' or '['; reused across lines
}

type scanResult struct {
	typ string // value of the top-level "type" key; "" if absent or not a string
	// complete is true when at least one container was opened and all were
	// closed, i.e. the line could be a whole JSON object.
	complete bool
}

func (s *scanner) scan(line []byte) (scanResult, error) {
	var res scanResult
	s.stack = s.stack[:0]
	var (
		expectKey   bool   // the next string in the current object is a key
		key         []byte // latest object key, to name the field in errors
		typePending bool   // the latest key was a top-level "type"
		opened      bool
	)
	for i := 0; i < len(line); i++ {
		switch c := line[i]; c {
		case '"':
			end, ok := stringEnd(line, i+1)
			if !ok {
				return res, nil // unterminated: incomplete, decoding will say so
			}
			str := line[i+1 : end]
			inObject := len(s.stack) > 0 && s.stack[len(s.stack)-1] == '{'
			isKey := expectKey && inObject
			if len(str) > s.lim.MaxStringBytes {
				return res, s.longString(str, key, isKey)
			}
			if isKey {
				key = str
				typePending = len(s.stack) == 1 && string(str) == "type"
				expectKey = false
			} else if typePending && len(s.stack) == 1 {
				res.typ = unquote(line[i : end+1])
				typePending = false
			}
			i = end
		case '{', '[':
			if len(s.stack) >= s.lim.MaxDepth {
				return res, fmt.Errorf("JSON nested deeper than %d levels", s.lim.MaxDepth)
			}
			s.stack = append(s.stack, c)
			opened = true
			expectKey = c == '{'
			typePending = false
		case '}', ']':
			if len(s.stack) == 0 {
				return res, nil // unbalanced: decoding will say so
			}
			s.stack = s.stack[:len(s.stack)-1]
			expectKey = false
			typePending = false
		case ',':
			expectKey = len(s.stack) > 0 && s.stack[len(s.stack)-1] == '{'
		case ':':
			expectKey = false
		case ' ', '\t', '\r', '\n':
		default:
			typePending = false
		}
	}
	res.complete = opened && len(s.stack) == 0
	return res, nil
}

func (s *scanner) longString(str, key []byte, isKey bool) error {
	limit := humanize.IBytes(uint64(s.lim.MaxStringBytes))
	switch {
	case isKey:
		return fmt.Errorf("an object key of %d bytes is over the %s string limit", len(str), limit)
	case key != nil:
		return fmt.Errorf("field %q is %d bytes, over the %s string limit", clip(key, 64), len(str), limit)
	default:
		return fmt.Errorf("a string of %d bytes is over the %s string limit", len(str), limit)
	}
}

// stringEnd returns the index of the quote closing a string whose content
// starts at from.
func stringEnd(line []byte, from int) (int, bool) {
	for j := from; ; {
		k := bytes.IndexByte(line[j:], '"')
		if k < 0 {
			return 0, false
		}
		k += j
		backslashes := 0
		for p := k - 1; p >= from && line[p] == '\\'; p-- {
			backslashes++
		}
		if backslashes%2 == 0 {
			return k, true
		}
		j = k + 1
	}
}

// unquote decodes a quoted JSON string; escapes are rare in type names.
func unquote(quoted []byte) string {
	if bytes.IndexByte(quoted, '\\') < 0 {
		return string(quoted[1 : len(quoted)-1])
	}
	var s string
	if err := json.Unmarshal(quoted, &s); err != nil {
		return ""
	}
	return s
}

func clip(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}
