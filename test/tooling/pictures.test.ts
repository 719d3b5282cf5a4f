/**
 * The page tests' pictures for people (test-output/): taken only when PAGE_PICTURES asks for them, since no test
 * compares them and each is a full paint and a PNG for Chromium.
 */
import * as path from "path";
import { PICTURES_DIR, savePicture } from "../helpers/pictures";

const saved = process.env.PAGE_PICTURES;
afterEach(() => {
  if (saved === undefined) delete process.env.PAGE_PICTURES;
  else process.env.PAGE_PICTURES = saved;
});

async function taken(setting: string | undefined, fullPage?: boolean): Promise<unknown[]> {
  if (setting === undefined) delete process.env.PAGE_PICTURES;
  else process.env.PAGE_PICTURES = setting;
  const page = { screenshot: jest.fn(async () => Buffer.alloc(0)) };
  await savePicture(page, "pane.png", fullPage);
  return page.screenshot.mock.calls;
}

test("no picture unless PAGE_PICTURES is set to something other than 0 or false", async () => {
  for (const setting of [undefined, "", "0", "false", " FALSE "])
    expect({ setting, calls: await taken(setting) }).toEqual({ setting, calls: [] });
});

test("with PAGE_PICTURES set, the whole page (or the viewport when asked) is saved into test-output/", async () => {
  expect(PICTURES_DIR).toBe(path.resolve(__dirname, "../../test-output"));
  expect(await taken("1")).toEqual([[{ path: path.join(PICTURES_DIR, "pane.png"), fullPage: true }]]);
  expect(await taken("yes", false)).toEqual([[{ path: path.join(PICTURES_DIR, "pane.png"), fullPage: false }]]);
});
