// The cited page inside the app: a source of an answer opens its page as an
// image with the passage marked, its printed number, "Save this page" (a
// one-page PDF), the back button closing it, and the page again offline.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { axeBothSchemes, startStack } from './harness.mjs';
import { makePdf, makeScannedPdf } from './pdf.mjs';

let s;
let page;

// Three pages, printed as i, ii and A-1; the tyre pressure is on the second
// page's second line only, so its passage is there and nowhere else.
const manual = makePdf([
  ['Contents. Lights, wipers and the horn.'],
  ['Wheels.', 'Tyre pressure is 2.4 bar at the front and 2.2 bar at the rear.', 'Check it when the tyres are cold.'],
  ['Lights. Replace a headlight bulb from behind the wheel arch.'],
], { pageLabels: '<< /Nums [0 << /S /r >> 2 << /S /D /P (A-) >>] >>' });

async function ask(question) {
  await page.getByLabel('Question', { exact: true }).fill(question);
  await page.getByRole('button', { name: 'Ask', exact: true }).click();
  await page.waitForFunction(() => document.querySelector('.answer')?.getAttribute('aria-busy') === 'false');
}

/** The page view's image: decoded, with its size on screen and its own. */
async function shownImage() {
  const dialog = page.getByRole('dialog');
  const img = dialog.getByRole('img');
  await img.waitFor();
  await page.waitForFunction(() => {
    const i = document.querySelector('.page-view img');
    return i?.complete && i.naturalWidth > 0;
  });
  return img.evaluate((i) => ({ natural: [i.naturalWidth, i.naturalHeight], box: i.getBoundingClientRect().toJSON() }));
}

before(async () => {
  s = await startStack({ chatModel: false });
  page = s.context.pages()[0] ?? (await s.context.newPage());
  const form = new FormData();
  form.append('file', new Blob([manual], { type: 'application/pdf' }), 'tyre-manual.pdf');
  const res = await fetch(`${s.base}/api/documents/upload`, { method: 'POST', body: form });
  assert.equal(res.status, 200, await res.text());
  // The service worker controls the page before anything is viewed, as for an owner who has used the app.
  await page.goto(`${s.base}/ask`);
  await page.evaluate(() => navigator.serviceWorker.ready.then(() => undefined));
  await page.reload();
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
});

after(async () => {
  await s?.stop();
});

describe('the page view', () => {
  it('a source opens its page as an image, the passage marked on its line, the printed number in the title', async () => {
    await ask('What is the tyre pressure at the front?');
    const link = page.getByRole('list', { name: 'Sources', exact: true }).getByRole('link').first();
    assert.equal(await link.innerText(), 'tyre-manual.pdf, p. ii', 'the printed page number, not the physical 2');
    await link.click();
    const dialog = page.getByRole('dialog', { name: 'tyre-manual.pdf, p. ii' });
    await dialog.waitFor();
    assert.match(page.url(), /\/ask\?doc=[0-9a-f]{32}&page=2&/);
    const img = await shownImage();
    // The page is US Letter (612 x 792 pt): the image keeps its shape, and is sharp for a 390 px phone.
    assert.ok(Math.abs(img.natural[1] / img.natural[0] - 792 / 612) < 0.01, `aspect ratio ${img.natural}`);
    assert.ok(img.natural[0] >= img.box.width, `${img.natural[0]} px for ${img.box.width} px on screen`);
    // The passage is the page's three lines (baselines 740, 722 and 704 pt from the bottom, 12 pt
    // Helvetica from x = 72 pt); the quote is the two sentences with the question's words ("Wheels."
    // holds none of them): one mark per quoted line, in order, each as wide as its line's text.
    const marks = await dialog.locator('.page-mark').evaluateAll((els) => els.map((e) => e.getBoundingClientRect().toJSON()));
    const rel = marks.map((m) => ({
      left: (m.left - img.box.left) / img.box.width,
      right: (m.right - img.box.left) / img.box.width,
      top: (m.top - img.box.top) / img.box.height,
      bottom: (m.bottom - img.box.top) / img.box.height,
    }));
    const lines = [722, 704];
    assert.equal(rel.length, lines.length, `one mark per line: ${JSON.stringify(rel)}`);
    rel.forEach((r, i) => {
      // Every line's capitals stand from its baseline to about 8.6 pt above it (Helvetica's cap height).
      const glyphs = { top: (792 - lines[i] - 8) / 792, bottom: (792 - lines[i]) / 792 };
      assert.ok(r.top <= glyphs.top + 0.002 && r.bottom >= glyphs.bottom - 0.002, `mark ${i} covers its line: ${JSON.stringify(r)}`);
      assert.ok(r.bottom - r.top < 18 / 792, `mark ${i} is one line high: ${JSON.stringify(r)}`);
      assert.ok(Math.abs(r.left - 72 / 612) < 0.01, `mark ${i} starts where its line does: ${r.left}`);
    });
    // The pressure's line is about 340 pt wide, "Check it when the tyres are cold." about 185 pt.
    assert.ok(rel[0].right - rel[0].left > 300 / 612, `the pressure's mark is long: ${JSON.stringify(rel[0])}`);
    assert.ok(rel[1].right - rel[1].left < 240 / 612, `the last line's mark is shorter: ${JSON.stringify(rel[1])}`);
    assert.deepEqual(await axeBothSchemes(page), [], 'the page view passes axe-core, light and dark');
  });

  it('"Save this page" gives a one-page PDF of that page, named by the file and the printed number', async () => {
    const dialog = page.getByRole('dialog');
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      dialog.getByRole('button', { name: 'Save this page', exact: true }).click(),
    ]);
    assert.equal(download.suggestedFilename(), 'tyre-manual p. ii.pdf');
    const path = join(s.dir, 'saved-page.pdf');
    await download.saveAs(path);
    assert.equal(readFileSync(path).subarray(0, 5).toString('latin1'), '%PDF-');
    assert.match(execFileSync('pdfinfo', [path], { encoding: 'utf8' }), /^Pages:\s+1$/m);
    const text = execFileSync('pdftotext', [path, '-'], { encoding: 'utf8' });
    assert.match(text, /Tyre pressure is 2\.4 bar/);
    assert.doesNotMatch(text, /Contents|headlight/);
  });

  it('the back button closes the view and the conversation is still there', async () => {
    await page.goBack();
    await page.getByRole('dialog').waitFor({ state: 'hidden' });
    assert.equal(new URL(page.url()).pathname + new URL(page.url()).search, '/ask');
    await page.getByRole('list', { name: 'Sources', exact: true }).getByRole('link').first().waitFor();
    assert.match(await page.getByRole('region', { name: 'Answer' }).innerText(), /Tyre pressure is 2\.4 bar/);
  });

  it('offline, a page viewed before shows again; one never viewed says it needs a connection', async () => {
    const sources = page.getByRole('list', { name: 'Sources', exact: true }).getByRole('link');
    await s.context.setOffline(true);
    try {
      await sources.first().click();
      const img = await shownImage();
      assert.ok(img.natural[0] > 0);
      await page.getByRole('dialog').getByRole('button', { name: 'Close', exact: true }).click();
      await page.getByRole('dialog').waitFor({ state: 'hidden' });
      // Another page of the manual, never opened on this device.
      const unseen = s.base + '/ask' + new URL(await sources.first().getAttribute('href'), s.base).search.replace('page=2', 'page=3').replace(/&label=[^&]*/, '');
      await page.evaluate((url) => {
        history.pushState({ pageView: true }, '', url);
        dispatchEvent(new PopStateEvent('popstate'));
      }, unseen);
      await page.getByRole('dialog').getByText('showing it needs a connection', { exact: false }).waitFor();
    } finally {
      await s.context.setOffline(false);
    }
  });
});

