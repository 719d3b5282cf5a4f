/**
 * A stand-in for the Excel object model (and the Office, CustomFunctions and OfficeRuntime globals) for tests and the
 * write benchmark: cells with values, formulas, number formats and colours; load/sync rules; Excel on the web's 5 MB limit;
 * Excel Tables (ListObjects: a named range with a header row, columns named by their header cells, filters, sort, growth
 * when the user types next to one), as Microsoft documents them (docs/excel.md lists the pages).
 * In a page it installs the globals (the e2e test serves it in place of office.js); in Node, require() it and call createStandIn().
 */
(function (root, factory) {
  const api = factory();
  if (typeof module === "object" && module.exports) module.exports = api;
  else api.install(root);
})(typeof self !== "undefined" ? self : this, function () {
  "use strict";
  const REQUEST_LIMIT = 5 * 1024 * 1024;
  const utf8 = new TextEncoder();

  function colIndex(letters) {
    let n = 0;
    for (const ch of letters.toUpperCase()) n = n * 26 + (ch.charCodeAt(0) - 64);
    return n - 1;
  }
  function colLetters(i) {
    let s = "";
    for (let n = i + 1; n > 0; n = Math.floor((n - 1) / 26)) s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
    return s;
  }
  /** A worksheet's size in Excel 2007 and later. */
  const MAX_ROWS = 1048576;
  const MAX_COLS = 16384;
  function parseAddress(address) {
    const bang = address.lastIndexOf("!");
    const sheet = bang >= 0 ? address.slice(0, bang).replace(/^'|'$/g, "") : null;
    const local = address.slice(bang + 1);
    // Whole columns ("A:C") and whole rows ("5:20"), as Excel names a column or row selection.
    const cols = /^\$?([A-Za-z]+):\$?([A-Za-z]+)$/.exec(local);
    if (cols) {
      const a = colIndex(cols[1]),
        b = colIndex(cols[2]);
      return { sheet, r: 0, c: Math.min(a, b), rows: MAX_ROWS, cols: Math.abs(b - a) + 1 };
    }
    const rowsOnly = /^\$?(\d+):\$?(\d+)$/.exec(local);
    if (rowsOnly) {
      const a = Number(rowsOnly[1]) - 1,
        b = Number(rowsOnly[2]) - 1;
      return { sheet, r: Math.min(a, b), c: 0, rows: Math.abs(b - a) + 1, cols: MAX_COLS };
    }
    const parts = local.split(":");
    const cell = (p) => {
      const m = /^\$?([A-Za-z]+)\$?(\d+)$/.exec(p);
      if (!m) throw new Error("Bad address " + address);
      return { r: Number(m[2]) - 1, c: colIndex(m[1]) };
    };
    const a = cell(parts[0]);
    const b = parts[1] ? cell(parts[1]) : a;
    return {
      sheet,
      r: Math.min(a.r, b.r),
      c: Math.min(a.c, b.c),
      rows: Math.abs(b.r - a.r) + 1,
      cols: Math.abs(b.c - a.c) + 1,
    };
  }
  function isBlank(cell) {
    return !cell || cell.value === "" || cell.value === null || cell.value === undefined;
  }
  /** A cell's key "row,column" as [row, column]: the hottest line of a big sheet, so without split and map. */
  function keyRC(k) {
    // Digits read in place: slicing the key into two strings cost more than the rest of a whole-sheet scan.
    let r = 0,
      i = 0;
    for (let ch = k.charCodeAt(0); ch !== 44; ch = k.charCodeAt(++i)) {
      if (!(ch >= 48 && ch <= 57)) return keyRCSlow(k);
      r = r * 10 + ch - 48;
    }
    let c = 0;
    for (let j = i + 1; j < k.length; j++) {
      const ch = k.charCodeAt(j);
      if (!(ch >= 48 && ch <= 57)) return keyRCSlow(k);
      c = c * 10 + ch - 48;
    }
    return [r, c];
  }
  function keyRCSlow(k) {
    const i = k.indexOf(",");
    return [+k.slice(0, i), +k.slice(i + 1)];
  }
  /** Excel turns date-like and number-like text into numbers unless the cell is formatted as text. */
  function excelSerial(iso) {
    const ms = Date.parse(iso + "T00:00:00Z");
    return Math.round(ms / 86400000) + 25569;
  }

  function createStandIn(options) {
    const opts = options || {};
    const state = {
      sheets: new Map(),
      activeSheet: "Sheet1",
      selection: { r: 0, c: 0, rows: 1, cols: 1 },
      /** Every area of the selection (Ctrl+click makes several); selection is the first. */
      areas: [{ r: 0, c: 0, rows: 1, cols: 1 }],
      stats: { syncs: 0, requests: 0, maxRequestBytes: 0, maxResponseBytes: 0, totalBytes: 0, calculations: 0 },
      /** True while the user is typing in a cell: Excel then refuses every sync (see api.setCellEditMode). */
      cellEditMode: false,
      /** Rows hidden (by a filter or by hand), per sheet: see api.hideRows. */
      hiddenRows: new Map(),
      customFunctions: {},
      partitionKey: opts.partitionKey || "",
      /** Charts per sheet: { name, type, source (address), seriesBy, title, position }. */
      charts: new Map(),
      /** Rows frozen at the top, per sheet. */
      frozenRows: new Map(),
    };
    /**
     * Every change to any cell bumps `edits`, so what is derived from a whole sheet (its used range) is worked out once
     * per change rather than on every read: a sheet's cells are a CellMap, and a value written goes through writeValue
     * or ensureCell.
     */
    let edits = 0;
    class CellMap extends Map {
      set(k, v) {
        edits++;
        return super.set(k, v);
      }
      delete(k) {
        edits++;
        return super.delete(k);
      }
      clear() {
        edits++;
        return super.clear();
      }
    }
    /**
     * Worksheet.id: "a value that uniquely identifies the worksheet in a given workbook", which "remains the same even
     * when the worksheet is renamed or moved" (ExcelApi 1.1). Excel's are GUIDs in braces; made in order here.
     */
    state.sheetIds = new Map();
    let sheetSeq = 0;
    const newSheetId = () =>
      `{${(++sheetSeq).toString(16).toUpperCase().padStart(8, "0")}-0001-0000-0000-000000000000}`;
    function sheetCells(name) {
      if (!state.sheets.has(name)) state.sheets.set(name, new CellMap());
      if (!state.sheetIds.has(name)) state.sheetIds.set(name, newSheetId());
      return state.sheets.get(name);
    }
    /** WorksheetCollection.getItem(key): "the name or ID of the worksheet". */
    function sheetNameOf(key) {
      if (state.sheets.has(key)) return key;
      for (const [name, id] of state.sheetIds) if (id === key && state.sheets.has(name)) return name;
      return null;
    }
    /** Office.context.document.settings (saved with the workbook) and the add-in's startup behavior (Office.addin). */
    state.settings = {};
    state.savedSettings = {};
    state.startupBehavior = "None";
    state.startupCalls = [];
    // A workbook opened again (a page reloaded with api.dump()'s text in opts.restore): its cells and saved settings.
    if (opts.restore) {
      const r = typeof opts.restore === "string" ? JSON.parse(opts.restore) : opts.restore;
      for (const [name, cells] of r.sheets) state.sheets.set(name, new CellMap(cells));
      for (const [name, id] of r.sheetIds || []) state.sheetIds.set(name, id);
      sheetSeq = state.sheetIds.size;
      state.settings = JSON.parse(JSON.stringify(r.settings || {}));
      state.savedSettings = JSON.parse(JSON.stringify(r.settings || {}));
      state.startupBehavior = r.startupBehavior || "None";
    }
    sheetCells("Sheet1");

    // ---- Excel Tables: { id, name, sheet, r, c, rows (header row included), cols, filters: Map(column -> allowed texts) } ----
    state.tables = [];
    state.tableSeq = 0;
    if (opts.restore) {
      const r = typeof opts.restore === "string" ? JSON.parse(opts.restore) : opts.restore;
      for (const t of r.tables || [])
        state.tables.push({
          ...t,
          filters: new Map((t.filters || []).map(([k, v]) => [k, new Set(v)])),
          hiddenByFilter: new Set(t.hiddenByFilter || []),
        });
      state.tableSeq = state.tables.reduce((m, t) => Math.max(m, t.id), 0);
    }
    const cellText = (cell) => (isBlank(cell) ? "" : String(cell.value));
    /** A Table's column names are its header cells (Excel keeps them in step both ways). */
    function tableHeaders(t) {
      return Array.from({ length: t.cols }, (_, j) => cellText(cellAt(t.sheet, t.r, t.c + j)));
    }
    function findTable(key) {
      const k = String(key).toLowerCase();
      return state.tables.find((t) => t.name.toLowerCase() === k || String(t.id) === String(key));
    }
    const overlaps = (t, box) =>
      box.r < t.r + t.rows && t.r < box.r + box.rows && box.c < t.c + t.cols && t.c < box.c + box.cols;
    const inside = (t, box) =>
      t.r >= box.r && t.c >= box.c && t.r + t.rows <= box.r + box.rows && t.c + t.cols <= box.c + box.cols;
    /** Range.getTables: the tables a range overlaps (or holds whole), top to bottom, then left to right. */
    function tablesOver(sheet, box, fullyContained) {
      return state.tables
        .filter((t) => t.sheet === sheet && (fullyContained ? inside(t, box) : overlaps(t, box)))
        .sort((a, b) => a.r - b.r || a.c - b.c);
    }
    /** Why a table name is refused (Excel: starts with a letter, _ or \, no spaces, not a cell address, unique), or "". */
    function tableNameProblem(name, self) {
      if (!/^[A-Za-z_\\][A-Za-z0-9_.\\]*$/.test(name) || /^[A-Za-z]{1,3}\d+$/.test(name) || /^[RrCc]$/.test(name))
        return `InvalidArgument: "${name}" is not a valid table name`;
      const other = findTable(name);
      if (other && other !== self) return `InvalidArgument: a table named ${name} already exists`;
      return "";
    }
    function newTable(sheet, box) {
      const seq = state.tableSeq + 1;
      let n = seq;
      while (findTable("Table" + n)) n++;
      return {
        id: seq,
        name: "Table" + n,
        sheet,
        r: box.r,
        c: box.c,
        rows: Math.max(2, box.rows),
        cols: box.cols,
        filters: new Map(),
        hiddenByFilter: new Set(),
      };
    }
    function placeTable(t) {
      state.tableSeq = Math.max(state.tableSeq, t.id);
      state.tables.push(t);
      // Blank header cells get Excel's names (Column1, Column2...).
      tableHeaders(t).forEach((h, j) => {
        if (h === "") writeValue(ensureCell(t.sheet, t.r, t.c + j), "Column" + (j + 1));
      });
    }
    /** Hides the rows the table's filters leave out (and shows again those they no longer do). */
    function applyFilters(t) {
      const hidden = hiddenSet(t.sheet);
      for (const row of t.hiddenByFilter) hidden.delete(row);
      t.hiddenByFilter = new Set();
      for (let i = 1; i < t.rows; i++) {
        const row = t.r + i;
        const shown = [...t.filters].every(([j, allowed]) => allowed.has(cellText(cellAt(t.sheet, row, t.c + j))));
        if (!shown) {
          hidden.add(row);
          t.hiddenByFilter.add(row);
        }
      }
    }
    /** Moves cells in rows [r0, r0 + rows) from column `col` on right by `count` (a table column inserted). */
    function shiftRight(sheet, r0, rows, col, count) {
      const cells = sheetCells(sheet);
      const moved = [];
      for (const [k, cell] of cells) {
        const [r, c] = keyRC(k);
        if (r >= r0 && r < r0 + rows && c >= col) moved.push([r, c, cell, k]);
      }
      for (const m of moved) cells.delete(m[3]);
      for (const [r, c, cell] of moved) cells.set(r + "," + (c + count), cell);
    }
    /** Moves cells in columns [c0, c0 + cols) from row `row` down by `count` (a table row inserted). */
    function shiftDown(sheet, c0, cols, row, count) {
      const cells = sheetCells(sheet);
      const moved = [];
      for (const [k, cell] of cells) {
        const [r, c] = keyRC(k);
        if (c >= c0 && c < c0 + cols && r >= row) moved.push([r, c, cell, k]);
      }
      for (const m of moved) cells.delete(m[3]);
      for (const [r, c, cell] of moved) cells.set(r + count + "," + c, cell);
    }
    /**
     * TableColumnCollection.add(index, values, name): a column inserted at `index` (the end when null), shifting the
     * cells right of it in the table's rows; `values` fill it top to bottom (header first when it has one value per row
     * of the table). Returns the new column's index.
     */
    function addTableColumn(t, index, values, name) {
      const at = index === null || index === undefined ? t.cols : index;
      if (at < 0 || at > t.cols)
        throw new Error(`InvalidArgument: column index ${index} is outside the table ${t.name}`);
      for (const o of state.tables) {
        if (o === t || o.sheet !== t.sheet || o.c + o.cols <= t.c + at) continue;
        const rowsOverlap = o.r < t.r + t.rows && t.r < o.r + o.rows;
        if (!rowsOverlap) continue;
        if (o.r < t.r || o.r + o.rows > t.r + t.rows)
          throw new Error(
            `InvalidOperation: inserting a column into ${t.name} would shift part of the table ${o.name}`,
          );
      }
      shiftRight(t.sheet, t.r, t.rows, t.c + at, 1);
      for (const o of state.tables)
        if (o !== t && o.sheet === t.sheet && o.c >= t.c + at && o.r >= t.r && o.r + o.rows <= t.r + t.rows) o.c++;
      t.filters = new Map([...t.filters].map(([j, v]) => [j >= at ? j + 1 : j, v]));
      t.cols++;
      const body = values ? (values.length === t.rows ? values.slice(1) : values) : null;
      if (body && body.length !== t.rows - 1)
        throw new Error(`InvalidArgument: ${values.length} values for a table of ${t.rows - 1} data rows`);
      const header =
        name !== undefined && name !== null
          ? String(name)
          : values && values.length === t.rows
            ? String(values[0][0])
            : "";
      let h = header || "Column" + t.cols;
      const taken = new Set(
        tableHeaders(t)
          .filter((_x, j) => j !== at)
          .map((x) => x.toLowerCase()),
      );
      for (let n = 2; taken.has(h.toLowerCase()); n++) h = (header || "Column") + n;
      writeValue(ensureCell(t.sheet, t.r, t.c + at), h);
      if (body) body.forEach((row, i) => writeValue(ensureCell(t.sheet, t.r + 1 + i, t.c + at), row[0]));
      return at;
    }
    /** TableRowCollection.add(index, values): data rows inserted at `index` (the end when null), cells below shifted down. */
    function addTableRows(t, index, values) {
      const rows = values ? values : [Array.from({ length: t.cols }, () => "")];
      const at = index === null || index === undefined ? t.rows - 1 : index;
      shiftDown(t.sheet, t.c, t.cols, t.r + 1 + at, rows.length);
      t.rows += rows.length;
      rows.forEach((row, i) => row.forEach((v, j) => writeValue(ensureCell(t.sheet, t.r + 1 + at + i, t.c + j), v)));
    }
    /**
     * Table sort (table.sort.apply): only the table's own cells move, row by row; with a filter on, only the visible rows
     * are sorted among themselves (hidden rows stay where they are), as Excel does. Blanks sort last either way.
     */
    function sortTable(t, fields) {
      const hidden = hiddenSet(t.sheet);
      const rows = [];
      for (let i = 1; i < t.rows; i++) if (!hidden.has(t.r + i)) rows.push(t.r + i);
      const cells = sheetCells(t.sheet);
      const snap = rows.map((r) => Array.from({ length: t.cols }, (_, j) => cells.get(r + "," + (t.c + j))));
      const rank = (cell) => (isBlank(cell) ? 2 : typeof cell.value === "number" ? 0 : 1);
      const order = snap
        .map((_x, i) => i)
        .sort((a, b) => {
          for (const f of fields) {
            const x = snap[a][f.key],
              y = snap[b][f.key];
            const ra = rank(x),
              rb = rank(y);
            if (ra === 2 || rb === 2) {
              if (ra !== rb) return ra - rb;
              continue;
            }
            const asc = f.ascending === false ? -1 : 1;
            if (ra !== rb) return (ra - rb) * asc;
            const cmp =
              ra === 0
                ? x.value - y.value
                : String(x.value).localeCompare(String(y.value), undefined, {
                    sensitivity: f.matchCase ? "variant" : "base",
                  });
            if (cmp) return cmp * asc;
          }
          return a - b;
        });
      rows.forEach((r, i) => {
        snap[order[i]].forEach((cell, j) => {
          const k = r + "," + (t.c + j);
          if (cell) cells.set(k, cell);
          else cells.delete(k);
        });
      });
    }
    /**
     * What the user types (AutoCorrect's "Include new rows and columns in table", on by default): a value typed in the row
     * directly below a table, within its columns, makes that row the table's; one typed in the column directly right of
     * it, within its rows, makes that column the table's (named from its header cell, or Column<n>).
     */
    function expandTablesFor(sheet) {
      for (let grew = true; grew;) {
        grew = false;
        for (const t of state.tables) {
          if (t.sheet !== sheet) continue;
          const below = Array.from({ length: t.cols }, (_, j) => cellAt(sheet, t.r + t.rows, t.c + j)).some(
            (cell) => !isBlank(cell),
          );
          const clear = (box) => !state.tables.some((o) => o !== t && o.sheet === sheet && overlaps(o, box));
          if (below && clear({ r: t.r + t.rows, c: t.c, rows: 1, cols: t.cols })) {
            t.rows++;
            grew = true;
          }
          const right = Array.from({ length: t.rows }, (_, i) => cellAt(sheet, t.r + i, t.c + t.cols)).some(
            (cell) => !isBlank(cell),
          );
          if (right && clear({ r: t.r, c: t.c + t.cols, rows: t.rows, cols: 1 })) {
            t.cols++;
            const head = ensureCell(sheet, t.r, t.c + t.cols - 1);
            if (isBlank(head)) writeValue(head, "Column" + t.cols);
            grew = true;
          }
        }
      }
    }

    function hiddenSet(sheet) {
      if (!state.hiddenRows.has(sheet)) state.hiddenRows.set(sheet, new Set());
      return state.hiddenRows.get(sheet);
    }
    function cellAt(sheet, r, c) {
      return sheetCells(sheet).get(r + "," + c);
    }
    function ensureCell(sheet, r, c) {
      edits++;
      const cells = sheetCells(sheet);
      const key = r + "," + c;
      let cell = cells.get(key);
      if (!cell) {
        cell = {
          value: "",
          formula: null,
          numberFormat: "General",
          fill: null,
          font: null,
          bold: false,
          prefixed: false,
        };
        cells.set(key, cell);
      }
      return cell;
    }
    function writeValue(cell, v) {
      edits++;
      cell.formula = null;
      cell.prefixed = false;
      if (typeof v === "string") {
        if (v.startsWith("'")) {
          cell.value = v.slice(1);
          cell.prefixed = true;
          return;
        }
        if (cell.numberFormat !== "@") {
          if (/^[=+\-@]/.test(v) && v.length > 1 && !/^[+-]?\d+(\.\d+)?$/.test(v)) {
            // What Excel does with such text: it becomes a formula.
            cell.formula = v.startsWith("=") ? v : "=" + v.slice(v.startsWith("@") ? 1 : 0);
            cell.value = "#FORMULA";
            return;
          }
          if (/^-?\d+(\.\d+)?$/.test(v.trim()) && v.trim().length < 16) {
            cell.value = Number(v);
            return;
          }
          if (/^\d{4}-\d{2}-\d{2}$/.test(v)) {
            cell.value = excelSerial(v);
            return;
          }
        }
        cell.value = v;
        return;
      }
      cell.value = v === null || v === undefined ? "" : v;
    }

    /** Bounding box of the used cells of a sheet, worked out again only after a cell changed. */
    const usedBoxes = new Map();
    function usedBox(sheet) {
      const known = usedBoxes.get(sheet);
      if (known && known.edits === edits) return known.box && { ...known.box };
      const box = scanUsedBox(sheet);
      usedBoxes.set(sheet, { edits, box });
      return box && { ...box };
    }
    function scanUsedBox(sheet) {
      let r0 = Infinity,
        c0 = Infinity,
        r1 = -1,
        c1 = -1;
      for (const [k, cell] of sheetCells(sheet)) {
        if (isBlank(cell)) continue;
        const [r, c] = keyRC(k);
        r0 = Math.min(r0, r);
        c0 = Math.min(c0, c);
        r1 = Math.max(r1, r);
        c1 = Math.max(c1, c);
      }
      return r1 < 0 ? null : { r: r0, c: c0, rows: r1 - r0 + 1, cols: c1 - c0 + 1 };
    }

    /**
     * Excel's CurrentRegion: grow the box while any cell bordering it (diagonals included) is non-empty. Done over the
     * used cells rather than the box's border, so a 20,000-row table takes one pass instead of 20,000 border scans.
     */
    function currentRegion(sheet, box) {
      let r0 = box.r,
        c0 = box.c,
        r1 = box.r + box.rows - 1,
        c1 = box.c + box.cols - 1;
      const used = [];
      for (const [k, cell] of sheetCells(sheet)) if (!isBlank(cell)) used.push(keyRC(k));
      for (let grew = true; grew;) {
        grew = false;
        for (const [rr, cc] of used) {
          const near = rr >= r0 - 1 && rr <= r1 + 1 && cc >= c0 - 1 && cc <= c1 + 1;
          if (!near || (rr >= r0 && rr <= r1 && cc >= c0 && cc <= c1)) continue;
          r0 = Math.min(r0, rr);
          r1 = Math.max(r1, rr);
          c0 = Math.min(c0, cc);
          c1 = Math.max(c1, cc);
          grew = true;
        }
      }
      return { r: r0, c: c0, rows: r1 - r0 + 1, cols: c1 - c0 + 1 };
    }

    function makeContext() {
      const loads = [];
      let pendingBytes = 0;
      /** An error Excel reports for a queued request; like Office.js, it surfaces at the next sync. */
      let pendingError = null;
      const ctx = {};
      /** Writes are queued and applied at the next sync, as Office.js sends them: a refused sync applies none of them. */
      const ops = [];
      function apply(op) {
        ops.push(op);
      }
      function charge(payload) {
        // Bytes as they go over the wire (UTF-8): a "£" or "–" is two or three of them, not one.
        const n = utf8.encode(JSON.stringify(payload)).length;
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

      function chartsOf(sheet) {
        if (!state.charts.has(sheet)) state.charts.set(sheet, []);
        return state.charts.get(sheet);
      }
      function chartObject(sheet, entry) {
        return {
          isNullObject: false,
          load() {
            return this;
          },
          set name(v) {
            charge(v);
            apply(() => (entry.name = v));
          },
          get name() {
            return entry.name;
          },
          title: {
            set text(v) {
              charge(v);
              apply(() => (entry.title = v));
            },
          },
          legend: {
            set position(v) {
              apply(() => (entry.legend = v));
            },
          },
          setPosition(start, end) {
            charge(start);
            apply(() => (entry.position = [start, end]));
          },
          setData(source, seriesBy) {
            charge(source.__get_address());
            apply(() => Object.assign(entry, { source: source.__get_address(), seriesBy: seriesBy || "Auto" }));
          },
          delete() {
            apply(() =>
              state.charts.set(
                sheet,
                chartsOf(sheet).filter((x) => x !== entry),
              ),
            );
          },
        };
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
            if (!coll.__loaded.has("items"))
              throw new Error("PropertyNotLoaded: items was read before load() and sync()");
            return items();
          },
        });
        Object.defineProperty(coll, "count", {
          get() {
            if (!coll.__loaded.has("count"))
              throw new Error("PropertyNotLoaded: count was read before load() and sync()");
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
      /** A table's column; `index` is read when used (a function while the column is still being added). */
      function tableColumnObject(t, index) {
        const at = () => (typeof index === "function" ? index() : index);
        const col = {
          isNullObject: false,
          __get_name: () => tableHeaders(t)[at()],
          __set_name: (v) => {
            charge(v);
            apply(() => writeValue(ensureCell(t.sheet, t.r, t.c + at()), String(v)));
          },
          __get_index: () => at(),
          __get_id: () => at() + 1,
          getRange: () => range(t.sheet, t.r, t.c + at(), t.rows, 1),
          getHeaderRowRange: () => range(t.sheet, t.r, t.c + at(), 1, 1),
          getDataBodyRange: () => range(t.sheet, t.r + 1, t.c + at(), t.rows - 1, 1),
          filter: {
            applyValuesFilter: (values) => {
              charge(values);
              apply(() => {
                t.filters.set(at(), new Set(values.map((v) => String(v))));
                applyFilters(t);
              });
            },
            clear: () =>
              apply(() => {
                t.filters.delete(at());
                applyFilters(t);
              }),
          },
        };
        return loadable(col, ["name", "index", "id"]);
      }
      /** An Excel.Table. Its ranges are taken where the table stands when they are asked for. */
      function tableObject(t) {
        const byName = (key) => tableHeaders(t).findIndex((h) => h.toLowerCase() === String(key).toLowerCase());
        const columns = collection(() => tableHeaders(t).map((_h, j) => tableColumnObject(t, j)), {
          add: (index, values, name) => {
            charge([index, values, name]);
            const added = {};
            apply(() => (added.index = addTableColumn(t, index, values, name)));
            return tableColumnObject(t, () => added.index);
          },
          getItem: (key) =>
            typeof key === "number"
              ? tableColumnObject(t, key - 1)
              : byName(key) >= 0
                ? tableColumnObject(t, byName(key))
                : missing(`column ${key} of table ${t.name}`),
          getItemOrNullObject: (key) => (byName(key) >= 0 ? tableColumnObject(t, byName(key)) : nullObject()),
          getItemAt: (i) => tableColumnObject(t, i),
        });
        const rows = collection(
          () =>
            Array.from({ length: t.rows - 1 }, (_x, i) =>
              loadable({ __get_index: () => i, getRange: () => range(t.sheet, t.r + 1 + i, t.c, 1, t.cols) }, [
                "index",
              ]),
            ),
          {
            add: (index, values) => {
              charge(values || []);
              apply(() => addTableRows(t, index, values));
            },
          },
        );
        const table = {
          isNullObject: false,
          __get_name: () => t.name,
          __set_name: (v) => {
            const problem = tableNameProblem(String(v), t);
            if (problem) pendingError = new Error(problem);
            charge(v);
            apply(() => (t.name = String(v)));
          },
          __get_id: () => String(t.id),
          __get_showHeaders: () => true,
          __get_showTotals: () => false,
          worksheet: worksheet(t.sheet),
          getRange: () => range(t.sheet, t.r, t.c, t.rows, t.cols),
          getHeaderRowRange: () => range(t.sheet, t.r, t.c, 1, t.cols),
          getDataBodyRange: () => range(t.sheet, t.r + 1, t.c, t.rows - 1, t.cols),
          columns,
          rows,
          sort: {
            apply: (fields, matchCase) => {
              charge(fields);
              apply(() => {
                sortTable(
                  t,
                  fields.map((f) => ({ ...f, matchCase })),
                );
                applyFilters(t);
              });
            },
          },
          autoFilter: {
            apply: (_range, columnIndex, criteria) => {
              charge([columnIndex, criteria]);
              if (!criteria || criteria.filterOn !== "Values")
                throw new Error("stand-in: only Values filters are modelled");
              apply(() => {
                t.filters.set(columnIndex, new Set(criteria.values.map((v) => String(v))));
                applyFilters(t);
              });
            },
            clearCriteria: () =>
              apply(() => {
                t.filters.clear();
                applyFilters(t);
              }),
          },
          clearFilters: () =>
            apply(() => {
              t.filters.clear();
              applyFilters(t);
            }),
          reapplyFilters: () => apply(() => applyFilters(t)),
        };
        return loadable(table, ["name", "id", "showHeaders", "showTotals"]);
      }
      /** worksheet.tables (one sheet's) or workbook.tables (`sheet` null). */
      function tableCollection(sheet) {
        const mine = () => state.tables.filter((t) => sheet === null || t.sheet === sheet);
        return collection(() => mine().map(tableObject), {
          add: (address, hasHeaders) => {
            const text = typeof address === "string" ? address : address.__get_address();
            const a = parseAddress(text);
            const on = a.sheet || sheet || state.activeSheet;
            if (!hasHeaders)
              throw new Error(
                "stand-in: tables.add(address, false) is not modelled (Excel inserts a header row above the cells)",
              );
            const t = newTable(on, a);
            if (state.tables.some((o) => o.sheet === on && overlaps(o, t)))
              pendingError = new Error(`InvalidArgument: a table cannot overlap another table (${text})`);
            charge(text);
            apply(() => placeTable(t));
            return tableObject(t);
          },
          getItem: (key) => {
            const t = findTable(key);
            return t && (sheet === null || t.sheet === sheet) ? tableObject(t) : missing(`table ${key}`);
          },
          getItemOrNullObject: (key) => {
            const t = findTable(key);
            return t && (sheet === null || t.sheet === sheet) ? tableObject(t) : nullObject();
          },
          getItemAt: (i) => (mine()[i] ? tableObject(mine()[i]) : missing(`table at ${i}`)),
        });
      }

      function worksheet(name) {
        const ws = {
          isNullObject: false,
          __get_name: () => name,
          __get_id: () => state.sheetIds.get(name),
          getRangeByIndexes: (r, c, rows, cols) => range(name, r, c, rows, cols),
          getRange: (address) => {
            if (address === undefined) return range(name, 0, 0, MAX_ROWS, MAX_COLS);
            const a = parseAddress(address);
            return range(name, a.r, a.c, a.rows, a.cols);
          },
          freezePanes: {
            freezeRows: (n) => {
              charge(n);
              apply(() => state.frozenRows.set(name, n));
            },
          },
          charts: {
            add: (type, source, seriesBy) => {
              const entry = { name: "", type, source: source.__get_address(), seriesBy: seriesBy || "Auto", title: "" };
              charge(entry);
              apply(() => chartsOf(name).push(entry));
              return chartObject(name, entry);
            },
            getItemOrNullObject: (chartName) => {
              const entry = chartsOf(name).find((x) => x.name === chartName);
              return entry ? chartObject(name, entry) : nullObject();
            },
          },
          getUsedRange: () => {
            const b = usedBox(name) || { r: 0, c: 0, rows: 1, cols: 1 };
            return range(name, b.r, b.c, b.rows, b.cols);
          },
          getUsedRangeOrNullObject: () => {
            const b = usedBox(name);
            if (!b) return nullObject();
            const used = range(name, b.r, b.c, b.rows, b.cols);
            used.isNullObject = false;
            return used;
          },
          activate: () => {
            state.activeSheet = name;
          },
        };
        Object.defineProperty(ws, "tables", { get: () => tableCollection(name) });
        return loadable(ws, ["name", "id"]);
      }

      function range(sheet, r, c, rows, cols) {
        // Plain loops over the sheet's map, looked up once: these run for every cell of every range read or written.
        const grid = (fn) => {
          const cells = sheetCells(sheet);
          const out = new Array(rows);
          for (let i = 0; i < rows; i++) {
            const row = new Array(cols);
            for (let j = 0; j < cols; j++) row[j] = fn(cells.get(r + i + "," + (c + j)), i, j);
            out[i] = row;
          }
          return out;
        };
        const checkDims = (v, what) => {
          if (!Array.isArray(v) || v.length !== rows || v.some((row) => !Array.isArray(row) || row.length !== cols)) {
            throw new Error(`InvalidArgument: ${what} must be ${rows}x${cols} for ${rg.__get_address()}`);
          }
        };
        const rg = {
          __get_address: () =>
            `${sheet}!${colLetters(c)}${r + 1}${rows * cols > 1 ? `:${colLetters(c + cols - 1)}${r + rows}` : ""}`,
          __get_rowIndex: () => r,
          __get_columnIndex: () => c,
          __get_rowCount: () => rows,
          __get_columnCount: () => cols,
          __get_values: () => grid((cell) => (cell ? (cell.formula ? cell.value : cell.value) : "")),
          __set_values: (v) => {
            checkDims(v, "values");
            charge(v);
            apply(() =>
              v.forEach((row, i) => row.forEach((val, j) => writeValue(ensureCell(sheet, r + i, c + j), val))),
            );
          },
          __get_formulas: () => grid((cell) => (cell && cell.formula ? cell.formula : cell ? cell.value : "")),
          __set_formulas: (v) => {
            checkDims(v, "formulas");
            charge(v);
            apply(() =>
              v.forEach((row, i) =>
                row.forEach((val, j) => {
                  const cell = ensureCell(sheet, r + i, c + j);
                  if (typeof val === "string" && val.startsWith("=")) {
                    cell.formula = val;
                    cell.value = "#FORMULA";
                    cell.prefixed = false;
                  } else writeValue(cell, val);
                }),
              ),
            );
          },
          clear() {
            apply(() => {
              const cells = sheetCells(sheet);
              for (const k of [...cells.keys()]) {
                const [rr, cc] = keyRC(k);
                if (rr >= r && rr < r + rows && cc >= c && cc < c + cols) cells.delete(k);
              }
            });
          },
          /** Delete the range's cells, shifting the cells below it (in its columns) up: Excel's range.delete("Up"). */
          delete(shift) {
            if (shift !== "Up") throw new Error(`stand-in: delete(${shift}) is not modelled`);
            apply(() => {
              const cells = sheetCells(sheet);
              const moved = new Map();
              for (const [k, cell] of cells) {
                const [rr, cc] = keyRC(k);
                const inCols = cc >= c && cc < c + cols;
                if (inCols && rr >= r && rr < r + rows) continue;
                moved.set((inCols && rr >= r + rows ? rr - rows : rr) + "," + cc, cell);
              }
              cells.clear();
              for (const [k, cell] of moved) cells.set(k, cell);
            });
          },
          __get_numberFormat: () => grid((cell) => (cell ? cell.numberFormat : "General")),
          __set_numberFormat: (v) => {
            checkDims(v, "numberFormat");
            charge(v);
            apply(() =>
              v.forEach((row, i) => row.forEach((f, j) => (ensureCell(sheet, r + i, c + j).numberFormat = f))),
            );
          },
          worksheet: worksheet(sheet),
          format: {
            fill: {
              set color(v) {
                charge(v);
                apply(() => grid((_x, i, j) => (ensureCell(sheet, r + i, c + j).fill = v)));
              },
            },
            font: {
              set color(v) {
                charge(v);
                apply(() => grid((_x, i, j) => (ensureCell(sheet, r + i, c + j).font = v)));
              },
              set bold(v) {
                charge(v);
                apply(() => grid((_x, i, j) => (ensureCell(sheet, r + i, c + j).bold = !!v)));
              },
            },
            set columnWidth(v) {
              charge(v);
            },
            autofitColumns() {},
          },
          setCellProperties(props) {
            checkDims(props, "cellProperties");
            charge(props);
            apply(() =>
              props.forEach((row, i) =>
                row.forEach((p, j) => {
                  const cell = ensureCell(sheet, r + i, c + j);
                  if (p && p.format && p.format.fill && p.format.fill.color) cell.fill = p.format.fill.color;
                  if (p && p.format && p.format.font && p.format.font.color) cell.font = p.format.font.color;
                }),
              ),
            );
          },
          getSurroundingRegion() {
            const b = currentRegion(sheet, { r, c, rows, cols });
            return range(sheet, b.r, b.c, b.rows, b.cols);
          },
          getUsedRange() {
            const b = usedBox(sheet);
            if (!b) return range(sheet, r, c, 1, 1);
            const r0 = Math.max(r, b.r),
              c0 = Math.max(c, b.c);
            const r1 = Math.min(r + rows - 1, b.r + b.rows - 1),
              c1 = Math.min(c + cols - 1, b.c + b.cols - 1);
            return range(sheet, r0, c0, Math.max(1, r1 - r0 + 1), Math.max(1, c1 - c0 + 1));
          },
          getUsedRangeOrNullObject(_valuesOnly) {
            const b = usedBox(sheet);
            const r0 = b ? Math.max(r, b.r) : 0,
              c0 = b ? Math.max(c, b.c) : 0;
            const r1 = b ? Math.min(r + rows - 1, b.r + b.rows - 1) : -1,
              c1 = b ? Math.min(c + cols - 1, b.c + b.cols - 1) : -1;
            if (!b || r1 < r0 || c1 < c0) return nullObject();
            const used = range(sheet, r0, c0, r1 - r0 + 1, c1 - c0 + 1);
            used.isNullObject = false;
            return used;
          },
          getCell: (i, j) => range(sheet, r + i, c + j, 1, 1),
          getRow: (i) => range(sheet, r + i, c, 1, cols),
          // Range.rowHidden (ExcelApi 1.2): true when every row is hidden, false when none is, null when some are.
          __get_rowHidden: () => {
            const hidden = hiddenSet(sheet);
            let n = 0;
            for (let i = 0; i < rows; i++) if (hidden.has(r + i)) n++;
            return n === 0 ? false : n === rows ? true : null;
          },
          /** Range.getTables (ExcelApi 1.9): a TableScopedCollection, top to bottom then left to right. */
          getTables(fullyContained) {
            const list = () => tablesOver(sheet, { r, c, rows, cols }, !!fullyContained);
            return collection(() => list().map(tableObject), {
              getFirst: () => (list()[0] ? tableObject(list()[0]) : missing(`a table in ${rg.__get_address()}`)),
              getItem: (key) => {
                const t = list().find((x) => x.name.toLowerCase() === String(key).toLowerCase());
                return t ? tableObject(t) : missing(`table ${key}`);
              },
              getItemOrNullObject: (key) => {
                const t = list().find((x) => x.name.toLowerCase() === String(key).toLowerCase());
                return t ? tableObject(t) : nullObject();
              },
            });
          },
          select() {
            state.activeSheet = sheet;
            state.selection = { r, c, rows, cols };
            state.areas = [state.selection];
          },
        };
        // What loading `values` costs in the response: at least `"",` a cell, plus the text of the cells that hold something.
        rg.__responseBytes = () => {
          let n = rows * cols * 3;
          const cells = sheetCells(sheet);
          if (rows * cols < cells.size) {
            // A range smaller than the sheet's used cells: look its cells up rather than scan the sheet.
            for (let rr = r; rr < r + rows; rr++)
              for (let cc = c; cc < c + cols; cc++) {
                const cell = cells.get(rr + "," + cc);
                if (!isBlank(cell)) n += JSON.stringify(cell.value).length;
              }
            return n;
          }
          for (const [k, cell] of cells) {
            if (isBlank(cell)) continue;
            const [rr, cc] = keyRC(k);
            if (rr >= r && rr < r + rows && cc >= c && cc < c + cols) n += JSON.stringify(cell.value).length;
          }
          return n;
        };
        return loadable(rg, [
          "address",
          "rowIndex",
          "columnIndex",
          "rowCount",
          "columnCount",
          "values",
          "formulas",
          "numberFormat",
          "rowHidden",
        ]);
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

      /** workbook.getSelectedRanges(): a RangeAreas with areaCount, address ("Sheet1!A1:A5,Sheet1!C1:C5") and areas.items. */
      function rangeAreas() {
        const boxes = state.areas.map((a) => range(state.activeSheet, a.r, a.c, a.rows, a.cols));
        const ra = {
          __get_areaCount: () => boxes.length,
          __get_address: () => boxes.map((b) => b.__get_address()).join(","),
          areas: {
            __loaded: false,
            load(names) {
              const list = (typeof names === "string" ? names.split(",") : names || [])
                .map((n) => n.trim().replace(/^items\//, ""))
                .filter(Boolean);
              for (const b of boxes) b.load(list);
              // items become readable at the next sync, like any loaded property.
              loads.push({ __pending: new Set(["items"]), __loaded: { add: () => (this.__loaded = true) } });
              return this;
            },
            get items() {
              if (!this.__loaded) throw new Error("PropertyNotLoaded: areas.items was read before load() and sync()");
              return boxes;
            },
          },
        };
        return loadable(ra, ["areaCount", "address"]);
      }

      ctx.workbook = {
        getSelectedRange: () => {
          // Excel: "If there are multiple ranges selected, this method will throw an error" (at the sync).
          if (state.areas.length > 1)
            pendingError = new Error(
              "InvalidSelection: the current selection is invalid for this operation (several areas are selected)",
            );
          return range(
            state.activeSheet,
            state.selection.r,
            state.selection.c,
            state.selection.rows,
            state.selection.cols,
          );
        },
        getSelectedRanges: () => rangeAreas(),
        get tables() {
          return tableCollection(null);
        },
        getActiveCell: () => range(state.activeSheet, state.selection.r, state.selection.c, 1, 1),
        worksheets: {
          getItem: (key) => {
            const name = sheetNameOf(key);
            if (name === null) throw new Error(`ItemNotFound: worksheet ${key}`);
            return worksheet(name);
          },
          getItemOrNullObject: (key) => {
            const name = sheetNameOf(key);
            return name === null ? nullObject() : worksheet(name);
          },
          add: (name) => {
            if (state.sheets.has(name))
              pendingError = new Error(`ItemAlreadyExists: a worksheet named ${name} already exists`);
            charge(name);
            apply(() => sheetCells(name));
            return worksheet(name);
          },
          getActiveWorksheet: () => worksheet(state.activeSheet),
          // load("items/name") then sync: the names as they are at the sync (read live here).
          load: () => undefined,
          get items() {
            return [...state.sheets.keys()].map((n) => ({ name: n }));
          },
        },
        application: {
          calculate: (type) => {
            state.stats.calculations++;
            state.lastCalculation = type;
          },
        },
      };
      ctx.__pendingWrites = () => ops.length;
      ctx.sync = async () => {
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
        // Excel on the web caps a response at 5 MB too: loading the values of a million-row column fails.
        let responseBytes = 0;
        for (const obj of loads)
          if (obj.__pending.has("values") && obj.__responseBytes) responseBytes += obj.__responseBytes();
        state.stats.maxResponseBytes = Math.max(state.stats.maxResponseBytes, responseBytes);
        if (responseBytes > REQUEST_LIMIT) {
          loads.splice(0);
          throw new Error(
            `ResponsePayloadSizeLimitExceeded: about ${responseBytes} bytes of values in one response (Excel on the web allows 5 MB)`,
          );
        }
        for (const obj of loads.splice(0)) for (const p of obj.__pending) obj.__loaded.add(p);
        await Promise.resolve();
      };
      return ctx;
    }

    const Excel = {
      run: async (fn) => {
        const ctx = makeContext();
        const out = await fn(ctx);
        // Excel.run sends what the batch left queued when it ends.
        if (ctx.__pendingWrites()) await ctx.sync();
        return out;
      },
      CalculationType: { recalculate: "Recalculate", full: "Full", fullRebuild: "FullRebuild" },
    };

    class CFError extends Error {
      constructor(code, message) {
        super(message || code);
        this.code = code;
      }
    }
    const CustomFunctions = {
      associate: (id, fn) => {
        if (typeof id === "object") Object.assign(state.customFunctions, id);
        else state.customFunctions[id] = fn;
      },
      Error: CFError,
      ErrorCode: {
        invalidValue: "#VALUE!",
        notAvailable: "#N/A",
        divisionByZero: "#DIV/0!",
        invalidNumber: "#NUM!",
        nullReference: "#NULL!",
        invalidName: "#NAME?",
        invalidReference: "#REF!",
      },
    };

    const actions = {};
    const Office = {
      onReady: (cb) => {
        const info = { host: "Excel", platform: "OfficeOnline" };
        return Promise.resolve().then(() => {
          if (cb) cb(info);
          return info;
        });
      },
      HostType: { Excel: "Excel" },
      context: {
        partitionKey: state.partitionKey,
        // Office's display language ("en-GB", "en-US"); a test sets state.displayLanguage.
        get displayLanguage() {
          return state.displayLanguage === undefined ? "en-GB" : state.displayLanguage;
        },
        // Every requirement set is supported unless a test lists it in state.unsupportedSets ("ExcelApi 1.16").
        requirements: {
          isSetSupported: (name, version) => !(state.unsupportedSets || []).includes(`${name} ${version}`),
        },
      },
      actions: { associate: (id, fn) => (actions[id] = fn) },
      StartupBehavior: { load: "Load", none: "None" },
      addin: {
        setStartupBehavior: async (behavior) => {
          if (behavior !== "Load" && behavior !== "None")
            throw new Error("InvalidArgument: startup behavior " + behavior);
          state.startupCalls.push(behavior);
          state.startupBehavior = behavior;
        },
        getStartupBehavior: async () => state.startupBehavior,
      },
    };
    // Settings as Office keeps them: set() changes the copy in memory, saveAsync() writes it into the document.
    Office.context.document = {
      settings: {
        get: (name) => (name in state.settings ? JSON.parse(JSON.stringify(state.settings[name])) : null),
        set: (name, value) => {
          state.settings[name] = JSON.parse(JSON.stringify(value));
        },
        remove: (name) => {
          delete state.settings[name];
        },
        saveAsync: (cb) => {
          state.savedSettings = JSON.parse(JSON.stringify(state.settings));
          Promise.resolve().then(() => cb && cb({ status: "succeeded" }));
        },
      },
    };

    const api = {
      state,
      actions,
      /** Put a 2D block of values at an A1 address of a sheet (created if needed); numbers stay numbers. */
      seed(sheet, address, values) {
        const a = parseAddress(address);
        values.forEach((row, i) =>
          row.forEach((v, j) => {
            const cell = ensureCell(sheet, a.r + i, a.c + j);
            cell.value = v;
          }),
        );
      },
      /** Select a range; "A2:A5,C2:C5" selects several areas, as Ctrl+click does. */
      select(sheet, address) {
        const boxes = address.split(",").map((part) => {
          const a = parseAddress(part.trim());
          return { r: a.r, c: a.c, rows: a.rows, cols: a.cols };
        });
        sheetCells(sheet);
        state.activeSheet = sheet;
        state.selection = boxes[0];
        state.areas = boxes;
      },
      /** Insert whole columns before a 0-based column index, shifting cells right, as Excel's Insert > Sheet Columns does. */
      insertColumns(sheet, before, count) {
        const cells = sheetCells(sheet);
        const moved = new Map();
        for (const [k, cell] of cells) {
          const [r, c] = keyRC(k);
          moved.set(r + "," + (c >= before ? c + count : c), cell);
        }
        cells.clear();
        for (const [k, cell] of moved) cells.set(k, cell);
        for (const t of state.tables) {
          if (t.sheet !== sheet) continue;
          if (before <= t.c) t.c += count;
          else if (before < t.c + t.cols) {
            t.cols += count;
            for (let j = 0; j < count; j++)
              writeValue(ensureCell(sheet, t.r, before + j), "Column" + (before - t.c + j + 1));
          }
        }
      },
      /** Hide (a filter, or Hide Rows) or show rows: `count` rows from the 0-based row `first`. */
      hideRows(sheet, first, count, hide) {
        const set = hiddenSet(sheet);
        for (let i = 0; i < count; i++) hide === false ? set.delete(first + i) : set.add(first + i);
      },
      /**
       * Rename a sheet, as the user does on its tab: its cells, Tables, charts, hidden and frozen rows go with it, and
       * its Worksheet.id stays. A held Worksheet object is not followed: get the sheet again, as after any sync.
       */
      renameSheet(from, to) {
        if (!state.sheets.has(from)) throw new Error(`ItemNotFound: worksheet ${from}`);
        if (state.sheets.has(to)) throw new Error(`ItemAlreadyExists: a worksheet named ${to} already exists`);
        const move = (m) => {
          if (!m.has(from)) return;
          const v = m.get(from);
          m.delete(from);
          m.set(to, v);
        };
        for (const m of [state.sheets, state.sheetIds, state.hiddenRows, state.charts, state.frozenRows]) move(m);
        for (const t of state.tables) if (t.sheet === from) t.sheet = to;
        if (state.activeSheet === from) state.activeSheet = to;
      },
      /** Insert whole rows before a 0-based row index, shifting cells (and hidden rows) down, as Insert > Sheet Rows does. */
      insertRows(sheet, before, count) {
        const cells = sheetCells(sheet);
        const moved = new Map();
        for (const [k, cell] of cells) {
          const [r, c] = keyRC(k);
          moved.set((r >= before ? r + count : r) + "," + c, cell);
        }
        cells.clear();
        for (const [k, cell] of moved) cells.set(k, cell);
        const hidden = hiddenSet(sheet);
        const h = [...hidden].map((r) => (r >= before ? r + count : r));
        hidden.clear();
        h.forEach((r) => hidden.add(r));
        for (const t of state.tables) {
          if (t.sheet !== sheet) continue;
          t.hiddenByFilter = new Set([...t.hiddenByFilter].map((r) => (r >= before ? r + count : r)));
          if (before <= t.r) t.r += count;
          else if (before < t.r + t.rows) t.rows += count;
        }
      },
      /** Delete whole rows, shifting the rows below up, as Delete > Sheet Rows does. */
      deleteRows(sheet, first, count) {
        const cells = sheetCells(sheet);
        const moved = new Map();
        for (const [k, cell] of cells) {
          const [r, c] = keyRC(k);
          if (r >= first && r < first + count) continue;
          moved.set((r >= first + count ? r - count : r) + "," + c, cell);
        }
        cells.clear();
        for (const [k, cell] of moved) cells.set(k, cell);
        for (const t of state.tables) {
          if (t.sheet !== sheet) continue;
          if (first <= t.r && first + count > t.r)
            throw new Error("stand-in: deleting a table's header row is not modelled");
          if (first + count <= t.r) t.r -= count;
          else if (first < t.r + t.rows) t.rows -= Math.min(count, t.r + t.rows - first);
        }
      },
      /**
       * Reorder rows as Sort does: row `first + i` gets what row `first + order[i]` held. Only the columns
       * [firstCol, firstCol + colCount) move when given (a sort of part of the table); else whole rows.
       */
      reorderRows(sheet, first, order, firstCol, colCount) {
        const cells = sheetCells(sheet);
        const inCols = (c) => firstCol === undefined || (c >= firstCol && c < firstCol + colCount);
        const taken = new Map();
        for (const [k, cell] of cells) {
          const [r, c] = keyRC(k);
          if (r >= first && r < first + order.length && inCols(c)) taken.set(k, cell);
        }
        for (const k of taken.keys()) cells.delete(k);
        for (const [k, cell] of taken) {
          const [r, c] = keyRC(k);
          const dest = order.indexOf(r - first);
          cells.set(first + dest + "," + c, cell);
        }
      },
      /**
       * The user types values at an address (one cell or a block), as typing does: text is read as Excel reads it, and a
       * value typed right below or right of a table makes that row or column the table's (AutoCorrect's default).
       */
      type(sheet, address, values) {
        const a = parseAddress(address);
        values.forEach((row, i) => row.forEach((v, j) => writeValue(ensureCell(sheet, a.r + i, a.c + j), v)));
        expandTablesFor(sheet);
      },
      /** The user sorts a table by one of its columns (Data > Sort, or the header's filter button). */
      sortTable(name, column, ascending) {
        const t = findTable(name);
        const key = tableHeaders(t).findIndex((h) => h.toLowerCase() === String(column).toLowerCase());
        if (key < 0) throw new Error(`stand-in: no column ${column} in table ${name}`);
        sortTable(t, [{ key, ascending: ascending !== false }]);
        applyFilters(t);
      },
      /** The user filters a table's column to these values (null clears that column's filter). */
      filterTable(name, column, values) {
        const t = findTable(name);
        const key = tableHeaders(t).findIndex((h) => h.toLowerCase() === String(column).toLowerCase());
        if (key < 0) throw new Error(`stand-in: no column ${column} in table ${name}`);
        if (values === null) t.filters.delete(key);
        else t.filters.set(key, new Set(values.map((v) => String(v))));
        applyFilters(t);
      },
      /** Every table as it stands: name, sheet, 0-based top-left, size (header row included) and column names. */
      tables() {
        return state.tables.map((t) => ({
          name: t.name,
          sheet: t.sheet,
          r: t.r,
          c: t.c,
          rows: t.rows,
          cols: t.cols,
          headers: tableHeaders(t),
        }));
      },
      /** Rows hidden on a sheet (0-based), by a filter or by hand. */
      hiddenRows(sheet) {
        return [...hiddenSet(sheet)].sort((x, y) => x - y);
      },
      /** Everything about a block of cells, for assertions. */
      read(sheet, address) {
        const a = parseAddress(address);
        const out = { values: [], formulas: [], fills: [], fonts: [], numberFormats: [], prefixed: [] };
        for (let i = 0; i < a.rows; i++) {
          const v = [],
            f = [],
            fi = [],
            fo = [],
            nf = [],
            p = [];
          for (let j = 0; j < a.cols; j++) {
            const cell = cellAt(sheet, a.r + i, a.c + j);
            v.push(cell ? cell.value : "");
            f.push(cell && cell.formula ? cell.formula : null);
            fi.push(cell ? cell.fill : null);
            fo.push(cell ? cell.font : null);
            nf.push(cell ? cell.numberFormat : "General");
            p.push(cell ? cell.prefixed : false);
          }
          out.values.push(v);
          out.formulas.push(f);
          out.fills.push(fi);
          out.fonts.push(fo);
          out.numberFormats.push(nf);
          out.prefixed.push(p);
        }
        return out;
      },
      resetStats() {
        state.stats = {
          syncs: 0,
          requests: 0,
          maxRequestBytes: 0,
          maxResponseBytes: 0,
          totalBytes: 0,
          calculations: 0,
        };
      },
      /** The user starts (true) or ends (false) typing in a cell; while on, every sync fails as Excel's does. */
      setCellEditMode(on) {
        state.cellEditMode = !!on;
      },
      colLetters,
      /** The workbook as saved (cells, saved settings, startup behavior), to open it again: createStandIn({ restore }). */
      dump() {
        return JSON.stringify({
          sheets: [...state.sheets].map(([name, cells]) => [name, [...cells]]),
          sheetIds: [...state.sheetIds],
          settings: state.savedSettings,
          startupBehavior: state.startupBehavior,
          tables: state.tables.map((t) => ({
            ...t,
            filters: [...t.filters].map(([k, v]) => [k, [...v]]),
            hiddenByFilter: [...t.hiddenByFilter],
          })),
        });
      },
      /** Sheet names, in creation order. */
      sheetNames() {
        return [...state.sheets.keys()];
      },
      /** Every cell of a sheet from A1 as its source: the formula when there is one, else the value (for a formula engine). */
      sourceGrid(sheet) {
        const b = usedBox(sheet);
        if (!b) return [];
        const out = [];
        for (let i = 0; i <= b.r + b.rows - 1; i++) {
          const line = [];
          for (let j = 0; j <= b.c + b.cols - 1; j++) {
            const cell = cellAt(sheet, i, j);
            line.push(cell ? (cell.formula ? cell.formula : cell.value) : "");
          }
          out.push(line);
        }
        return out;
      },
      charts(sheet) {
        return (state.charts.get(sheet) || []).map((x) => ({ ...x }));
      },
      frozenRows(sheet) {
        return state.frozenRows.get(sheet) || 0;
      },
    };

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

    return { Excel, Office, CustomFunctions, OfficeRuntime, api };
  }

  function install(root) {
    const s = createStandIn(root.__standInOptions);
    root.Excel = s.Excel;
    root.Office = s.Office;
    root.CustomFunctions = s.CustomFunctions;
    root.OfficeRuntime = s.OfficeRuntime;
    root.__excelStandIn = s.api;
  }

  return { createStandIn, install, parseAddress, colLetters };
});
