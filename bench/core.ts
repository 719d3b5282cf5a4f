/**
 * Core benchmarks: HTTP requests per 1,000 distinct properties for `screen`, the time to validate and
 * flatten 10,000 rows, and the time to screen 10,000 rows against the sandbox at zero processing delay.
 */
import { performance } from "perf_hooks";
import { createClient, fanOut, outputRow, planScreening, readPropertyRows } from "../core";
import { startSandbox } from "../sandbox/app";
import { buildDatasetFor, checkResultFor, getDataset } from "../sandbox/dataset";
import { summary } from "./summary";

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

async function requestsPer1000(
  msPerProperty: number,
  distinct: number,
  apiKey: string,
  plan: "professional" | "enterprise",
) {
  const sandbox = await startSandbox({ port: 0, msPerProperty });
  try {
    const client = createClient({ baseUrl: sandbox.baseUrl, apiKey, fetch });
    const props = getDataset()
      .properties.slice(0, distinct)
      .map((p) => ({ uprn: p.uprn }));
    const t0 = performance.now();
    const outcomes = await client.screen(props, { plan });
    const ms = performance.now() - t0;
    const s = sandbox.stats();
    const ok = outcomes.filter((o) => "result" in o).length;
    return {
      ms,
      total: s.total,
      posts: s.bulk_submit,
      polls: s.bulk_results,
      per1000: (s.total / distinct) * 1000,
      ok,
    };
  } finally {
    await sandbox.close();
  }
}

export async function runCoreBench(): Promise<void> {
  const ds = getDataset();
  const values: unknown[][] = [["UPRN", "Postcode", "Address"]];
  for (let i = 0; i < 10000; i++) {
    const p = ds.properties[i % 9000];
    values.push(i % 3 === 0 ? ["", p.postcode, p.address_line_1] : [p.uprn, "", ""]);
  }
  const results = ds.properties.slice(0, 9000).map((p) => checkResultFor(p));
  const times: number[] = [];
  for (let run = 0; run < 7; run++) {
    const t0 = performance.now();
    const { rows } = readPropertyRows(values);
    const plan = planScreening(rows, { plan: "professional" });
    const perRow = fanOut(
      plan,
      rows,
      plan.properties.map((_p, i) => ({ result: results[i % results.length] as never })),
    );
    const checkedAt = new Date().toISOString();
    const out = perRow.map((o) => outputRow(o, checkedAt));
    if (out.length !== 10000) throw new Error("lost rows");
    times.push(performance.now() - t0);
  }
  console.log(
    `validate + plan + flatten 10,000 rows: median ${median(times).toFixed(1)} ms over 7 runs (min ${Math.min(...times).toFixed(1)}, max ${Math.max(...times).toFixed(1)})`,
  );

  // The sandbox rebuilds its register when the day changes (dates are relative to today).
  const builds = [1, 2, 3, 4, 5].map((i) => buildDatasetFor(new Date(Date.now() + i * 86_400_000)));
  console.log(
    `sandbox dataset build (${builds[0].properties.length.toLocaleString("en-GB")} properties): median ${median(builds.map((b) => b.buildMs))} ms over 5 builds (min ${Math.min(...builds.map((b) => b.buildMs))}, max ${Math.max(...builds.map((b) => b.buildMs))})`,
  );

  const zero = await requestsPer1000(0, 10000, "sandbox-professional", "professional");
  console.log(
    `screen 10,000 distinct (Professional, 10 jobs, 0 ms/property): ${zero.ms.toFixed(0)} ms, ${zero.total} requests (${zero.posts} POST + ${zero.polls} GET) = ${zero.per1000.toFixed(1)} per 1,000 properties; floor is 2 per 1,000 (1 POST + 1 poll); ${zero.ok} results`,
  );
  const paced = await requestsPer1000(2, 1000, "sandbox-professional", "professional");
  console.log(
    `screen 1,000 distinct (Professional, 2 ms/property so the job runs ~2 s): ${paced.ms.toFixed(0)} ms, ${paced.total} requests (${paced.posts} POST + ${paced.polls} GET) per 1,000`,
  );
  const ent = await requestsPer1000(0, 10000, "sandbox-enterprise", "enterprise");
  console.log(
    `screen 10,000 distinct (Enterprise, 0 ms/property): ${ent.ms.toFixed(0)} ms, ${ent.total} requests (${ent.posts} POST + ${ent.polls} GET; results come in pages of 1,000)`,
  );
  console.log(
    `ratio: screening 10,000 rows over loopback HTTP takes ${(zero.ms / median(times)).toFixed(1)}x the pure validate+flatten time`,
  );
  summary(
    "HTTP requests per 1,000 properties (Professional, 10,000 rows)",
    zero.per1000,
    "",
    2,
    "floor: 2 (1 POST + 1 poll per job)",
  );
  // The client may split a large Enterprise run into jobs that run side by side: the floor is that of the jobs it
  // sent, one POST each and at least one GET each, and no fewer GETs than pages of 1,000 results.
  const entFloor = ent.posts + Math.max(ent.posts, Math.ceil(10000 / 1000));
  summary(
    "Enterprise, 10,000 properties at 0 ms a property: requests",
    ent.total,
    "",
    entFloor,
    `floor: ${entFloor} (${ent.posts} jobs sent: 1 POST and 1 GET each, and 10 result pages of 1,000)`,
    0,
  );
  summary(
    "screen 10,000 rows over loopback HTTP (ms)",
    zero.ms,
    "ms",
    median(times),
    `peer: validate + plan + flatten alone, ${median(times).toFixed(0)} ms`,
    0,
  );
}

if (require.main === module) runCoreBench().catch((e) => ((process.exitCode = 1), console.error(e)));
