import { afterEach, describe, expect, it, vi } from 'vitest';
import { download } from './download';

// The desktop window cannot download: files go through the facade's SaveFile
// (a native save dialog). Here window.go is a stand-in that records the call.
describe('download in the desktop window', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('hands a blob to SaveFile as base64', async () => {
    const saved: [string, string][] = [];
    vi.stubGlobal('window', {
      go: { app: { App: { SaveFile: async (n: string, b: string) => (saved.push([n, b]), '/tmp/' + n) } } },
    });
    download(new Blob(['hi there']), 'view.png');
    await vi.waitFor(() => expect(saved).toHaveLength(1));
    expect(saved[0]).toEqual(['view.png', btoa('hi there')]);
  });

  it('hands a data URL to SaveFile without its header', async () => {
    const saved: [string, string][] = [];
    vi.stubGlobal('window', {
      go: { app: { App: { SaveFile: async (n: string, b: string) => (saved.push([n, b]), '') } } },
    });
    download('data:image/png;base64,iVBORw0K', 'chart.png');
    await vi.waitFor(() => expect(saved).toHaveLength(1));
    expect(saved[0]).toEqual(['chart.png', 'iVBORw0K']);
  });
});
