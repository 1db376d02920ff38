/**
 * Structured logger (STYLE.md "logging"): level methods taking `{msg, ...fields}` and child().
 * JSON lines by default; LOG_FORMAT=pretty for humans. Only the CLI writes other console output.
 */
export type LogLevel = "debug" | "info" | "warn" | "error" | "silent";
export type LogFields = { msg: string } & Record<string, unknown>;

export interface Logger {
  debug(fields: LogFields): void;
  info(fields: LogFields): void;
  warn(fields: LogFields): void;
  error(fields: LogFields): void;
  child(bindings: Record<string, unknown>): Logger;
}

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 99 };

export interface LoggerOptions {
  level?: LogLevel;
  format?: "json" | "pretty";
  write?: (line: string) => void;
}

export function createLogger(options: LoggerOptions = {}, bindings: Record<string, unknown> = {}): Logger {
  const level = options.level ?? "info";
  const format = options.format ?? "json";
  const write = options.write ?? ((line: string) => process.stderr.write(`${line}\n`));
  const emit = (lvl: LogLevel, fields: LogFields) => {
    if (RANK[lvl] < RANK[level]) return;
    const record: Record<string, unknown> = { level: lvl, time: new Date().toISOString(), ...bindings, ...fields };
    if (record.error instanceof Error) record.error = { message: record.error.message, stack: record.error.stack };
    write(format === "json" ? JSON.stringify(record) : renderPretty(record));
  };
  return {
    debug: (f) => emit("debug", f),
    info: (f) => emit("info", f),
    warn: (f) => emit("warn", f),
    error: (f) => emit("error", f),
    child: (more) => createLogger(options, { ...bindings, ...more }),
  };
}

function renderPretty(record: Record<string, unknown>): string {
  const { level, time, msg, ...rest } = record;
  const extra = Object.entries(rest)
    .map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`)
    .join(" ");
  return `${String(time).slice(11, 23)} ${String(level).toUpperCase().padEnd(5)} ${msg}${extra ? ` ${extra}` : ""}`;
}

/** A logger that drops everything (tests, benchmarks). */
export const silentLogger: Logger = createLogger({ level: "silent" });
