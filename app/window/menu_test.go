package window

import (
	"bytes"
	"context"
	"image/png"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"checkpoint-explorer/app"
)

func TestMenuLangFollowsTheLocale(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{}, "en"},
		{map[string]string{"LANG": "zh_CN.UTF-8"}, "zh"},
		{map[string]string{"LANG": "zh_CN.UTF-8", "LC_MESSAGES": "en_US.UTF-8"}, "en"},
		{map[string]string{"LANG": "en_GB.UTF-8", "LC_ALL": "zh_TW.UTF-8"}, "zh"},
		{map[string]string{"LANG": "C"}, "en"},
	} {
		if got := menuLang(func(k string) string { return c.env[k] }); got != c.want {
			t.Errorf("menuLang(%v) = %s, want %s", c.env, got, c.want)
		}
	}
}

// The menu: File (Open capture…, Export…, Quit), View, Help (Documentation,
// About), in English and Chinese, every label in both.
func TestMenuHasItsItemsInBothLanguages(t *testing.T) {
	if !slices.Equal(slices.Sorted(maps.Keys(menuText["en"])), slices.Sorted(maps.Keys(menuText["zh"]))) {
		t.Fatal("the English and Chinese menu texts have different keys")
	}
	for lang, want := range wantMenus {
		got := menuSummary(t, newMenu(lang, func() context.Context { return nil }, app.VersionInfo{}).build(lang))
		if !slices.Equal(got, want) {
			t.Errorf("%s menu:\n got %q\nwant %q", lang, got, want)
		}
	}
}

func TestAboutNamesTheVersion(t *testing.T) {
	s := aboutText("en", app.VersionInfo{Version: "v1.2.3-4-gabc", Commit: "abc", GoVersion: "go1.26.8"})
	for _, w := range []string{"v1.2.3-4-gabc", "commit abc", "go1.26.8"} {
		if !strings.Contains(s, w) {
			t.Errorf("about %q lacks %q", s, w)
		}
	}
}

// Help → Documentation opens the installed pages (package, tarball, source
// tree), else the online ones.
func TestDocsURL(t *testing.T) {
	root := t.TempDir()
	pkg := filepath.Join(root, "usr", "share", "doc", "checkpoint-explorer", "docs-zh")
	if err := os.MkdirAll(pkg, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(pkg, "getting-started.md"), []byte("#"), 0o644); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(root, "usr", "bin", "checkpoint-explorer")
	if got, want := docsURL(exe, "zh"), "file://"+filepath.Join(pkg, "getting-started.md"); got != want {
		t.Errorf("installed: %s, want %s", got, want)
	}
	if got := docsURL(exe, "en"); got != onlineDocs+"docs/getting-started.md" {
		t.Errorf("not installed: %s", got)
	}
	repo, _ := filepath.Abs(filepath.Join("..", ".."))
	if got, want := docsURL(filepath.Join(repo, "build", "bin", "checkpoint-explorer"), "en"), "file://"+filepath.Join(repo, "docs", "getting-started.md"); got != want {
		t.Errorf("source tree: %s, want %s", got, want)
	}
}

// The window's icon is the 512 px rendering of packaging/icon.svg.
func TestAppIconIsAPNG(t *testing.T) {
	img, err := png.Decode(bytes.NewReader(appIcon))
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 512 || b.Dy() != 512 {
		t.Errorf("app icon is %v, want 512x512 (make icons)", b)
	}
}

func TestMenuScriptsUseThePageControls(t *testing.T) {
	for _, id := range []string{"open-capture", "export-capture"} {
		found := false
		_ = filepath.WalkDir(filepath.Join("..", "..", "frontend", "src", "components"), func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				if b, _ := os.ReadFile(p); bytes.Contains(b, []byte(`data-testid="`+id+`"`)) {
					found = true
				}
			}
			return nil
		})
		if !found {
			t.Errorf("no page control has data-testid=%q, which the File menu clicks", id)
		}
		if !strings.Contains(clickJS(id, exportUnavailable), `[data-testid="`+id+`"]`) {
			t.Errorf("clickJS does not select %s", id)
		}
	}
}
