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
// method, its types, their doc comments or the events without `make generate`
// fails here (and so in CI), naming the file and the first line that differs.
func TestContractIsUpToDate(t *testing.T) {
	for name, want := range generateNow(t) {
		got, err := os.ReadFile("../../frontend/src/lib/" + name)
		if err != nil {
			t.Error(err)
			continue
		}
		if bytes.Equal(got, want) {
			continue
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
				t.Errorf("frontend/src/lib/%s is out of date: run `make generate`.\nline %d is %q, the Go types give %q", name, i+1, gl, wl)
				break
			}
		}
	}
}

// What JSON gives is what the contract says: nil slices, maps and pointers
// are null, omitempty fields optional and never null, arguments as Go writes
// them, Go's string constants unions, a normalize function for each result
// that can hold a null slice or map, TypeScript's reserved words not used as
// parameter names, fields under Go's doc comments. The views' types are a
// result's Normalized, the contract's own type for an argument, an event's
// payload (even one holding a null slice: on hands it over as sent) and an
// enum, under Go's doc comment.
func TestContractShapes(t *testing.T) {
	files := generateNow(t)
	for _, want := range []struct{ file, line string }{
		{contractFile, "  ListClusters(): Promise<SourceView[] | null>;"},
		{contractFile, "  JobReconciliation(cluster: string, job: string): Promise<ReconciliationView | null>;"},
		{contractFile, "  SaveCluster(in_: ClusterInput): Promise<void>;"},
		{contractFile, "  Version(): Promise<VersionInfo>;"},
		{contractFile, "  'import-error': ImportErrorEvent;"},
		{contractFile, "export type SourcesEvent = Record<string, never>;"},
		{contractFile, "  lanes?: Lane[];"},     // omitempty slice in SourceView: left out when nil, never null
		{contractFile, "  origin?: Origin;"},    // omitempty pointer in Bottleneck
		{contractFile, "  rho: number | null;"}, // a pointer without omitempty
		{contractFile, "  vertex_names: Record<string, string> | null;"},
		{contractFile, "  from_ms: number;"},                                                                        // TimelineRequest is an argument, written as Go writes it
		{contractFile, "  phase?: Phase;"},                                                                          // HeatmapRequest's phase is omitempty
		{contractFile, "export type Status = 'IN_PROGRESS' | 'COMPLETED' | 'FAILED';"},                              // model's constants
		{contractFile, "export type HealthState = 'ok' | 'partial' | 'error' | 'connecting' | 'idle' | 'offline';"}, // collect's
		{contractFile, "export const LogStateKindValues: readonly LogStateKind[] = ['read', 'off', 'waiting', 'unavailable', 'too_large', 'unrecognised'];"},
		{contractFile, "  state: HealthState;"},
		{contractFile, "  status: Status;"},
		{contractFile, "export function normalizeReport(v: Report): Normalized<Report> {"},
		{contractFile, "    checkpoints: (v?.checkpoints ?? []).map(normalizeCheckpointAnalysis),"},
		{contractFile, "    failure: v?.failure && normalizeCheckpointFailure(v.failure),"},
		{contractFile, "    lanes: normalizeLanes(v?.lanes),"},
		{contractFile, "  sources: string[] | null;"}, // ImportDoneEvent's
		{contractFile, "  /** Cached says the cache already holds the job. */\n  cached: boolean;"},
		{typesFile, "export type Report = Normalized<wire.Report>;"},
		{typesFile, "export type VersionInfo = Normalized<wire.VersionInfo>;"}, // nothing to normalise: the same either way
		{typesFile, "export type TimelineRequest = wire.TimelineRequest;"},
		{typesFile, "export type ImportDoneEvent = wire.ImportDoneEvent;"},
		{typesFile, "export type Status = wire.Status;"},
		{typesFile, "/**\n * Bar is one checkpoint, or several neighbours merged because they share a\n"},
		{typesFile, "/** CheckpointsEvent: new checkpoints of a job are in the cache. */\nexport type CheckpointsEvent"},
	} {
		if !strings.Contains(string(files[want.file]), want.line) {
			t.Errorf("%s has no line %q", want.file, want.line)
		}
	}
}

