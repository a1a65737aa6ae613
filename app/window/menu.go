package window

import (
	"context"
	_ "embed"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/wailsapp/wails/v2/pkg/menu"
	"github.com/wailsapp/wails/v2/pkg/menu/keys"
	wruntime "github.com/wailsapp/wails/v2/pkg/runtime"

	"checkpoint-explorer/app"
)

// appIcon is the window's icon, rendered from packaging/icon.svg (make icons).
//
//go:embed appicon.png
var appIcon []byte

// onlineDocs is where Help → Documentation goes when no documentation is
// installed beside the binary.
const onlineDocs = "https://github.com/checkpoint-explorer/checkpoint-explorer/blob/main/"

// menuLang is the menu's first language, from the locale the app starts in
// (LC_ALL, LC_MESSAGES, LANG): the native menu is built before the page loads
// and picks its language; the page then tells it (Menu.SetLanguage).
func menuLang(getenv func(string) string) string {
	for _, k := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		if v := getenv(k); v != "" {
			if strings.HasPrefix(strings.ToLower(v), "zh") {
				return "zh"
			}
			return "en"
		}
	}
	return "en"
}

// menuText is every label of the menu and its dialogs, by language ("en",
// "zh") and key.
var menuText = byLanguage([]menuLabel{
	{"file", "File", "文件"},
	{"open", "Open capture…", "打开捕获文件…"},
	{"export", "Export…", "导出…"},
	{"quit", "Quit", "退出"},
	{"view", "View", "视图"},
	{"fleet", "Fleet", "作业总览"},
	{"job", "Timeline", "时间线"},
	{"heatmap", "Heatmaps", "热力图"},
	{"compare", "Compare", "对比"},
	{"retention", "Cache & overhead", "缓存与开销"},
	{"alerts", "Alerts…", "告警…"},
	{"shortcuts", "Keyboard shortcuts", "键盘快捷键"},
	{"help", "Help", "帮助"},
	{"docs", "Documentation", "文档"},
	{"about", "About Checkpoint Explorer", "关于 Checkpoint Explorer"},
	{"aboutText",
		"Checkpoint Explorer %s\ncommit %s, %s\n\nExplains the checkpoints of Flink and SeaTunnel jobs.",
		"Checkpoint Explorer %s\n提交 %s，%s\n\n解释 Flink 与 SeaTunnel 作业的检查点。"},
	{"noJob",
		"Export writes a job's checkpoints to a capture file: open a job first, then choose Export….",
		"导出会把一个作业的检查点写入捕获文件：请先打开一个作业，再选择“导出…”。"},
	{"exportTitle", "Nothing to export", "没有可导出的内容"},
	{"docsNotFound", "No documentation is installed here; opening the online documentation.", "本机未安装文档，将打开在线文档。"},
})

// menuLabel is one text of the menu in both languages: a row per key keeps
// every text translated.
type menuLabel struct{ key, en, zh string }

func byLanguage(labels []menuLabel) map[string]map[string]string {
	out := map[string]map[string]string{"en": {}, "zh": {}}
	for _, l := range labels {
		out["en"][l.key], out["zh"][l.key] = l.en, l.zh
	}
	return out
}

// clickJS clicks the page's own button (the same handler a click runs); when
// the button is absent and missingEvent is set, it tells the Go side through
// that runtime event.
func clickJS(testID, missingEvent string) string {
	js := `(() => { const b = document.querySelector('[data-testid="` + testID + `"]');
  if (b && !b.disabled) { b.click(); return; }`
	if missingEvent != "" {
		js += ` if (window.runtime) { window.runtime.EventsEmit("` + missingEvent + `"); }`
	}
	return js + ` })()`
}

// exportUnavailable is the runtime event the page sends when File → Export…
// finds no job to export (the button is there only when a job is open).
const exportUnavailable = "menu:export-unavailable"

// keyJS presses one of the page's view shortcuts (lib/keys.ts), as the keyboard does.
func keyJS(key string) string {
	return `document.body.dispatchEvent(new KeyboardEvent("keydown", { key: "` + key + `", bubbles: true }))`
}

// docsPath finds the installed documentation's first page for lang: in the
// Debian package /usr/share/doc/checkpoint-explorer, in the tarball the
// prefix's share/doc/checkpoint-explorer, in a source tree the repository's docs.
func docsPath(exe, lang string) string {
	dir := "docs"
	if lang == "zh" {
		dir = "docs-zh"
	}
	bin := filepath.Dir(exe)
	for _, root := range []string{
		filepath.Join(bin, "..", "share", "doc", "checkpoint-explorer"), // /usr/bin → /usr/share/doc, prefix/bin → prefix/share/doc
		filepath.Join(bin, "..", ".."),                                  // build/bin in the repository
	} {
		p := filepath.Join(root, dir, "getting-started.md")
		if _, err := os.Stat(p); err == nil {
			abs, err := filepath.Abs(p)
			if err == nil {
				return abs
			}
		}
	}
	return ""
}

