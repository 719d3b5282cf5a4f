/**
 * OfficeRuntime.storage in the stand-in: the page's localStorage where there is one (else memory), with the 10 MB a
 * domain may hold.
 */
"use strict";

/** The OfficeRuntime global. */
function createOfficeRuntime() {
  const storage = (typeof localStorage !== "undefined" && localStorage) || null;
  const memory = new Map();
  // OfficeRuntime.storage holds 10 MB per domain ("Office Add-ins: persist add-in state and settings"), and a setItem
  // past it rejects. Microsoft does not say how it counts; counted here as the platform's own backing store
  // (localStorage in the browser, WebView2 and WKWebView) counts: the key and the value in UTF-16 code units,
  // two bytes each, over every item of the domain. A value that replaces one under the same key counts once.
  const STORAGE_LIMIT_BYTES = 10 * 1024 * 1024;
  const storedBytes = (skip) => {
    let n = 0;
    if (storage) {
      for (let i = 0; i < storage.length; i++) {
        const k = storage.key(i);
        if (k !== skip) n += 2 * (k.length + (storage.getItem(k) || "").length);
      }
    } else for (const [k, v] of memory) if (k !== skip) n += 2 * (k.length + v.length);
    return n;
  };
  const OfficeRuntime = {
    storage: {
      getItem: async (k) => (storage ? storage.getItem(k) : memory.has(k) ? memory.get(k) : null),
      setItem: async (k, v) => {
        const value = String(v);
        const after = storedBytes(k) + 2 * (k.length + value.length);
        if (after > STORAGE_LIMIT_BYTES) {
          throw new Error(
            `Storage limit exceeded: OfficeRuntime.storage holds 10 MB per domain, and this item would take it to ${(after / 1048576).toFixed(1)} MB.`,
          );
        }
        storage ? storage.setItem(k, value) : memory.set(k, value);
      },
      removeItem: async (k) => (storage ? storage.removeItem(k) : memory.delete(k), undefined),
    },
  };
  return OfficeRuntime;
}

module.exports = { createOfficeRuntime };
