/**
 * One Excel.run batch of the stand-in, as Office.js runs it: writes queued and sent at the next sync, properties
 * readable only once loaded and synced, errors surfacing at the sync, and Excel on the web's 5 MB limit on a request
 * and on a response.
 */
"use strict";

const REQUEST_LIMIT = 5 * 1024 * 1024;
/** Excel on the web's cap on a response: the same 5 MB. */
const RESPONSE_LIMIT = REQUEST_LIMIT;
const utf8 = new TextEncoder();
/** UTF-8 length of a text (none for undefined, as encode gives): Node counts it without encoding a copy of megabytes. */
const utf8Length =
  typeof Buffer !== "undefined"
    ? (text) => (text === undefined ? 0 : Buffer.byteLength(text, "utf8"))
    : (text) => utf8.encode(text).length;

/** A batch over the workbook `state`: what its proxies queue, charge and load, and the sync that sends it. */
function createBatch(state) {
  const loads = [];
  let pendingBytes = 0;
  /** An error Excel reports for a queued request; like Office.js, it surfaces at the next sync. */
  let pendingError = null;
  /** Writes are queued and applied at the next sync, as Office.js sends them: a refused sync applies none of them. */
  const ops = [];
  function apply(op) {
    ops.push(op);
  }
  function fail(error) {
    pendingError = error;
  }
  function charge(payload) {
    // Bytes as they go over the wire (UTF-8): a "£" or "–" is two or three of them, not one.
    const n = utf8Length(JSON.stringify(payload));
    pendingBytes += n;
  }
  function loadable(obj, props) {
    obj.__props = props;
    obj.__loaded = obj.__loaded || new Set();
    obj.__pending = obj.__pending || new Set();
    obj.load = function (names) {
      const list =
        typeof names === "string" ? names.split(",").map((s) => s.trim()) : Array.isArray(names) ? names : props;
      for (const n of list) obj.__pending.add(n);
      loads.push(obj);
      return obj;
    };
    for (const p of props) {
      const getter = obj["__get_" + p];
      if (!getter) continue;
      const setter = obj["__set_" + p];
      Object.defineProperty(obj, p, {
        get() {
          if (!obj.__loaded.has(p)) throw new Error(`PropertyNotLoaded: ${p} was read before load() and sync()`);
          return getter();
        },
        set: setter ? (v) => setter(v) : undefined,
        enumerable: true,
      });
    }
    return obj;
  }

  /** A ClientResult (getCount()): `value` readable after the sync. */
  function clientResult(fn) {
    const res = { __loaded: new Set(), __pending: new Set(["value"]) };
    Object.defineProperty(res, "value", {
      get() {
        if (!res.__loaded.has("value")) throw new Error("PropertyNotLoaded: value was read before sync()");
        return fn();
      },
    });
    loads.push(res);
    return res;
  }
  /** A collection (TableCollection, TableColumnCollection...): load("items/name") then sync, then items and count. */
  function collection(list, extra) {
    const coll = { __loaded: new Set(), __pending: new Set(), ...extra };
    let nested = [];
    coll.load = (names) => {
      const all = (typeof names === "string" ? names.split(",") : names || []).map((n) => n.trim());
      // "items/name", or "name" alone (Office.js reads a collection's property names as its items')
      nested = all.filter((n) => n && n !== "items" && n !== "count").map((n) => n.replace(/^items\//, ""));
      coll.__pending.add("items");
      coll.__pending.add("count");
      loads.push(coll);
      return coll;
    };
    const items = () => {
      const out = list();
      for (const it of out) for (const n of nested.length ? nested : it.__props || []) it.__loaded.add(n);
      return out;
    };
    Object.defineProperty(coll, "items", {
      get() {
        if (!coll.__loaded.has("items")) throw new Error("PropertyNotLoaded: items was read before load() and sync()");
        return items();
      },
    });
    Object.defineProperty(coll, "count", {
      get() {
        if (!coll.__loaded.has("count")) throw new Error("PropertyNotLoaded: count was read before load() and sync()");
        return list().length;
      },
    });
    coll.getCount = () => clientResult(() => list().length);
    return coll;
  }
  function missing(what) {
    pendingError = new Error(`ItemNotFound: ${what}`);
    return nullObject();
  }
  /** What *OrNullObject methods return when there is nothing: isNullObject is true; its other properties must not be read. */
  function nullObject() {
    return {
      isNullObject: true,
      load() {
        return this;
      },
    };
  }

  async function sync() {
    state.stats.syncs++;
    state.stats.requests++;
    state.stats.totalBytes += pendingBytes;
    state.stats.maxRequestBytes = Math.max(state.stats.maxRequestBytes, pendingBytes);
    const bytes = pendingBytes;
    pendingBytes = 0;
    if (state.cellEditMode) {
      ops.splice(0);
      loads.splice(0);
      pendingError = null;
      // What Office.js reports (OfficeExtension.Error code) while a cell is being edited; nothing queued is applied.
      throw Object.assign(
        new Error(
          "Excel is in cell-editing mode. Please exit the edit mode by pressing ENTER or TAB or selecting another cell, and then try again.",
        ),
        { code: "InvalidOperationInCellEditMode", name: "RichApi.Error" },
      );
    }
    if (bytes > REQUEST_LIMIT) {
      ops.splice(0);
      throw new Error(`RequestPayloadSizeLimitExceeded: ${bytes} bytes in one sync (Excel on the web allows 5 MB)`);
    }
    if (pendingError) {
      const e = pendingError;
      pendingError = null;
      ops.splice(0);
      loads.splice(0);
      throw e;
    }
    for (const op of ops.splice(0)) op();
    // Excel on the web caps a response at 5 MB too, counting every property loaded: loading the values of a million-row
    // column fails, and so do the number formats of a range whose values alone would fit.
    let responseBytes = 0;
    for (const obj of loads) if (obj.__responseBytes) responseBytes += obj.__responseBytes(obj.__pending);
    state.stats.maxResponseBytes = Math.max(state.stats.maxResponseBytes, responseBytes);
    if (responseBytes > RESPONSE_LIMIT) {
      loads.splice(0);
      throw new Error(
        `ResponsePayloadSizeLimitExceeded: about ${responseBytes} bytes of loaded cells in one response (Excel on the web allows 5 MB)`,
      );
    }
    for (const obj of loads.splice(0)) for (const p of obj.__pending) obj.__loaded.add(p);
    await Promise.resolve();
  }

  return {
    loads,
    apply,
    charge,
    fail,
    loadable,
    clientResult,
    collection,
    nullObject,
    missing,
    sync,
    pendingWrites: () => ops.length,
  };
}

module.exports = { createBatch, REQUEST_LIMIT, RESPONSE_LIMIT };
