/**
 * What the API commands (`sluice status|subgraphs|webhooks|events`) share: the `--url`,
 * `--token` and `--json` options (or SLUICE_URL / SLUICE_TOKEN), the SDK client they make, output
 * as JSON or as a table, and exit codes by error class (README "CLI"):
 * 0 ok, 1 other failure, 2 usage or configuration, 3 service unreachable, 4 token missing or
 * refused (401), 5 not found (404), 6 conflict (409), 7 request rejected (other 4xx),
 * 8 service error (5xx).
 */
import type { Command } from "commander";
import { createSluiceClient, type SluiceClient } from "../../sdk/client.js";
import { SluiceApiError } from "../../sdk/errors.js";

export const DEFAULT_URL = "http://127.0.0.1:3800";

export const EXIT = {
  ok: 0,
  failure: 1,
  usage: 2,
  unreachable: 3,
  unauthorized: 4,
  notFound: 5,
  conflict: 6,
  rejected: 7,
  serviceError: 8,
} as const;

export interface ApiOptions {
  url?: string;
  token?: string;
  json?: boolean;
}

/** Adds --url, --token and --json to a leaf command. */
export function withApiOptions(command: Command): Command {
  return command
    .option("--url <url>", `service address (env SLUICE_URL; default ${DEFAULT_URL})`)
    .option("--token <token>", "instance token (env SLUICE_TOKEN)")
    .option("--json", "print JSON (for scripts) instead of tables");
}

export function clientOf(options: ApiOptions): SluiceClient {
  const url = options.url ?? process.env.SLUICE_URL ?? DEFAULT_URL;
  const token = options.token ?? process.env.SLUICE_TOKEN ?? undefined;
  return createSluiceClient({ url, token: token || undefined });
}

/** The exit code of a failed command. */
export function exitCodeOf(err: unknown): number {
  if (err instanceof SluiceApiError) {
    if (err.status === 401) return EXIT.unauthorized;
    if (err.status === 404) return EXIT.notFound;
    if (err.status === 409) return EXIT.conflict;
    if (err.status >= 500) return EXIT.serviceError;
    return EXIT.rejected;
  }
  if (err instanceof UsageError) return EXIT.usage;
  const cause = (err as { cause?: { code?: string } })?.cause;
  if (err instanceof TypeError && (cause?.code === "ECONNREFUSED" || String(err.message).includes("fetch failed")))
    return EXIT.unreachable;
  return EXIT.failure;
}

export class UsageError extends Error {}

/** Runs a command body; prints the failure to stderr and sets the exit code by its class. */
export async function run(body: () => Promise<void>): Promise<void> {
  try {
    await body();
  } catch (err) {
    const code = exitCodeOf(err);
    const message =
      code === EXIT.unreachable
        ? `cannot reach the service (${(err as { cause?: { message?: string } }).cause?.message ?? (err as Error).message})`
        : err instanceof Error
          ? err.message
          : String(err);
    process.stderr.write(`sluice: ${message}\n`);
    if (err instanceof SluiceApiError && err.details) process.stderr.write(`${JSON.stringify(err.details)}\n`);
    process.exitCode = code;
  }
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** A plain text table: a header row, then one row per record, columns padded to their widest cell. */
export function formatTable(columns: readonly string[], rows: readonly Record<string, unknown>[]): string {
  const cell = (v: unknown) =>
    v === null || v === undefined ? "-" : typeof v === "object" ? JSON.stringify(v) : String(v);
  const cells = rows.map((r) => columns.map((c) => cell(r[c])));
  const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((row) => row[i].length)));
  const line = (values: readonly string[]) =>
    values
      .map((v, i) => v.padEnd(widths[i]))
      .join("  ")
      .trimEnd();
  return `${[line(columns.map((c) => c.toUpperCase())), ...cells.map(line)].join("\n")}\n`;
}

/** JSON with --json, else a table of `rows` (or key: value lines for one record). */
export function output(
  options: ApiOptions,
  value: unknown,
  table?: { columns: string[]; rows: Record<string, unknown>[] },
) {
  if (options.json) {
    printJson(value);
    return;
  }
  if (table) {
    process.stdout.write(table.rows.length ? formatTable(table.columns, table.rows) : "(none)\n");
    return;
  }
  if (value && typeof value === "object" && !Array.isArray(value)) {
    for (const [k, v] of Object.entries(value)) {
      process.stdout.write(`${k}: ${v !== null && typeof v === "object" ? JSON.stringify(v) : String(v)}\n`);
    }
    return;
  }
  printJson(value);
}

/** An option holding JSON (`--triggers`, `--filter`), parsed; not JSON is a usage error (exit 2). */
export function parseJsonOption(name: string, text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new UsageError(`--${name} must be JSON`);
  }
}
