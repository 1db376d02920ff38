/**
 * Handlers of a spec → OperationModels (DESIGN.md §3 "Operations"): resolves tables and columns,
 * parses and checks every `when:` and value expression, and enforces the operation rules
 * (upsert/increment keys are unique keys, increments add to numeric columns, required columns set).
 */
import { checkExpression, describe, expectCondition } from "./expr/check-expression.js";
import type { Expr, ExprIssue } from "./expr/nodes.js";
import { parseExpression } from "./expr/parse-expression.js";
import { parseTemplate } from "./expr/parse-template.js";
import { ExprSyntaxError } from "./expr/tokenize.js";
import type { ValueType } from "./expr/view-fields.js";
import type { Assignment, ColumnModel, OperationModel, TableModel } from "./model.js";
import type { Reporter } from "./reporter.js";
import type { RawAssignments, RawOperation, RawValue } from "./spec-types.js";
import { didYouMean } from "./suggest.js";
import type { SpecPath } from "./yaml-source.js";

const OPERATION_KINDS = ["insert", "upsert", "update", "delete", "increment"] as const;
const NUMERIC_TYPES: readonly string[] = ["int", "uint", "bigint"];
/** System columns an update/delete key may name. */
const KEYABLE_SYSTEM_COLUMNS: readonly ColumnModel[] = [
  { name: "_id", type: "bigint", indexed: true, searchable: false, nullable: false },
  { name: "_tx_id", type: "text", indexed: false, searchable: false, nullable: false },
  { name: "_block_height", type: "bigint", indexed: true, searchable: false, nullable: false },
];

/** Builds one operation; returns undefined (after reporting) when it cannot be built. */
export function buildOperation(
  raw: RawOperation,
  path: SpecPath,
  tables: readonly TableModel[],
  report: Reporter,
): OperationModel | undefined {
  const kind = OPERATION_KINDS.find((k) => k in raw) as (typeof OPERATION_KINDS)[number];
  const tableName = (raw as unknown as Record<string, string>)[kind];
  const table = tables.find((t) => t.name === tableName);
  if (table === undefined) {
    const names = tables.map((t) => t.name);
    report.at(
      [...path, kind],
      `unknown table "${tableName}"${didYouMean(tableName, names)}; tables are ${names.join(", ")}`,
    );
    return undefined;
  }
  const when = raw.when === undefined ? undefined : buildCondition(raw.when, [...path, "when"], report);
  const assign = (section: string, assignments: RawAssignments, extra: readonly ColumnModel[] = []) =>
    buildAssignments(assignments, [...path, section], table, extra, report);
  switch (kind) {
    case "insert": {
      const op = raw as Extract<RawOperation, { insert: string }>;
      const values = assign("values", op.values);
      requireColumns(table, [op.values], [...path, "values"], `insert into "${table.name}"`, report);
      return { kind, table: table.name, when, values };
    }
    case "upsert": {
      const op = raw as Extract<RawOperation, { upsert: string }>;
      const values = assign("values", op.values);
      const key = checkColumnList(op.key, [...path, "key"], table, report);
      if (key !== undefined) {
        requireUniqueKey(table, key, [...path, "key"], "upsert", report);
        for (const column of key) {
          if (!values.some((v) => v.column === column)) {
            report.at([...path, "values"], `upsert values must set the key column "${column}"`);
          }
        }
      }
      requireColumns(table, [op.values], [...path, "values"], `upsert into "${table.name}"`, report);
      return { kind, table: table.name, when, key: key ?? op.key, values };
    }
    case "update": {
      const op = raw as Extract<RawOperation, { update: string }>;
      return {
        kind,
        table: table.name,
        when,
        key: assign("key", op.key, KEYABLE_SYSTEM_COLUMNS),
        set: assign("set", op.set),
      };
    }
    case "delete": {
      const op = raw as Extract<RawOperation, { delete: string }>;
      return { kind, table: table.name, when, key: assign("key", op.key, KEYABLE_SYSTEM_COLUMNS) };
    }
    case "increment": {
      const op = raw as Extract<RawOperation, { increment: string }>;
      const key = assign("key", op.key);
      const deltas = buildDeltas(op.add, [...path, "add"], table, report);
      const values = op.values === undefined ? [] : assign("values", op.values);
      requireUniqueKey(
        table,
        key.map((a) => a.column),
        [...path, "key"],
        "increment",
        report,
      );
      for (const [section, list] of [
        ["add", deltas],
        ["values", values],
      ] as const) {
        for (const assignment of list) {
          if (key.some((k) => k.column === assignment.column)) {
            report.at(
              [...path, section, assignment.column],
              `column "${assignment.column}" is already in the key`,
              "key",
            );
          }
        }
      }
      requireColumns(
        table,
        [op.key, op.add, op.values ?? {}],
        [...path, "key"],
        `increment of "${table.name}"`,
        report,
      );
      return { kind, table: table.name, when, key, deltas, values };
    }
  }
}

function buildCondition(raw: string | boolean, path: SpecPath, report: Reporter): Expr | undefined {
  if (typeof raw === "boolean") return { kind: "literal", offset: 0, type: "boolean", value: raw };
  const expr = parseOrReport(() => parseExpression(raw), path, report);
  if (expr === undefined) return undefined;
  const issues: ExprIssue[] = [];
  expectCondition(expr, issues);
  for (const issue of issues) report.inString(path, issue.offset, issue.message);
  return expr;
}

