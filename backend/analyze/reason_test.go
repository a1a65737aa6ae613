package analyze

import (
	"encoding/json"
	"os"
	"reflect"
	"regexp"
	"testing"
)

// The UI says a reason from its parts with the "reason" templates of
// frontend/src/i18n/*.json: the English there must be exactly the English
// the reports print, and every language must have every clause with the same
// arguments.
func TestReasonTemplatesMatchTheUI(t *testing.T) {
	arg := regexp.MustCompile(`\{\{(\w+)\}\}`)
	args := func(s string) []string {
		var out []string
		for _, m := range arg.FindAllStringSubmatch(s, -1) {
			out = append(out, m[1])
		}
		return out
	}
	for _, lang := range []string{"en", "zh"} {
		doc := readUIReasons(t, lang)
		if lang == "en" && !reflect.DeepEqual(doc.Reason, reasonTemplates) {
			for k, v := range reasonTemplates {
				if doc.Reason[k] != v {
					t.Errorf("en.json reason.%s = %q\n                  Go has %q", k, doc.Reason[k], v)
				}
			}
			t.Fatalf("en.json has %d reason templates, Go %d", len(doc.Reason), len(reasonTemplates))
		}
		for k, v := range reasonTemplates {
			got, ok := doc.Reason[k]
			if !ok {
				t.Errorf("%s.json lacks reason.%s", lang, k)
				continue
			}
			a, b := args(v), args(got)
			if !sameSet(a, b) {
				t.Errorf("%s.json reason.%s has arguments %v, the English %v", lang, k, b, a)
			}
		}
	}
}

// partsByCode is each part's arguments by its code (the last part of a code).
func partsByCode(parts []ReasonPart) map[string]map[string]string {
	out := map[string]map[string]string{}
	for _, p := range parts {
		out[p.Code] = p.Args
	}
	return out
}

// uiReasons is what the UI's language file holds for reasons: the clause
// templates and how clauses are joined.
type uiReasons struct {
	Reason map[string]string         `json:"reason"`
	Join   struct{ Sep, End string } `json:"reasonJoin"`
}

// readUIReasons reads the reasons of frontend/src/i18n/<lang>.json.
func readUIReasons(t *testing.T, lang string) uiReasons {
	t.Helper()
	b, err := os.ReadFile("../../frontend/src/i18n/" + lang + ".json")
	if err != nil {
		t.Fatal(err)
	}
	var doc uiReasons
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("%s.json: %v", lang, err)
	}
	return doc
}

func sameSet(a, b []string) bool {
	m := map[string]int{}
	for _, x := range a {
		m[x]++
	}
	for _, x := range b {
		m[x]--
	}
	for _, n := range m {
		if n != 0 {
			return false
		}
	}
	return true
}

// Every clause the analysis can produce has a template, and the English
// rendering fills every argument.
func TestRenderReasonFillsEveryArgument(t *testing.T) {
	job, cps, ms := benchInput(400)
	ja := Analyze(job, cps, nil, ms, nil)
	if len(ja.Correlation.ReasonParts) == 0 || ja.Correlation.Reason != renderReason(ja.Correlation.ReasonParts) {
		t.Fatalf("reason %q from parts %+v", ja.Correlation.Reason, ja.Correlation.ReasonParts)
	}
	for code, tmpl := range reasonTemplates {
		p := ReasonPart{Code: code, Args: map[string]string{}}
		for _, m := range regexp.MustCompile(`\{\{(\w+)\}\}`).FindAllStringSubmatch(tmpl, -1) {
			p.Args[m[1]] = "X"
		}
		if s := renderReason([]ReasonPart{p}); regexp.MustCompile(`\{\{`).MatchString(s) {
			t.Errorf("%s renders %q", code, s)
		}
	}
}
