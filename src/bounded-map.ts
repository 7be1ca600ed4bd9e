// A Map that holds at most `limit` entries, for the in-process caches (verified
// API keys, tenant clients, workflow definitions): setting a key when it is
// full lets the oldest entry go, the first in the Map's order. Setting a key
// moves it to the end, so a cache that sets what it uses lets the least
// recently used go.
export class BoundedMap<Key, Value> extends Map<Key, Value> {
  readonly #limit: number;

  constructor(limit: number) {
    super();
    this.#limit = limit;
  }

  override set(key: Key, value: Value): this {
    this.delete(key);
    if (this.size >= this.#limit) {
      const oldest = this.keys().next();
      if (!oldest.done) this.delete(oldest.value);
    }
    return super.set(key, value);
  }
}
