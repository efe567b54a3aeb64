/**
 * A queue served round-robin across clients: each client's items stay in arrival
 * order, and the next item always comes from the client served least recently, so one
 * client with many queued jobs delays another client's job by at most one of its own.
 */
export class FairQueue<T> {
  /** Map iteration order is the rotation: the first client is served next, then moves to the back. */
  private readonly byClient = new Map<string, T[]>();
  private count = 0;

  get length(): number {
    return this.count;
  }

  push(client: string, item: T): void {
    const items = this.byClient.get(client);
    if (items === undefined) this.byClient.set(client, [item]);
    else items.push(item);
    this.count++;
  }

  /** The next item in rotation among the clients whose next item `eligible` accepts (all by default). */
  shift(eligible: (client: string, next: T) => boolean = () => true): T | undefined {
    for (const [client, items] of this.byClient) {
      if (!eligible(client, items[0]!)) continue;
      const item = items.shift()!;
      this.byClient.delete(client);
      if (items.length > 0) this.byClient.set(client, items);
      this.count--;
      return item;
    }
    return undefined;
  }

  /** Items queued for one client. */
  lengthOf(client: string): number {
    return this.byClient.get(client)?.length ?? 0;
  }
}