function buildAssignments(
  raw: RawAssignments,
  path: SpecPath,
  table: TableModel,
  extraColumns: readonly ColumnModel[],
  report: Reporter,
): Assignment[] {
  const result: Assignment[] = [];
  for (const [columnName, rawValue] of Object.entries(raw)) {
    const column = findColumn(table, columnName, [...path, columnName], report, extraColumns);
    const expr = buildValue(rawValue, [...path, columnName], report);
    if (column === undefined || expr === undefined) continue;
    const issues: ExprIssue[] = [];
    const type = checkExpression(expr, issues);
    const mismatch = issues.length === 0 ? assignmentProblem(column, type) : undefined;
    if (mismatch !== undefined) issues.push({ offset: expr.offset, message: mismatch });
    for (const issue of issues) report.inString([...path, columnName], issue.offset, issue.message);
    result.push({ column: columnName, expr });
  }
  return result;
}

function buildDeltas(raw: RawAssignments, path: SpecPath, table: TableModel, report: Reporter): Assignment[] {
  const result: Assignment[] = [];
  for (const [columnName, rawValue] of Object.entries(raw)) {
    const column = findColumn(table, columnName, [...path, columnName], report);
    const expr = buildValue(rawValue, [...path, columnName], report);
    if (column === undefined || expr === undefined) continue;
    if (!NUMERIC_TYPES.includes(column.type)) {
      report.at(
        [...path, columnName],
        `cannot increment column "${columnName}" of type ${column.type}; increment needs an int, uint or bigint column`,
        "key",
      );
      continue;
    }
    const issues: ExprIssue[] = [];
    const type = checkExpression(expr, issues);
    if (issues.length === 0 && type !== "number" && type !== "json") {
      issues.push({ offset: expr.offset, message: `an increment needs a number, got ${describe(type)}` });
    }
    for (const issue of issues) report.inString([...path, columnName], issue.offset, issue.message);
    result.push({ column: columnName, expr });
  }
  return result;
}

/** A YAML value → expression: strings are templates, other scalars literals. */
function buildValue(raw: RawValue, path: SpecPath, report: Reporter): Expr | undefined {
  if (typeof raw === "string") return parseOrReport(() => parseTemplate(raw), path, report);
  if (typeof raw === "number") return { kind: "literal", offset: 0, type: "number", value: String(raw) };
  if (typeof raw === "boolean") return { kind: "literal", offset: 0, type: "boolean", value: raw };
  return { kind: "literal", offset: 0, type: "null", value: null };
}

function parseOrReport(parse: () => Expr, path: SpecPath, report: Reporter): Expr | undefined {
  try {
    return parse();
  } catch (error) {
    if (!(error instanceof ExprSyntaxError)) throw error;
    report.inString(path, error.offset, `invalid expression: ${error.message}`);
    return undefined;
  }
}

/** Why a value of `type` cannot go into `column`, if it cannot. */
function assignmentProblem(column: ColumnModel, type: ValueType): string | undefined {
  if (type === "json") return undefined;
  if (type === "null")
    return column.nullable ? undefined : `column "${column.name}" is not nullable; it cannot be null`;
  const fits: Record<string, readonly ValueType[]> = {
    text: ["text", "number"],
    principal: ["text"],
    int: ["number"],
    uint: ["number"],
    bigint: ["number"],
    timestamp: ["text"],
    boolean: ["boolean"],
    jsonb: ["text", "number", "boolean"],
  };
  if (fits[column.type].includes(type)) return undefined;
  const hint = column.type === "timestamp" && type === "number" ? " (use to_timestamp(...) for unix seconds)" : "";
  return `column "${column.name}" is ${column.type}; the value is ${describe(type)}${hint}`;
}

function findColumn(
  table: TableModel,
  name: string,
  path: SpecPath,
  report: Reporter,
  extraColumns: readonly ColumnModel[] = [],
): ColumnModel | undefined {
  const column = [...table.columns, ...extraColumns].find((c) => c.name === name);
  if (column === undefined) {
    const names = table.columns.map((c) => c.name);
    report.at(
      path,
      `unknown column "${name}" in table "${table.name}"${didYouMean(name, names)}; columns are ${names.join(", ")}`,
      "key",
    );
  }
  return column;
}

function checkColumnList(
  columns: readonly string[],
  path: SpecPath,
  table: TableModel,
  report: Reporter,
): string[] | undefined {
  let ok = true;
  columns.forEach((name, index) => {
    if (findColumn(table, name, [...path, index], report) === undefined) ok = false;
  });
  return ok ? [...columns] : undefined;
}

function requireUniqueKey(
  table: TableModel,
  key: readonly string[],
  path: SpecPath,
  kind: string,
  report: Reporter,
): void {
  const matches = table.uniqueKeys.some(
    (unique) => unique.length === key.length && unique.every((c) => key.includes(c)),
  );
  if (matches) return;
  const declared =
    table.uniqueKeys.length === 0
      ? `table "${table.name}" declares no uniqueKeys`
      : `unique keys of "${table.name}": ${table.uniqueKeys.map((k) => `(${k.join(", ")})`).join(", ")}`;
  report.at(path, `${kind} key (${key.join(", ")}) is not a unique key of table "${table.name}"; ${declared}`);
}

/** Every non-nullable column must appear in one of the raw assignment maps. */
function requireColumns(
  table: TableModel,
  assignments: readonly RawAssignments[],
  path: SpecPath,
  what: string,
  report: Reporter,
): void {
  for (const column of table.columns) {
    if (!column.nullable && !assignments.some((map) => column.name in map)) {
      report.at(path, `${what} does not set the required column "${column.name}" (set it or mark it nullable)`);
    }
  }
}
