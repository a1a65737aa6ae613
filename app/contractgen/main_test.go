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

// api.ts, the UI's typed access to the backend, writes no Go type by hand:
// it declares no interface or object type of its own (but the shapes of the
// Wails runtime, which are not Go's), and each type it exports is built from
// the generated contract (wire.X, Normalized<wire.X>, or a narrowing of one).
// A hand-written copy would drift from Go unseen; this fails on one.
func TestAPITypesAreDerivedFromTheContract(t *testing.T) {
	b, err := os.ReadFile("../../frontend/src/lib/api.ts")
	if err != nil {
		t.Fatal(err)
	}
	src := string(b)
	notGo := map[string]bool{"Runtime": true, "Window": true}
	for _, m := range regexp.MustCompile(`(?m)^\s*(?:export\s+)?interface\s+(\w+)`).FindAllStringSubmatch(src, -1) {
		if !notGo[m[1]] {
			t.Errorf("api.ts declares interface %s: derive it from contract.gen.ts (wire.%s, Normalized<wire.…>) instead", m[1], m[1])
		}
	}
	aliases := regexp.MustCompile(`(?ms)^(?:export\s+)?type\s+(\w+)(?:<[^=]*>)?\s*=\s*(.*?);\s*$`).FindAllStringSubmatch(src, -1)
	derived := 0
	for _, m := range aliases {
		name, rhs := m[1], m[2]
		switch {
		case strings.Contains(rhs, "{") || regexp.MustCompile(`^\s*'`).MatchString(rhs):
			t.Errorf("api.ts writes type %s by hand (%s): derive it from contract.gen.ts", name, rhs)
		case strings.Contains(rhs, "wire."):
			derived++
		case name == "Result" || name == "Method" || name == "Listener":
			// call's helpers, not types of the backend
		default:
			t.Errorf("api.ts's type %s = %s does not come from contract.gen.ts", name, rhs)
		}
	}
	if derived < 60 {
		t.Errorf("only %d types of api.ts derived from the contract: the check has lost track of api.ts", derived)
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
