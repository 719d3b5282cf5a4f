/** PropertiesService's stores, with the size limits Apps Script sets. */

/** Limits of the real service that our code must respect; the stand-in throws as Apps Script does. */
const PROPERTY_VALUE_MAX = 9 * 1024;
const PROPERTY_STORE_MAX = 500 * 1024;

export class FakeProperties {
  data = new Map<string, string>();
  calls = 0;
  /** Called before every write: the execution-time limit stops writes after the 6 minutes. */
  guard: () => void = () => undefined;
  getProperty(k: string) {
    this.calls++;
    return this.data.has(k) ? this.data.get(k)! : null;
  }
  getProperties() {
    this.calls++;
    return Object.fromEntries(this.data);
  }
  getKeys() {
    this.calls++;
    return [...this.data.keys()];
  }
  setProperty(k: string, v: string) {
    return this.setProperties({ [k]: v });
  }
  setProperties(obj: Record<string, string>, deleteAllOthers = false) {
    this.guard();
    this.calls++;
    const next = new Map(deleteAllOthers ? [] : this.data);
    for (const [k, v] of Object.entries(obj)) {
      const s = String(v);
      if (Buffer.byteLength(k) + Buffer.byteLength(s) > PROPERTY_VALUE_MAX)
        throw new Error(`Exception: Argument too large: value (${k})`);
      next.set(k, s);
    }
    let total = 0;
    for (const [k, v] of next) total += Buffer.byteLength(k) + Buffer.byteLength(v);
    if (total > PROPERTY_STORE_MAX) throw new Error("Exception: You have exceeded the property storage quota.");
    this.data = next;
    return this;
  }
  deleteProperty(k: string) {
    this.calls++;
    this.data.delete(k);
    return this;
  }
  deleteAllProperties() {
    this.calls++;
    this.data.clear();
    return this;
  }
}
