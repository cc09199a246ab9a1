import { describe, expect, it } from 'vitest';
import { setLanguage } from '../i18n';
import { chosenText } from './file-picker';

describe('chosenText: what the picker says beside its button, in the app language', () => {
  it('none, the one name, or how many', () => {
    setLanguage('en');
    expect(chosenText(null)).toBe('No file chosen');
    expect(chosenText([])).toBe('No file chosen');
    expect(chosenText([{ name: 'refuels.csv' }])).toBe('refuels.csv');
    expect(chosenText([{ name: 'a.jpg' }, { name: 'b.pdf' }])).toBe('2 files chosen');
    setLanguage('de');
    expect(chosenText(null)).toBe('Keine Datei ausgewählt');
    expect(chosenText([{ name: 'a.jpg' }, { name: 'b.pdf' }, { name: 'c.png' }])).toBe('3 Dateien ausgewählt');
    setLanguage('en');
  });
});
