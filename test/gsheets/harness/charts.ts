/** Embedded charts (EmbeddedChart and its builder): what a sheet's charts hold and how they are built or changed. */
import type { FakeRange } from "./range";

let chartIds = 0;
export class FakeChart {
  constructor(
    readonly id: string,
    readonly type: string,
    readonly ranges: FakeRange[],
    readonly options: Record<string, unknown>,
    readonly numHeaders: number,
    readonly position: unknown[],
  ) {}
  getChartId() {
    return this.id;
  }
  getRanges() {
    return this.ranges.slice();
  }
  getOptions() {
    return { get: (k: string) => this.options[k] };
  }
  modify(): FakeChartBuilder {
    return new FakeChartBuilder(null, this);
  }
}

export class FakeChartBuilder {
  private type = "";
  private ranges: FakeRange[] = [];
  private options: Record<string, unknown> = {};
  private headers = -1;
  private position: unknown[] = [];
  constructor(
    _sheet: object | null,
    private readonly from: FakeChart | null,
  ) {
    if (from) {
      this.type = from.type;
      this.ranges = from.getRanges();
      this.options = { ...from.options };
      this.headers = from.numHeaders;
      this.position = from.position;
    }
  }
  setChartType(t: string) {
    this.type = t;
    return this;
  }
  addRange(r: FakeRange) {
    this.ranges.push(r);
    return this;
  }
  clearRanges() {
    this.ranges = [];
    return this;
  }
  setOption(k: string, v: unknown) {
    this.options[k] = v;
    return this;
  }
  setNumHeaders(n: number) {
    this.headers = n;
    return this;
  }
  setPosition(...p: unknown[]) {
    this.position = p;
    return this;
  }
  build(): FakeChart {
    if (!this.type || !this.ranges.length) throw new Error("Exception: A chart needs a type and at least one range.");
    return new FakeChart(
      this.from ? this.from.id : `chart-${++chartIds}`,
      this.type,
      this.ranges,
      this.options,
      this.headers,
      this.position,
    );
  }
}
