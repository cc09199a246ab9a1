import { describe, expect, it } from 'vitest';
import type { Vehicle } from '../api/fuel';
import type { DocumentInfo } from '../api/docqa';
import { askScope, chosenLinks, linkedManuals, livingLinks, vehiclesOf, withManual } from './manuals';

const A = 'a'.repeat(32), B = 'b'.repeat(32), C = 'c'.repeat(32), GONE = 'd'.repeat(32);

const doc = (fileMd5: string, fileName: string): DocumentInfo => ({
  fileName, title: '', fileMd5, size: 1, pages: 1, chunks: 1, duplicate: false, truncated: false, createdAt: '2026-11-01T00:00:00Z',
});
const docs = [doc(A, 'golf.pdf'), doc(B, 'radio.pdf'), doc(C, 'van.pdf')];
const vehicle = (name: string, manual_md5s?: string[]): Vehicle => ({
  id: 1, name, brand: '', model: '', plate_number: '', fuel_type: 'gasoline', tank_capacity: 0, current_odometer: 0,
  default_vehicle: true, created_at: '', updated_at: '', ...(manual_md5s ? { manual_md5s } : {}),
});

describe('linkedManuals', () => {
  it('keeps the vehicle order and leaves out what docqa no longer lists', () => {
    expect(linkedManuals(vehicle('Golf', [B, GONE, A]), docs).map((d) => d.fileName)).toEqual(['radio.pdf', 'golf.pdf']);
  });
  it('is empty without links, a vehicle or the documents', () => {
    expect(linkedManuals(vehicle('Golf'), docs)).toEqual([]);
    expect(linkedManuals(undefined, docs)).toEqual([]);
    expect(linkedManuals(vehicle('Golf', [A]), undefined)).toEqual([]);
  });
});

describe('withManual', () => {
  it('drops stale links and appends the new one once', () => {
    expect(withManual(vehicle('Golf', [GONE, A, B]), A, docs)).toEqual([B, A]);
    expect(withManual(vehicle('Golf', [B]), C, docs)).toEqual([B, C]);
  });
  it('keeps every link while the documents are unknown', () => {
    expect(withManual(vehicle('Golf', [GONE]), A, undefined)).toEqual([GONE, A]);
  });
  it('links the first manual of a vehicle from an older snapshot', () => {
    expect(withManual(vehicle('Golf'), A, docs)).toEqual([A]);
  });
});

describe('livingLinks', () => {
  it('filters by the documents only when they are known', () => {
    expect(livingLinks(vehicle('Golf', [GONE, A]), docs)).toEqual([A]);
    expect(livingLinks(vehicle('Golf', [GONE, A]), undefined)).toEqual([GONE, A]);
  });
});

describe('chosenLinks', () => {
  it('keeps the old order and appends new ticks in the list order', () => {
    expect(chosenLinks([B, A], new Set([C, A, B]), docs)).toEqual([B, A, C]);
    expect(chosenLinks([B, A], new Set([A]), docs)).toEqual([A]);
    expect(chosenLinks([], new Set(), docs)).toEqual([]);
  });
});

describe('vehiclesOf', () => {
  it('names every vehicle that lists the manual', () => {
    const golf = vehicle('Golf', [A]), van = { ...vehicle('Van', [C, A]), id: 2 }, bike = { ...vehicle('Bike', [B]), id: 3 };
    expect(vehiclesOf(A, [golf, van, bike]).map((v) => v.name)).toEqual(['Golf', 'Van']);
    expect(vehiclesOf(GONE, [golf, van, bike])).toEqual([]);
  });
});

describe('askScope', () => {
  it('scopes to the vehicle manuals the user has, naming the vehicle', () => {
    const s = askScope(vehicle('Golf', [GONE, B, A]), docs, false);
    expect(s.documents).toEqual([B, A]);
    expect(s.vehicle).toBe('Golf');
  });
  it('asks every manual when asked to, or when the vehicle has none the user holds', () => {
    expect(askScope(vehicle('Golf', [A]), docs, true)).toEqual({ manuals: [docs[0]] });
    expect(askScope(vehicle('Golf', [GONE]), docs, false)).toEqual({ manuals: [] });
    expect(askScope(undefined, docs, false)).toEqual({ manuals: [] });
  });
});
