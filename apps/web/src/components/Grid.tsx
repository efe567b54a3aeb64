import { intensity, sol } from '../format';

export interface GridCell {
  /** Lamports on the square; null where not known (a partly known round). */
  readonly deployed: number | null;
  readonly miners: number | null;
  /** Shown instead of the miner count (for example the square's hits). */
  readonly note?: string;
}

/** What the heatmap colours by, when not the deployed SOL. */
export interface GridMetric {
  /** Per square: the value the colour follows (higher: hotter). */
  readonly values: readonly number[];
  /** Per square: the text shown large in the cell. */
  readonly format: (value: number) => string;
}

/**
 * The 5x5 board as a heatmap (square 0 top left, row by row): of deployed SOL, or of
 * `metric`, with each square's miners; `highlight` marks squares (the last winner);
 * `marks` adds a short tag to squares (who takes the prize if it wins).
 */
export function Grid({
  cells,
  highlight = [],
  caption,
  relative = false,
  metric,
  marks,
}: {
  cells: readonly GridCell[];
  highlight?: readonly number[];
  caption: string;
  relative?: boolean;
  metric?: GridMetric;
  marks?: readonly (string | null)[];
}) {
  const values = metric?.values ?? cells.map((c) => c.deployed ?? 0);
  const max = Math.max(0, ...values);
  // Relative (and any metric that can be negative): the scale runs from the smallest square to the largest.
  const min = relative || metric !== undefined ? Math.min(...values) : 0;
  return (
    <table class="grid" data-testid="grid">
      <caption class="visually-hidden">{caption}</caption>
      <tbody>
        {[0, 1, 2, 3, 4].map((row) => (
          <tr key={row}>
            {[0, 1, 2, 3, 4].map((col) => {
              const i = row * 5 + col;
              const cell = cells[i] ?? { deployed: 0, miners: 0 };
              const value = values[i] ?? 0;
              const heat = intensity(value - min, max - min);
              const known = cell.deployed !== null;
              const main = metric === undefined ? (known ? sol(cell.deployed, 3) : 'unknown') : metric.format(value);
              const miners = cell.note ?? (cell.miners === null ? 'miners unknown' : `${cell.miners} miners`);
              const mark = marks?.[i] ?? null;
              return (
                <td
                  key={i}
                  class={`cell${highlight.includes(i) ? ' winner' : ''}${known ? '' : ' unknown'}`}
                  style={{ '--heat': (known ? heat : 0).toFixed(3) }}
                  data-square={i}
                  data-deployed={cell.deployed ?? 'unknown'}
                  data-value={value}
                  title={`Square ${i}: ${main}${known ? `, ${sol(cell.deployed)}` : ''}, ${miners}${mark === null ? '' : `, ${mark}`}`}
                >
                  <span class="cell-index">
                    #{i}
                    {mark !== null && <span class="cell-mark"> {mark}</span>}
                  </span>
                  <span class="cell-sol">{main}</span>
                  <span class="cell-miners">{miners}</span>
                </td>
              );
            })}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
