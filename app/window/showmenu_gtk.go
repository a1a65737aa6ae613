//go:build linux && (production || dev)

package window

/*
#cgo linux pkg-config: gtk+-3.0
#include <gtk/gtk.h>
#include <stdlib.h>

typedef struct {
	char **labels;
	int n, next;
} ceLabels;

// ceRelabelShell sets the labels of a menu shell's items and their submenus,
// depth first, in the order menuLabels lists them.
static void ceRelabelShell(GtkWidget *shell, ceLabels *l) {
	GList *items = gtk_container_get_children(GTK_CONTAINER(shell));
	for (GList *c = items; c != NULL && l->next < l->n; c = c->next) {
		if (!GTK_IS_MENU_ITEM(c->data)) continue;
		GtkMenuItem *item = GTK_MENU_ITEM(c->data);
		const char *label = l->labels[l->next++];
		if (!GTK_IS_SEPARATOR_MENU_ITEM(item)) gtk_menu_item_set_label(item, label);
		GtkWidget *sub = gtk_menu_item_get_submenu(item);
		if (sub != NULL) ceRelabelShell(sub, l);
	}
	g_list_free(items);
}

// ceMenuBar is the window's menu bar: Wails packs it first in the box that
// fills the window.
static GtkWidget *ceMenuBar(void) {
	GtkWidget *bar = NULL;
	GList *windows = gtk_window_list_toplevels();
	for (GList *w = windows; w != NULL && bar == NULL; w = w->next) {
		GtkWidget *box = GTK_IS_WINDOW(w->data) ? gtk_bin_get_child(GTK_BIN(w->data)) : NULL;
		if (box == NULL || !GTK_IS_BOX(box)) continue;
		GList *kids = gtk_container_get_children(GTK_CONTAINER(box));
		if (kids != NULL && GTK_IS_MENU_BAR(kids->data)) bar = GTK_WIDGET(kids->data);
		g_list_free(kids);
	}
	g_list_free(windows);
	return bar;
}

static gboolean ceRelabel(gpointer data) {
	ceLabels *l = data;
	GtkWidget *bar = ceMenuBar();
	if (bar != NULL) ceRelabelShell(bar, l);
	for (int i = 0; i < l->n; i++) free(l->labels[i]);
	free(l->labels);
	free(l);
	return G_SOURCE_REMOVE;
}

// ceRelabelLater relabels the menu bar on GTK's thread; it owns labels.
static void ceRelabelLater(char **labels, int n) {
	ceLabels *l = malloc(sizeof *l);
	l->labels = labels;
	l->n = n;
	l->next = 0;
	g_idle_add(ceRelabel, l);
}
*/
import "C"

import (
	"context"
	"unsafe"

	"github.com/wailsapp/wails/v2/pkg/menu"
)

// showMenu gives the window's menu bar m's labels, in place. Wails 2.9's
// MenuSetApplicationMenu cannot do it on Linux: it builds a menu bar it never
// puts in the window and forgets the items of the one shown, whose next click
// then panics. Only the labels change with the language (the items, their
// accelerators and their actions stay; an action reads the language when
// clicked), so the bar shown is relabelled item by item, as menuLabels lists m.
func showMenu(_ context.Context, m *menu.Menu) {
	labels := menuLabels(m)
	if len(labels) == 0 {
		return
	}
	arr := (**C.char)(C.malloc(C.size_t(len(labels)) * C.size_t(unsafe.Sizeof((*C.char)(nil)))))
	cs := unsafe.Slice(arr, len(labels))
	for i, l := range labels {
		cs[i] = C.CString(l)
	}
	C.ceRelabelLater(arr, C.int(len(labels)))
}
