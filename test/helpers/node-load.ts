/**
 * A module as Node itself loads it, not through jest's module registry: one copy for the whole process (a jest worker),
 * which outlives each test file's registry and fresh globals. Jest compiles a module afresh for every test file that
 * requires it; what is loaded here is compiled once and keeps its state (a browser, a sandbox host, a register) from one
 * test file to the next. Outside jest, this is Node's own require.
 */
import * as nodeModule from "module";

export function nodeLoad<T>(request: string): T {
  const node = nodeModule as unknown as { _load(request: string, parent: null, isMain: boolean): unknown };
  return node._load(request, null, false) as T;
}
