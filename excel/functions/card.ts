/**
 * Core's property card as an Excel entity value (a data type: ExcelApi 1.16, returned by a custom function from
 * CustomFunctionsRuntime 1.4), and the one test of whether this Excel can take data types from a function.
 */
import {
  DATE_FORMAT,
  DATETIME_FORMAT,
  DEMO_NOTE,
  dateSerial,
  timestampSerial,
  type CardField,
  type PropertyCard,
} from "../../core";

type Requirements = { isSetSupported(name: string, version?: string): boolean };

/**
 * Whether custom functions may return data types here: entity and formatted number values need both sets. Excel for
 * Microsoft 365 (web, Windows, Mac) says yes; Excel 2016 and 2019 bought outright say no.
 */
export function dataTypesSupported(): boolean {
  const req = (globalThis as { Office?: { context?: { requirements?: Requirements } } }).Office?.context?.requirements;
  return !!req && req.isSetSupported("CustomFunctionsRuntime", "1.4") && req.isSetSupported("ExcelApi", "1.16");
}

type PropertyValue = Excel.EntityPropertyType;

function cellValue(f: CardField): Excel.CellValue {
  const v = f.value;
  // A field with no value stays on the card (so =A2.[EPC expiry] down a column never gives #FIELD!) as empty text.
  if (v === null) return { type: "String", basicValue: "" };
  if (typeof v === "number") return { type: "Double", basicValue: v };
  if (f.kind === "date") {
    const serial = dateSerial(v);
    if (serial !== null) return { type: "FormattedNumber", basicValue: serial, numberFormat: DATE_FORMAT };
  }
  if (f.kind === "datetime") {
    const serial = timestampSerial(v);
    if (serial !== null) return { type: "FormattedNumber", basicValue: serial, numberFormat: DATETIME_FORMAT };
  }
  return { type: "String", basicValue: v };
}

function propertyValue(f: CardField): PropertyValue {
  const value = cellValue(f);
  return f.note ? ({ ...value, propertyMetadata: { sublabel: f.note } } as PropertyValue) : value;
}

/** The card as an entity value: its text is the address, each field a property, each section a List section of the card. */
export function toEntityValue(card: PropertyCard): Excel.EntityCellValue {
  const properties: Record<string, PropertyValue> = {};
  for (const f of card.fields) properties[f.name] = propertyValue(f);
  return {
    type: "Entity",
    text: card.text,
    properties,
    layouts: {
      compact: { icon: "Home" },
      card: {
        title: card.text,
        sections: card.sections.map((s) => ({ layout: "List" as const, title: s.title, properties: s.fields })),
      },
    },
    provider: {
      description: card.demo ? `Property Compliance Check Service: ${DEMO_NOTE}` : "Property Compliance Check Service",
    },
  };
}
