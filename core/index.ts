/**
 * The shared core of both add-ins: request builders, response interpreters, row validation, bulk
 * planning, job polling, output layout and an async client. Host-free: runs in browsers, Node and Apps Script.
 */
export * from "./checks";
export * from "./errors";
export * from "./url";
export * from "./ratelimit";
export * from "./schemas";
export * from "./requests";
export * from "./responses";
export * from "./results-page";
export * from "./rows";
export * from "./plan";
export * from "./jobs";
export * from "./layout";
export * from "./client";
export * from "./run";
export * from "./drive";
export * from "./sheet";
export * from "./input-shift";
export * from "./own-sheets";
export * from "./obligations";
export * from "./window-settings";
export * from "./dates";
export * from "./actions";
export * from "./compliance-summary";
export * from "./demo-key";
export * from "./changes";
export * from "./card";
export * from "./country";
export * from "./country-rules";
export * from "./working-days";
export * from "./own-obligations";
export * from "./own-rules";
export * from "./row-place";
export * from "./row-dates";
export * from "./action-list";
export * from "./action-list-columns";
export * from "./ics";
export * from "./numbers";
export * from "./result-place";
export * from "./digest";
export * from "./digest-route";
export * from "./digest-render";
export * from "./digest-eml";
