/**
 * Remembered answers for values a sheet repeats (the days, times, postcodes and addresses of its rows): each memo holds
 * at most MEMO_ENTRIES and starts again empty when full, so that a long-lived runtime (Excel's shared runtime, one
 * Apps Script execution over a large portfolio) keeps a bounded amount.
 */
export const MEMO_ENTRIES = 20_000;

/** Sets `key` to `value` in `memo`, emptying it first when it holds MEMO_ENTRIES. */
export function remember<K, T>(memo: Map<K, T>, key: K, value: T): T {
  if (memo.size >= MEMO_ENTRIES) memo.clear();
  memo.set(key, value);
  return value;
}
