/** Where the results block is: moved to core/sheet/placement.ts with the rest of the sheet model; kept for its importers. */
export * from "./sheet/placement";
