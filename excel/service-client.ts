/**
 * The service client of the task pane and the custom functions. core's createClient brings the run engine and the
 * response schemas (zod) with it, about a third of the add-in's code, and neither the pane's first screen nor a
 * workbook without COMPLIANCE formulas needs them: they are a chunk of their own (service.js, made from the import
 * below by excel/webpack.excel.js), fetched with the first request to the service.
 */
import type { ClientOptions, ComplianceClient } from "../core/service/client";
import { ComplianceError, serviceError } from "../core/service/errors";
import { CHUNK_MISSING, isChunkLoadError } from "./chunk-error";

let loading: Promise<typeof import("../core/service/client")> | undefined;

/** The client module, fetched once; after a failed fetch the next request tries again, as webpack does. */
function clientModule(): Promise<typeof import("../core/service/client")> {
  loading ??= import(/* webpackChunkName: "client" */ "../core/service/client").catch((e: unknown) => {
    loading = undefined;
    // A service error, so that a cell says it as #N/A and the pane as any request that could not be sent.
    throw isChunkLoadError(e) ? new ComplianceError(serviceError("network", "chunk_not_loaded", CHUNK_MISSING)) : e;
  });
  return loading;
}

/** core's createClient, once its chunk is here. Rejects with a ComplianceError (kind "network") when it cannot come. */
export async function createServiceClient(options: ClientOptions): Promise<ComplianceClient> {
  return (await clientModule()).createClient(options);
}
