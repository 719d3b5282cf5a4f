/**
 * The Microsoft 365 unified app manifest (manifest.json, schema 1.30), made from the add-in-only manifest the build has
 * just written (dist/excel/manifest.xml) and the generated functions.json: the one source stays manifest.xml, so ids,
 * URLs, icons, requirement sets, the shared runtime and the functions cannot differ between the two. Office 2021 and
 * the perpetual versions read only the XML; Microsoft 365 admins and the store take the JSON (docs/deploying.md).
 */
"use strict";

const MANIFEST_VERSION = "1.30";
const SCHEMA = `https://developer.microsoft.com/json-schemas/teams/v${MANIFEST_VERSION}/MicrosoftTeams.schema.json`;

/** The first match of `re` in the XML, or an error naming what the manifest lacks. */
function one(xml, re, what) {
  const m = re.exec(xml);
  if (!m) throw new Error(`manifest.xml has no ${what}`);
  return m[1];
}

/** A resource's DefaultValue by its id (bt:Url, bt:Image, bt:String). */
function resource(xml, id) {
  return one(xml, new RegExp(`<bt:(?:Url|Image|String) id="${id.replace(/\./g, "\\.")}" DefaultValue="([^"]*)"`), id);
}

const xmlText = (s) =>
  s
    .replace(/&gt;/g, ">")
    .replace(/&lt;/g, "<")
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, "&");

/** "1.9" stays; Office's four-part <Version> becomes the three parts the unified manifest takes. */
const semver = (v) => v.split(".").slice(0, 3).join(".");

/** The shared runtime: the task pane's page, the functions' script, and the custom functions themselves. */
function sharedRuntime(xml, functionsJson, taskpane) {
  const namespace = resource(xml, "Functions.Namespace");
  return {
    id: "SharedRuntime",
    type: "general",
    code: { page: taskpane, script: resource(xml, "Functions.Script.Url") },
    lifetime: "long",
    actions: [{ id: "ShowTaskpane", type: "openPage", view: "Compliance.Taskpane", pinnable: false }],
    customFunctions: {
      namespace: { id: namespace, name: namespace },
      allowCustomDataForDataTypeAny: !!functionsJson.allowCustomDataForDataTypeAny,
      functions: functionsJson.functions,
    },
  };
}

/** The Home tab's group with the one button that opens the task pane. */
function homeTabRibbon(xml) {
  const icon = (size) => ({ size, url: resource(xml, `Icon.${size}x${size}`) });
  return {
    contexts: ["default"],
    tabs: [
      {
        builtInTabId: "TabHome",
        groups: [
          {
            id: "Compliance.Group",
            label: resource(xml, "Compliance.Group.Label"),
            icons: [icon(16), icon(32), icon(80)],
            controls: [
              {
                id: "Compliance.TaskpaneButton",
                type: "button",
                label: resource(xml, "TaskpaneButton.Label"),
                icons: [icon(16), icon(32), icon(80)],
                supertip: {
                  title: resource(xml, "TaskpaneButton.Label"),
                  description: xmlText(resource(xml, "TaskpaneButton.Tooltip")),
                },
                actionId: "ShowTaskpane",
              },
            ],
          },
        ],
      },
    ],
  };
}

/** The add-in itself: where it runs, what it needs, its ribbon and its first-run message. */
function workbookExtension(xml, functionsJson, taskpane) {
  const capabilities = [...xml.matchAll(/<Set Name="([^"]+)" MinVersion="([^"]+)"\s*\/>/g)].map((m) => ({
    name: m[1],
    minVersion: m[2],
  }));
  return {
    requirements: { scopes: ["workbook"], capabilities },
    runtimes: [sharedRuntime(xml, functionsJson, taskpane)],
    ribbons: [homeTabRibbon(xml)],
    getStartedMessages: [
      {
        title: resource(xml, "GetStarted.Title"),
        description: xmlText(resource(xml, "GetStarted.Description")),
        learnMoreUrl: resource(xml, "GetStarted.LearnMoreUrl"),
      },
    ],
  };
}

/**
 * @param {string} xml the built manifest.xml
 * @param {{ functions: object[] }} functionsJson the built functions.json
 */
function unifiedManifest(xml, functionsJson) {
  const taskpane = resource(xml, "Taskpane.Url");
  const origin = new URL(taskpane).origin;
  const name = xmlText(one(xml, /<DisplayName DefaultValue="([^"]*)"/, "DisplayName"));
  const description = xmlText(one(xml, /<Description DefaultValue="([^"]*)"/, "Description"));
  const support = one(xml, /<SupportUrl DefaultValue="([^"]*)"/, "SupportUrl");
  return {
    $schema: SCHEMA,
    manifestVersion: MANIFEST_VERSION,
    id: one(xml, /<Id>([^<]+)<\/Id>/, "Id"),
    version: semver(one(xml, /<Version>([^<]+)<\/Version>/, "Version")),
    name: { short: name.slice(0, 30), full: name },
    description: { short: description.slice(0, 77).replace(/\s+\S*$/, "") + "...", full: description },
    developer: {
      name: xmlText(one(xml, /<ProviderName>([^<]+)<\/ProviderName>/, "ProviderName")),
      websiteUrl: support,
      privacyUrl: support,
      termsOfUseUrl: support,
    },
    // Files inside the app package, beside manifest.json (the build writes them there).
    icons: { outline: "icon-outline.png", color: "icon-color.png" },
    accentColor: "#0F6CBD",
    validDomains: [new URL(origin).host],
    authorization: { permissions: { resourceSpecific: [{ name: "Document.ReadWrite.User", type: "Delegated" }] } },
    extensions: [workbookExtension(xml, functionsJson, taskpane)],
  };
}

module.exports = { unifiedManifest, MANIFEST_VERSION };
