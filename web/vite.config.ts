/**
 * Build of the web UI (web/src → web/dist), served by `svc server` and `svc start` on the API's origin.
 * `npm run build:web` (scripts/build-web.ts) runs it when web/dist is missing or older than its inputs.
 */

import { resolve } from 'node:path';
import tailwindcss from '@tailwindcss/vite';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { buildInputs } from './build-inputs.ts';

export default defineConfig({
  root: import.meta.dirname,
  base: '/',
  plugins: [react(), tailwindcss(), buildInputs(resolve(import.meta.dirname, '..'))],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // No inline scripts: the server's Content-Security-Policy allows scripts from 'self' only.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    chunkSizeWarningLimit: 2000,
  },
  server: {
    // `npm run dev:web`: the API of a running `npm start` behind the dev server.
    proxy: { '/api': 'http://127.0.0.1:3000' },
  },
});
