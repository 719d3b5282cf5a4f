/**
 * The sandbox's synthetic property register: about 20,000 rental properties on real-format UK postcodes,
 * generated from a fixed seed with every date placed relative to "today", so statuses stay realistic.
 * What it holds (register.ts), how it is made (generate.ts, from random.ts, places.ts and days.ts), the register for a
 * day (register-day.ts), a property's score and check result (score.ts), and examples found in it (examples.ts).
 */
export * from "./register";
export { isoSeconds } from "./days";
export { scoreChecks, checkResultFor } from "./score";
export { getDataset, datasetOnDay, buildDatasetFor } from "./register-day";
export * from "./examples";
