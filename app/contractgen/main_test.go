package main

import (
	"bytes"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The checked-in contract is what the Go types give now: a change to a bound
// method, its types or the events without `make generate` fails here (and so
// in CI), naming the first line that differs.
func TestContractIsUpToDate(t *testing.T) {
	want := generateNow(t)
	got, err := os.ReadFile("../../frontend/src/lib/contract.gen.ts")
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(got, want) {
		return
	}
	g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := range max(len(g), len(w)) {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			t.Fatalf("frontend/src/lib/contract.gen.ts is out of date: run `make generate`.\nline %d is %q, the Go types give %q", i+1, gl, wl)
		}
	}
}

// What JSON gives is what the contract says: nil slices, maps and pointers
// are null, omitempty fields optional and never null, arguments as Go writes
// them, Go's string constants unions, a normalize function for each result
// that can hold a null slice or map, TypeScript's reserved words not used as
// parameter names.
func TestContractShapes(t *testing.T) {
	s := string(generateNow(t))
	for _, want := range []string{
		"  ListClusters(): Promise<SourceView[] | null>;",
		"  JobReconciliation(cluster: string, job: string): Promise<ReconciliationView | null>;",
		"  SaveCluster(in_: ClusterInput): Promise<void>;",
		"  Version(): Promise<VersionInfo>;",
		"  'import-error': ImportErrorEvent;",
		"export type SourcesEvent = Record<string, never>;",
		"  lanes?: Lane[];",     // omitempty slice in SourceView: left out when nil, never null
		"  origin?: Origin;",    // omitempty pointer in Bottleneck
		"  rho: number | null;", // a pointer without omitempty
		"  vertex_names: Record<string, string> | null;",
		"  from_ms: number;", // TimelineRequest is an argument, written as Go writes it
		"  phase?: Phase;",   // HeatmapRequest's phase is omitempty
		"export type Status = 'IN_PROGRESS' | 'COMPLETED' | 'FAILED';",                              // model's constants
		"export type HealthState = 'ok' | 'partial' | 'error' | 'connecting' | 'idle' | 'offline';", // collect's
		"export const LogStateKindValues: readonly LogStateKind[] = ['read', 'off', 'waiting', 'unavailable', 'too_large', 'unrecognised'];",
		"  state: HealthState;",
		"  status: Status;",
		"export function normalizeReport(v: Report): Normalized<Report> {",
		"    checkpoints: (v?.checkpoints ?? []).map(normalizeCheckpointAnalysis),",
		"    failure: v?.failure && normalizeCheckpointFailure(v.failure),",
		"    lanes: normalizeLanes(v?.lanes),",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("the contract has no line %q", want)
		}
	}
}

// generateNow is the contract the Go types give now.
func generateNow(t *testing.T) []byte {
	t.Helper()
	b, err := generateFrom("../..")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// tsInterfaces maps each `export interface` of a TypeScript file to its field names.
func tsInterfaces(t *testing.T, path string) map[string][]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, m := range regexp.MustCompile(`(?s)export interface (\w+) \{(.*?)\n\}`).FindAllStringSubmatch(string(b), -1) {
		var fields []string
		for _, f := range regexp.MustCompile(`(?m)^\s*(\w+)\??:`).FindAllStringSubmatch(m[2], -1) {
			fields = append(fields, f[1])
		}
		slices.Sort(fields)
		out[m[1]] = fields
	}
	return out
}

// The types api.ts still writes by hand (for the views: unions, arrays that
// are never null) have exactly the fields of the generated ones of the same
// name, so a field Go adds or drops shows here.
func TestHandWrittenTypesHaveTheContractsFields(t *testing.T) {
	gen := tsInterfaces(t, "../../frontend/src/lib/contract.gen.ts")
	hand := tsInterfaces(t, "../../frontend/src/lib/api.ts")
	checked := 0
	for name, fields := range hand {
		want, ok := gen[name]
		if !ok {
			continue
		}
		checked++
		if !slices.Equal(fields, want) {
			t.Errorf("api.ts's %s has fields %v; the Go type gives %v", name, fields, want)
		}
	}
	if checked < 20 {
		t.Errorf("only %d hand-written types matched by name: the check has lost track of api.ts", checked)
	}
}

// The string constants of a package's named types are read in declaration
// order, untyped ones and other packages' left out; a typed constant whose
// value cannot be read is an error rather than a value missing from a union.
func TestReadConstants(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) {
		t.Helper()
		if err := os.WriteFile(dir+"/"+name, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.go", `package p
type Color string
const (
	Red   Color = "red"
	Green Color = "green"
	Plain       = "not a Color"
)
const Blue Color = "blue"
`)
	write("a_test.go", `package p
const Test Color = "from a test"
`)
	got, err := readConstants(dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"red", "green", "blue"}; !slices.Equal(got["Color"], want) {
		t.Errorf("Color's constants are %q, want %q", got["Color"], want)
	}
	write("b.go", `package p
const Mixed Color = Color("mi" + "xed")
`)
	if _, err := readConstants(dir); err == nil || !strings.Contains(err.Error(), "Mixed") {
		t.Errorf("a Color constant that is not a literal: err %v, want one naming it", err)
	}
}

// The development fake (frontend/dev/fake-bridge.js, which the fake-bridge
// e2e suites run against) answers only methods the contract has, and all of
// them but those the page cannot reach in a browser; it sends only events the
// contract has.
func TestFakeBridgeFollowsTheContract(t *testing.T) {
	b, err := os.ReadFile("../../frontend/dev/fake-bridge.js")
	if err != nil {
		t.Fatal(err)
	}
	fake := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^    ([A-Z]\w*):`).FindAllStringSubmatch(string(b), -1) {
		fake[m[1]] = true
	}
	s := string(generateNow(t))
	contract := map[string]bool{}
	block := s[strings.Index(s, "export interface AppMethods {"):]
	block = block[:strings.Index(block, "\n}")]
	for _, m := range regexp.MustCompile(`(?m)^  (\w+)\(`).FindAllStringSubmatch(block, -1) {
		contract[m[1]] = true
	}
	// Not faked: the page reaches SaveFile only in the desktop window, and
	// BackfillBackpressure only runs when the collector follows a job.
	notFaked := map[string]bool{"SaveFile": true, "BackfillBackpressure": true}
	for m := range fake {
		if !contract[m] {
			t.Errorf("the fake bridge answers %s, which App does not have", m)
		}
	}
	for m := range contract {
		if !fake[m] && !notFaked[m] {
			t.Errorf("the fake bridge does not answer %s", m)
		}
	}
	for _, m := range regexp.MustCompile(`emit\('([a-z-]+)'`).FindAllStringSubmatch(string(b), -1) {
		if !strings.Contains(s, "  '"+m[1]+"': ") {
			t.Errorf("the fake bridge sends an event %q the contract does not have", m[1])
		}
	}
	if len(fake) < 20 {
		t.Errorf("found %d fake methods: the check has lost track of fake-bridge.js", len(fake))
	}
}
