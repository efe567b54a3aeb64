import { intensity, sol } from '../format';

export interface GridCell {
  /** Lamports on the square. */
  readonly deployed: number;
  readonly miners: number;
  /** Shown instead of the miner count (for example the square's hits). */
  readonly note?: string;
}

/**
 * The 5x5 board as a heatmap of deployed SOL (square 0 top left, row by row), with each
 * square's miners; `highlight` marks squares (the last winner).
 */
export function Grid({ cells, highlight = [], caption, relative = false }: { cells: readonly GridCell[]; highlight?: readonly number[]; caption: string; relative?: boolean }) {
  const max = Math.max(0, ...cells.map((c) => c.deployed));
  // Relative: the scale runs from the smallest square to the largest (totals over many rounds are close).
  const min = relative ? Math.min(...cells.map((c) => c.deployed)) : 0;
  return (
    <table class="grid" data-testid="grid">
      <caption class="visually-hidden">{caption}</caption>
      <tbody>
        {[0, 1, 2, 3, 4].map((row) => (
          <tr key={row}>
            {[0, 1, 2, 3, 4].map((col) => {
              const i = row * 5 + col;
              const cell = cells[i] ?? { deployed: 0, miners: 0 };
              const heat = intensity(cell.deployed - min, max - min);
              return (
                <td
                  key={i}
                  class={highlight.includes(i) ? 'cell winner' : 'cell'}
                  style={{ '--heat': heat.toFixed(3) }}
                  data-square={i}
                  data-deployed={cell.deployed}
                  title={`Square ${i}: ${sol(cell.deployed)}, ${cell.note ?? `${cell.miners} miners`}`}
                >
                  <span class="cell-index">#{i}</span>
                  <span class="cell-sol">{sol(cell.deployed, 3)}</span>
                  <span class="cell-miners">{cell.note ?? `${cell.miners} miners`}</span>
                </td>
              );
            })}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
