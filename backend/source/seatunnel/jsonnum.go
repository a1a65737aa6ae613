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

// flexNum is a number sent as a JSON number or a string, which its form F reads. null, "" and
// absence leave it invalid, which callers treat as "not reported", never as 0.
type flexNum[T int64 | float64, F interface {
	parse(s string, b []byte) (v T, ok bool, err error)
}] struct {
	v  T
	ok bool
}

func (f *flexNum[T, F]) UnmarshalJSON(b []byte) error {
	*f = flexNum[T, F]{}
	s, isNull, err := scalarText(b)
	if err != nil || isNull || s == "" {
		return err
	}
	var form F
	f.v, f.ok, err = form.parse(s, b)
	return err
}

// ptr returns the value, or nil when it was not reported.
func (f flexNum[T, F]) ptr() *T {
	if !f.ok {
		return nil
	}
	v := f.v
	return &v
}

// nonNeg is ptr for quantities that cannot be negative: a negative value reads as not reported.
func (f flexNum[T, F]) nonNeg() *T {
	if f.v < 0 {
		return nil
	}
	return f.ptr()
}

// flexInt is an integer.
type flexInt = flexNum[int64, intForm]

type intForm struct{}

func (intForm) parse(s string, b []byte) (int64, bool, error) {
	if v, err := strconv.ParseInt(s, 10, 64); err == nil {
		return v, true, nil
	}
	// 1.0 or 1e3 from a serializer that went through a double.
	fv, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(fv) || math.IsInf(fv, 0) || fv != math.Trunc(fv) || math.Abs(fv) > 1<<53 {
		return 0, false, fmt.Errorf("want an integer, got %s", snippet(b))
	}
	return int64(fv), true, nil
}

// flexFloat is a number; NaN and infinities (as strings, or as bare tokens replaced by null
// before decoding) leave it invalid.
type flexFloat = flexNum[float64, floatForm]

type floatForm struct{}

func (floatForm) parse(s string, b []byte) (float64, bool, error) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, false, fmt.Errorf("want a number, got %s", snippet(b))
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, false, nil
	}
	return v, true, nil
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
