// Package window is the desktop door: the Wails window over the app, its
// dialogs, drops and size remembered between runs.
package window

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/options/linux"
	wruntime "github.com/wailsapp/wails/v2/pkg/runtime"

	"checkpoint-explorer/app"
	"checkpoint-explorer/app/cli"
)

// windowState is the window's size and position, remembered between runs.
type windowState struct {
	Width  int `json:"width"`
	Height int `json:"height"`
	X      int `json:"x"`
	Y      int `json:"y"`
}

func loadWindowState(path string) windowState {
	ws := windowState{Width: 1280, Height: 800, X: -1, Y: -1}
	if b, err := os.ReadFile(path); err == nil {
		_ = json.Unmarshal(b, &ws)
	}
	ws.Width = max(ws.Width, 800)
	ws.Height = max(ws.Height, 560)
	return ws
}

// wailsDialogs offers the window's native file dialogs to the facade.
type wailsDialogs struct{ ctx context.Context }

func (d wailsDialogs) OpenFile(title string, patterns []string) (string, error) {
	pat := ""
	for i, p := range patterns {
		if i > 0 {
			pat += ";"
		}
		pat += p
	}
	return wruntime.OpenFileDialog(d.ctx, wruntime.OpenDialogOptions{
		Title:   title,
		Filters: []wruntime.FileFilter{{DisplayName: "Captures (" + pat + ")", Pattern: pat}},
	})
}

func (d wailsDialogs) SaveFile(title, defaultName string) (string, error) {
	return wruntime.SaveFileDialog(d.ctx, wruntime.SaveDialogOptions{Title: title, DefaultFilename: defaultName})
}

// Run opens the window and returns when it is closed.
func Run(ctx context.Context, o cli.WindowOptions) error {
	svc, err := app.NewService(ctx, app.Options{DataDir: o.DataDir, Logger: o.Logger})
	if err != nil {
		return err
	}
	statePath := filepath.Join(filepath.Dir(svc.Paths().Config), "window.json")
	ws := loadWindowState(statePath)
	var unsubscribe func()
	// The menu's actions need the window's context, known once it starts.
	var (
		mu   sync.Mutex
		wctx context.Context
	)
	windowCtx := func() context.Context { mu.Lock(); defer mu.Unlock(); return wctx }
	lang := menuLang(os.Getenv)
	menus := newMenu(lang, windowCtx, svc.App().Version())
	err = wails.Run(&options.App{
		Title: "Checkpoint Explorer",
		Menu:  menus.build(lang),
		// The icon, and the program name the desktop entry's StartupWMClass matches.
		Linux:       &linux.Options{Icon: appIcon, ProgramName: "checkpoint-explorer"},
		Width:       ws.Width,
		Height:      ws.Height,
		MinWidth:    800,
		MinHeight:   560,
		StartHidden: true, // shown on DOM ready: no white flash
		AssetServer: &assetserver.Options{Assets: o.Assets},
		// Dropping a capture anywhere on the window opens it (the page's own
		// drop handler is for the browser, where files arrive as uploads).
		// The webview stays a drop target: on Linux, Wails 2.9 reads the
		// dropped paths from the webview's own GTK drop signals, which
		// DisableWebViewDrop unsets (drops then never arrive); Wails' runtime
		// script keeps the page from navigating to a dropped file.
		DragAndDrop: &options.DragAndDrop{EnableFileDrop: true},
		OnStartup: func(c context.Context) {
			mu.Lock()
			wctx = c
			mu.Unlock()
			svc.SetFileDialogs(wailsDialogs{ctx: wctx})
			unsubscribe = svc.Subscribe(func(name string, payload any) { wruntime.EventsEmit(wctx, name, payload) })
			if err := svc.Start(wctx); err != nil {
				wruntime.LogErrorf(wctx, "start: %v", err)
			}
			wruntime.OnFileDrop(wctx, func(_, _ int, paths []string) { svc.OpenDropped(paths) })
			wruntime.EventsOn(wctx, exportUnavailable, func(...any) {
				go wruntime.MessageDialog(wctx, wruntime.MessageDialogOptions{Type: wruntime.InfoDialog, Title: menus.text("exportTitle"), Message: menus.text("noJob")})
			})
		},
		OnDomReady: func(wctx context.Context) {
			if ws.X >= 0 && ws.Y >= 0 {
				wruntime.WindowSetPosition(wctx, ws.X, ws.Y)
			}
			wruntime.WindowShow(wctx)
		},
		OnBeforeClose: func(wctx context.Context) bool {
			var cur windowState
			cur.Width, cur.Height = wruntime.WindowGetSize(wctx)
			cur.X, cur.Y = wruntime.WindowGetPosition(wctx)
			if b, err := json.Marshal(cur); err == nil {
				_ = os.WriteFile(statePath, b, 0o600)
			}
			return false
		},
		OnShutdown: func(context.Context) {
			if unsubscribe != nil {
				unsubscribe()
			}
		},
		// The page calls the facade, and tells the menu its language.
		Bind: []any{svc.App(), menus},
	})
	cerr := svc.Close()
	if err != nil {
		return fmt.Errorf("desktop window: %w (a binary built without `make build` has no window; use `serve`)", err)
	}
	return cerr
}
