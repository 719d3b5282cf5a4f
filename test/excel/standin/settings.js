/**
 * What Office keeps for the add-in in the workbook: its document settings (Office.context.document.settings) and its
 * startup behavior (Office.addin), each as a saved workbook (`restored`) had them.
 */
"use strict";

/** Office.context.document.settings and Office.addin's startup calls over the workbook `state`. */
function createSettings(state, restored) {
  state.settings = {};
  state.savedSettings = {};
  state.startupBehavior = "None";
  state.startupCalls = [];
  if (restored) {
    state.settings = JSON.parse(JSON.stringify(restored.settings || {}));
    state.savedSettings = JSON.parse(JSON.stringify(restored.settings || {}));
    state.startupBehavior = restored.startupBehavior || "None";
  }
  // Settings as Office keeps them: set() changes the copy in memory, saveAsync() writes it into the document.
  const settings = {
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
  };
  const addin = {
    setStartupBehavior: async (behavior) => {
      if (behavior !== "Load" && behavior !== "None") throw new Error("InvalidArgument: startup behavior " + behavior);
      state.startupCalls.push(behavior);
      state.startupBehavior = behavior;
    },
    getStartupBehavior: async () => state.startupBehavior,
  };
  return { settings, addin };
}

module.exports = { createSettings };
