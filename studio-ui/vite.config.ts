import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// The studio's page: built into dist/studio-ui and served by `muster studio` under a CSP of
// `script-src 'self'; style-src 'self'`, so the output holds no inline script or style.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  publicDir: false,
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('../dist/studio-ui', import.meta.url)),
    emptyOutDir: true,
    // no data: URIs for assets and no inline preload helper: everything is a file of its own
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    cssCodeSplit: false,
    sourcemap: false,
  },
});
