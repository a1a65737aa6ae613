package capture

import (
	"strings"
	"testing"
)

func TestScanner(t *testing.T) {
	for _, tc := range []struct {
		name, line, typ string
		complete        bool
	}{
		{"plain", `{"type":"gap","from_id":1}`, "gap", true},
		{"type not first", `{"a":{"type":"x"},"type":"gap"}`, "gap", true},
		{"only nested type", `{"a":{"type":"x"},"b":[{"type":"y"}]}`, "", true},
		{"escaped quote", `{"type":"ch\"eck"}`, `ch"eck`, true},
		{"unicode escape", `{"type":"gap\u0021"}`, "gap!", true},
		{"escaped backslash before quote", `{"x":"\\","type":"gap"}`, "gap", true},
		{"value equal to type", `{"x":"type","y":"gap"}`, "", true},
		{"array type", `{"type":["gap"]}`, "", true},
		{"number type", `{"type":1,"b":"gap"}`, "", true},
		{"array of strings", `["type","gap"]`, "", true},
		{"spaces", "{ \"type\" :\t\"gap\" }", "gap", true},
		{"unclosed object", `{"type":"gap"`, "gap", false},
		{"unterminated string", `{"type":"gap","a":"b`, "gap", false},
		{"empty", ``, "", false},
		{"scalar", `42`, "", false},
		{"extra closer", `{"k":"v"}}`, "", false},
		{"brackets in strings", `{"type":"gap","m":"{[[[\"}"}`, "gap", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := scanner{lim: DefaultLimits()}
			res, err := s.scan([]byte(tc.line))
			if err != nil {
				t.Fatal(err)
			}
			if res.typ != tc.typ || res.complete != tc.complete {
				t.Errorf("scan(%s) = %+v, want type %q complete %v", tc.line, res, tc.typ, tc.complete)
			}
		})
	}
}

func TestScannerLimits(t *testing.T) {
	lim := Limits{MaxDepth: 3, MaxStringBytes: 5}.withDefaults()
	for _, tc := range []struct {
		name, line, want string
	}{
		{"depth", `{"a":[[1]]}`, ""},
		{"too deep", `{"a":[[[1]]]}`, "JSON nested deeper than 3 levels"},
		{"deep inside a string is fine", `{"a":"[[[["}`, ""},
		{"long value", `{"name":"abcdef"}`, `field "name" is 6 bytes, over the 5 B string limit`},
		{"long value in array", `{"tags":["ok","abcdef"]}`, `field "tags" is 6 bytes, over the 5 B string limit`},
		{"long key", `{"abcdef":1}`, "an object key of 6 bytes is over the 5 B string limit"},
		{"long top-level string", `"abcdef"`, "a string of 6 bytes is over the 5 B string limit"},
		{"escapes count raw", `{"a":"\\\\\\"}`, `field "a" is 6 bytes, over the 5 B string limit`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := scanner{lim: lim}
			_, err := s.scan([]byte(tc.line))
			switch {
			case tc.want == "" && err != nil:
				t.Fatal(err)
			case tc.want != "" && (err == nil || err.Error() != tc.want):
				t.Fatalf("error = %v, want %q", err, tc.want)
			}
		})
	}
	// The scanner keeps no state between lines.
	s := scanner{lim: lim}
	if _, err := s.scan([]byte(`{"a":[[`)); err != nil {
		t.Fatal(err)
	}
	if res, err := s.scan([]byte(`{"type":"gap"}`)); err != nil || res.typ != "gap" || !res.complete {
		t.Errorf("after an unbalanced line: %+v, %v", res, err)
	}
	if got := strings.Count(clip([]byte(strings.Repeat("k", 100)), 64), "k"); got != 64 {
		t.Errorf("clip kept %d bytes", got)
	}
}
