// Reports the JavaScript the first screen loads, gzipped, and fails the build
// above the budget: the entry script and the modules it preloads (read from
// dist/index.html) plus workbox-window, which the app imports at start to
// register the service worker, plus the largest catalogue of a language
// (en, de, zh: one of them loads before the first render, src/main.tsx).
// Every other chunk (the charts) loads later, only on its page, and is
// listed apart.
//
// The figures in the READMEs are this script's, never typed: each README keeps
// them between `<!-- size -->` and `<!-- /size -->`. `npm run size:readme`
// (after a build) writes them; a build whose figures differ from a README's
// says so, and fails under CI, so a README cannot keep a stale number.
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';

const BUDGET = 60 * 1024;
const web = new URL('../', import.meta.url).pathname;
const dist = join(web, 'dist');
const html = readFileSync(join(dist, 'index.html'), 'utf8');
const initial = new Set();
for (const m of html.matchAll(/<script[^>]*\bsrc="\/([^"]+\.js)"/g)) initial.add(m[1]);
for (const m of html.matchAll(/<link[^>]*rel="modulepreload"[^>]*href="\/([^"]+\.js)"/g)) initial.add(m[1]);
for (const f of readdirSync(join(dist, 'assets'))) if (/^workbox-window.*\.js$/.test(f)) initial.add('assets/' + f);
// The first screen's catalogue: the largest of the languages' (src/i18n/index.ts LOADERS).
const catalogues = readdirSync(join(dist, 'assets')).filter((f) => /^(en|de|zh)-[A-Za-z0-9_-]{8}\.js$/.test(f));
const gzOf = (f) => gzipSync(readFileSync(join(dist, f)), { level: 9 }).length;
const largest = catalogues.sort((a, b) => gzOf('assets/' + b) - gzOf('assets/' + a))[0];
if (largest) initial.add('assets/' + largest);
if (initial.size === 0) {
  console.error('size: no script found in dist/index.html');
  process.exit(1);
}
const gz = (f) => gzipSync(readFileSync(join(dist, f)), { level: 9 }).length;
const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
let total = 0;
for (const f of initial) total += gz(f);
const lazy = readdirSync(join(dist, 'assets')).filter((f) => f.endsWith('.js') && !initial.has('assets/' + f)).sort();
console.log(`initial JavaScript: ${kb(total)} gzipped (${[...initial].join(', ')}); budget ${BUDGET / 1024} KB`);
for (const f of lazy) console.log(`  loaded later: assets/${f} ${kb(gz('assets/' + f))} gzipped`);
if (total > BUDGET) {
  console.error('size: the initial JavaScript is over budget');
  process.exit(1);
}

// What the READMEs say: the initial figure and each chunk loaded later, by
// its name without the content hash (uPlot's chunk is named after the chart module).
const later = lazy.map((f) => `${f.replace(/-[A-Za-z0-9_-]{8}\.js$/, '')} ${kb(gz('assets/' + f))}`).join(', ');
const figures = `initial JavaScript **${kb(total)} gzipped** (budget ${BUDGET / 1024} KB; the build fails above it); `
  + `loaded later, on their page only: ${later || 'nothing'}`;
// The repository's README is absent where only services/web is copied (the gateway image).
const readmes = [join(web, 'README.md'), join(web, '../../README.md')].filter((p) => existsSync(p));
const block = /(<!-- size -->)[\s\S]*?(<!-- \/size -->)/;
const write = process.argv.includes('--write');
const stale = [];
for (const path of readmes) {
  const text = readFileSync(path, 'utf8');
  if (!block.test(text)) {
    console.error(`size: ${path} has no <!-- size --> ... <!-- /size --> block`);
    process.exit(1);
  }
  const updated = text.replace(block, `$1${figures}$2`);
  if (updated === text) continue;
  if (write) writeFileSync(path, updated);
  else stale.push(path);
}
if (stale.length > 0) {
  console.error(`size: the figures in ${stale.join(' and ')} are not this build's: run \`npm run size:readme\` in services/web`);
  if (process.env.CI) process.exit(1);
}
