/**
 * What core asks of a host to reach the service: a fetch-like function, an abort signal and a timer. Both the client
 * (core/service/client.ts) and the run's driver (core/run/drive.ts) take them; neither owns them.
 */
import type { HeaderSource } from "./ratelimit";

/** The slice of fetch the client uses, so any fetch-like function (browser, Node, a test's) fits. */
export type FetchLike = (
  url: string,
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a DOM AbortSignal or a Node one; `any` lets hosts pass their own fetch unwrapped
  init: { method: string; headers: Record<string, string>; body?: string; signal?: any },
) => Promise<{ status: number; headers: HeaderSource; text(): Promise<string> }>;

/** The part of AbortSignal the client uses; declared here so core compiles without the DOM library (Apps Script). */
export interface AbortSignalLike {
  readonly aborted: boolean;
  addEventListener?(type: "abort", listener: () => void, options?: { once?: boolean }): void;
  removeEventListener?(type: "abort", listener: () => void): void;
}

export type Sleep = (ms: number, signal?: AbortSignalLike) => Promise<void>;
