package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// What was dropped on the window and did not open is told with the reason in
// words the user can act on, without the layers' prefixes.
func TestOpenDroppedSaysWhy(t *testing.T) {
	a := newTestApp(t, Options{NoSample: true})
	var got []ImportErrorEvent
	defer a.events.subscribe(func(_ string, payload any) {
		if e, ok := payload.(ImportErrorEvent); ok {
			got = append(got, e)
		}
	})()
	d := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(d, name)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	sample, err := os.ReadFile("sample/flink-knobs.ckpt.gz")
	if err != nil {
		t.Fatal(err)
	}
	folder := filepath.Join(d, "captures")
	if err := os.Mkdir(folder, 0o700); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		path string
		want []string
	}{
		{write("shot.png", []byte("\x89PNG\r\n\x1a\n0000")), []string{"not a capture file", "opens capture files (.ckpt.gz)"}},
		{write("empty.ckpt.gz", nil), []string{"the file is empty"}},
		{write("cut.ckpt.gz", sample[:len(sample)/3]), []string{"truncated", "ends early"}},
		{folder, []string{"it is a folder", "drop the capture files"}},
		{filepath.Join(d, "gone.ckpt.gz"), []string{"the file is gone"}},
	}
	for _, c := range cases {
		got = nil
		openDropped(a, []string{c.path})
		if len(got) != 1 {
			t.Fatalf("%s: %d import-error events, want 1", c.path, len(got))
		}
		e := got[0]
		if e.File != filepath.Base(c.path) {
			t.Errorf("%s: event names %q", c.path, e.File)
		}
		for _, w := range c.want {
			if !strings.Contains(e.Error, w) {
				t.Errorf("%s: reason %q lacks %q", filepath.Base(c.path), e.Error, w)
			}
		}
		for _, noise := range []string{"bad request", "store: bulk", "open " + e.File + ":"} {
			if strings.Contains(e.Error, noise) {
				t.Errorf("%s: reason %q still carries %q", filepath.Base(c.path), e.Error, noise)
			}
		}
		t.Logf("%s: %s", e.File, e.Error)
	}
	// A good capture among them still opens, and says which sources it opened.
	got = nil
	var done []ImportDoneEvent
	defer a.events.subscribe(func(_ string, payload any) {
		if e, ok := payload.(ImportDoneEvent); ok {
			done = append(done, e)
		}
	})()
	openDropped(a, []string{write("good.ckpt.gz", sample)})
	if len(got) != 0 {
		t.Errorf("a good capture failed: %+v", got)
	}
	if len(done) != 1 || done[0].File != "good.ckpt.gz" || len(done[0].Sources) == 0 || done[0].Checkpoints == 0 {
		t.Errorf("import-done events %+v, want one naming good.ckpt.gz, its sources and checkpoints", done)
	}
}
