/**
 * Excel.Table, its columns and rows, and the table collections (a sheet's, the workbook's) in the stand-in, as one
 * batch sees them: each change is checked where Excel checks it and applied at the sync.
 */
"use strict";
const { parseAddress } = require("./address");

/** Table proxies over the workbook `state` (`model`: its cells and tables) for one batch; `objects` gives the others. */
function createTableObjects(state, model, batch, objects) {
  const { ensureCell, writeValue } = model;
  const { tableHeaders, findTable, overlaps, tableNameProblem, newTable, placeTable, applyFilters } = model;
  const { addTableColumn, addTableRows, sortTable } = model;
  const { charge, apply, fail, loadable, collection, nullObject, missing } = batch;
  const range = (sheet, r, c, rows, cols) => objects.range(sheet, r, c, rows, cols);
  const worksheet = (name) => objects.worksheet(name);

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
          loadable({ __get_index: () => i, getRange: () => range(t.sheet, t.r + 1 + i, t.c, 1, t.cols) }, ["index"]),
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
        if (problem) fail(new Error(problem));
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
          fail(new Error(`InvalidArgument: a table cannot overlap another table (${text})`));
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

  return { tableObject, tableCollection };
}

module.exports = { createTableObjects };
