package restclient

import (
	"encoding/json"
	"slices"
	"testing"

	"checkpoint-explorer/testenv/fuzzenv"
)

func TestNonFiniteToNull(t *testing.T) {
	tests := []struct{ in, want string }{
		{`[1,2]`, `[1,2]`},
		{`{"a":NaN,"b":-Infinity,"c":Infinity,"d":+Infinity}`, `{"a":null,"b":null,"c":null,"d":null}`},
		{`{"NaN":"NaN","s":"a \"NaN\" b","e":"\\"}`, `{"NaN":"NaN","s":"a \"NaN\" b","e":"\\"}`},
		{`[NaN]`, `[null]`},
	}
	for _, tt := range tests {
		if got := string(NonFiniteToNull([]byte(tt.in))); got != tt.want {
			t.Errorf("NonFiniteToNull(%s) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

// FuzzNonFiniteToNull: the rewrite (for Flink's lenient reads and SeaTunnel's realtime answers)
// leaves valid JSON as it is, whatever it holds.
func FuzzNonFiniteToNull(f *testing.F) {
	for _, s := range []string{`[1,NaN]`, `{"a":"NaN","b":-Infinity}`, `{"e":"\\","s":"a \"Infinity\" b"}`, `[1,2.5e3,null]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		fuzzenv.Count()
		if json.Valid(body) && !slices.Equal(NonFiniteToNull(body), body) {
			t.Fatalf("valid JSON rewritten: %q", body)
		}
	})
}
