/**
 * One user's table over the sandbox's register, the same for both hosts: a Scottish, a Welsh, a Northern Irish and two
 * English properties with Country, Tenancy start and own-obligation columns (smoke alarms, legionella with its Evidence,
 * Rent Smart Wales, Scottish landlord registration), and what each row must show by its country's rules.
 */
import { addDays, addMonths, addWorkingDays, countryOf, nextObligation, type CheckResult } from "../../core";

export interface PlaceProperty {
  uprn: string;
  postcode: string;
  address: string;
  checks: Record<string, unknown>;
}

export const COUNTRY_HEADER = [
  "UPRN",
  "Postcode",
  "Country",
  "Tenancy start",
  "Smoke alarms checked",
  "Legionella assessment",
  "Legionella evidence",
  "Rent Smart Wales",
  "Landlord registration",
];

const asResult = (p: PlaceProperty) =>
  ({
    uprn: p.uprn,
    address: p.address,
    compliance_score: 0,
    risk_level: "high",
    checks: p.checks,
  }) as unknown as CheckResult;
const inCountry = (p: PlaceProperty, c: string) => {
  const a = countryOf(p.postcode);
  return a.kind === "country" ? a.country === c : a.kind === "out_of_scope" && a.place === c;
};

export function countryTable(props: readonly PlaceProperty[], today: string) {
  const pick = (what: string, f: (p: PlaceProperty) => boolean) => {
    const p = props.find(f);
    if (!p) throw new Error(`no sandbox property: ${what}`);
    return p;
  };
  const scotStart = addDays(today, -20);
  const scot = pick(
    "Scottish, deposit first",
    (p) =>
      inCountry(p, "Scotland") &&
      (p.checks.deposit_protection as { status?: string } | undefined)?.status === "fail" &&
      nextObligation(asResult(p), { today, country: "Scotland", tenancyStart: scotStart })?.check ===
        "deposit_protection",
  );
  const wales = pick(
    "Welsh, deposit first",
    (p) =>
      inCountry(p, "Wales") &&
      /contract-holder/.test(nextObligation(asResult(p), { today, country: "Wales" })?.action ?? ""),
  );
  const ni = pick("Northern Irish", (p) => inCountry(p, "Northern Ireland"));
  const english = props.filter((p) => inCountry(p, "England") && p.uprn !== scot.uprn).slice(0, 2);
  if (english.length < 2) throw new Error("too few English sandbox properties");
  const [eng1, eng2] = english;
  // Registered 3 years (Scotland) and 5 years (Wales) ago less 20 days: each registration ends within the next 20 days.
  const scotRegistered = addDays(addMonths(today, -36), 20);
  const walesRegistered = addDays(addMonths(today, -60), 20);
  const engStart = addDays(today, -10);
  const rows: unknown[][] = [
    [scot.uprn, scot.postcode, "", scotStart, "", "", "", "", scotRegistered],
    [wales.uprn, wales.postcode, "Cymru", "", "", "", "", walesRegistered, "2024-01-10"],
    [ni.uprn, ni.postcode, "", "", "", "", "", "", ""],
    [
      eng1.uprn,
      eng1.postcode,
      "",
      engStart,
      addDays(today, -100),
      "",
      "https://example.org/legionella-eng1.pdf",
      "",
      "",
    ],
    [eng2.uprn, eng2.postcode, "", "soon", "", "", "", "", ""],
  ];
  return {
    header: COUNTRY_HEADER,
    rows,
    props: { scot, wales, ni, eng1, eng2 },
    expect: {
      scotDepositDue: addWorkingDays(scotStart, 30),
      scotRegistrationDue: addDays(addMonths(scotRegistered, 36), -1),
      walesRegistrationDue: addDays(addMonths(walesRegistered, 60), -1),
      engSmokeDue: engStart,
    },
  };
}
