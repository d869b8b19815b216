import { evict } from '../../src/domain/evict';

const entries = (...keys: string[]) => new Map(keys.map((k) => [k, { read: false }]));

describe('evict (least recently used first, second chance)', () => {
  it('drops the oldest unread entries until max remain', () => {
    const m = entries('a', 'b', 'c', 'd');
    evict(m, 2);
    expect([...m.keys()]).toEqual(['c', 'd']);
  });

  it('moves an entry read since it reached the back behind the others, unmarked, and drops the next', () => {
    const m = entries('a', 'b', 'c');
    m.get('a')!.read = true;
    evict(m, 2);
    expect([...m.keys()]).toEqual(['c', 'a']);
    expect(m.get('a')!.read).toBe(false);
    // Not read again since: after c, it is the oldest.
    m.set('d', { read: false });
    evict(m, 2);
    expect([...m.keys()]).toEqual(['a', 'd']);
  });

  it('ends when every entry was read: each gets its second chance once', () => {
    const m = entries('a', 'b', 'c');
    for (const e of m.values()) e.read = true;
    evict(m, 2);
    expect([...m.keys()]).toEqual(['b', 'c']);
  });
});
