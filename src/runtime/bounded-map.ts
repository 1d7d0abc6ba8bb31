/**
 * A Map that forgets its oldest entry when a new key would take it past `limit`: the process's small
 * caches (verified tokens, case layouts, pinned configs, permission sets) stay flat in memory whatever
 * the traffic. What they keep never goes stale, or carries its own expiry.
 */
export class BoundedMap<K, V> extends Map<K, V> {
  constructor(private readonly limit: number) {
    super();
  }

  override set(key: K, value: V): this {
    if (!this.has(key) && this.size >= this.limit) this.delete(this.keys().next().value!);
    return super.set(key, value);
  }
}
