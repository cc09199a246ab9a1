// Ticks of a chart's value axis at round steps (1, 2 or 5 times a power of
// ten), each label with as many decimals as the step needs, so no two labels
// read the same ("1.73, 1.73, 1.729" was uPlot's own split of a narrow range).

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
