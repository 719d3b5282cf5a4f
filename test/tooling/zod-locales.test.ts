/**
 * The tests' zod locales (test/helpers/zod-locales.js, put in place of zod's own index by jest.config.js) export the
 * same names as the real index, each the real locale, and zod/mini's `locales` is that module.
 */
import * as z from "zod/mini";

// Loaded outside jest's module map: the real index, as Node resolves it.
const realPath = require.resolve("zod/v4/locales/index.cjs");

test("every locale zod exports is there, and is zod's own", () => {
  expect(z.locales).toBe(jest.requireActual("../helpers/zod-locales.js"));
  const real = jest.requireActual<Record<string, unknown>>(realPath);
  expect(Object.keys(z.locales).sort()).toEqual(Object.keys(real).sort());
  expect(Object.keys(real)).toContain("en");
  expect(z.locales.en).toBe(real.en);
  expect(z.locales.fr).toBe(real.fr);
});
