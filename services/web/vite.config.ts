import { defineConfig } from 'vite';
import preact from '@preact/preset-vite';
import { VitePWA } from 'vite-plugin-pwa';

// The service worker precaches the shell; API answers are never cached by it
// (the app keeps its own snapshots) and never answered by the navigation
// fallback: /api/ and /health always reach the network.
export default defineConfig({
  plugins: [
    preact(),
    VitePWA({
      strategies: 'generateSW',
      registerType: 'prompt',
      // The app registers the worker itself (src/sw-register.ts): no inline
      // script is injected into index.html, so the CSP needs no exception.
      injectRegister: false,
      includeAssets: ['icon.svg'],
      manifest: {
        name: 'CarHub',
        short_name: 'CarHub',
        description: 'Log refuels, even with one bar of signal, and ask your car manual.',
        id: '/',
        start_url: '/',
        scope: '/',
        display: 'standalone',
        background_color: '#ffffff',
        theme_color: '#0b5cad',
        icons: [
          { src: '/icon-192.png', sizes: '192x192', type: 'image/png', purpose: 'any' },
          { src: '/icon-512.png', sizes: '512x512', type: 'image/png', purpose: 'any' },
          { src: '/icon-maskable-512.png', sizes: '512x512', type: 'image/png', purpose: 'maskable' },
        ],
      },
      workbox: {
        globPatterns: ['**/*.{js,css,html,svg,png,webmanifest}'],
        navigateFallback: '/index.html',
        navigateFallbackDenylist: [/^\/api(\/|$)/, /^\/health$/],
        cleanupOutdatedCaches: true,
        // Push (issue 57): the push and notificationclick handlers, a plain
        // script of public/ (same origin, so script-src 'self' allows it).
        // Being in public/ it is precached too: a change to it changes this
        // worker's precache list, so an app with a new one prompts to update.
        importScripts: ['/sw-push.js'],
        // Nothing from another origin, nothing at run time from a CDN. The
        // one API answer kept here: the page images of the page view
        // (src/components/PageView.tsx), so a page viewed once shows again
        // offline. The network first (a document deleted or no longer shared
        // is not shown from here while online), at most 60 of them,
        // the least recently used out first; signing out empties the cache
        // (src/Root.tsx), since it is keyed by address, not by user.
        runtimeCaching: [
          {
            urlPattern: ({ url, sameOrigin }) => sameOrigin && /^\/api\/documents\/[^/]+\/pages\/\d+\.png$/.test(url.pathname),
            handler: 'NetworkFirst',
            method: 'GET',
            options: {
              cacheName: 'carhub-pages',
              networkTimeoutSeconds: 15,
              expiration: { maxEntries: 60, purgeOnQuotaError: true },
              cacheableResponse: { statuses: [200] },
            },
          },
        ],
      },
    }),
  ],
  // `npm run dev` (port 5173) sends API calls to the gateway of `make run`.
  server: {
    proxy: {
      '/api': 'http://localhost:8000',
      '/health': 'http://localhost:8000',
    },
  },
  build: {
    target: 'es2022',
    // No data: URIs for assets; the CSP keeps img-src to 'self'.
    assetsInlineLimit: 0,
    sourcemap: false,
    rollupOptions: {
      output: {
        // The small components most pages share (src/components/messages,
        // vehicle-picker, document-link, read-marks) ship as one chunk: split
        // in the source by what they do, each its own chunk would cost the
        // first screen a request and 0.5 KB of imports (measured) for no
        // later saving.
        manualChunks(id: string) {
          return /\/src\/components\/(messages|vehicle-picker|document-link|read-marks)\.tsx$/.test(id) ? 'components' : undefined;
        },
      },
    },
  },
});
