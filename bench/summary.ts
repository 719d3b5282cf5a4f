/**
 * One line of the table `npm run bench` prints at the end: a measure, this project's figure, the floor (the least
 * possible) or a peer/limit to compare with, and the ratio between them. Each benchmark runs in its own process, so
 * the rows go to the file run.ts names in BENCH_SUMMARY (one JSON object a line); run alone, a benchmark skips them.
 */
import { appendFileSync } from "fs";

export interface SummaryRow {
  measure: string;
  ours: string;
  reference: string;
  ratio: string;
}

export function summary(
  measure: string,
  ours: number,
  oursUnit: string,
  reference: number,
  referenceText: string,
  digits = 1,
): void {
  const file = process.env.BENCH_SUMMARY;
  if (!file) return;
  const fmt = (n: number) => n.toLocaleString("en-GB", { maximumFractionDigits: digits });
  const row: SummaryRow = {
    measure,
    ours: `${fmt(ours)} ${oursUnit}`.trim(),
    reference: referenceText,
    ratio: reference > 0 ? `${(ours / reference).toFixed(2)}x` : "",
  };
  appendFileSync(file, JSON.stringify(row) + "\n");
}
