/**
 * Starts the sandbox process from the bundle test/helpers/global-setup.js made (its path is the one argument), with a
 * V8 code cache beside the bundle: a process that compiles from the cache skips most of the parsing and compiling of
 * the bundle's 1.8 MB, about a sixth of what a start costs (0.77 s to 0.60 s of CPU). The first process of a run, or
 * one whose cache V8 refuses, compiles as usual and writes the cache once its first sandbox is built, when everything
 * a start runs is compiled. Node maps stack traces through source maps only for the modules it loads itself, so stack
 * traces through the bundle are mapped here, from the source map beside it.
 */
"use strict";
const fs = require("fs");
const Module = require("module");
const path = require("path");
const vm = require("vm");

const bundle = path.resolve(process.argv[2]);
const cacheFile = bundle + ".code-cache";

let cachedData;
try {
  cachedData = fs.readFileSync(cacheFile);
} catch {
  cachedData = undefined;
}
const script = new vm.Script(Module.wrap(fs.readFileSync(bundle, "utf8")), { filename: bundle, cachedData });

if (cachedData === undefined || script.cachedDataRejected) {
  const send = process.send.bind(process);
  process.send = (message, ...rest) => {
    if (message && message.created) writeCache();
    return send(message, ...rest);
  };
}

/** Written beside the bundle under another name first, so that a process starting meanwhile reads all or none. */
function writeCache() {
  const partial = `${cacheFile}.${process.pid}`;
  try {
    fs.writeFileSync(partial, script.createCachedData());
    fs.renameSync(partial, cacheFile);
  } catch {
    // Without a cache the next process compiles as this one did.
  }
}

let sourceMap;
Error.prepareStackTrace = (error, frames) => {
  const lines = frames.map((frame) => {
    const original = frame.getFileName() === bundle ? originalPlace(frame) : undefined;
    return original ? `    at ${frame.getFunctionName() || "<anonymous>"} (${original})` : `    at ${frame}`;
  });
  return [String(error), ...lines].join("\n");
};

function originalPlace(frame) {
  if (sourceMap === undefined) {
    try {
      sourceMap = new Module.SourceMap(JSON.parse(fs.readFileSync(bundle + ".map", "utf8")));
    } catch {
      sourceMap = null;
    }
  }
  const entry = sourceMap && sourceMap.findEntry(frame.getLineNumber() - 1, frame.getColumnNumber() - 1);
  if (!entry || !entry.originalSource) return undefined;
  const source = path.resolve(path.dirname(bundle), entry.originalSource);
  return `${source}:${entry.originalLine + 1}:${entry.originalColumn + 1}`;
}

const module_ = new Module(bundle, module);
module_.filename = bundle;
module_.paths = Module._nodeModulePaths(path.dirname(bundle));
script
  .runInThisContext()
  .call(module_.exports, module_.exports, Module.createRequire(bundle), module_, bundle, path.dirname(bundle));
