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

export default defineConfig({
  // Relative asset paths: the Go binary embeds dist/ and serves it from "/",
  // and the Wails window loads it from its own asset server.
  base: './',
  plugins: [svelte(), devFakeBridge()],
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
