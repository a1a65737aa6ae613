package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The product's two builds (the command line, and the window's with the
// desktop tags, as make builds them) link no test support: synthetic data
// and benchmark code live in test files and modeltest. The command line's
// links nothing of the window: neither app/window nor Wails.
func TestProductBuildsHaveNoTestSupport(t *testing.T) {
	for _, tags := range []string{"", "desktop,production,webkit2_41"} {
		out, err := exec.Command("go", "list", "-deps", "-tags", tags, ".").CombinedOutput()
		if err != nil {
			t.Fatalf("go list -tags %q: %v\n%s", tags, err, out)
		}
		deps := strings.Fields(string(out))
		for _, pkg := range deps {
			if strings.HasSuffix(pkg, "test") && strings.HasPrefix(pkg, "checkpoint-explorer/") || strings.Contains(pkg, "/testenv/") {
				t.Errorf("the build with tags %q depends on %s", tags, pkg)
			}
		}
		window := slices.ContainsFunc(deps, func(p string) bool {
			return p == "checkpoint-explorer/app/window" || strings.HasPrefix(p, "github.com/wailsapp/")
		})
		if want := tags != ""; window != want {
			t.Errorf("the build with tags %q links the window: %v, want %v", tags, window, want)
		}
	}
}

// What each package may import of this repository (docs/architecture.md):
// data flows source → collect → store → analyze → app → frontend.
var allowedImports = map[string][]string{
	"backend/model":                            {},
	"backend/source/restclient":                {"backend/model"},
	"backend/source/flink":                     {"backend/model", "backend/source/restclient", "backend/collect"},
	"backend/source/seatunnel":                 {"backend/model", "backend/source/restclient", "backend/collect"},
	"backend/source/prometheus":                {"backend/model", "backend/source/restclient", "backend/collect"},
	"backend/source/jaeger":                    {"backend/model", "backend/source/restclient", "backend/interop"},
	"backend/connect":                          {"backend/model", "backend/collect", "backend/source/"},
	"backend/collect":                          {"backend/model"},
	"backend/store":                            {"backend/model"},
	"backend/capture":                          {"backend/model"},
	"backend/analyze":                          {"backend/model"},
	"backend/backfill":                         {"backend/model", "backend/store", "backend/analyze", "backend/source/"},
	"backend/export":                           {"backend/model", "backend/store", "backend/capture", "backend/interop"},
	"backend/fleet":                            {"backend/model", "backend/store", "backend/analyze"},
	"backend/ingest":                           {"backend/model", "backend/store", "backend/capture", "backend/interop"},
	"backend/record":                           {"backend/model", "backend/collect", "backend/capture", "backend/connect", "backend/source/"},
	"backend/interop":                          {"backend/model"},
	"backend/alert":                            {"backend/model", "backend/analyze"},
	"backend/otlpexport":                       {"backend/model", "backend/analyze", "backend/interop", "backend/source/restclient"},
	"backend/publish":                          {"backend/model", "backend/store", "backend/analyze", "backend/otlpexport"},
	"backend/model/modeltest":                  {"backend/model"},
	"backend/capture/capturetest":              {"backend/model", "backend/capture"},
	"backend/source/restclient/restclienttest": {"backend/model"},
	"app/apptest":                              {"app"},
	"app":                                      {"backend/", "app/places"},
	"app/places":                               {},
	"app/cli":                                  {"app", "app/serve", "backend/model", "backend/analyze"},
	"app/serve":                                {"app"},
	"app/window":                               {"app", "app/cli"},
	"app/contractgen":                          {"app"},
	"":                                         {"app/cli", "app/window"},
}

func TestPackagesImportOnlyWhatTheArchitectureAllows(t *testing.T) {
	checkImports(t, allowedImports)
}

// checkImports compares every package's imports of this module with allowed.
func checkImports(t *testing.T, allowed map[string][]string) {
	t.Helper()
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	const mod = "checkpoint-explorer"
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		pkg := strings.TrimPrefix(strings.TrimPrefix(f[0], mod), "/")
		if strings.HasPrefix(pkg, "testenv/") {
			continue // test support may use anything
		}
		may, ok := allowed[pkg]
		if !ok {
			t.Errorf("package %q is not in docs/architecture.md's table (allowedImports)", f[0])
			continue
		}
		for _, imp := range f[1:] {
			rel, ours := strings.CutPrefix(imp, mod+"/")
			if !ours {
				continue
			}
			if !slices.ContainsFunc(may, func(a string) bool { return rel == a || (strings.HasSuffix(a, "/") && strings.HasPrefix(rel, a)) }) {
				t.Errorf("%s imports %s, which docs/architecture.md does not allow it", f[0], rel)
			}
		}
	}
}

// Nothing under backend/ depends on app/, directly or through another
// package: data flows one way, source → collect → store → analyze → app.
func TestBackendDependsOnNoApp(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Deps \" \"}}", "./backend/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		for _, dep := range f[1:] {
			if dep == "checkpoint-explorer/app" || strings.HasPrefix(dep, "checkpoint-explorer/app/") {
				t.Errorf("%s depends on %s", f[0], dep)
			}
		}
	}
}

// maxAppLines bounds the package app's own non-test Go (its doors and
// subpackages apart): the facade's methods, lifecycle, events, config,
// secrets and data dirs; an engine's wiring goes beside the engine
// (docs/architecture.md).
const maxAppLines = 3500

func TestAppStaysAFacade(t *testing.T) {
	files, err := filepath.Glob("app/*.go")
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		n := bytes.Count(b, []byte("\n"))
		if len(b) > 0 && b[len(b)-1] != '\n' {
			n++
		}
		total += n
	}
	if total >= maxAppLines {
		t.Errorf("package app has %d lines of non-test Go, at most %d allowed: move the wiring of an engine or a backend beside it (docs/architecture.md)", total, maxAppLines-1)
	}
}
