// The catalogue of costs (loaded with its chunks) keeps the rules of the
// main ones: the same keys in both languages, the same {parameters},
// nothing empty; tk follows the language in force.
import { describe, expect, it } from 'vitest';
import { costsEn, costsZh, tk } from './costs';
import { setLanguage } from './index';

const params = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

describe('the costs catalogue', () => {
  it('has every key in both languages, with the same parameters', () => {
    expect(Object.keys(costsZh).sort()).toEqual(Object.keys(costsEn).sort());
    for (const k of Object.keys(costsEn) as (keyof typeof costsEn)[]) {
      expect(costsZh[k].trim().length, k).toBeGreaterThan(0);
      expect(params(costsZh[k]), k).toEqual(params(costsEn[k]));
    }
  });
  it('tk reads the language in force and fills the parameters', () => {
    setLanguage('en');
    expect(tk('rem.titled', { title: 'Oil change', due: tk('rem.dueKm', { distance: '800 km' }) })).toBe('Oil change due in 800 km');
    setLanguage('zh');
    expect(tk('rem.titled', { title: '换机油', due: tk('rem.dueKm', { distance: '800 km' }) })).toBe('换机油：还有 800 km 到期');
    setLanguage('en');
  });
});