describe('the page view on a desktop', () => {
  it('fits the page to a wider view and asks for a sharper image when zoomed', async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    try {
      await page.goto(`${s.base}/ask`);
      await ask('What is the tyre pressure at the front?');
      await page.getByRole('list', { name: 'Sources', exact: true }).getByRole('link').first().click();
      const before = await shownImage();
      assert.ok(before.box.width > 600, `the image is ${before.box.width} px wide on a desktop`);
      await page.getByRole('dialog').getByRole('button', { name: 'Zoom in', exact: true }).click();
      await page.waitForFunction((w) => (document.querySelector('.page-view img')?.naturalWidth ?? 0) > w, before.natural[0]);
      const after = await shownImage();
      assert.ok(after.box.width > before.box.width * 1.9, 'twice as wide on screen');
      assert.ok(after.natural[0] > before.natural[0], `a sharper image: ${before.natural[0]} -> ${after.natural[0]} px`);
    } finally {
      await page.setViewportSize({ width: 390, height: 844 });
    }
  });
});

/**
 * openTyrePage opens page 2 of tyre-manual.pdf in the page view of a page of context, and
 * answers it with the image widths it asks for (asked, filled as they are asked).
 */
async function openTyrePage(context) {
  const md5 = (await (await fetch(`${s.base}/api/documents`)).json()).find((d) => d.fileName === 'tyre-manual.pdf').fileMd5;
  const p = context.pages()[0] ?? (await context.newPage());
  const asked = [];
  p.on('request', (r) => {
    const m = /\/pages\/\d+\.png\?width=(\d+)/.exec(r.url());
    if (m) asked.push(Number(m[1]));
  });
  await p.goto(`${s.base}/ask?doc=${md5}&page=2&name=tyre-manual.pdf`);
  return { p, asked };
}

