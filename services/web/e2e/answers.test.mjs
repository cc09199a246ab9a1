// Answers that say what they are: the Ask page on the default install, where
// docqa has no chat model and quotes passages of the manuals.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { axeBothSchemes, shootEverywhere, startStack } from './harness.mjs';
import { makePdf } from './pdf.mjs';

let s;
let page;

// Six pages that all speak of the engine oil: retrieval finds every one, the
// answer quotes the three that say when to change it (docqa quotes only
// passages that hold enough of what the question asks about).
const manual = makePdf([
  ['Engine oil. Change the engine oil every 15000 km or once a year.'],
  ['Engine oil grade. Use engine oil of grade 5W-30 for the engine.'],
  ['Engine oil level. Check the engine oil level every month; change the oil when it is black.'],
  ['Engine oil filter. Change the engine oil filter whenever you change the engine oil.'],
  ['Engine oil capacity. The engine takes 4.5 litres of engine oil.'],
  ['Engine oil warning. A red engine oil light means stop the engine.'],
]);

async function ask(question, p = page, names = { question: 'Question', ask: 'Ask', answer: 'Answer' }) {
  await p.getByLabel(names.question, { exact: true }).fill(question);
  await p.getByRole('button', { name: names.ask, exact: true }).click();
  const answer = p.getByRole('region', { name: names.answer });
  await p.waitForFunction(() => document.querySelector('.answer')?.getAttribute('aria-busy') === 'false');
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
  it('says that the answer is quoted passages, once in a conversation, in an owner\'s words', async () => {
    await page.goto(`${s.base}/ask`);
    await page.getByRole('heading', { level: 1 }).waitFor();
    const answer = await ask('How often should I change the engine oil?');
    const notice = answer.getByText('No AI model is configured: these are the passages of your manuals that best match your question', { exact: false });
    await notice.waitFor();
    await answer.getByText('For answers written in words, whoever runs this app can add an AI model.', { exact: false }).waitFor();
    assert.doesNotMatch(await answer.innerText(), /CHAT_BASE_URL|README/, 'the operator\'s settings are the README\'s, not the owner\'s');
    assert.match(await answer.innerText(), /\[1\] oil-manual\.pdf, p\. \d: /);
    // Said once in a conversation: the next answer quotes without saying it again.
    const again = await ask('What oil grade does the engine take?');
    await again.getByText('[1] oil-manual.pdf', { exact: false }).waitFor();
    assert.doesNotMatch(await again.innerText(), /No AI model is configured/);
    assert.equal(await page.getByText('No AI model is configured', { exact: false }).count(), 1);
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

  it('a question in Chinese against the English manual quotes nothing: the app says the manuals are in another language', async () => {
    await page.goto(`${s.base}/ask`);
    await page.getByRole('heading', { level: 1 }).waitFor();
    const answer = await ask('机油多久换一次？');
    await answer.getByText(
      'Your manuals are in another language: the passages that match your question are written in the Latin alphabet. ' +
        'Without an AI model nothing is translated, so none is quoted.',
      { exact: false },
    ).waitFor();
    await answer.getByText('For answers written in words, whoever runs this app can add an AI model.', { exact: false }).waitFor();
    const text = await answer.innerText();
    assert.doesNotMatch(text, /oil-manual\.pdf|Engine oil/, 'no passage is quoted');
    assert.doesNotMatch(text, /these are the passages of your manuals that best match/, 'not the notice of a quoted answer');
    assert.doesNotMatch(text, /Latin script, not in the question's/, "the service's own sentence is not shown besides the notice");
    assert.equal(await page.getByRole('list', { name: 'Sources', exact: true }).count(), 0, 'no source is used');
    // Every retrieved page is still there to open, under More sources.
    const more = page.getByText('More sources (6)', { exact: true });
    await more.click();
    const rest = page.getByRole('list', { name: 'More sources', exact: true }).getByRole('link');
    await rest.first().waitFor();
    assert.deepEqual((await rest.allInnerTexts()).map((n) => n.replace(/\d$/, 'N')), Array(6).fill('oil-manual.pdf, p. N'));
    assert.deepEqual(await axeBothSchemes(page), [], 'the Ask page with the notice');
    await shootEverywhere(page, 'answers-other-script', { fullPage: false });
  });

  it('a question the manual does not cover quotes nothing: the app says so and keeps the nearest pages', async () => {
    await page.goto(`${s.base}/ask`);
    await page.getByRole('heading', { level: 1 }).waitFor();
    const answer = await ask('How do I reset the service indicator?');
    await answer.getByText('Your manuals do not seem to cover this question: no passage holds what it asks about, so none is quoted.', { exact: false }).waitFor();
    const text = await answer.innerText();
    assert.doesNotMatch(text, /\[1\] oil-manual\.pdf|Engine oil/, 'no passage is quoted');
    assert.doesNotMatch(text, /do not seem to cover this question: no passage holds enough/, "the service's own sentence is not shown besides the notice");
    assert.equal(await page.getByRole('list', { name: 'Sources', exact: true }).count(), 0, 'no source is used');
    await page.getByText(/^More sources \(\d\)$/).click();
    await page.getByRole('list', { name: 'More sources', exact: true }).getByRole('link').first().waitFor();
    assert.deepEqual(await axeBothSchemes(page), [], 'the Ask page with the no-match notice');
    await shootEverywhere(page, 'answers-no-match', { fullPage: false });
  });

  it('a German question of the English manual quotes nothing: the app says the manual is in English', async () => {
    await page.goto(`${s.base}/ask`);
    await page.getByRole('heading', { level: 1 }).waitFor();
    const answer = await ask('Wie oft muss das Motoröl gewechselt werden?');
    await answer.getByText('Your manuals are in another language: the passages that match your question are written in English.', { exact: false }).waitFor();
    assert.doesNotMatch(await answer.innerText(), /\[1\] oil-manual\.pdf|Engine oil/, 'no passage is quoted');
    await page.getByText(/^More sources \(\d\)$/).waitFor();
  });

  it('in the Chinese interface the notice is in Chinese', async () => {
    // The interface's language is the owner's stored locale (the first visit stored the browser's).
    const setLocale = (locale) => fetch(`${s.base}/api/preferences`, {
      method: 'PUT', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ locale }),
    });
    assert.equal((await setLocale('zh-CN')).status, 200);
    try {
      await page.goto(`${s.base}/ask`);
      await page.getByRole('heading', { level: 1, name: '提问' }).waitFor();
      const answer = await ask('机油多久换一次？', page, { question: '问题', ask: '提问', answer: '回答' });
      await answer.getByText('你的手册是另一种语言：与你的问题相符的段落是用拉丁字母写的。未配置 AI 模型时无法翻译，因此不作引用。', { exact: false }).waitFor();
      const text = await answer.innerText();
      assert.doesNotMatch(text, /oil-manual\.pdf|Engine oil|Latin/);
      assert.match(text, /打开段落。如需用文字写成的回答/, 'Chinese sentences follow each other without a space');
      await page.getByText('更多出处（6）', { exact: true }).waitFor();
      await page.screenshot({ path: '/tmp/answers-other-script-zh.png' });
    } finally {
      assert.equal((await setLocale('en-IE')).status, 200);
    }
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
