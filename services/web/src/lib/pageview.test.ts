import { describe, expect, it } from 'vitest';
import { decodeHighlights, dispositionName, encodeHighlights, imageWidth, nextImageWidth, pageViewSearch, parsePageView } from './pageview';

describe('imageWidth', () => {
  it('asks for the smallest width that is sharp on the screen', () => {
    expect(imageWidth(390, 1)).toBe(400);
    expect(imageWidth(358, 3)).toBe(1200); // 1074 device pixels
    expect(imageWidth(358, 2.625)).toBe(1000); // 940
    expect(imageWidth(736, 1)).toBe(800);
    expect(imageWidth(1001, 1)).toBe(1200);
  });
  it('zooming asks for a sharper one, never more than the service gives', () => {
    expect(imageWidth(358, 2, 2)).toBe(1600); // 1432
    expect(imageWidth(736, 2, 2)).toBe(2000);
    expect(imageWidth(2000, 3, 4)).toBe(2000);
  });
  it('treats a missing ratio or width as one', () => {
    expect(imageWidth(0, 0)).toBe(400);
    expect(imageWidth(500, Number.NaN)).toBe(600);
  });
});

describe('nextImageWidth', () => {
  const sight = (cssWidth: number, dpr: number, zoom = 1, pinch = 1) => ({ cssWidth, dpr, zoom, pinch });
  it('asks for the width the page is drawn at in device pixels, in steps, at most 2000', () => {
    // A 390 px phone at 3x draws the page 364 px wide: 1092 device pixels.
    expect(nextImageWidth(sight(364, 3), null)).toBe(1200);
    // A desktop's 934 px at 1x, and at 2x.
    expect(nextImageWidth(sight(934, 1), null)).toBe(1000);
    expect(nextImageWidth(sight(934, 2), null)).toBe(2000);
  });
  it('asks for a sharper one when the view is zoomed or pinched, never a blurrier one', () => {
    expect(nextImageWidth(sight(364, 1, 2), 400)).toBe(800);
    expect(nextImageWidth(sight(364, 1, 1, 2.5), 400)).toBe(1000);
    expect(nextImageWidth(sight(364, 3, 2, 3), 1200)).toBe(2000);
    // Zoomed out again, or pinched back: the sharp image stays.
    expect(nextImageWidth(sight(364, 1, 1, 1), 1000)).toBe(1000);
    // A pinch below 1 (zoomed out of the page) is fitted as 1.
    expect(nextImageWidth(sight(364, 1, 1, 0.5), null)).toBe(400);
  });
});

describe('highlights in the address', () => {
  it('round-trip at four decimals', () => {
    const hs = [{ x: 0.123456, y: 0.5, w: 0.25, h: 0.0191 }, { x: 0, y: 0.9, w: 1, h: 0.1 }];
    const s = encodeHighlights(hs);
    expect(s).toBe('0.1235,0.5,0.25,0.0191;0,0.9,1,0.1');
    expect(decodeHighlights(s)).toEqual([{ x: 0.1235, y: 0.5, w: 0.25, h: 0.0191 }, { x: 0, y: 0.9, w: 1, h: 0.1 }]);
  });
  it('leave out what is not a rectangle on the page, keeping the rest in order', () => {
    expect(decodeHighlights('0.1,0.1,0.2,0.2;1.5,0,0.1,0.1;0.2,0.2,0,0.1;a,b,c,d;0.9,0,0.2,0.1;0.3,0.3,0.1;0.5,0.5,0.1,0.1'))
      .toEqual([{ x: 0.1, y: 0.1, w: 0.2, h: 0.2 }, { x: 0.5, y: 0.5, w: 0.1, h: 0.1 }]);
    expect(decodeHighlights(null)).toEqual([]);
    expect(decodeHighlights('')).toEqual([]);
  });
});

describe('the page view address', () => {
  const md5 = '0123456789abcdef0123456789abcdef';
  it('holds the page, its label, the file and the highlights', () => {
    const ref = { md5, page: 12, label: '3-12', name: 'Owner manual ü.pdf', highlights: [{ x: 0.1, y: 0.2, w: 0.3, h: 0.04 }] };
    const search = pageViewSearch(ref);
    expect(search).toBe(`?doc=${md5}&page=12&name=Owner+manual+%C3%BC.pdf&label=3-12&hl=0.1%2C0.2%2C0.3%2C0.04`);
    expect(parsePageView(search)).toEqual(ref);
  });
  it('says when the page was read by OCR', () => {
    const ref = { md5, page: 4, name: 'scan.pdf', highlights: [], ocr: true };
    expect(pageViewSearch(ref)).toBe(`?doc=${md5}&page=4&name=scan.pdf&ocr=1`);
    expect(parsePageView(pageViewSearch(ref))).toEqual({ ...ref, label: undefined });
    expect(parsePageView(`?doc=${md5}&page=4&ocr=0`)?.ocr).toBeUndefined();
  });
  it('leaves out what is absent', () => {
    const search = pageViewSearch({ md5, page: 1, name: 'a.pdf', highlights: [] });
    expect(search).toBe(`?doc=${md5}&page=1&name=a.pdf`);
    expect(parsePageView(search)).toEqual({ md5, page: 1, label: undefined, name: 'a.pdf', highlights: [] });
  });
  it('is no view without a document and a page', () => {
    expect(parsePageView('')).toBeNull();
    expect(parsePageView(`?doc=${md5}`)).toBeNull();
    expect(parsePageView(`?doc=${md5}&page=0`)).toBeNull();
    expect(parsePageView(`?doc=${md5}&page=2.5`)).toBeNull();
    expect(parsePageView('?doc=../etc&page=2')).toBeNull();
    expect(parsePageView(`?doc=${md5.toUpperCase()}&page=3`)?.md5).toBe(md5);
  });
});

describe('dispositionName', () => {
  it('prefers the UTF-8 name', () => {
    expect(dispositionName(`inline; filename="Manual p. 3-12.pdf"; filename*=UTF-8''Handbuch%20%C3%BC%20p.%203-12.pdf`)).toBe('Handbuch ü p. 3-12.pdf');
  });
  it('reads a quoted or a bare name', () => {
    expect(dispositionName('attachment; filename="a \\"b\\".pdf"')).toBe('a "b".pdf');
    expect(dispositionName('inline; filename=plain.pdf')).toBe('plain.pdf');
    expect(dispositionName('inline')).toBeNull();
    expect(dispositionName(null)).toBeNull();
  });
});