// generateNow is the contract the Go types give now, each file by its name.
func generateNow(t *testing.T) map[string][]byte {
	t.Helper()
	files, err := generateFrom("../..")
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// api.ts, the UI's typed access to the backend, writes no Go type by hand:
// it re-exports every type of the contract as types.gen.ts gives it (which
// has one for each), under the UI's own name too where it has one (X as Y),
// none shadowed by a re-export of another; it declares no interface or
// object type of its own (but the shapes of the Wails runtime, which are not
// Go's), and each type it declares is built from the generated contract (a
// narrowing of one) without being one types.gen.ts gives. A hand-written copy
// would drift from Go unseen, and a generated alias written again by hand
// would be one more to keep in step: this fails on either.
func TestAPITypesAreDerivedFromTheContract(t *testing.T) {
	b, err := os.ReadFile("../../frontend/src/lib/api.ts")
	if err != nil {
		t.Fatal(err)
	}
	src := string(b)
	files := generateNow(t)

	views := map[string]string{} // types.gen.ts: name → its type
	for _, m := range regexp.MustCompile(`(?m)^export type (\w+) = (.*);$`).FindAllStringSubmatch(string(files[typesFile]), -1) {
		views[m[1]] = m[2]
	}
	notContractTypes := map[string]bool{"AppMethods": true, "EventPayloads": true, "Normalized": true}
	contractTypes := 0
	for _, m := range regexp.MustCompile(`(?m)^export (?:interface|type) (\w+)`).FindAllStringSubmatch(string(files[contractFile]), -1) {
		if notContractTypes[m[1]] {
			continue
		}
		contractTypes++
		if v := views[m[1]]; v != "wire."+m[1] && v != "Normalized<wire."+m[1]+">" {
			t.Errorf("%s has no view of the contract's type %s (it has %q)", typesFile, m[1], v)
		}
	}
	if contractTypes < 60 || len(views) != contractTypes {
		t.Errorf("%d types in %s, %d in %s: the check has lost track of the generated files", contractTypes, contractFile, len(views), typesFile)
	}
	if !regexp.MustCompile(`(?m)^export type \* from '\./types\.gen';$`).MatchString(src) {
		t.Errorf("api.ts does not re-export %s (export type * from './types.gen')", typesFile)
	}

	notGo := map[string]bool{"Runtime": true, "Window": true}
	for _, m := range regexp.MustCompile(`(?m)^\s*(?:export\s+)?interface\s+(\w+)`).FindAllStringSubmatch(src, -1) {
		if !notGo[m[1]] {
			t.Errorf("api.ts declares interface %s: derive it from contract.gen.ts (wire.%s, Normalized<wire.…>) instead", m[1], m[1])
		}
	}
	renamed := 0
	lineComment := regexp.MustCompile(`//[^\n]*`)
	for _, m := range regexp.MustCompile(`(?m)^export\s+(?:type\s+)?\{([^}]*)\}\s*from\s*'([^']*)'`).FindAllStringSubmatch(src, -1) {
		for _, spec := range strings.Split(lineComment.ReplaceAllString(m[1], ""), ",") {
			f := strings.Fields(spec) // X, or X as Y
			switch {
			case len(f) == 0:
			case views[f[len(f)-1]] != "":
				t.Errorf("api.ts re-exports %s from %s, over the one %s gives", f[len(f)-1], m[2], typesFile)
			case m[2] == "./types.gen" && len(f) == 3:
				renamed++
			}
		}
	}
	generated := map[string]string{} // a type of types.gen.ts → its name there
	for name, v := range views {
		generated[v] = name
	}
	aliases := regexp.MustCompile(`(?ms)^(?:export\s+)?type\s+(\w+)(?:<[^=]*>)?\s*=\s*(.*?);\s*$`).FindAllStringSubmatch(src, -1)
	derived := 0
	for _, m := range aliases {
		name, rhs := m[1], m[2]
		switch {
		case strings.Contains(rhs, "{") || regexp.MustCompile(`^\s*'`).MatchString(rhs):
			t.Errorf("api.ts writes type %s by hand (%s): derive it from contract.gen.ts", name, rhs)
		case generated[rhs] == name:
			t.Errorf("api.ts writes type %s = %s by hand: %s gives it", name, rhs, typesFile)
		case generated[rhs] != "":
			t.Errorf("api.ts writes type %s = %s by hand: %s gives it as %s (re-export that as %[1]s)", name, rhs, typesFile, generated[rhs])
		case strings.Contains(rhs, "wire."):
			derived++
		case name == "Result" || name == "Method" || name == "Listener":
			// call's helpers, not types of the backend
		default:
			t.Errorf("api.ts's type %s = %s does not come from contract.gen.ts", name, rhs)
		}
	}
	if renamed+derived < 15 {
		t.Errorf("only %d types of api.ts renamed or derived from the contract: the check has lost track of api.ts", renamed+derived)
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
	s := string(generateNow(t)[contractFile])
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
