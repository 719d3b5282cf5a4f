/**
 * The same rows give the same grid in Excel and Google Sheets: postcodes and addresses, typing mistakes, UPRNs typed
 * as numbers, duplicates, a UPRN the register does not hold, filtered rows, and re-checks after the user sorted,
 * inserted a row, renamed one of our headers or kept a Done column. The scenarios are in scenarios.ts, how they run
 * in hosts.ts.
 */
import { parityScenarios } from "./sheet-model";

parityScenarios("rows");
