package main

import (
	"bytes"
	"os"
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

// What JSON gives is what the contract says: nil slices and pointers are
// null, omitempty fields optional, fields of argument-only types optional,
// TypeScript's reserved words not used as parameter names.
func TestContractShapes(t *testing.T) {
	s := string(generateNow(t))
	for _, want := range []string{
		"  ListClusters(): Promise<SourceView[] | null>;",
		"  JobReconciliation(cluster: string, job: string): Promise<ReconciliationView | null>;",
		"  SaveCluster(in_: ClusterInput): Promise<void>;",
		"  Version(): Promise<VersionInfo>;",
		"  'import-error': ImportErrorEvent;",
		"export type SourcesEvent = Record<string, never>;",
		"  lanes?: Lane[] | null;", // omitempty slice in SourceView
		"  from_ms?: number;",      // TimelineRequest is an argument
	} {
		if !strings.Contains(s, want) {
			t.Errorf("the contract has no line %q", want)
		}
	}
}

// generateNow is the contract the Go types give now.
func generateNow(t *testing.T) []byte {
	t.Helper()
	names, err := paramNames("..")
	if err != nil {
		t.Fatal(err)
	}
	b, err := generate(names)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
