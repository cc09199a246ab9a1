import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    environment: 'node',
    // The German and Chinese catalogues load as chunks in the app; in tests, all before any test.
    setupFiles: ['src/i18n/test-setup.ts'],
  },
});
