/**
 * A small read-through cache: values live `ttlMs`, concurrent loads of one key share one load,
 * and invalidation takes effect at once (a load that started before it is not stored).
 */
export class ShortCache<V> {
  private readonly values = new Map<string, { value: V; expires: number }>();
  private readonly loading = new Map<string, Promise<V>>();
  private generation = new Map<string, number>();
  private epoch = 0;

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  async get(key: string, load: () => Promise<V>): Promise<V> {
    const hit = this.values.get(key);
    if (hit && hit.expires > this.now()) return hit.value;
    if (hit) this.values.delete(key);
    if (this.ttlMs <= 0) return load();
    const pending = this.loading.get(key);
    if (pending) return pending;
    const started = { epoch: this.epoch, generation: this.generation.get(key) ?? 0 };
    const p: Promise<V> = load()
      .then((value) => {
        if (started.epoch === this.epoch && started.generation === (this.generation.get(key) ?? 0)) {
          this.values.set(key, { value, expires: this.now() + this.ttlMs });
          while (this.values.size > this.maxEntries) this.values.delete(this.values.keys().next().value!);
        }
        return value;
      })
      .finally(() => {
        if (this.loading.get(key) === p) this.loading.delete(key);
      });
    this.loading.set(key, p);
    return p;
  }

  invalidate(key: string): void {
    this.values.delete(key);
    this.loading.delete(key);
    this.generation.set(key, (this.generation.get(key) ?? 0) + 1);
    if (this.generation.size > this.maxEntries) {
      this.generation.clear();
      this.clear();
    }
  }

  clear(): void {
    this.epoch++;
    this.values.clear();
    this.loading.clear();
  }
}
