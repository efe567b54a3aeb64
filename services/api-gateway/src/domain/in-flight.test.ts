import { InFlight } from './in-flight';

describe('InFlight', () => {
  it('admits up to the limit per key; a release (once) frees a slot', () => {
    const jobs = new InFlight(2);
    const a = jobs.acquire('k')!;
    jobs.acquire('k');
    expect(jobs.acquire('k')).toBeNull();
    expect(jobs.acquire('other')).not.toBeNull();
    a();
    a();
    expect(jobs.count('k')).toBe(1);
    expect(jobs.acquire('k')).not.toBeNull();
    expect(jobs.acquire('k')).toBeNull();
  });
});