// docsURL is what Help → Documentation opens.
func docsURL(exe, lang string) string {
	if p := docsPath(exe, lang); p != "" {
		return (&url.URL{Scheme: "file", Path: filepath.ToSlash(p)}).String()
	}
	if lang == "zh" {
		return onlineDocs + "docs-zh/getting-started.md"
	}
	return onlineDocs + "docs/getting-started.md"
}

// Menu is the window's native menu, speaking the page's language. The window
// binds it (window.go.window.Menu in the page), and the page calls SetLanguage
// as it starts and whenever the user switches languages. Its only exported
// method is SetLanguage: Wails offers every exported method to the page.
type Menu struct {
	ctx     func() context.Context // the window's, nil until it starts
	version app.VersionInfo
	// show puts a menu built in another language in the window (showMenu).
	show func(context.Context, *menu.Menu)

	mu   sync.Mutex // held across a rebuild and its show, so shows keep the order of the switches
	lang string
}

// newMenu is the menu in lang; ctx returns the window's context (set on startup).
func newMenu(lang string, ctx func() context.Context, version app.VersionInfo) *Menu {
	return &Menu{ctx: ctx, version: version, show: showMenu, lang: lang}
}

// SetLanguage makes the menu, and the dialogs its items open, speak lang
// ("en" or "zh"), as the page does. It remembers nothing: the page, which
// keeps the user's choice, says it again on the next start.
func (m *Menu) SetLanguage(lang string) error {
	if _, ok := menuText[lang]; !ok {
		return fmt.Errorf("the menu speaks en or zh, not %q", lang)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if lang == m.lang {
		return nil
	}
	m.lang = lang
	if c := m.ctx(); c != nil {
		m.show(c, m.build(lang))
	}
	return nil
}

// language is the menu's language now; an item's action reads it when clicked,
// so the items of a menu relabelled in place act in the new language too.
func (m *Menu) language() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.lang
}

// text is the label or message key in the menu's language now.
func (m *Menu) text(key string) string { return menuText[m.language()][key] }

// build is the native menu labelled in lang; every action runs off the
// toolkit's thread.
func (m *Menu) build(lang string) *menu.Menu {
	tx := menuText[lang]
	run := func(f func(context.Context)) menu.Callback {
		return func(*menu.CallbackData) {
			if c := m.ctx(); c != nil {
				go f(c)
			}
		}
	}
	js := func(code string) menu.Callback {
		return run(func(c context.Context) { wruntime.WindowExecJS(c, code) })
	}
	bar := menu.NewMenu()
	if runtime.GOOS == "darwin" {
		bar.Append(menu.AppMenu())
		bar.Append(menu.EditMenu())
	}
	file := bar.AddSubmenu(tx["file"])
	file.AddText(tx["open"], keys.CmdOrCtrl("o"), js(clickJS("open-capture", "")))
	file.AddText(tx["export"], keys.CmdOrCtrl("e"), js(clickJS("export-capture", exportUnavailable)))
	file.AddSeparator()
	file.AddText(tx["quit"], keys.CmdOrCtrl("q"), run(wruntime.Quit))
	view := bar.AddSubmenu(tx["view"])
	for _, v := range []struct{ label, key string }{{"fleet", "j"}, {"job", "t"}, {"heatmap", "h"}, {"compare", "c"}, {"retention", "r"}} {
		// The page's single-key shortcut is in the label, not a toolkit accelerator, which
		// would take the key from text fields.
		view.AddText(tx[v.label]+" ("+strings.ToUpper(v.key)+")", nil, js(keyJS(v.key)))
	}
	view.AddText(tx["alerts"], nil, js(clickJS("alerts-button", "")))
	view.AddSeparator()
	view.AddText(tx["shortcuts"]+" (?)", nil, js(keyJS("?")))
	help := bar.AddSubmenu(tx["help"])
	help.AddText(tx["docs"], keys.Key("F1"), run(func(c context.Context) {
		exe, _ := os.Executable()
		wruntime.BrowserOpenURL(c, docsURL(exe, m.language()))
	}))
	help.AddText(tx["about"], nil, run(func(c context.Context) {
		lang := m.language()
		_, _ = wruntime.MessageDialog(c, wruntime.MessageDialogOptions{
			Type: wruntime.InfoDialog, Title: menuText[lang]["about"], Icon: appIcon,
			Message: aboutText(lang, m.version),
		})
	}))
	return bar
}

// menuLabels lists the labels of a menu's items as the toolkit lays them out:
// depth first, each item before its submenu's, a separator as "", hidden items
// (which the toolkit does not create) left out.
func menuLabels(m *menu.Menu) []string {
	var out []string
	var walk func(items []*menu.MenuItem)
	walk = func(items []*menu.MenuItem) {
		for _, it := range items {
			if it.Hidden {
				continue
			}
			out = append(out, it.Label)
			if it.SubMenu != nil {
				walk(it.SubMenu.Items)
			}
		}
	}
	walk(m.Items)
	return out
}

func aboutText(lang string, v app.VersionInfo) string {
	return fmt.Sprintf(menuText[lang]["aboutText"], v.Version, v.Commit, v.GoVersion)
}
