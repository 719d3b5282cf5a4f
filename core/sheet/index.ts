/**
 * The sheet, as pure functions over what a host read: the table and its header row, the input columns, the results
 * block and where a new one goes, which row holds which property now, and what each row's Message adds. Excel and
 * Google Sheets read the grid, ask these, and write what they return.
 */
export * from "./table";
export * from "./placement";
export * from "./check-plan";
export * from "./start-notes";
export * from "./rows-now";
