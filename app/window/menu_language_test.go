package window

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/wailsapp/wails/v2/pkg/menu"

	"checkpoint-explorer/app"
)

// wantMenus is the menu in each language, as menuSummary writes it.
var wantMenus = map[string][]string{
	"en": {"File: Open capture… | Export… | Quit", "View: Fleet (J) | Timeline (T) | Heatmaps (H) | Compare (C) | Cache & overhead (R) | Alerts… | Keyboard shortcuts (?)", "Help: Documentation | About Checkpoint Explorer"},
	"zh": {"文件: 打开捕获文件… | 导出… | 退出", "视图: 作业总览 (J) | 时间线 (T) | 热力图 (H) | 对比 (C) | 缓存与开销 (R) | 告警… | 键盘快捷键 (?)", "帮助: 文档 | 关于 Checkpoint Explorer"},
}

// menuSummary is each submenu as "Title: item | item", separators left out;
// an item that does nothing is an error.
func menuSummary(t *testing.T, m *menu.Menu) []string {
	t.Helper()
	var got []string
	for _, top := range m.Items {
		var items []string
		for _, it := range top.SubMenu.Items {
			if it.IsSeparator() {
				continue
			}
			if it.Click == nil {
				t.Errorf("%s → %s does nothing", top.Label, it.Label)
			}
			items = append(items, it.Label)
		}
		got = append(got, top.Label+": "+strings.Join(items, " | "))
	}
	return got
}

// The page's language switch reaches the menu: SetLanguage shows the menu
// rebuilt in the new language, once per change, and the dialogs the items
// open speak it too.
func TestMenuFollowsThePageLanguage(t *testing.T) {
	var ctx context.Context // nil until the window starts
	m := newMenu("en", func() context.Context { return ctx }, app.VersionInfo{})
	var shown [][]string
	m.show = func(_ context.Context, mm *menu.Menu) { shown = append(shown, menuSummary(t, mm)) }

	if err := m.SetLanguage("zh"); err != nil || len(shown) != 0 || m.text("about") != "关于 Checkpoint Explorer" {
		t.Fatalf("before the window started: err %v, shown %q, about %q; want the language kept, nothing shown", err, shown, m.text("about"))
	}
	ctx = context.Background()
	for _, step := range []struct {
		lang, about string
		shown       int
	}{
		{"en", "About Checkpoint Explorer", 1},
		{"en", "About Checkpoint Explorer", 1}, // no change, no rebuild
		{"zh", "关于 Checkpoint Explorer", 2},
	} {
		if err := m.SetLanguage(step.lang); err != nil {
			t.Fatal(err)
		}
		if len(shown) != step.shown {
			t.Fatalf("after SetLanguage(%s): shown %d menus, want %d", step.lang, len(shown), step.shown)
		}
		if got := shown[len(shown)-1]; !slices.Equal(got, wantMenus[step.lang]) {
			t.Errorf("after SetLanguage(%s) the menu shown is\n %q\nwant %q", step.lang, got, wantMenus[step.lang])
		}
		if got := m.text("about"); got != step.about {
			t.Errorf("after SetLanguage(%s) About says %q, want %q", step.lang, got, step.about)
		}
	}
	if err := m.SetLanguage("fr"); err == nil || m.language() != "zh" || len(shown) != 2 {
		t.Errorf("SetLanguage(fr): err %v, language %s, %d shown; want an error and nothing changed", err, m.language(), len(shown))
	}
}

// Wails offers every exported method of a bound object to the page: the menu
// offers only SetLanguage.
func TestMenuOffersThePageOnlySetLanguage(t *testing.T) {
	typ := reflect.TypeFor[*Menu]()
	if typ.NumMethod() != 1 || typ.Method(0).Name != "SetLanguage" {
		var names []string
		for i := range typ.NumMethod() {
			names = append(names, typ.Method(i).Name)
		}
		t.Errorf("*Menu exports %v, want only SetLanguage", names)
	}
}

// On Linux the bar shown is relabelled in place (showmenu_gtk.go), walking
// its items in the order menuLabels lists them: depth first, separators as "".
func TestMenuLabelsFollowTheBarsOrder(t *testing.T) {
	m := newMenu("zh", func() context.Context { return nil }, app.VersionInfo{}).build("zh")
	want := []string{
		"文件", "打开捕获文件…", "导出…", "", "退出",
		"视图", "作业总览 (J)", "时间线 (T)", "热力图 (H)", "对比 (C)", "缓存与开销 (R)", "告警…", "", "键盘快捷键 (?)",
		"帮助", "文档", "关于 Checkpoint Explorer",
	}
	if got := menuLabels(m); !slices.Equal(got, want) {
		t.Errorf("menuLabels:\n got %q\nwant %q", got, want)
	}
	m.Items[1].SubMenu.Items[0].Hidden = true // the toolkit creates no hidden item
	if got := menuLabels(m); slices.Contains(got, "作业总览 (J)") || len(got) != len(want)-1 {
		t.Errorf("menuLabels lists a hidden item: %q", got)
	}
}
