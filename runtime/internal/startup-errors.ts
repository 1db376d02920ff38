/**
 * Start-up failures explained in terms of the setting to change (README "Configuration"): a busy
 * port names API_PORT or OBSERVER_PORT, an unreachable database names DATABASE_URL (never its
 * password). Pure: an error in, a StartupError (or the error itself when not recognised) out.
 */
import { StartupError, errorMessage } from "./errors.js";

/** Which settings chose the address that failed to bind. */
export interface ListenSettings {
  hostVariable: string;
  portVariable: string;
  host: string;
  port: number;
}

export function explainListenError(err: unknown, s: ListenSettings): unknown {
  const address = `${s.host.includes(":") ? `[${s.host}]` : s.host}:${s.port}`;
  switch (errorCode(err)) {
    case "EADDRINUSE":
      return new StartupError(
        `${s.portVariable}: ${address} is already in use by another process; stop it or set ${s.portVariable} to a free port`,
        { cause: err },
      );
    case "EACCES":
      return new StartupError(
        `${s.portVariable}: no permission to listen on ${address} (ports below 1024 need privileges); set ${s.portVariable} to a port above 1023`,
        { cause: err },
      );
    case "EADDRNOTAVAIL":
    case "ENOTFOUND":
      return new StartupError(
        `${s.hostVariable}: ${s.host} is not an address of this machine; set ${s.hostVariable} to one of its addresses (or 127.0.0.1)`,
        { cause: err },
      );
    default:
      return err;
  }
}

/** `host:port` of a PostgreSQL URL, without user or password. */
export function databaseAddress(databaseUrl: string): string {
  try {
    const url = new URL(databaseUrl);
    return `${url.hostname || "localhost"}:${url.port || "5432"}`;
  } catch {
    return "the host in DATABASE_URL";
  }
}

export function explainDatabaseError(err: unknown, databaseUrl: string): unknown {
  const at = `PostgreSQL at ${databaseAddress(databaseUrl)} (DATABASE_URL)`;
  const fix = "start PostgreSQL there or correct DATABASE_URL (unset it to use the embedded database in DATA_DIR)";
  const explain = (what: string, todo: string) => new StartupError(`${at}: ${what}; ${todo}`, { cause: err });
  switch (errorCode(err)) {
    case "ECONNREFUSED":
      return explain("connection refused", fix);
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return explain("host not found", "correct the host in DATABASE_URL");
    case "ETIMEDOUT":
    case "EHOSTUNREACH":
    case "ENETUNREACH":
      return explain("no answer", `${fix}; check the network between this host and it`);
    case "28P01":
    case "28000":
      return explain(errorMessage(err), "correct the user or password in DATABASE_URL");
    case "3D000":
      return explain(errorMessage(err), "create it (createdb) or correct the database name in DATABASE_URL");
    default:
      return err;
  }
}

/**
 * The error's code; a connection to a name with several addresses fails with an AggregateError
 * whose inner errors carry it.
 */
function errorCode(err: unknown): string | undefined {
  const e = err as { code?: unknown; errors?: unknown[] } | null;
  if (typeof e?.code === "string") return e.code;
  return Array.isArray(e?.errors) ? errorCode(e.errors[0]) : undefined;
}
