import { SQUARES, type History } from './history';

/** Which per-square column an order sorts, ascending, or `deployedDescending`. */
export type OrderedColumn = 'deployed' | 'count' | 'deployedDescending';

class OrderCache {
  order = new Int8Array(0);
  done = 0;
  private readonly keys = new Float64Array(SQUARES);

  constructor(private readonly column: OrderedColumn) {}

  extend(h: History): void {
    if (this.order.length < h.length * SQUARES) {
      const next = new Int8Array(Math.max(h.length, (this.order.length / SQUARES) * 2) * SQUARES);
      next.set(this.order);
      this.order = next;
    }
    const values = this.column === 'count' ? h.count : h.deployed;
    // Descending: sort the negated values (equal values still keep the lower square first).
    const sign = this.column === 'deployedDescending' ? -1 : 1;
    const keys = this.keys;
    const order = this.order;
    for (let i = this.done; i < h.length; i++) {
      const base = i * SQUARES;
      // Stable insertion sort in square order: equal values keep the lower square first.
      for (let s = 0; s < SQUARES; s++) {
        const v = sign * values[base + s]!;
        let r = s;
        while (r > 0 && v < keys[r - 1]!) {
          keys[r] = keys[r - 1]!;
          order[base + r] = order[base + r - 1]!;
          r--;
        }
        keys[r] = v;
        order[base + r] = s;
      }
    }
    this.done = h.length;
  }
}

// Derived once per History and extended as it grows; shared by every runner on it.
const caches = new WeakMap<History, Partial<Record<OrderedColumn, OrderCache>>>();

/**
 * For every stored round, its 25 squares ordered by `column` (ascending, or deployed SOL
 * descending), ties by lower square index: order[i * 25 + rank] = square. spread,
 * anti_spread and min_miners read their k squares from here instead of sorting the
 * previous round every time.
 */
export function squareOrder(history: History, column: OrderedColumn): Int8Array {
  let entry = caches.get(history);
  if (entry === undefined) {
    entry = {};
    caches.set(history, entry);
  }
  let cache = entry[column];
  if (cache === undefined) {
    cache = new OrderCache(column);
    entry[column] = cache;
  }
  if (cache.done < history.length) cache.extend(history);
  return cache.order;
}
