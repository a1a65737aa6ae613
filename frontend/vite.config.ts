/// <reference types="vitest/config" />
import { defineConfig, type Plugin } from 'vite';
import { svelte } from '@sveltejs/vite-plugin-svelte';

// devFakeBridge lets `vite` (dev server only) load dev/fake-bridge.js when the
// page is opened with ?fake — canned data for manual checks before the Go side
// exists. It never runs for `vite build`, so nothing of dev/ reaches dist/.
function devFakeBridge(): Plugin {
  return {
    name: 'ce-dev-fake-bridge',
    apply: 'serve',
    transformIndexHtml(html) {
      const loader =
        '<script>if (new URLSearchParams(location.search).has("fake")) ' +
        'document.write(\'<script src="/dev/fake-bridge.js"><\\/script>\');</script>';
      return html.replace('<head>', '<head>\n    ' + loader);
    },
  };
}

// preloadApp has the page fetch the app's bundle and its styles (src/main.ts,
// imported by src/boot.ts once it has asked for what it can) beside the
// entry, not after it.
function preloadApp(): Plugin {
  return {
    name: 'ce-preload-app',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler(_html, ctx) {
        const main = Object.values(ctx.bundle ?? {}).find((c) => c.type === 'chunk' && c.facadeModuleId?.endsWith('/src/main.ts'));
        if (!main || main.type !== 'chunk') throw new Error('ce-preload-app: no chunk for src/main.ts');
        const css = [...(main.viteMetadata?.importedCss ?? [])].map((href) => ({
          tag: 'link',
          attrs: { rel: 'stylesheet', crossorigin: true, href: `./${href}` },
          injectTo: 'head' as const,
        }));
        return [{ tag: 'link', attrs: { rel: 'modulepreload', crossorigin: true, href: `./${main.fileName}` }, injectTo: 'head' }, ...css];
      },
    },
  };
}

export default defineConfig({
  // Relative asset paths: the Go binary embeds dist/ and serves it from "/",
  // and the Wails window loads it from its own asset server.
  base: './',
  plugins: [svelte(), devFakeBridge(), preloadApp()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    chunkSizeWarningLimit: 1200,
  },
  test: {
    include: ['src/**/*.test.ts'],
    environment: 'node',
  },
});
