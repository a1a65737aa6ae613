#!/usr/bin/python3
"""A GTK 3 window that offers files as a drag source (text/uri-list), for dropping them on the
real app window under Xvfb: testenv/desktop-drop.sh presses the mouse on it, moves to the app's
window and releases. It prints "ready X Y" (the centre of its button, in root coordinates) once
shown, and exits when a drop ends (printing "dropped" or "drag failed") or after 60 s.

Usage: dragsource.py FILE...
"""
import sys

import gi

gi.require_version("Gtk", "3.0")
gi.require_version("Gdk", "3.0")
from gi.repository import Gdk, GLib, Gtk  # noqa: E402

paths = sys.argv[1:]
if not paths:
    sys.exit("usage: dragsource.py FILE...")
uris = [GLib.filename_to_uri(GLib.canonicalize_filename(p, None), None) for p in paths]

win = Gtk.Window(title="ce-drag-source")
win.set_default_size(160, 80)
win.move(0, 0)
button = Gtk.Button(label="drag me")
win.add(button)
button.drag_source_set(Gdk.ModifierType.BUTTON1_MASK, [], Gdk.DragAction.COPY)
button.drag_source_add_uri_targets()


def on_get(_widget, _ctx, data, _info, _time):
    data.set_uris(uris)


def on_end(_widget, _ctx):
    print("dropped", flush=True)
    GLib.timeout_add(300, Gtk.main_quit)


def on_failed(_widget, _ctx, result):
    print(f"drag failed: {result.value_nick}", flush=True)
    GLib.timeout_add(300, Gtk.main_quit)
    return True


def announce():
    alloc = button.get_allocation()
    ox, oy = button.get_window().get_origin()[1:]
    print(f"ready {ox + alloc.x + alloc.width // 2} {oy + alloc.y + alloc.height // 2}", flush=True)
    return False


button.connect("drag-data-get", on_get)
button.connect("drag-end", on_end)
button.connect("drag-failed", on_failed)
win.connect("destroy", Gtk.main_quit)
win.show_all()
GLib.timeout_add(500, announce)
GLib.timeout_add_seconds(60, Gtk.main_quit)
Gtk.main()
