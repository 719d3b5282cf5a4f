/** Conditional format rules and their builder, and the fill and font colour a rule gives a value. */
import type { FakeRange } from "./range";

export const BooleanCriteria = {
  TEXT_EQUAL_TO: "TEXT_EQUAL_TO",
  TEXT_CONTAINS: "TEXT_CONTAINS",
  CELL_EMPTY: "CELL_EMPTY",
  CELL_NOT_EMPTY: "CELL_NOT_EMPTY",
  NUMBER_GREATER_THAN: "NUMBER_GREATER_THAN",
} as const;

export class FakeConditionalFormatRule {
  constructor(
    private readonly ranges: FakeRange[],
    private readonly criteria: { type: string; values: unknown[] },
    private readonly background: string | null,
    private readonly fontColor: string | null,
  ) {}
  getRanges(): FakeRange[] {
    return this.ranges.slice();
  }
  getBooleanCondition() {
    const { criteria, background, fontColor } = this;
    return {
      getCriteriaType: () => criteria.type,
      getCriteriaValues: () => criteria.values.slice(),
      getBackground: () => background,
      getFontColor: () => fontColor,
      getBold: () => null,
      getItalic: () => null,
      getStrikethrough: () => null,
      getUnderline: () => null,
    };
  }
  getGradientCondition() {
    return null;
  }
  copy(): FakeRuleBuilder {
    const b = new FakeRuleBuilder();
    b.state = {
      ranges: this.ranges.slice(),
      criteria: { ...this.criteria },
      background: this.background,
      fontColor: this.fontColor,
    };
    return b;
  }
  /** The fill this rule gives a value, or undefined when it does not apply. */
  fillFor(value: unknown): string | null | undefined {
    if (this.criteria.type === BooleanCriteria.TEXT_EQUAL_TO) {
      return String(value ?? "").toLowerCase() === String(this.criteria.values[0]).toLowerCase()
        ? this.background
        : undefined;
    }
    if (this.criteria.type === BooleanCriteria.TEXT_CONTAINS) {
      return String(value ?? "")
        .toLowerCase()
        .includes(String(this.criteria.values[0]).toLowerCase())
        ? this.background
        : undefined;
    }
    return undefined;
  }
  fontFor(value: unknown): string | null | undefined {
    return this.fillFor(value) === undefined ? undefined : this.fontColor;
  }
}

export class FakeRuleBuilder {
  state: {
    ranges: FakeRange[];
    criteria: { type: string; values: unknown[] } | null;
    background: string | null;
    fontColor: string | null;
  } = {
    ranges: [],
    criteria: null,
    background: null,
    fontColor: null,
  };
  whenTextEqualTo(text: string): this {
    this.state.criteria = { type: BooleanCriteria.TEXT_EQUAL_TO, values: [text] };
    return this;
  }
  whenTextContains(text: string): this {
    this.state.criteria = { type: BooleanCriteria.TEXT_CONTAINS, values: [text] };
    return this;
  }
  setBackground(color: string | null): this {
    this.state.background = color;
    return this;
  }
  setFontColor(color: string | null): this {
    this.state.fontColor = color;
    return this;
  }
  setRanges(ranges: FakeRange[]): this {
    this.state.ranges = ranges.slice();
    return this;
  }
  build(): FakeConditionalFormatRule {
    if (!this.state.criteria) throw new Error("Exception: A conditional format rule needs a condition.");
    if (!this.state.ranges.length) throw new Error("Exception: A conditional format rule needs at least one range.");
    return new FakeConditionalFormatRule(
      this.state.ranges,
      this.state.criteria,
      this.state.background,
      this.state.fontColor,
    );
  }
}
