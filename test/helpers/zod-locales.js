/**
 * zod's locales (zod/v4/locales/index.cjs) as the tests load them: the same exports, each required when first read.
 * zod's core requires all of them (about fifty modules) whenever it loads, and jest compiles them again for every test
 * file; the product uses zod/mini, which sets no locale (core/service/schemas.ts words its own messages), so no test
 * reads one. A test that does gets the real locale, from the real module.
 */
"use strict";
const fs = require("fs");

const real = require.resolve("zod/v4/locales/index.cjs");
let loaded;
const load = () => (loaded ??= require(real));

// The names the real index exports, read from its text rather than by loading it.
const names = [...fs.readFileSync(real, "utf8").matchAll(/Object\.defineProperty\(exports, "(\w+)"/g)]
  .map((m) => m[1])
  .filter((n) => n !== "__esModule");

Object.defineProperty(exports, "__esModule", { value: true });
for (const name of names) Object.defineProperty(exports, name, { enumerable: true, get: () => load()[name] });
