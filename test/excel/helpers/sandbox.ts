/**
 * The real sandbox on loopback for Excel tests, plus a timer that shortens the client's waits (retries, polls,
 * timeouts) by a fixed factor so fault tests finish in seconds while keeping their order and proportions.
 */
import { startSandbox } from "../../../sandbox/app";

export type Sandbox = Awaited<ReturnType<typeof startSandbox>>;

export async function sandbox(msPerProperty = 0): Promise<Sandbox> {
  const sb = await startSandbox({ port: 0, msPerProperty });
  const close = sb.close;
  // fetch keeps connections alive; without this, close() waits for the server's 72 s keep-alive timeout.
  sb.close = async () => {
    const done = close();
    sb.app.server.closeAllConnections();
    await done;
  };
  return sb;
}

export function scaledSleep(factor: number) {
  return (ms: number, signal?: AbortSignal) =>
    new Promise<void>((resolve) => {
      const h = setTimeout(resolve, Math.max(0, ms / factor));
      signal?.addEventListener("abort", () => {
        clearTimeout(h);
        resolve();
      });
    });
}

/** Distinct UPRNs that exist in the sandbox's data set. */
export function knownUprns(s: Sandbox, n: number): string[] {
  const all = s.dataset().properties;
  if (all.length < n) throw new Error(`sandbox has only ${all.length} properties`);
  return all.slice(0, n).map((p: { uprn: string }) => p.uprn);
}
