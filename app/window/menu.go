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

// menuLang is the menu's language, from the locale the app starts in
// (LC_ALL, LC_MESSAGES, LANG): the page picks its own language later, which
// the native menu, built before the page loads, cannot follow.
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

// menuText is every label of the menu and its dialogs, in English and Chinese.
var menuText = map[string]map[string]string{
	"en": {
		"file": "File", "open": "Open capture…", "export": "Export…", "quit": "Quit",
		"view": "View", "job": "Timeline", "heatmap": "Heatmaps", "compare": "Compare",
		"retention": "Cache & overhead", "shortcuts": "Keyboard shortcuts",
		"help": "Help", "docs": "Documentation", "about": "About Checkpoint Explorer",
		"aboutText":    "Checkpoint Explorer %s\ncommit %s, %s\n\nExplains the checkpoints of Flink and SeaTunnel jobs.",
		"noJob":        "Export writes a job's checkpoints to a capture file: open a job first, then choose Export….",
		"exportTitle":  "Nothing to export",
		"docsNotFound": "No documentation is installed here; opening the online documentation.",
	},
	"zh": {
		"file": "文件", "open": "打开捕获文件…", "export": "导出…", "quit": "退出",
		"view": "视图", "job": "时间线", "heatmap": "热力图", "compare": "对比",
		"retention": "缓存与开销", "shortcuts": "键盘快捷键",
		"help": "帮助", "docs": "文档", "about": "关于 Checkpoint Explorer",
		"aboutText":    "Checkpoint Explorer %s\n提交 %s，%s\n\n解释 Flink 与 SeaTunnel 作业的检查点。",
		"noJob":        "导出会把一个作业的检查点写入捕获文件：请先打开一个作业，再选择“导出…”。",
		"exportTitle":  "没有可导出的内容",
		"docsNotFound": "本机未安装文档，将打开在线文档。",
	},
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

// buildMenu is the window's native menu. ctx returns the window's context
// (set on startup); every action runs off the toolkit's thread.
func buildMenu(lang string, ctx func() context.Context, version app.VersionInfo) *menu.Menu {
	tx := menuText[lang]
	run := func(f func(context.Context)) menu.Callback {
		return func(*menu.CallbackData) {
			if c := ctx(); c != nil {
				go f(c)
			}
		}
	}
	js := func(code string) menu.Callback {
		return run(func(c context.Context) { wruntime.WindowExecJS(c, code) })
	}
	m := menu.NewMenu()
	if runtime.GOOS == "darwin" {
		m.Append(menu.AppMenu())
		m.Append(menu.EditMenu())
	}
	file := m.AddSubmenu(tx["file"])
	file.AddText(tx["open"], keys.CmdOrCtrl("o"), js(clickJS("open-capture", "")))
	file.AddText(tx["export"], keys.CmdOrCtrl("e"), js(clickJS("export-capture", exportUnavailable)))
	file.AddSeparator()
	file.AddText(tx["quit"], keys.CmdOrCtrl("q"), run(wruntime.Quit))
	view := m.AddSubmenu(tx["view"])
	for _, v := range []struct{ label, key string }{{"job", "t"}, {"heatmap", "h"}, {"compare", "c"}, {"retention", "r"}} {
		// The page's single-key shortcut is in the label, not a toolkit accelerator, which
		// would take the key from text fields.
		view.AddText(tx[v.label]+" ("+strings.ToUpper(v.key)+")", nil, js(keyJS(v.key)))
	}
	view.AddSeparator()
	view.AddText(tx["shortcuts"]+" (?)", nil, js(keyJS("?")))
	help := m.AddSubmenu(tx["help"])
	help.AddText(tx["docs"], keys.Key("F1"), run(func(c context.Context) {
		exe, _ := os.Executable()
		wruntime.BrowserOpenURL(c, docsURL(exe, lang))
	}))
	help.AddText(tx["about"], nil, run(func(c context.Context) {
		_, _ = wruntime.MessageDialog(c, wruntime.MessageDialogOptions{
			Type: wruntime.InfoDialog, Title: tx["about"], Icon: appIcon,
			Message: aboutText(lang, version),
		})
	}))
	return m
}

func aboutText(lang string, v app.VersionInfo) string {
	return fmt.Sprintf(menuText[lang]["aboutText"], v.Version, v.Commit, v.GoVersion)
}