describe('a sharp page on every screen', () => {
  // The image is asked for at the width it is drawn at times the device's pixel ratio (in
  // steps, at most 2000), measured once the view is open: a 390 px phone at 3x draws the
  // page about 364 px wide (1092 device pixels), a desktop 934 px.
  const screens = [
    { name: 'a 390x844 phone at 3x', viewport: { width: 390, height: 844 }, deviceScaleFactor: 3 },
    { name: 'a 1280x800 desktop', viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1 },
  ];
  for (const screen of screens) {
    it(`${screen.name}: one image pixel per device pixel, a sharper image when zoomed`, async () => {
      const context = await s.newProfile({ viewport: screen.viewport, deviceScaleFactor: screen.deviceScaleFactor });
      try {
        const { p, asked } = await openTyrePage(context);
        const sharp = async (zoom) => {
          await p.waitForFunction((z) => {
            const i = document.querySelector('.page-view img');
            const frame = document.querySelector('.page-frame');
            if (!i?.complete || !frame) return false;
            const want = Math.min(2000, i.getBoundingClientRect().width * devicePixelRatio);
            return i.naturalWidth >= want - 1 && i.getBoundingClientRect().width > frame.clientWidth * z * 0.9;
          }, zoom, { timeout: 20_000 });
          return p.evaluate(() => {
            const i = document.querySelector('.page-view img');
            return { natural: i.naturalWidth, drawn: i.getBoundingClientRect().width, dpr: devicePixelRatio };
          });
        };
        const fitted = await sharp(1);
        assert.equal(fitted.dpr, screen.deviceScaleFactor);
        const need = Math.min(2000, fitted.drawn * fitted.dpr);
        assert.ok(fitted.natural >= need, `${fitted.natural} px for ${fitted.drawn} css px at ${fitted.dpr}x`);
        // Not much more than needed either: the smallest of the steps that is enough.
        assert.ok(fitted.natural < need * 1.5, `${fitted.natural} px is the step for ${need}`);
        assert.ok(asked.length > 0 && asked.every((w) => w >= need || w === 2000), `widths asked for: ${asked}`);
        if (screen.deviceScaleFactor === 3) assert.equal(asked[0], 1200, 'a 3x phone asks for 1200 px at once, not 400 then more');
        else assert.equal(asked[0], 1000, 'the desktop asks for 1000 px at once');
        await p.getByRole('dialog').getByRole('button', { name: 'Zoom in', exact: true }).click();
        const zoomed = await sharp(2);
        assert.ok(zoomed.natural >= Math.min(2000, zoomed.drawn * zoomed.dpr), `zoomed: ${zoomed.natural} px for ${zoomed.drawn} css px at ${zoomed.dpr}x`);
        assert.ok(zoomed.natural > fitted.natural, `a sharper image: ${fitted.natural} -> ${zoomed.natural}`);
      } finally {
        await context.close();
      }
    });
  }
});

describe('a pinch on a phone', () => {
  it('asks for a sharper image once the owner pinches the page larger', async () => {
    const context = await s.newProfile({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 3, isMobile: true, hasTouch: true });
    try {
      const { p, asked } = await openTyrePage(context);
      await p.waitForFunction(() => (document.querySelector('.page-view img')?.naturalWidth ?? 0) > 0);
      const fitted = await p.evaluate(() => document.querySelector('.page-view img').naturalWidth);
      assert.equal(fitted, 1200, `fitted at 3x: ${asked}`);
      // Two fingers spread to twice the size: the page is drawn at 2 x 364 css px x 3 = 2184 device pixels.
      const cdp = await context.newCDPSession(p);
      // (Headless Chromium scales the visual viewport for the platform's default gesture source, not for 'touch'.)
      await cdp.send('Input.synthesizePinchGesture', { x: 195, y: 500, scaleFactor: 2, gestureSourceType: 'default' });
      await p.waitForFunction(() => visualViewport.scale > 1.5);
      await p.waitForFunction(() => (document.querySelector('.page-view img')?.naturalWidth ?? 0) > 1200, null, { timeout: 20_000 });
      assert.equal(await p.evaluate(() => document.querySelector('.page-view img').naturalWidth), 2000, `widths asked for: ${asked}`);
    } finally {
      await context.close();
    }
  });
});

describe('a scanned manual', () => {
  it('is read by OCR: the upload says which pages were read and which left out, and its page says it is a scan', async () => {
    // Two scanned pages: the coolant's, and a blank sheet, which OCR finds no word on.
    const scan = makeScannedPdf(makePdf([
      ['Coolant.', 'Top up the coolant with G13 antifreeze when the engine is cold.'],
      [''],
    ]));
    await page.goto(`${s.base}/manuals`);
    await page.getByRole('heading', { level: 1 }).waitFor();
    await page.getByLabel('Upload a PDF', { exact: true }).setInputFiles({ name: 'coolant-scan.pdf', mimeType: 'application/pdf', buffer: scan });
    await page.getByRole('status').getByText('Stored coolant-scan.pdf', { exact: false }).waitFor({ timeout: 120_000 });
    const report = page.locator('.upload-report');
    assert.deepEqual((await report.innerText()).split('\n').filter(Boolean), [
      '1 scanned page was read by OCR: a word may be misread.',
      '1 page was left out, so questions are not answered from it:',
      'Page 2: no words were found on it',
    ]);
    await page.goto(`${s.base}/ask`);
    await ask('Which antifreeze for the coolant?');
    const link = page.getByRole('list', { name: 'Sources', exact: true }).getByRole('link').first();
    assert.equal(await link.innerText(), 'coolant-scan.pdf, p. 1');
    await link.click();
    await shownImage();
    await page.getByRole('dialog').getByText('This page is a scan, read by OCR', { exact: false }).waitFor();
  });
});
