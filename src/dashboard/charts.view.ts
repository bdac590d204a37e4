import { jsonEscaping } from '../kernel/json-text.js';
import { html, raw } from './html.js';
import type { SafeHtml } from './html.js';

/** The units a chart's values are shown in (web/charts.js formats axis ticks and hover values with them). */
export type ChartUnit = 'ms' | '%' | 'Mbit/s' | 'clients' | 'dBm' | 'dB' | 'req/s' | 'W' | '°C' | 'score' | 'requests';

/** The colours of web/charts.js's palette, in its order (COLORS there). */
const PALETTE = ['blue', 'green', 'amber', 'purple', 'red', 'cyan', 'gray', 'pink'] as const;
/** A colour of the charts' palette, for a series whose colour means something (a status class). */
export type ChartColor = (typeof PALETTE)[number];

/** One line of a chart: its legend label and its points (bucket start as Unix seconds, value in the chart's unit). */
export interface ChartSeries {
  readonly label: string;
  readonly points: readonly (readonly [number, number])[];
  /** Series of one group share a colour (a port's download and upload); by default each has its own. */
  readonly group?: number;
  /** A fixed colour, whatever other series the chart has (before `group`). */
  readonly color?: ChartColor;
  /** Drawn dashed: the second series of a group. */
  readonly dashed?: boolean;
}

/** A time-series chart: what it shows, over which window, in which unit. */
export interface ChartSpec {
  /** Unique on the page; the figure's id is `chart-<id>`. */
  readonly id: string;
  readonly title: string;
  readonly unit: ChartUnit;
  /** The window as Unix seconds [start, end): the time axis spans it even where buckets are missing. */
  readonly window: readonly [number, number];
  /** Bucket width in seconds: buckets further apart than this are gaps, not lines across them. */
  readonly stepSeconds: number;
  readonly series: readonly ChartSeries[];
  /** Lines (the default), or bars stacked per bucket in series order (counts that add up, e.g. requests by status). */
  readonly kind?: 'lines' | 'stacked-bars';
}

/** What charts.js reads: uPlot's aligned data (one time column, one column per series, null where a series has no bucket). */
interface ChartData {
  readonly unit: ChartUnit;
  readonly window: readonly [number, number];
  readonly step: number;
  readonly kind: 'lines' | 'stacked-bars';
  readonly labels: readonly string[];
  /** Per series: its colour's index and whether it is dashed. */
  readonly styles: readonly { readonly color: number; readonly dashed: boolean }[];
  readonly data: readonly (readonly (number | null)[])[];
}

/**
 * A chart as a figure that web/charts.js draws with uPlot: the series are
 * data in a `<script type="application/json">` block (never executed, so
 * the page needs no inline script under `script-src 'self'`). A chart with
 * no bucket at all shows "No data in this window" instead, without script too.
 */
export function renderChart(spec: ChartSpec): SafeHtml {
  const empty = spec.series.every((s) => s.points.length === 0);
  const caption = html`<figcaption><span class="chart-title">${spec.title}</span> <span class="chart-unit">${spec.unit}</span></figcaption>`;
  if (empty) {
    return html`<figure class="chart chart-empty" id="chart-${spec.id}">${caption}<p class="chart-empty-text">No data in this window</p></figure>`;
  }
  return html`<figure class="chart" id="chart-${spec.id}" data-chart>${caption}<div class="chart-plot"></div><script type="application/json" class="chart-data">${jsonForScript(alignSeries(spec))}</script></figure>`;
}

/** The series on one shared, sorted time column, as uPlot takes them. */
export function alignSeries(spec: ChartSpec): ChartData {
  const times = [...new Set(spec.series.flatMap((s) => s.points.map(([t]) => t)))].sort((a, b) => a - b);
  const index = new Map(times.map((t, i) => [t, i]));
  const columns = spec.series.map((s) => {
    const column: (number | null)[] = times.map(() => null);
    for (const [t, value] of s.points) column[index.get(t) as number] = value;
    return column;
  });
  const styles = spec.series.map((s, i) => ({ color: s.color !== undefined ? PALETTE.indexOf(s.color) : (s.group ?? i), dashed: s.dashed === true }));
  return { unit: spec.unit, window: spec.window, step: spec.stepSeconds, kind: spec.kind ?? 'lines', labels: spec.series.map((s) => s.label), styles, data: [times, ...columns] };
}

/**
 * JSON that cannot end the script element it sits in or start markup:
 * labels come from device reports, so `<`, `>` and `&` are escaped as JSON
 * escapes (and the line separators JavaScript once rejected).
 */
function jsonForScript(value: unknown): SafeHtml {
  const text = jsonEscaping(value, /[<>&\u2028\u2029]/g);
  // safe as markup: the text holds no `<`, `>` or `&` any more
  return raw(text);
}
