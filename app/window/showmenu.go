//go:build !linux || !(production || dev)

package window

import (
	"context"

	"github.com/wailsapp/wails/v2/pkg/menu"
	wruntime "github.com/wailsapp/wails/v2/pkg/runtime"
)

// showMenu replaces the window's menu with m, as Wails does on Windows and
// macOS (on Linux it cannot: showmenu_gtk.go).
func showMenu(ctx context.Context, m *menu.Menu) {
	wruntime.MenuSetApplicationMenu(ctx, m)
	wruntime.MenuUpdateApplicationMenu(ctx)
}
