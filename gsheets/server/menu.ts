/**
 * The add-on's menu (Extensions › Property compliance: Google names it after the project) and the sidebar it opens. Menu items that need the sidebar's
 * polling (a check) or its forms (settings) open it with an intent the sidebar picks up on load.
 */
import { setIntent } from "./runstore";

const TITLE = "Compliance check";

export function onOpen(_e?: unknown): void {
  // Runs in AuthMode.NONE/LIMITED for an add-on: only the menu here, no properties or sheet access.
  SpreadsheetApp.getUi()
    .createAddonMenu()
    .addItem("Open sidebar", "showSidebar")
    .addItem("Check selected rows", "checkSelectedRows")
    .addSeparator()
    .addItem("Settings", "showSettings")
    .addToUi();
}

export function onInstall(e?: unknown): void {
  onOpen(e);
}

export function showSidebar(): void {
  const html = HtmlService.createHtmlOutputFromFile("Sidebar").setTitle(TITLE);
  SpreadsheetApp.getUi().showSidebar(html);
}

export function checkSelectedRows(): void {
  setIntent("check");
  showSidebar();
}

export function showSettings(): void {
  setIntent("settings");
  showSidebar();
}
