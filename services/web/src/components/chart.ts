// The charts: uPlot, loaded only by the Statistics page (a separate chunk
// with its stylesheet, never part of the first screen).
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { fmtMonth, numberLocale } from '../lib/format';
import { levelRange, monthTicks, roundTicks, type MonthTick } from '../lib/ticks';

export interface Series {
  /** The calendar months ("2026-03"), one a point. */
  months: string[];
  /** null: no figure that month, a gap in the line. */
  values: (number | null)[];
  name: string;
  /** A second series beside the first (fuel against other costs), drawn in --accent2. */
  second?: { name: string; values: (number | null)[] };
}

// The axes' font, set on both, so that the time axis's labels are measured in
// the font they are drawn in.
const axisFont = '12px system-ui, sans-serif';
let measurer: CanvasRenderingContext2D | null | undefined;

/** textWidth: a line of text's width in px in the axes' font (an estimate where no canvas measures). */
function textWidth(text: string): number {
  if (measurer === undefined) {
    measurer = document.createElement('canvas').getContext('2d');
    if (measurer) measurer.font = axisFont;
  }
  return measurer ? measurer.measureText(text).width : text.length * 7;
}

/** drawChart draws a bar-like line chart of one series into el; returns the cleanup. */
export function drawChart(el: HTMLElement, s: Series): () => void {
  let plot = plotOf(el, s);
  // The chart follows its box: a phone turned sideways or a window resized redraws it at the new width.
  const resized = new ResizeObserver(() => {
    const w = Math.max(260, el.clientWidth || 320);
    if (w !== plot.width) plot.setSize({ width: w, height: 200 });
  });
  resized.observe(el);
  // Its colours are the page's when drawn: a switch between light and dark draws it again.
  const scheme = typeof window.matchMedia === 'function' ? window.matchMedia('(prefers-color-scheme: dark)') : null;
  const redraw = () => {
    plot.destroy();
    plot = plotOf(el, s);
  };
  scheme?.addEventListener('change', redraw);
  return () => {
    scheme?.removeEventListener('change', redraw);
    resized.disconnect();
    plot.destroy();
  };
}

/** plotOf draws the chart in the page's colours of now. */
function plotOf(el: HTMLElement, s: Series): uPlot {
  const css = getComputedStyle(el);
  const fg = css.getPropertyValue('--fg').trim() || '#111';
  const accent = css.getPropertyValue('--accent').trim() || '#0b5cad';
  const grid = css.getPropertyValue('--border').trim() || '#ccc';
  const accent2 = css.getPropertyValue('--accent2').trim() || '#a04a00';
  const xs = s.months.map((_, i) => i);
  // The time axis's labels at the plot's present width (it follows the box: below).
  let ticks: MonthTick[] = [];
  const monthSplits = (u: uPlot): number[] => {
    const slot = u.bbox.width / uPlot.pxRatio / Math.max(1, xs.length);
    ticks = monthTicks(s.months, slot, (m) => fmtMonth(m, 'short'), textWidth);
    return ticks.map((t) => t.index);
  };
  const width = Math.max(260, el.clientWidth || 320);
  return new uPlot(
    {
      width,
      height: 200,
      legend: { show: false },
      cursor: { show: false },
      // The values are levels (money, a price, a consumption): their axis starts at zero (levelRange).
      scales: { x: { time: false, range: [-0.5, Math.max(0.5, xs.length - 0.5)] }, y: { range: () => levelRange([...s.values, ...(s.second?.values ?? [])]) } },
      axes: [
        {
          font: axisFont, stroke: fg, grid: { stroke: grid }, ticks: { stroke: grid },
          splits: monthSplits,
          values: (_u, splits) => splits.map((i) => ticks.find((t) => t.index === i)?.label ?? ''),
        },
        // Round steps, each label with the decimals the step needs: no repeated labels on a narrow range.
        {
          font: axisFont, stroke: fg, grid: { stroke: grid }, ticks: { stroke: grid },
          splits: (_u, _i, min, max) => roundTicks(min, max, 5).ticks,
          values: (_u, splits) => {
            const d = splits.length > 1 ? roundTicks(Math.min(...splits), Math.max(...splits), 5).decimals : 0;
            return splits.map((v) => new Intl.NumberFormat(numberLocale(), { minimumFractionDigits: d, maximumFractionDigits: d }).format(v));
          },
        },
      ],
      series: [
        {},
        { label: s.name, stroke: accent, width: 2, fill: accent + '33', points: { show: true, size: 6, fill: accent } },
        ...(s.second ? [{ label: s.second.name, stroke: accent2, width: 2, dash: [6, 4], points: { show: true, size: 6, fill: accent2 } }] : []),
      ],
    },
    s.second ? [xs, s.values, s.second.values] : [xs, s.values],
    el,
  );
}
