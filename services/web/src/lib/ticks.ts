// Ticks of a chart's axes. The value axis at round steps (1, 2 or 5 times a
// power of ten), each label with as many decimals as the step needs, so no two
// labels read the same ("1.73, 1.73, 1.729" was uPlot's own split of a narrow
// range); the time axis's months as many as fit (monthTicks).

/** niceStep: the round step (1, 2, 5 x 10^k) that cuts span into at most count intervals. */
export function niceStep(span: number, count: number): number {
  const raw = span > 0 ? span / Math.max(1, count) : 1;
  const p = 10 ** Math.floor(Math.log10(raw));
  for (const m of [1, 2, 5, 10]) if (m * p >= raw - 1e-12 * p) return m * p;
  return 10 * p;
}

/** stepDecimals: the decimals a label needs at this step (0.005 -> 3, 0.1 -> 1, 20 -> 0). */
export function stepDecimals(step: number): number {
  return Math.max(0, -Math.floor(Math.log10(step) + 1e-9));
}

/** roundTicks: the multiples of a round step within [min, max], at most about count of them. */
export function roundTicks(min: number, max: number, count = 5): { ticks: number[]; decimals: number } {
  const step = niceStep(max - min, count);
  const decimals = stepDecimals(step);
  const ticks: number[] = [];
  for (let i = Math.ceil(min / step - 1e-9); i * step <= max + step * 1e-9; i++) ticks.push(Number((i * step).toFixed(decimals)));
  return { ticks, decimals };
}

/** A labelled month of a time axis: its index among the chart's months, and its label. */
export interface MonthTick {
  index: number;
  label: string;
}

/**
 * monthTicks picks the months of a chart's time axis that get a label, so that no two labels
 * overlap (eleven "2026-03"s on a phone ran into one smear): every step-th month counted back
 * from the last, so the latest month always has its label, with step the smallest at which the
 * widest label and gap fit between two labelled months; slot is the distance in px between
 * neighbouring months. A label is the month's short name (short), with its year on a second line
 * on the first labelled month and wherever the year changes. width measures a line of text in px.
 */
export function monthTicks(months: string[], slot: number, short: (month: string) => string, width: (text: string) => number, gap = 8): MonthTick[] {
  if (months.length === 0) return [];
  const widest = Math.max(...months.map((m) => Math.max(width(short(m)), width(m.slice(0, 4)))));
  const step = Math.max(1, Math.ceil((widest + gap) / Math.max(slot, 1e-9)));
  const picked: number[] = [];
  for (let i = months.length - 1; i >= 0; i -= step) picked.push(i);
  picked.reverse();
  let year = '';
  return picked.map((i) => {
    const m = months[i] ?? '';
    const y = m.slice(0, 4);
    const label = y === year ? short(m) : `${short(m)}\n${y}`;
    year = y;
    return { index: i, label };
  });
}

/**
 * levelRange: the value axis of a chart of levels (a cost, a price, a
 * quantity, a consumption): from zero to the first round step at or above the
 * highest value, so that a change of a few percent looks like one (an axis
 * from 5.65 to 5.75 made it fill the chart). No value (or none above zero): 0 to 1.
 */
export function levelRange(values: (number | null | undefined)[]): [number, number] {
  const top = Math.max(0, ...values.filter((v): v is number => typeof v === 'number' && Number.isFinite(v)));
  if (top <= 0) return [0, 1];
  const step = niceStep(top, 5);
  return [0, Number((Math.ceil(top / step - 1e-9) * step).toFixed(stepDecimals(step)))];
}
