package app

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// jsonFields are the JSON names of a payload's fields, in order.
func jsonFields(e Event) []string {
	var out []string
	t := reflect.TypeOf(e)
	for i := range t.NumField() {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); name != "" && name != "-" {
			out = append(out, name)
		}
	}
	return out
}

// Every event the Go side sends has its payload type in the frontend's
// contract (EventPayloads in contract.gen.ts, with the same fields), a
// listener there, and a row in both languages' api.md; and the frontend
// listens to no other event.
func TestEventsMatchTheFrontendAndTheDocs(t *testing.T) {
	read := func(p string) string {
		b, err := os.ReadFile(filepath.Join("..", p))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	api := read("frontend/src/lib/contract.gen.ts")
	block := regexp.MustCompile(`(?s)export interface EventPayloads \{(.*?)\n\}`).FindStringSubmatch(api)
	if block == nil {
		t.Fatal("contract.gen.ts has no EventPayloads interface")
	}
	entry := regexp.MustCompile(`(?m)^\s*'?([a-z-]+)'?: ([A-Za-z<>, ]+);`)
	payloads := map[string]string{}
	for _, m := range entry.FindAllStringSubmatch(block[1], -1) {
		payloads[m[1]] = m[2]
	}
	// Listeners: api.ts's on('name', …) anywhere in the frontend's sources
	// but tests (not a method such as an ECharts chart's c.on).
	listened := map[string]bool{}
	on := regexp.MustCompile(`(?:^|[^.\w])on\('([a-z-]+)'`)
	err := filepath.WalkDir(filepath.Join("..", "frontend", "src"), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.Contains(p, ".test.") || !(strings.HasSuffix(p, ".ts") || strings.HasSuffix(p, ".svelte")) {
			return err
		}
		b, err := os.ReadFile(p)
		for _, m := range on.FindAllStringSubmatch(string(b), -1) {
			listened[m[1]] = true
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	docs := []string{read("docs/api.md"), read("docs-zh/api.md")}

	var names []string
	for _, e := range Events {
		name := e.EventName()
		names = append(names, name)
		fields := jsonFields(e)
		ts, ok := payloads[name]
		switch {
		case !ok:
			t.Errorf("event %q: not in EventPayloads (frontend/src/lib/contract.gen.ts)", name)
		case len(fields) == 0:
			if !strings.Contains(api, "export type "+ts+" = Record<string, never>;") {
				t.Errorf("event %q has no fields; the contract types it %s", name, ts)
			}
		default:
			decl := regexp.MustCompile(`(?s)export interface ` + ts + ` \{(.*?)\n\}`).FindStringSubmatch(api)
			if decl == nil {
				t.Errorf("event %q: the contract has no interface %s", name, ts)
				break
			}
			var tsFields []string
			for _, m := range regexp.MustCompile(`(?m)^\s*([a-z_]+)\??:`).FindAllStringSubmatch(decl[1], -1) {
				tsFields = append(tsFields, m[1])
			}
			if !slices.Equal(tsFields, fields) {
				t.Errorf("event %q: %s in the contract has fields %v, the Go payload %v", name, ts, tsFields, fields)
			}
		}
		if !listened[name] {
			t.Errorf("event %q: nothing in the frontend listens to it (on('%s', …))", name, name)
		}
		row := "| `" + name + "` | `{" + strings.Join(fields, ", ") + "}` |"
		for i, d := range docs {
			if !strings.Contains(d, row) {
				t.Errorf("event %q: %s has no row starting %s", name, []string{"docs/api.md", "docs-zh/api.md"}[i], row)
			}
		}
	}
	for name := range payloads {
		if !slices.Contains(names, name) {
			t.Errorf("the contract has an event %q the Go side never sends (not in app.Events)", name)
		}
	}
	for name := range listened {
		if !slices.Contains(names, name) {
			t.Errorf("the frontend listens to %q, which the Go side never sends", name)
		}
	}
}

// A capture dropped on the window that does not open is told as an event
// naming the file and the problem.
func TestOpenDroppedTellsWhatDidNotOpen(t *testing.T) {
	a := newTestApp(t, Options{NoSample: true})
	var got []Event
	unsubscribe := a.events.subscribe(func(_ string, payload any) {
		if e, ok := payload.(ImportErrorEvent); ok {
			got = append(got, e)
		}
	})
	defer unsubscribe()
	bad := filepath.Join(t.TempDir(), "broken.ckpt")
	if err := os.WriteFile(bad, []byte("not a capture"), 0o600); err != nil {
		t.Fatal(err)
	}
	openDropped(a, []string{bad})
	if len(got) != 1 {
		t.Fatalf("%d import-error events, want 1", len(got))
	}
	e := got[0].(ImportErrorEvent)
	// The toast says "Could not open FILE: ERROR": the file in File, the reason in Error.
	if e.File != "broken.ckpt" || !strings.Contains(e.Error, "not a capture file") {
		t.Errorf("import-error %+v: want the file and why it did not open", e)
	}
}

// Long work tells its progress: an export sends export-progress events with
// the checkpoints written so far, counting up to what it wrote, and an import
// sends import-progress events likewise.
func TestExportAndImportTellTheirProgress(t *testing.T) {
	old := progressEvery
	progressEvery = 0
	t.Cleanup(func() { progressEvery = old })
	a := newTestApp(t, Options{NoSample: true})
	seedJob(t, a)
	var exports, imports []int64
	defer a.events.subscribe(func(_ string, payload any) {
		switch e := payload.(type) {
		case ExportProgressEvent:
			if e.File != "prod.ckpt.gz" {
				t.Errorf("export progress names %q", e.File)
			}
			exports = append(exports, e.Checkpoints)
		case ImportProgressEvent:
			imports = append(imports, e.Checkpoints)
		}
	})()
	out := filepath.Join(t.TempDir(), "prod.ckpt.gz")
	res, err := a.ExportCapture(ExportRequest{Cluster: "prod", Job: "job1", Path: out})
	if err != nil {
		t.Fatal(err)
	}
	if len(exports) < 10 || !slices.IsSorted(exports) || exports[len(exports)-1] > res.Checkpoints {
		t.Errorf("export progress %v for %d checkpoints: want a rising count up to them", exports, res.Checkpoints)
	}
	b := newTestApp(t, Options{NoSample: true})
	var read []int64
	var sizes []int64
	defer b.events.subscribe(func(_ string, payload any) {
		if e, ok := payload.(ImportProgressEvent); ok {
			imports = append(imports, e.Checkpoints)
			read = append(read, e.Bytes)
			sizes = append(sizes, e.Size)
		}
	})()
	if _, err := b.OpenCapture(out); err != nil {
		t.Fatal(err)
	}
	if len(imports) < 10 || !slices.IsSorted(imports) {
		t.Errorf("import progress %v: want a rising count", imports)
	}
	fi, err := os.Stat(out)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.IsSorted(read) || len(read) == 0 || read[len(read)-1] <= 0 || read[len(read)-1] > fi.Size() ||
		slices.ContainsFunc(sizes, func(n int64) bool { return n != fi.Size() }) {
		t.Errorf("import progress bytes %v of sizes %v: want a rising count up to the file's %d bytes", read, sizes, fi.Size())
	}
}
