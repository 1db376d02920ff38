/**
 * schemaHash (DESIGN.md §1; SPEC.md "Versioning"): sha256 over the canonical JSON of the spec's
 * name, sources and tables — version, descriptions and handlers excluded — as 64 hex characters.
 */
import { createHash } from "node:crypto";

/** JSON with object keys sorted at every depth, no whitespace; arrays keep their order. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") {
    const text = JSON.stringify(value);
    if (text === undefined) throw new Error(`canonicalJson: cannot encode ${typeof value}`);
    return text;
  }
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, entry]) => entry !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([key, entry]) => `${JSON.stringify(key)}:${canonicalJson(entry)}`).join(",")}}`;
}

export interface SchemaHashInput {
  name: string;
  sources: Record<string, { type: string; filter: Record<string, string> }>;
  tables: Record<
    string,
    {
      columns: Record<
        string,
        { type: string; indexed: boolean; searchable: boolean; nullable: boolean; sortWithin?: string }
      >;
      uniqueKeys: readonly (readonly string[])[];
      blockHeightIndex?: false;
    }
  >;
}

export function schemaHash(input: SchemaHashInput): string {
  return createHash("sha256").update(canonicalJson(input)).digest("hex");
}
