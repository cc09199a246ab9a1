// Reports the JavaScript the first screen loads, gzipped, and fails the build
// above the budget: the entry script and the modules it preloads (read from
// dist/index.html) plus workbox-window, which the app imports at start to
// register the service worker. Every other chunk (the charts) loads later,
// only on its page, and is listed apart.
import { readFileSync, readdirSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';

const BUDGET = 60 * 1024;
const dist = new URL('../dist/', import.meta.url).pathname;
const html = readFileSync(join(dist, 'index.html'), 'utf8');
const initial = new Set();
for (const m of html.matchAll(/<script[^>]*\bsrc="\/([^"]+\.js)"/g)) initial.add(m[1]);
for (const m of html.matchAll(/<link[^>]*rel="modulepreload"[^>]*href="\/([^"]+\.js)"/g)) initial.add(m[1]);
for (const f of readdirSync(join(dist, 'assets'))) if (/^workbox-window.*\.js$/.test(f)) initial.add('assets/' + f);
if (initial.size === 0) {
  console.error('size: no script found in dist/index.html');
  process.exit(1);
}
const gz = (f) => gzipSync(readFileSync(join(dist, f)), { level: 9 }).length;
let total = 0;
for (const f of initial) total += gz(f);
const lazy = readdirSync(join(dist, 'assets')).filter((f) => f.endsWith('.js') && !initial.has('assets/' + f));
console.log(`initial JavaScript: ${(total / 1024).toFixed(1)} KB gzipped (${[...initial].join(', ')}); budget ${BUDGET / 1024} KB`);
for (const f of lazy) console.log(`  loaded later: assets/${f} ${(gz('assets/' + f) / 1024).toFixed(1)} KB gzipped`);
if (total > BUDGET) {
  console.error('size: the initial JavaScript is over budget');
  process.exit(1);
}
