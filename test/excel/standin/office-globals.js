/**
 * The globals office.js gives an add-in, as the stand-in models them: Excel (Excel.run over a fresh context),
 * CustomFunctions (associate, errors) and Office (onReady, the context's language and requirement sets, ribbon
 * actions, the document's settings and the add-in's startup behavior).
 */
"use strict";
const { makeContext } = require("./context");

/** The Excel, CustomFunctions and Office globals over the workbook `state` (`model`: its cells and tables). */
function createOfficeGlobals(state, model, saved) {
  const Excel = {
    run: async (fn) => {
      const ctx = makeContext(state, model);
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
    addin: saved.addin,
  };
  Office.context.document = { settings: saved.settings };
  return { Excel, CustomFunctions, Office, actions };
}

module.exports = { createOfficeGlobals };
