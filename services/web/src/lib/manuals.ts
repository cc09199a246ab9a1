// A vehicle's manuals: fuel keeps the links (manual_md5s), docqa the
// documents. The app shows and asks only what the user's docqa lists, and
// the owner's next save drops what it no longer does
// (proto-docs/fuel-decisions.md, "Manuals of a vehicle").

/** What of a vehicle (api/fuel's Vehicle) the links need. */
interface Vehicle {
  name: string;
  manual_md5s?: string[];
}

/** What of a document (api/docqa's DocumentInfo) the links need. */
interface Doc {
  fileMd5: string;
}

/** linkedManuals: the vehicle's manuals that the user's documents hold, in the vehicle's order. */
export function linkedManuals<D extends Doc>(vehicle: Vehicle | undefined, docs: D[] | undefined): D[] {
  if (!vehicle || !docs) return [];
  const byMd5 = new Map(docs.map((d) => [d.fileMd5, d]));
  return (vehicle.manual_md5s ?? []).flatMap((m) => {
    const d = byMd5.get(m);
    return d ? [d] : [];
  });
}

/**
 * withManual: the links to save when the owner links md5 to the vehicle:
 * the links docqa still lists, then md5 (once). Without the documents'
 * list the links are kept as they are: absence from an unknown list proves
 * nothing.
 */
export function withManual(vehicle: Vehicle, md5: string, docs: Doc[] | undefined): string[] {
  return [...livingLinks(vehicle, docs).filter((m) => m !== md5), md5];
}

/** livingLinks: the vehicle's links that the user's documents still hold (all of them while the list is unknown). */
export function livingLinks(vehicle: Vehicle, docs: Doc[] | undefined): string[] {
  const links = vehicle.manual_md5s ?? [];
  if (!docs) return links;
  const have = new Set(docs.map((d) => d.fileMd5));
  return links.filter((m) => have.has(m));
}

/**
 * chosenLinks: the links a manual picker saves: the ones kept in their
 * old order, then the newly ticked in the documents' order.
 */
export function chosenLinks(before: string[], ticked: ReadonlySet<string>, docs: Doc[]): string[] {
  const kept = before.filter((m) => ticked.has(m));
  const added = docs.map((d) => d.fileMd5).filter((m) => ticked.has(m) && !kept.includes(m));
  return [...kept, ...added];
}

/** vehiclesOf: the vehicles that list the document as a manual, by name. */
export function vehiclesOf<V extends Vehicle>(md5: string, vehicles: V[] | undefined): V[] {
  return (vehicles ?? []).filter((v) => (v.manual_md5s ?? []).includes(md5));
}

/**
 * AskScope: what a question is asked of. documents: the fileMd5 to limit
 * retrieval to (undefined: every manual); vehicle: whose manuals they are.
 */
export interface AskScope<D extends Doc = Doc> {
  documents?: string[];
  vehicle?: string;
  manuals: D[];
}

/**
 * askScope: a question starts scoped to the current vehicle's manuals when
 * the user has any of them; everyWanted (one tap) asks every manual.
 */
export function askScope<D extends Doc>(vehicle: Vehicle | undefined, docs: D[] | undefined, everyWanted: boolean): AskScope<D> {
  const manuals = linkedManuals(vehicle, docs);
  if (everyWanted || manuals.length === 0 || !vehicle) return { manuals };
  return { documents: manuals.map((d) => d.fileMd5), vehicle: vehicle.name, manuals };
}
