// Saving and copying what a view shows: PNG files and plain text.
import { api } from './api';

/** safeName makes a file name from free text (job names, cluster names). */
export function safeName(s: string): string {
  const cleaned = s
    .normalize('NFKC')
    .replace(/[\\/:*?"<>|\u0000-\u001f]+/g, '-')
    .replace(/\s+/g, '_')
    .replace(/-{2,}/g, '-')
    .replace(/^[-_.]+|[-_.]+$/g, '');
  return cleaned.slice(0, 80) || 'checkpoint-explorer';
}

/** inDesktopWindow reports whether the page runs in the Wails window (no downloads there). */
function inDesktopWindow(): boolean {
  const w = window as unknown as { __CE_MODE?: string; go?: { app?: { App?: { SaveFile?: unknown } } } };
  return w.__CE_MODE !== 'browser' && typeof w.go?.app?.App?.SaveFile === 'function';
}

async function base64Of(data: Blob | string): Promise<string> {
  if (typeof data === 'string') return data.slice(data.indexOf(',') + 1); // a data URL
  const bytes = new Uint8Array(await data.arrayBuffer());
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin);
}

/**
 * download saves a blob or a data URL under name: through a temporary link in
 * a browser, through the facade's save dialog in the desktop window (WebKitGTK
 * there does not download).
 */
export function download(data: Blob | string, name: string): void {
  if (inDesktopWindow()) {
    void base64Of(data)
      .then((b64) => api.saveFile(name, b64))
      .catch((e) => console.error('save failed:', e));
    return;
  }
  const url = typeof data === 'string' ? data : URL.createObjectURL(data);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.rel = 'noopener';
  document.body.append(a);
  a.click();
  a.remove();
  if (typeof data !== 'string') setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** copyText puts text on the clipboard, falling back to a hidden textarea where the API is missing. */
export async function copyText(text: string): Promise<void> {
  if (navigator.clipboard?.writeText) {
    try {
      await navigator.clipboard.writeText(text);
      return;
    } catch {
      // permission refused (e.g. unfocused document): try the old way
    }
  }
  const ta = document.createElement('textarea');
  ta.value = text;
  ta.setAttribute('readonly', '');
  ta.style.position = 'fixed';
  ta.style.opacity = '0';
  document.body.append(ta);
  ta.select();
  const ok = document.execCommand('copy');
  ta.remove();
  if (!ok) throw new Error('the clipboard is not available here');
}

/**
 * composePng draws several canvases (or images) one under another on the
 * page background, with a title line, for "save the view as PNG".
 */
export async function composePng(
  parts: (HTMLCanvasElement | string)[],
  opts: { title: string; background: string; text: string; font: string; pixelRatio?: number },
): Promise<Blob | null> {
  const ratio = opts.pixelRatio ?? 2;
  const imgs: (HTMLCanvasElement | HTMLImageElement)[] = [];
  for (const p of parts) {
    if (typeof p === 'string') {
      const img = new Image();
      img.src = p;
      await img.decode();
      imgs.push(img);
    } else imgs.push(p);
  }
  const w = Math.max(1, ...imgs.map((i) => i.width));
  const titleH = 28 * ratio;
  const gap = 8 * ratio;
  const h = titleH + imgs.reduce((a, i) => a + i.height + gap, 0);
  const c = document.createElement('canvas');
  c.width = w;
  c.height = h;
  const ctx = c.getContext('2d');
  if (!ctx) return null;
  ctx.fillStyle = opts.background;
  ctx.fillRect(0, 0, w, h);
  ctx.fillStyle = opts.text;
  ctx.font = `${14 * ratio}px ${opts.font}`;
  ctx.textBaseline = 'middle';
  ctx.fillText(opts.title, 8 * ratio, titleH / 2);
  let y = titleH;
  for (const i of imgs) {
    ctx.drawImage(i, 0, y);
    y += i.height + gap;
  }
  return new Promise((resolve) => c.toBlob((b) => resolve(b), 'image/png'));
}
