/**
 * The run of a bulk check, sans-IO: everything between "these rows were read" and "write these cells". It keeps a
 * JSON-serialisable RunState and decides which requests are due, what each reply means, when to wait, pause or
 * stop, each property's fate and the summary. Hosts only do I/O: send the requests it hands out (fetch,
 * UrlFetchApp), give back the replies, write the outcomes it hands out where their property now is, and store the
 * state. Both add-ins and createClient().screen drive this one engine, so they follow one policy
 * (docs/service-contract.md, "One run policy").
 */
export {
  RUN_POLICY,
  RUN_TRANSITIONS,
  createRun,
  moveRun,
  endRun,
  isMaybeCreated,
  resumeRun,
  runHold,
  stopRun,
} from "./state";
export type { CreateRunOptions, Fate, RunEvent, RunJob, RunJobPhase, RunPhase, RunState } from "./state";
export { dueRequests, nextDueInMs } from "./due";
export type { Due, DueOptions, DueRequest } from "./due";
export { acceptReply, classifyTransportError } from "./engine";
export type { Reply, TransportFailure } from "./engine";
export { loadRunState, storedState } from "./store";
export { BEGIN_ORDER, beginRunSession } from "./begin";
export type { BeginIO } from "./begin";
export { checkingLine, countStatuses, isRunDone, jobViews, nothingToSendLine, runCounts, runSummary } from "./report";
export type { JobView, RunCounts, RunSummaryWords } from "./report";
export { runEndWords } from "./end-words";
export type { RunEndFacts, RunEndWords } from "./end-words";
export { runCaption, runProgressLine, unfinishedRunLine } from "./run-lines";
export {
  CHECKING_MESSAGE,
  ROW_CHANGED_ERROR,
  checkingMessage,
  checkingRow,
  markTag,
  runTag,
  fateOf,
  isCheckingMessage,
  markWritten,
  matchRows,
  noteEarlierValues,
  outcomesToWrite,
  waitingRow,
  startRow,
} from "./rows";
export type { OutcomeToWrite, RowNow, WrittenProperty } from "./rows";
export {
  MAX_PRINTED_PROPERTIES,
  PRINT_COLUMNS,
  PRINT_LENGTH,
  keepsPrint,
  checkedAtText,
  movedRowCells,
  movedRowNow,
  movedRows,
  pendingKeys,
  resultPrint,
  unreadableInput,
} from "./moved";
export type { MovedRow, RowAsRead, RunWritten } from "./moved";
export {
  adoptStoredPhase,
  interruptedRun,
  keepForResume,
  leftMidRun,
  MAX_SET_ASIDE,
  newRunId,
  resumeFirstQuestion,
  runLogProblem,
  setAside,
  setAsideRefusal,
  shownPhase,
  takeOut,
  wholeRunFailure,
  wholeRunFailureText,
} from "./session";
export type { HeldRun, ShownPhase, UnfinishedPlace } from "./session";
