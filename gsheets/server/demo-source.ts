/**
 * The demo's properties in Apps Script: the build writes core/demo/demo-data.ts's text to DemoData.html beside Code.js and
 * puts this module in place of core/demo/demo-source.ts (gsheets/webpack.gsheets.js). The file is read only when the demo
 * key answers a request or the sample table is inserted; an HTML file is never evaluated, while Code.js is on every
 * server call, and its 11 KB of data were the largest single item in it.
 */
export const demoDataText = (): string => HtmlService.createHtmlOutputFromFile("DemoData").getContent();
