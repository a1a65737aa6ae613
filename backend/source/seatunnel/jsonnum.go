package seatunnel

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// SeaTunnel's REST answers are built by hand with Hazelcast's JsonObject: the same field is a
// number in one endpoint or version and a string in another ("jobId", metrics, edge vertex ids),
// and absent values are {} or missing rather than null. These types decode either form.

// flexInt is an integer sent as a JSON number or a string ("123"). null, "" and absence leave
// it invalid, which callers treat as "not reported", never as 0.
type flexInt struct {
	v  int64
	ok bool
}

func (f *flexInt) UnmarshalJSON(b []byte) error {
	*f = flexInt{}
	s, isNull, err := scalarText(b)
	if err != nil || isNull || s == "" {
		return err
	}
	if v, err := strconv.ParseInt(s, 10, 64); err == nil {
		*f = flexInt{v: v, ok: true}
		return nil
	}
	// 1.0 or 1e3 from a serializer that went through a double.
	fv, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(fv) || math.IsInf(fv, 0) || fv != math.Trunc(fv) || math.Abs(fv) > 1<<53 {
		return fmt.Errorf("want an integer, got %s", snippet(b))
	}
	*f = flexInt{v: int64(fv), ok: true}
	return nil
}

// ptr returns the value, or nil when it was not reported.
func (f flexInt) ptr() *int64 {
	if !f.ok {
		return nil
	}
	v := f.v
	return &v
}

// nonNeg is ptr for quantities that cannot be negative: a negative value reads as not reported.
func (f flexInt) nonNeg() *int64 {
	if f.v < 0 {
		return nil
	}
	return f.ptr()
}

// flexFloat is a number sent as a JSON number or a string; NaN and infinities (as strings, or as
// bare tokens replaced by null before decoding) leave it invalid.
type flexFloat struct {
	v  float64
	ok bool
}

func (f *flexFloat) UnmarshalJSON(b []byte) error {
	*f = flexFloat{}
	s, isNull, err := scalarText(b)
	if err != nil || isNull || s == "" {
		return err
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return fmt.Errorf("want a number, got %s", snippet(b))
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	*f = flexFloat{v: v, ok: true}
	return nil
}

// flexID is an identifier sent as a JSON number or a string, kept as its decimal text.
type flexID string

func (f *flexID) UnmarshalJSON(b []byte) error {
	s, isNull, err := scalarText(b)
	if err != nil {
		return err
	}
	if isNull {
		*f = ""
		return nil
	}
	*f = flexID(s)
	return nil
}

// scalarText returns the text of a JSON number or string, trimmed; objects and arrays are an
// error naming what arrived.
func scalarText(b []byte) (s string, isNull bool, err error) {
	b = bytes.TrimSpace(b)
	switch {
	case len(b) == 0 || bytes.Equal(b, []byte("null")):
		return "", true, nil
	case b[0] == '"':
		if err := json.Unmarshal(b, &s); err != nil {
			return "", false, err
		}
		s = strings.TrimSpace(s)
		return s, false, nil
	case b[0] == '{' || b[0] == '[' || b[0] == 't' || b[0] == 'f':
		return "", false, fmt.Errorf("want a number or a string, got %s", snippet(b))
	}
	return string(b), false, nil
}

// nonFiniteToNull replaces bare NaN, Infinity and -Infinity tokens outside strings (what a Java
// serializer writes for a ratio over an empty bucket) with null, so one odd value does not fail
// a whole response.
func nonFiniteToNull(b []byte) []byte {
	if !bytes.Contains(b, []byte("NaN")) && !bytes.Contains(b, []byte("Infinity")) {
		return b
	}
	out := make([]byte, 0, len(b))
	inString, escaped := false, false
	for i := 0; i < len(b); i++ {
		ch := b[i]
		if inString {
			out = append(out, ch)
			switch {
			case escaped:
				escaped = false
			case ch == '\\':
				escaped = true
			case ch == '"':
				inString = false
			}
			continue
		}
		if ch == '"' {
			inString = true
			out = append(out, ch)
			continue
		}
		if n := nonFiniteToken(b[i:]); n > 0 {
			out = append(out, "null"...)
			i += n - 1
			continue
		}
		out = append(out, ch)
	}
	return out
}

func nonFiniteToken(b []byte) int {
	for _, t := range []string{"NaN", "Infinity", "-Infinity"} {
		if bytes.HasPrefix(b, []byte(t)) {
			return len(t)
		}
	}
	return 0
}
