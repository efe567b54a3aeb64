import { useEffect, useRef } from 'preact/hooks';
import uPlot, { type AlignedData, type Options } from 'uplot';
import 'uplot/dist/uPlot.min.css';

export interface Series {
  readonly label: string;
  readonly values: readonly (number | null)[];
  /** CSS custom property name of the stroke colour (themes follow the system). */
  readonly color?: string;
  readonly fill?: boolean;
  readonly bars?: boolean;
}

function cssVar(name: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || '#3b82f6';
}

/**
 * The y axis's tick labels with as many decimals as the step between ticks needs (uPlot's
 * default keeps 3, so a curve of a few thousandths of a SOL read 0, −0, −0).
 */
function tickLabels(_plot: uPlot, splits: number[], _axis: number, _space: number, step: number): string[] {
  const decimals = Math.min(9, Math.max(0, -Math.floor(Math.log10(step))));
  return splits.map((v) => v.toLocaleString('en-US', { maximumFractionDigits: decimals }));
}

/**
 * A uPlot line (or bar) chart sized to its container, redrawn when the data or the width
 * changes. `label` names it for assistive technology; `summary` is read instead of the canvas.
 */
export function Chart({ x, series, label, summary, height = 220, xLabel, yLabel, testId, time = false }: {
  x: readonly number[];
  series: readonly Series[];
  label: string;
  summary: string;
  height?: number;
  xLabel?: string;
  yLabel?: string;
  testId?: string;
  /** x holds Unix seconds: the axis shows dates and times. */
  time?: boolean;
}) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (el === null) return;
    const axis = cssVar('--muted');
    const grid = cssVar('--border');
    const options: Options = {
      width: Math.max(240, el.clientWidth),
      height,
      legend: { show: series.length > 1 },
      cursor: { drag: { x: true, y: false } },
      scales: { x: { time } },
      axes: [
        // Dates and times are wider than numbers: more room between their ticks.
        { stroke: axis, grid: { stroke: grid }, ...(time ? { space: 90 } : {}), ...(xLabel === undefined ? {} : { label: xLabel }) },
        { stroke: axis, grid: { stroke: grid }, size: 70, values: tickLabels, ...(yLabel === undefined ? {} : { label: yLabel }) },
      ],
      series: [
        {},
        ...series.map((s) => {
          const color = cssVar(s.color ?? '--accent');
          return {
            label: s.label,
            stroke: color,
            width: 2,
            ...(s.fill === true ? { fill: `${color}33` } : {}),
            ...(s.bars === true ? { paths: uPlot.paths.bars!({ size: [0.6, 40] }), fill: `${color}aa` } : {}),
          };
        }),
      ],
    };
    const data = [x as number[], ...series.map((s) => s.values as (number | null)[])] as AlignedData;
    const plot = new uPlot(options, data, el);
    const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(240, el.clientWidth), height }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [x, series, height, time]);
  return (
    <figure class="chart" {...(testId === undefined ? {} : { 'data-testid': testId })}>
      <div ref={box} role="img" aria-label={`${label}: ${summary}`} />
      <figcaption class="muted">{label}</figcaption>
    </figure>
  );
}
