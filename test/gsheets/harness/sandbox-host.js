/**
 * The one sandbox host process of a Node process (a jest worker, or a script): a child process that runs every sandbox
 * the process's test files start, each its own service on its own port, with its own options, clock, faults and
 * counts. Starting a process for each file cost about half a second of CPU (Node, the bundle, the day's register of
 * 20,400 properties), 45 times in a run of the suite; the host starts once, and a sandbox of a day it already knows
 * costs a few milliseconds. A child process, not a thread of the test: the vm's synchronous UrlFetchApp blocks the
 * test's event loop.
 *
 * Loaded through Node's own module loader (test/gsheets/harness/sandbox.ts), not jest's, so that one copy outlives each
 * test file's module registry. The host never holds its parent open: its channel counts as a handle only while a call
 * waits for an answer, and it exits when its parent does.
 */
"use strict";
const { fork } = require("child_process");
const path = require("path");

const HOST = Symbol.for("property-compliance.tests.sandbox-host");

function startHost() {
  // The bundle jest's global set-up made (test/helpers/global-setup.js), started with its code cache, or the
  // TypeScript through tsx without it.
  const bundle = process.env.COMPLIANCE_TEST_SANDBOX_BUNDLE;
  const script = bundle ? path.join(__dirname, "sandbox-launch.js") : path.join(__dirname, "sandbox-process.ts");
  const child = fork(script, bundle ? [bundle] : [], {
    execArgv: bundle ? [] : ["--import", "tsx"],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  let nextId = 1;
  const pending = new Map();
  const hold = () => {
    child.ref();
    child.channel?.ref();
  };
  const release = () => {
    if (pending.size) return;
    child.unref();
    child.channel?.unref();
  };
  const failAll = (error) => {
    for (const p of pending.values()) p.reject(error);
    pending.clear();
  };
  hold();
  const ready = new Promise((resolve, reject) => {
    child.once("error", (e) => {
      failAll(e);
      reject(e);
    });
    child.once("exit", (code) => {
      const e = new Error(`the sandbox host process exited (${code})`);
      failAll(e);
      reject(e);
    });
    child.on("message", (m) => {
      if (m && m.ready) {
        resolve();
        release();
        return;
      }
      const p = m && pending.get(m.id);
      if (!p) return;
      pending.delete(m.id);
      release();
      if (m.error) p.reject(new Error(m.error));
      else p.resolve(m.result);
    });
  });
  ready.catch(() => undefined);
  const call = async (sid, method, args) => {
    await ready;
    if (child.exitCode !== null || child.signalCode !== null) throw new Error("the sandbox host process has exited");
    return new Promise((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      hold();
      child.send({ id, sid, method, args });
    });
  };
  return { child, call, alive: () => child.exitCode === null && child.signalCode === null && child.connected };
}

/** The process's host, started on first use (again, if the one before has exited). */
function host() {
  const current = process[HOST];
  if (current && current.alive()) return current;
  return (process[HOST] = startHost());
}

/** A new sandbox in the host: { sid, url, baseUrl }. */
function create(options) {
  return host().call(0, "create", [options]);
}

/** A control of sandbox `sid` (setFaults, stats, advanceClock, reset, properties, close, ...). */
function call(sid, method, args = []) {
  return host().call(sid, method, args);
}

module.exports = { create, call };
