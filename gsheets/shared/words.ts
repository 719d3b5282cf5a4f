/**
 * Words shared by the server and the sidebar. Counts in messages, as a person would write them ("1 property", "1,100 properties"), on the server and
 * in the sidebar alike: "1 row(s)" and "job(s)" read like a form, not a sentence.
 */
import { countWord } from "../../core/numbers";

export const count = countWord;

/** What an error says, whatever was thrown (an Error, a google.script.run failure, a string). */
export function errorText(e: unknown): string {
  return e && typeof e === "object" && "message" in e ? String((e as Error).message) : String(e);
}
