// Answers that say what they are: the Ask page on the default install, where
// docqa has no chat model and quotes passages of the manuals.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startStack } from './harness.mjs';
import { makePdf } from './pdf.mjs';

let s;
let page;

// Six pages that all speak of the engine oil: retrieval finds every one, the
// answer quotes three.
const manual = makePdf([
  ['Engine oil. Change the engine oil every 15000 km or once a year.'],
  ['Engine oil grade. Use engine oil of grade 5W-30 for the engine.'],
  ['Engine oil level. Check the engine oil level every month.'],
  ['Engine oil filter. Replace the engine oil filter with the engine oil.'],
  ['Engine oil capacity. The engine takes 4.5 litres of engine oil.'],
  ['Engine oil warning. A red engine oil light means stop the engine.'],
]);

async function ask(question) {
  await page.getByLabel('Question', { exact: true }).fill(question);
  await page.getByRole('button', { name: 'Ask', exact: true }).click();
  const answer = page.getByRole('region', { name: 'Answer' });
  await page.waitForFunction(() => document.querySelector('.answer')?.getAttribute('aria-busy') === 'false');
  return answer;
}

before(async () => {
  s = await startStack({ chatModel: false });
  page = s.context.pages()[0] ?? (await s.context.newPage());
  const form = new FormData();
  form.append('file', new Blob([manual], { type: 'application/pdf' }), 'oil-manual.pdf');
  const res = await fetch(`${s.base}/api/documents/upload`, { method: 'POST', body: form });
  assert.equal(res.status, 200, await res.text());
});

after(async () => {
  await s?.stop();
});

describe('Ask without a chat model', () => {
  it('says that the answer is quoted passages and how a model is configured', async () => {
    await page.goto(`${s.base}/ask`);
    await page.getByRole('heading', { level: 1 }).waitFor();
    const answer = await ask('How often should I change the engine oil?');
    const notice = answer.getByText('No AI model is configured: these are the passages of your manuals that best match your question', { exact: false });
    await notice.waitFor();
    await answer.getByText('configure one with CHAT_BASE_URL and CHAT_API_KEY', { exact: false }).waitFor();
    assert.match(await answer.innerText(), /\[1\] oil-manual\.pdf, p\. \d: /);
  });

  it('three quotes give three source links, numbered as quoted; More sources holds the rest, collapsed', async () => {
    await page.goto(`${s.base}/ask`);
    await page.getByRole('heading', { level: 1 }).waitFor();
    const answer = await ask('How often should I change the engine oil?');
    const text = await answer.innerText();
    const quoted = [...text.matchAll(/\[(\d)\] oil-manual\.pdf, p\. (\d): /g)].map((m) => [Number(m[1]), `oil-manual.pdf, p. ${m[2]}`]);
    assert.deepEqual(quoted.map(([n]) => n), [1, 2, 3], text);
    const list = page.getByRole('list', { name: 'Sources', exact: true });
    const links = list.getByRole('link');
    assert.deepEqual(await links.allInnerTexts(), quoted.map(([, name]) => name), 'one link per quote, in the order quoted');
    const more = page.getByText('More sources (3)', { exact: true });
    await more.waitFor();
    const rest = page.getByRole('list', { name: 'More sources', exact: true }).getByRole('link');
    assert.equal(await rest.first().isVisible(), false, 'collapsed until asked for');
    await more.click();
    await rest.first().waitFor();
    const restNames = await rest.allInnerTexts();
    assert.equal(restNames.length, 3);
    const all = new Set([...quoted.map(([, name]) => name), ...restNames]);
    assert.equal(all.size, 6, 'the six pages, each once');
  });

  it('the answer shows as it arrives: the first part before the second is sent', async () => {
    await page.goto(`${s.base}/ask`);
    await page.getByRole('heading', { level: 1 }).waitFor();
    // The page's own fetch answers /api/chat/stream with a stream whose second part is held until
    // the test releases it (Playwright's route.fulfill can only send a whole body at once).
    await page.evaluate(() => {
      const real = window.fetch;
      let release;
      const held = new Promise((ok) => { release = ok; });
      window.releaseSecondPart = release;
      window.fetch = async (input, init) => {
        const url = typeof input === 'string' ? input : input.url;
        if (!url.endsWith('/api/chat/stream')) return real(input, init);
        const enc = new TextEncoder();
        const body = new ReadableStream({
          async start(c) {
            c.enqueue(enc.encode('event: sources\ndata: {"mode":"answer","sources":[],"more":[]}\n\ndata: {"content":"The first part,"}\n\n'));
            await held;
            c.enqueue(enc.encode('data: {"content":" then the second."}\n\nevent: done\ndata: {"finishReason":"stop","used":[]}\n\n'));
            c.close();
          },
        });
        return new Response(body, { status: 200, headers: { 'Content-Type': 'text/event-stream' } });
      };
    });
    await page.getByLabel('Question', { exact: true }).fill('Does it stream?');
    await page.getByRole('button', { name: 'Ask', exact: true }).click();
    const answer = page.getByRole('region', { name: 'Answer' });
    await answer.getByText('The first part,', { exact: true }).waitFor();
    assert.equal(await answer.getAttribute('aria-busy'), 'true', 'the stream is still open');
    assert.doesNotMatch(await answer.innerText(), /second/);
    await page.evaluate(() => window.releaseSecondPart());
    await answer.getByText('The first part, then the second.', { exact: true }).waitFor();
    await page.waitForFunction(() => document.querySelector('.answer')?.getAttribute('aria-busy') === 'false');
  });
});
