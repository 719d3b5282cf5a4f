/** Spreadsheet column letters for tests, 1-based as both hosts count columns: 1 = A, 26 = Z, 27 = AA. */
export function columnLetter(col: number): string {
  let s = "";
  for (let n = col; n > 0; n = Math.floor((n - 1) / 26)) s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
  return s;
}

/** The 1-based column number of letters: "A" = 1, "AA" = 27. */
export function columnNumber(letters: string): number {
  let n = 0;
  for (const ch of letters.toUpperCase()) n = n * 26 + (ch.charCodeAt(0) - 64);
  return n;
}
