/** Every call the code under test makes on the SpreadsheetApp stand-in, so tests can count reads and writes. */
export interface CallRecord {
  target: "SpreadsheetApp" | "Spreadsheet" | "Sheet" | "Range" | "RangeList";
  method: string;
  a1?: string;
  write: boolean;
  cells?: number;
  /** The sheet a Range / RangeList / Sheet call was made on. */
  sheet?: string;
}

export class CallLog {
  calls: CallRecord[] = [];
  record(
    target: CallRecord["target"],
    method: string,
    write: boolean,
    a1?: string,
    cells?: number,
    sheet?: string,
  ): void {
    this.calls.push({ target, method, write, a1, cells, sheet });
  }
  mark(): number {
    return this.calls.length;
  }
  since(mark: number): CallRecord[] {
    return this.calls.slice(mark);
  }
  writesSince(mark: number): CallRecord[] {
    return this.since(mark).filter((c) => c.write);
  }
}
