/**
 * The runs a check left unfinished, kept per user (OfficeRuntime.storage) so that Resume can collect their jobs: the
 * pane's own run, and the run set aside by a check begun while it was unfinished (core's set-aside rule). What the pane
 * asks and says about them is core's words.
 */
import {
  interruptedRun,
  loadRunState,
  resumeFirstQuestion,
  setAside,
  setAsideRefusal,
  storedState,
  takeOut,
  type Change,
  type PlanName,
  type RunState,
  unfinishedRunLine,
  countWord,
} from "../../core";
import type { UserStore } from "../settings";
import type { RunPlace } from "./rows-now";
import { HELD_KEY, UNFINISHED_KEY } from "./stored";

/**
 * What the pane keeps per user (OfficeRuntime.storage, not the workbook) so a closed pane can resume: core's stored
 * run state, and where on the sheet its rows were last seen (a hint: they are found again before every write).
 */
export interface UnfinishedRun extends RunPlace {
  version: 2;
  startedAt: string;
  plan: PlanName;
  state: RunState;
  /** Changes of rows already written that the Change log does not have yet (it is written at the end of a run). */
  changes?: (Change & { runAt: string })[];
}
function readUnfinished(raw: unknown): UnfinishedRun | null {
  try {
    const run = (typeof raw === "string" ? JSON.parse(raw) : raw) as UnfinishedRun | null;
    if (!run || run.version !== 2) return null;
    const state = loadRunState(run.state);
    // Stored while it ran: its pane closed or was reloaded mid-run, so it is a stopped run, offered for Resume (core).
    return state ? { ...run, state: interruptedRun(state) } : null;
  } catch {
    return null;
  }
}

/** The runs set aside by a check begun while they were unfinished (newest last), each still resumable. */
async function heldRuns(store: UserStore): Promise<UnfinishedRun[]> {
  try {
    const list = JSON.parse((await store.getItem(HELD_KEY)) ?? "[]") as unknown[];
    return Array.isArray(list) ? list.map(readUnfinished).filter((r): r is UnfinishedRun => !!r) : [];
  } catch {
    return [];
  }
}

/** Rejects when OfficeRuntime.storage refuses the list (10 MB per domain): the caller decides what then stays. */
async function saveHeld(store: UserStore, held: UnfinishedRun[]): Promise<void> {
  const stored = held.map((r) => ({ ...r, state: storedState(r.state) }));
  await (stored.length ? store.setItem(HELD_KEY, JSON.stringify(stored)) : store.removeItem(HELD_KEY));
}

const reasonOf = (e: unknown) => (e instanceof Error ? e.message : String(e)).replace(/[\s.]+$/, "");

/**
 * Saves the pane's unfinished run for Resume over the one saved before (which stays until this one is safe). Null when
 * saved; else what the pane says (OfficeRuntime.storage holds 10 MB per domain, and a save past it is refused): `stop`
 * when the run stops rather than send a bulk job a Resume from the last save would not know of, `notice` when it goes on.
 */
export async function storeUnfinished(
  store: UserStore,
  run: UnfinishedRun,
): Promise<{ stop: string; notice: string } | null> {
  try {
    await store.setItem(UNFINISHED_KEY, JSON.stringify({ ...run, state: storedState(run.state) }));
    return null;
  } catch (e) {
    const said = `This check could not be saved on this computer for Resume (${reasonOf(e)}). To make room, choose Discard on an unfinished check you no longer need.`;
    return {
      stop: `${said} So its next bulk job was not sent; the results already received are on the sheet.`,
      notice: `${said} Its results are still written as they arrive: keep the pane open until it ends.`,
    };
  }
}

const placeOf = (r: UnfinishedRun) => ({ sheet: r.sheet, startedAtMs: Date.parse(r.startedAt) });

/**
 * The run stored under UNFINISHED_KEY, unless it is `runId`'s own, moves to the runs set aside (core setAside). Past
 * core's cap this throws core's refusal, before anything is written or sent: no paid job's Resume is dropped.
 */
export async function setAsideStored(store: UserStore, runId: string): Promise<void> {
  const current = readUnfinished(await store.getItem(UNFINISHED_KEY).catch(() => null));
  if (!current || current.state.runId === runId) return;
  // Removed from its place only once it is safe among the runs set aside: a refused save keeps it where it is.
  const refused = await saveHeld(
    store,
    setAside(await heldRuns(store), current, (r) => r.state, placeOf),
  ).then(
    () => undefined,
    (e: unknown) => ({ reason: reasonOf(e) }),
  );
  if (refused) {
    const rows = countWord(current.state.rowsTotal, "row");
    throw new Error(
      `The unfinished check of ${rows} on ${current.sheet} could not be set aside on this computer (${refused.reason}), so this check was not started and nothing was sent. That check is kept: choose Resume to finish it, or Discard if you no longer need it, then check again.`,
    );
  }
  await store.removeItem(UNFINISHED_KEY).catch(() => undefined);
}

/** Why a new check may not set the unfinished run aside (core's setAsideRefusal, naming both runs); "" when it may. */
export async function setAsideRefused(store: UserStore): Promise<string> {
  const current = readUnfinished(await store.getItem(UNFINISHED_KEY).catch(() => null));
  const held = (await heldRuns(store)).map((r) => ({ state: r.state, where: placeOf(r) }));
  return setAsideRefusal(held, current && { state: current.state, where: placeOf(current) });
}

/**
 * The unfinished run saved by a pane that was closed (or whose writes Excel refused), if any; else the newest run set
 * aside by a later check.
 */
export async function loadUnfinished(store: UserStore): Promise<UnfinishedRun | null> {
  const current = readUnfinished(await store.getItem(UNFINISHED_KEY).catch(() => null));
  if (current) return current;
  const held = await heldRuns(store);
  return held.length ? held[held.length - 1] : null;
}

/** Discard forgets the unfinished run the pane offers (loadUnfinished's): the stored one, else the newest set aside. */
export async function discardUnfinished(store: UserStore): Promise<void> {
  if (await store.getItem(UNFINISHED_KEY).catch(() => null))
    return void (await store.removeItem(UNFINISHED_KEY).catch(() => undefined));
  await saveHeld(store, (await heldRuns(store)).slice(0, -1)).catch(() => undefined);
}

/** The question for a check begun while a run is unfinished (core's words): resume it first? Empty when none is. */
export async function resumeFirst(store: UserStore): Promise<string> {
  const run = await loadUnfinished(store);
  return run ? resumeFirstQuestion(run.state, { sheet: run.sheet, startedAtMs: Date.parse(run.startedAt) }) : "";
}

/** A sentence saying what an unfinished run is waiting for, for the pane's Resume box (core's words, as in Sheets). */
export function unfinishedText(run: UnfinishedRun): string {
  return unfinishedRunLine(run.state, placeOf(run));
}

/** A run taken up again by Resume leaves the runs set aside; another unfinished run stored meanwhile takes its place. */
export async function takeUpStored(store: UserStore, runId: string): Promise<void> {
  // Refused, the resumed run stays listed too: offered again later, it finds its jobs already collected.
  await saveHeld(
    store,
    takeOut(await heldRuns(store), runId, (r) => r.state),
  ).catch(() => undefined);
  await setAsideStored(store, runId);
}
