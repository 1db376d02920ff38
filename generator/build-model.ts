/**
 * buildModel: a schema-valid spec → the immutable SubgraphModel (STYLE.md "Generator", step 2),
 * with the cross-reference checks JSON Schema cannot express (DESIGN.md §3): known config keys,
 * unique keys naming columns, handlers naming sources, and every operation rule.
 */
import { buildOperation } from "./build-operations.js";
import { CONFIG_KEYS } from "./expr/view-fields.js";
import type { LoadedSpec } from "./load-spec.js";
import type { ColumnModel, HandlerModel, OperationModel, SourceModel, SubgraphModel, TableModel } from "./model.js";
import { pascalCase, pgSchemaName } from "./naming.js";
import { createReporter, type Reporter } from "./reporter.js";
import { schemaHash } from "./schema-hash.js";
import { type SpecError, sortSpecErrors } from "./spec-error.js";
import type { RawSpec } from "./spec-types.js";
import { didYouMean } from "./suggest.js";

export type BuildResult = { ok: true; model: SubgraphModel } | { ok: false; errors: SpecError[] };

/** Column names the list/stream routes use as query parameters (SPEC.md "List and count query parameters"). */
const RESERVED_COLUMN_NAMES = ["cursor", "since"];
/**
 * PostgreSQL's system columns: every table has them, so CREATE TABLE refuses a column of that name.
 * (The engine's own system columns start with "_", which the column-name pattern already refuses.)
 */
const PG_SYSTEM_COLUMNS = ["tableoid", "xmin", "cmin", "xmax", "cmax", "ctid"];
const SEARCHABLE_TYPES: readonly string[] = ["text", "principal"];
/** generatedAt when a spec has no `released` date. */
const EPOCH = "1970-01-01T00:00:00.000Z";

export function buildModel(loaded: LoadedSpec): BuildResult {
  const report = createReporter(loaded.source);
  const { spec } = loaded;
  const tables = buildTables(spec, report);
  const sources = buildSources(spec, report);
  const handlers = buildHandlers(spec, sources, tables, report);
  if (report.errors.length > 0) return { ok: false, errors: sortSpecErrors(report.errors) };
  const model: SubgraphModel = {
    specFile: loaded.file,
    name: spec.name,
    version: spec.version,
    description: spec.description,
    generatedAt: spec.released === undefined ? EPOCH : `${spec.released}T00:00:00.000Z`,
    schemaHash: hashOf(spec.name, sources, tables),
    pgSchema: pgSchemaName(spec.name),
    ...(spec.startBlock === undefined ? {} : { startBlock: spec.startBlock }),
    sources,
    tables,
    handlers,
  };
  return { ok: true, model: deepFreeze(model) };
}

function buildTables(spec: RawSpec, report: Reporter): TableModel[] {
  const tables: TableModel[] = [];
  const typeNames = new Map<string, string>();
  for (const [name, raw] of Object.entries(spec.tables)) {
    const clash = typeNames.get(pascalCase(name));
    if (clash !== undefined)
      report.at(["tables", name], `table "${name}" clashes with "${clash}" (same generated type name)`, "key");
    typeNames.set(pascalCase(name), name);
    const columns: ColumnModel[] = [];
    for (const [columnName, column] of Object.entries(raw.columns)) {
      const path = ["tables", name, "columns", columnName];
      const attributes = column.attributes ?? [];
      if (RESERVED_COLUMN_NAMES.includes(columnName)) {
        report.at(path, `column name "${columnName}" is reserved (it is a query parameter of the table routes)`, "key");
      }
      if (PG_SYSTEM_COLUMNS.includes(columnName)) {
        report.at(path, `column name "${columnName}" is reserved (it is a PostgreSQL system column)`, "key");
      }
      const searchable = attributes.includes("searchable");
      if (searchable && !SEARCHABLE_TYPES.includes(column.type)) {
        report.at(
          [...path, "attributes"],
          `searchable needs a text or principal column; "${columnName}" is ${column.type}`,
        );
      }
      columns.push({
        name: columnName,
        type: column.type,
        indexed: attributes.includes("indexed"),
        searchable,
        nullable: attributes.includes("nullable"),
        ...(column.description === undefined ? {} : { description: column.description }),
        ...(column.sortWithin === undefined ? {} : { sortWithin: column.sortWithin }),
      });
    }
    checkSortWithin(name, columns, report);
    const uniqueKeys = (raw.uniqueKeys ?? []).map((key, k) =>
      key.filter((column, c) => {
        if (columns.some((col) => col.name === column)) return true;
        const names = columns.map((col) => col.name);
        report.at(
          ["tables", name, "uniqueKeys", k, c],
          `unknown column "${column}" in unique key${didYouMean(column, names)}`,
        );
        return false;
      }),
    );
    tables.push({
      name,
      ...(raw.description === undefined ? {} : { description: raw.description }),
      columns,
      uniqueKeys,
      blockHeightIndex: raw.blockHeightIndex ?? true,
    });
  }
  return tables;
}

