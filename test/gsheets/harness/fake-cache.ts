/** The CacheService stand-in: Google's limits, counted as Google counts them. */

/** 100 KB a value (UTF-8 bytes), 250 characters a key, 6 hours at most. */
const CACHE_VALUE_MAX = 100 * 1024;
const CACHE_KEY_MAX = 250;
const CACHE_SECONDS_MAX = 6 * 60 * 60;

/**
 * CacheService as Google documents it: best-effort. An entry lasts at most its expiry (10 minutes unless given, 6
 * hours at most) and may be dropped earlier: `evictAll()` empties it as Google may at any moment, and `evictEvery`
 * drops every entry after that many reads of the cache. Keys hold 250 characters, values 100 KB (bytes, UTF-8).
 */
export class FakeCache {
  data = new Map<string, string>();
  private expiresAtMs = new Map<string, number>();
  /** Set by a test: every this many get/getAll calls, the whole cache is dropped first (0: never). */
  evictEvery = 0;
  private reads = 0;
  evictions = 0;
  constructor(private readonly now: () => number = () => Date.now()) {}
  evictAll() {
    this.data.clear();
    this.expiresAtMs.clear();
    this.evictions++;
  }
  private live(k: string): boolean {
    const at = this.expiresAtMs.get(k);
    if (at !== undefined && this.now() >= at) {
      this.data.delete(k);
      this.expiresAtMs.delete(k);
    }
    return this.data.has(k);
  }
  private read() {
    this.reads++;
    if (this.evictEvery > 0 && this.reads % this.evictEvery === 0) this.evictAll();
  }
  private checkKey(k: string) {
    if (String(k).length > CACHE_KEY_MAX) throw new Error("Exception: Argument too large: key");
  }
  get(k: string) {
    this.checkKey(k);
    this.read();
    return this.live(k) ? this.data.get(k)! : null;
  }
  getAll(keys: string[]) {
    keys.forEach((k) => this.checkKey(k));
    this.read();
    const out: Record<string, string> = {};
    for (const k of keys) if (this.live(k)) out[k] = this.data.get(k)!;
    return out;
  }
  put(k: string, v: string, seconds = 600) {
    this.checkKey(k);
    if (Buffer.byteLength(String(v)) > CACHE_VALUE_MAX) throw new Error("Exception: Argument too large: value");
    if (!(seconds >= 1 && seconds <= CACHE_SECONDS_MAX)) throw new Error(`Exception: Invalid argument: ${seconds}`);
    this.data.set(k, String(v));
    this.expiresAtMs.set(k, this.now() + seconds * 1000);
  }
  putAll(obj: Record<string, string>, seconds?: number) {
    for (const [k, v] of Object.entries(obj)) this.put(k, v, seconds);
  }
  remove(k: string) {
    this.data.delete(k);
    this.expiresAtMs.delete(k);
  }
  removeAll(keys: string[]) {
    keys.forEach((k) => this.remove(k));
  }
}
