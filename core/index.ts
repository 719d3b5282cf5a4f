/**
 * The shared core of both add-ins: request builders, response interpreters, row validation, bulk
 * planning, job polling, output layout and an async client. Host-free: runs in browsers, Node and Apps Script.
 */
export * from "./service/checks";
export * from "./service/errors";
export * from "./service/url";
export * from "./service/ratelimit";
export * from "./service/schemas";
export * from "./service/requests";
export * from "./service/responses";
export * from "./service/results-page";
export * from "./sheet/input-rows";
export * from "./run/plan";
export * from "./service/jobs";
export * from "./sheet/layout";
export * from "./service/client";
export * from "./run";
export * from "./run/drive";
export * from "./sheet";
export * from "./sheet/input-shift";
export * from "./reports/own-sheets";
export * from "./compliance/obligations";
export * from "./compliance/window-settings";
export * from "./compliance/window-fields";
export * from "./sheet/user-dates";
export * from "./reports/actions";
export * from "./reports/compliance-summary";
export * from "./demo/demo-key";
export * from "./reports/changes";
export * from "./compliance/card";
export * from "./compliance/country";
export * from "./compliance/country-rules";
export * from "./compliance/working-days";
export * from "./compliance/own-obligations";
export * from "./compliance/own-rules";
export * from "./compliance/row-place";
export * from "./sheet/row-dates";
export * from "./reports/action-list";
export * from "./reports/action-list-columns";
export * from "./reports/ics";
export * from "./reports/report-words";
export * from "./numbers";
export * from "./compliance/result-place";
export * from "./reports/digest";
export * from "./reports/digest-route";
export * from "./reports/digest-render";
export * from "./reports/digest-eml";