/** `sortWithin` names another declared, non-jsonb column, on a column that is not jsonb itself. */
function checkSortWithin(table: string, columns: readonly ColumnModel[], report: Reporter): void {
  for (const column of columns) {
    if (column.sortWithin === undefined) continue;
    const path = ["tables", table, "columns", column.name, "sortWithin"];
    const within = columns.find((c) => c.name === column.sortWithin);
    const names = columns.filter((c) => c.name !== column.name).map((c) => c.name);
    if (column.type === "jsonb") report.at(path, `sortWithin: jsonb column "${column.name}" cannot be sorted`);
    else if (within === undefined || within === column)
      report.at(
        path,
        `sortWithin: "${column.sortWithin}" is not another column of table "${table}"${didYouMean(column.sortWithin, names)}`,
      );
    else if (within.type === "jsonb")
      report.at(path, `sortWithin: "${within.name}" is jsonb and has no equality filter`);
  }
}

function buildSources(spec: RawSpec, report: Reporter): SourceModel[] {
  return Object.entries(spec.sources).map(([name, raw]) => {
    const filter: Record<string, string> = {};
    for (const field of Object.keys(raw)) {
      if (field === "type") continue;
      const value = String(raw[field]);
      checkConfigRefs(value, ["sources", name, field], report);
      filter[field] = value;
    }
    return { name, type: raw.type, filter };
  });
}

/** Source filter values may only interpolate `${config.X}` with a known X. */
function checkConfigRefs(value: string, path: (string | number)[], report: Reporter): void {
  for (const match of value.matchAll(/\$\{([^}]*)\}/g)) {
    const ref = /^\s*config\.([A-Za-z0-9_]+)\s*$/.exec(match[1]);
    const offset = match.index ?? 0;
    if (ref === null) {
      report.inString(path, offset, `source filters may only use \${config.X}, found "\${${match[1]}}"`);
    } else if (!CONFIG_KEYS.includes(ref[1])) {
      report.inString(
        path,
        offset,
        `unknown configuration key "${ref[1]}"${didYouMean(ref[1], CONFIG_KEYS)}; keys are ${CONFIG_KEYS.join(", ")}`,
      );
    }
  }
}

function buildHandlers(
  spec: RawSpec,
  sources: readonly SourceModel[],
  tables: readonly TableModel[],
  report: Reporter,
): HandlerModel[] {
  const handlers: HandlerModel[] = [];
  for (const [sourceName, rawOps] of Object.entries(spec.handlers)) {
    if (!sources.some((s) => s.name === sourceName)) {
      const names = sources.map((s) => s.name);
      report.at(
        ["handlers", sourceName],
        `handler for unknown source "${sourceName}"${didYouMean(sourceName, names)}; sources are ${names.join(", ")}`,
        "key",
      );
      continue;
    }
    const operations: OperationModel[] = [];
    rawOps.forEach((raw, index) => {
      const op = buildOperation(raw, ["handlers", sourceName, index], tables, report);
      if (op !== undefined) operations.push(op);
    });
    handlers.push({ source: sourceName, operations });
  }
  return handlers;
}

function hashOf(name: string, sources: readonly SourceModel[], tables: readonly TableModel[]): string {
  return schemaHash({
    name,
    sources: Object.fromEntries(sources.map((s) => [s.name, { type: s.type, filter: { ...s.filter } }])),
    tables: Object.fromEntries(
      tables.map((t) => [
        t.name,
        {
          columns: Object.fromEntries(
            t.columns.map((c) => [
              c.name,
              {
                type: c.type,
                indexed: c.indexed,
                searchable: c.searchable,
                nullable: c.nullable,
                // Only when set, so the hashes of other columns do not change.
                ...(c.sortWithin === undefined ? {} : { sortWithin: c.sortWithin }),
              },
            ]),
          ),
          uniqueKeys: t.uniqueKeys,
          // Only when off, so the hashes of tables that keep the default do not change.
          ...(t.blockHeightIndex ? {} : { blockHeightIndex: false }),
        },
      ]),
    ),
  });
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
