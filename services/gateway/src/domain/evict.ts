/**
 * Drops the least recently used entries until `max` remain (second chance, as CLOCK does): an entry
 * read since it was last put at the back goes to the back again (unmarked) instead of being dropped.
 */
export function evict<K, V extends { read: boolean }>(entries: Map<K, V>, max: number): void {
  while (entries.size > max) {
    const [key, e] = entries.entries().next().value!;
    entries.delete(key);
    if (e.read) {
      e.read = false;
      entries.set(key, e);
    }
  }
}
