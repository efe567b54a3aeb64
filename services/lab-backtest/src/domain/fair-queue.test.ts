import { FairQueue } from './fair-queue';

describe('FairQueue', () => {
  it('serves clients round-robin, each in arrival order', () => {
    const queue = new FairQueue<string>();
    for (let i = 1; i <= 5; i++) queue.push('hog', `hog${i}`);
    queue.push('b', 'b1');
    queue.push('c', 'c1');
    queue.push('b', 'b2');
    expect(queue.length).toBe(8);
    const order: string[] = [];
    for (let item = queue.shift(); item !== undefined; item = queue.shift()) order.push(item);
    expect(order).toEqual(['hog1', 'b1', 'c1', 'hog2', 'b2', 'hog3', 'hog4', 'hog5']);
    expect(queue.length).toBe(0);
  });

  it("a newcomer waits behind at most one job of each client already queued", () => {
    const queue = new FairQueue<string>();
    for (let i = 1; i <= 100; i++) queue.push('hog', `hog${i}`);
    queue.shift();
    queue.push('late', 'late1');
    expect([queue.shift(), queue.shift()]).toEqual(['hog2', 'late1']);
    expect(queue.lengthOf('hog')).toBe(98);
  });
});

describe('FairQueue eligibility', () => {
  it('skips clients that may not run more now, keeping their place', () => {
    const queue = new FairQueue<string>();
    queue.push('hog', 'hog1');
    queue.push('hog', 'hog2');
    queue.push('b', 'b1');
    expect(queue.shift((c) => c !== 'hog')).toBe('b1');
    expect(queue.shift((c) => c !== 'hog')).toBeUndefined();
    expect(queue.shift()).toBe('hog1');
    expect(queue.length).toBe(1);
  });
});
