/** Chromium for page tests lives in test/helpers/chromium.ts, shared by every suite. */
export { CHROMIUM, chromiumAvailable, launch } from "../../helpers/chromium";
