// The marks a receipt's scan leaves on the fields it filled (components/
// receipt-scan.tsx fills them; the forms show them until the owner changes
// a field).
/** What a receipt's scan filled: each field's mark (until the owner changes it) and the marks' words (lib/receipts.ts). */
export interface ReadMarks {
  marks: Record<string, 'read' | 'unsure'>;
  words: { read: string; unsure: string };
}

export const NO_MARKS: ReadMarks = { marks: {}, words: { read: '', unsure: '' } };

/** unmark: the marks without those of ids (the owner changed those fields). */
export function unmark(r: ReadMarks, ...ids: string[]): ReadMarks {
  return ids.some((i) => i in r.marks) ? { ...r, marks: Object.fromEntries(Object.entries(r.marks).filter(([k]) => !ids.includes(k))) } : r;
}

/** fieldClass: a field's class, with its mark ("field read", "field unsure"). */
export const fieldClass = (r: ReadMarks, id: string) => `field ${r.marks[id] ?? ''}`.trim();

/** markId: the id of the mark under field id, for its aria-describedby (undefined when not marked). */
export const markId = (r: ReadMarks, id: string) => (r.marks[id] ? `${id}-read` : undefined);

/** ReadMark: "Read from the receipt" under a field the scan filled; an unsure reading says to check it. */
export function ReadMark({ r, id }: { r: ReadMarks; id: string }) {
  const m = r.marks[id];
  if (!m) return null;
  return <p id={`${id}-read`} class={`read-mark ${m}`}>{m === 'unsure' ? r.words.unsure : r.words.read}</p>;
}
