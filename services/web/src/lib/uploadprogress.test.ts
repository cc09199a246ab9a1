import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { setLanguage } from '../i18n';
import { setFormat } from './format';
import { pagesText, passagesText, skippedText, uploadProgressText, type StageProgress } from './uploadprogress';

const p = (stage: StageProgress['stage'], current: number, total: number): StageProgress => ({ stage, current, total });

describe('upload progress wording', () => {
  beforeEach(() => setFormat('en-US', 'USD'));
  afterEach(() => setLanguage('en'));

  it('English: each stage once, counts with their plural, never the service message', () => {
    setLanguage('en');
    expect(uploadProgressText(p('sending', 120 * 1024, 632 * 1024))).toBe('Sending 120.0 KB of 632.0 KB');
    expect(uploadProgressText(p('received', 647168, 647168))).toBe('Received 632.0 KB');
    expect(uploadProgressText(p('queued', 2, 2))).toBe('Waiting for its turn: place 2 in line');
    expect(uploadProgressText(p('parsing', 3, 12))).toBe('Reading page 3 of 12');
    expect(uploadProgressText(p('splitting', 1, 1))).toBe('Split into 1 passage');
    expect(uploadProgressText(p('splitting', 235, 235))).toBe('Split into 235 passages');
    expect(uploadProgressText(p('embedding', 40, 235))).toBe('Indexing passages: 40 of 235');
    expect(uploadProgressText(p('storing', 0, 1))).toBe('Storing 1 passage');
    expect(uploadProgressText(p('storing', 0, 235))).toBe('Storing 235 passages');
    expect(uploadProgressText(p('storing', 0, 1234))).toBe('Storing 1,234 passages');
  });

  it('English plurals of pages and passages', () => {
    setLanguage('en');
    expect([pagesText(1), pagesText(2), pagesText(0)]).toEqual(['1 page', '2 pages', '0 pages']);
    expect([passagesText(1), passagesText(12)]).toEqual(['1 passage', '12 passages']);
  });

  it('Chinese: one form, the measure word kept', () => {
    setLanguage('zh');
    expect([pagesText(1), pagesText(2)]).toEqual(['1 页', '2 页']);
    expect([passagesText(1), passagesText(12)]).toEqual(['1 个段落', '12 个段落']);
    expect(uploadProgressText(p('received', 647168, 647168))).toBe('已接收 632.0 KB');
    expect(uploadProgressText(p('storing', 0, 235))).toBe('正在保存 235 个段落');
    expect(uploadProgressText(p('parsing', 1, 1))).toBe('正在读取第 1 页，共 1 页');
  });
});

describe('what an upload left out', () => {
  beforeEach(() => setFormat('en-US', 'USD'));

  it('one line per page, in page order, each with its reason in words', () => {
    expect(skippedText([{ page: 12, reason: 'blank' }, { page: 3, reason: 'ocr_timeout' }, { page: 7, reason: 'unreadable' }])).toEqual([
      'Page 3: reading it by OCR took longer than allowed',
      'Page 7: too unclear to read (a photo, noise, or a language OCR is not set up for)',
      'Page 12: no words were found on it',
    ]);
  });
  it('names a reason it does not know by its code', () => {
    expect(skippedText([{ page: 2, reason: 'encrypted_image' }])).toEqual(['Page 2: encrypted_image']);
    expect(skippedText([])).toEqual([]);
  });
  it('the OCR stage counts the scanned pages', () => {
    expect(uploadProgressText({ stage: 'ocr', current: 3, total: 12 })).toBe('Reading scanned page 3 of 12 (OCR)');
  });
});
