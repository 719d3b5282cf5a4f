/**
 * A lazy chunk of the add-in (service.js, check.js, demo.js...) that cannot be fetched: the connection is lost, or the
 * deployment was replaced under an open pane. webpack rejects the import with a ChunkLoadError whose message names a
 * chunk number and a URL, which tell the user nothing they can act on; the pane and the cells say this instead.
 */
export const CHUNK_MISSING =
  "Part of the add-in could not be fetched from the add-in's server. Check the connection, then reload the add-in.";

export function isChunkLoadError(e: unknown): boolean {
  return e instanceof Error && e.name === "ChunkLoadError";
}
