/**
 * A PostgreSQL streaming replica made by a test with the local server's binaries (README "Read
 * replicas"): `pg_basebackup -R -X stream` of a primary, started with `pg_ctl` on a free port as the
 * current user (as the `postgres` OS user through runuser when the test runs as root, since
 * PostgreSQL refuses to run as root).
 *
 * The primary is the local server (SLUICE_TEST_PG_URL) when it permits physical replication from
 * 127.0.0.1 (wal_level, max_wal_senders, and a pg_hba entry that lets a replication connection in,
 * tried for real); its configuration is only read, never changed. Otherwise the helper makes a
 * throwaway primary of its own (initdb, same binaries) that permits it, and says why. When neither
 * is possible (binaries or the postgres user missing) it returns the reason to skip.
 *
 * Everything lives in one temporary directory; `close()` stops the servers and deletes it. The
 * same happens when the test process exits or is interrupted (SIGINT/SIGTERM), and a later run
 * deletes what a killed one left (the directory names the process that made it).
 */
import { execFile, execFileSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { PG_ADMIN_URL } from "./db.js";

const run = promisify(execFile);
const DIR_PREFIX = "sluice-replica-";

export interface ReplicaCluster {
  /** How the primary was chosen (the local server, or a throwaway one and why). */
  primaryNote: string;
  /** Seconds pg_basebackup took. */
  basebackupSeconds: number;
  primaryUrl(database: string): string;
  replicaUrl(database: string): string;
  /** Creates a database on the primary and waits until the replica has it. */
  createDatabase(name: string): Promise<void>;
  pauseReplay(): Promise<void>;
  resumeReplay(): Promise<void>;
  /** Stops the replica at once (immediate shutdown), as a crash would. */
  stopReplica(): Promise<void>;
  /** Waits until the replica has replayed everything the primary had written when called. */
  waitCaughtUp(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

interface OsUser {
  /** Prefix of every server command: [] or ["runuser", "-u", "postgres", "--"]. */
  prefix: string[];
  uid: number | null;
  gid: number | null;
}

/** Starts a primary (or uses the local server) and a streaming replica of it; a string is why it cannot. */
export async function startReplicaCluster(): Promise<ReplicaCluster | string> {
  sweepStale();
  const admin = new URL(PG_ADMIN_URL);
  const version = await adminQuery<{ v: string }>("SELECT current_setting('server_version_num') AS v").catch(
    (err) => `the local PostgreSQL server does not answer: ${(err as Error).message}`,
  );
  if (typeof version === "string") return version;
  const major = Math.floor(Number(version[0].v) / 10000);
  const found = findBindir(major);
  if ("reason" in found) return found.reason;
  const bindir = found.dir;
  const bin = (name: string) => path.join(bindir, name);
  const user = osUser();
  if (typeof user === "string") return user;

  const base = fs.mkdtempSync(path.join(os.tmpdir(), `${DIR_PREFIX}${process.pid}-`));
  const own = (p: string) => {
    if (user.uid !== null && user.gid !== null) fs.chownSync(p, user.uid, user.gid);
  };
  own(base);
  const servers: string[] = []; // data directories of servers started, stopped in reverse order
  const cleanupSync = () => {
    for (const dir of [...servers].reverse()) {
      try {
        const args = [bin("pg_ctl"), "-D", dir, "-m", "immediate", "-w", "stop"];
        const [program, ...rest] = [...user.prefix, ...args];
        execFileSync(program, rest, { stdio: "ignore" });
      } catch {
        // not running
      }
    }
    servers.length = 0;
    fs.rmSync(base, { recursive: true, force: true });
  };
  const onSignal = (signal: NodeJS.Signals) => {
    cleanupSync();
    process.kill(process.pid, signal);
  };
  process.once("exit", cleanupSync);
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  const forget = () => {
    process.off("exit", cleanupSync);
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  };
  const pgRun = (name: string, args: string[]) =>
    user.prefix.length ? run(user.prefix[0], [...user.prefix.slice(1), bin(name), ...args]) : run(bin(name), args);

  try {
    // The primary: the local server when it lets a replication connection in, else a throwaway one.
    const refusal = await localReplicationRefusal();
    let primaryHost = admin.hostname;
    let primaryPort = Number(admin.port || 5432);
    let primaryNote = `the local server ${primaryHost}:${primaryPort}`;
    if (refusal !== null) {
      primaryPort = await freePort();
      primaryHost = "127.0.0.1";
      primaryNote = `a throwaway primary on 127.0.0.1:${primaryPort} (the local server cannot be one: ${refusal})`;
      const dir = path.join(base, "primary");
      await pgRun("initdb", ["-D", dir, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"]);
      fs.appendFileSync(
        path.join(dir, "postgresql.conf"),
        [
          "listen_addresses = '127.0.0.1'",
          `port = ${primaryPort}`,
          `unix_socket_directories = '${base}'`,
          "wal_level = replica",
          "max_wal_senders = 5",
          "fsync = off",
          "shared_buffers = 32MB",
          "max_connections = 80",
          "",
        ].join("\n"),
      );
      servers.push(dir);
      await pgRun("pg_ctl", ["-D", dir, "-l", path.join(base, "primary.log"), "-w", "-t", "60", "start"]);
    }

    const replicaDir = path.join(base, "replica");
    const replicaPort = await freePort();
    const started = Date.now();
    await pgRun("pg_basebackup", [
      "-h",
      primaryHost,
      "-p",
      String(primaryPort),
      "-U",
      "postgres",
      "-D",
      replicaDir,
      "-R",
      "-X",
      "stream",
      "-c",
      "fast",
    ]);
    const basebackupSeconds = (Date.now() - started) / 1000;
    // A packaged server keeps its configuration outside the data directory (Debian: /etc):
    // the copy then needs its own, with the settings a standby must match.
    if (!fs.existsSync(path.join(replicaDir, "postgresql.conf"))) {
      const settings = await primaryQuery<{ name: string; setting: string }>(
        primaryHost,
        primaryPort,
        `SELECT name, setting FROM pg_settings WHERE name IN ('max_connections', 'max_worker_processes',
           'max_wal_senders', 'max_prepared_transactions', 'max_locks_per_transaction')`,
      );
      const conf = path.join(replicaDir, "postgresql.conf");
      fs.writeFileSync(conf, `${settings.map((s) => `${s.name} = ${s.setting}`).join("\n")}\n`);
      own(conf);
    }
    for (const [file, text] of [
      ["pg_hba.conf", "local all all trust\nhost all all 127.0.0.1/32 trust\n"],
      ["pg_ident.conf", ""],
    ] as const) {
      const p = path.join(replicaDir, file);
      if (!fs.existsSync(p)) {
        fs.writeFileSync(p, text);
        own(p);
      }
    }
    servers.push(replicaDir);
    await pgRun("pg_ctl", [
      "-D",
      replicaDir,
      "-l",
      path.join(base, "replica.log"),
      "-o",
      `-p ${replicaPort} -k ${base} -c listen_addresses=127.0.0.1 -c hot_standby=on`,
      "-w",
      "-t",
      "60",
      "start",
    ]);

    const url = (host: string, port: number, database: string) => `postgres://postgres@${host}:${port}/${database}`;
    const onPrimary = <T>(sql: string, params: unknown[] = []) =>
      primaryQuery<T>(primaryHost, primaryPort, sql, params);
    const onReplica = <T>(sql: string, params: unknown[] = []) =>
      primaryQuery<T>("127.0.0.1", replicaPort, sql, params);
    const recovering = await waitUntil(async () => {
      const rows = await onReplica<{ r: boolean }>("SELECT pg_is_in_recovery() AS r").catch(() => null);
      return rows?.[0]?.r === true;
    }, 60_000);
    if (!recovering) throw new Error(`the replica did not come up in recovery: ${readLog(base, "replica.log")}`);

    const created: string[] = [];
    const cluster: ReplicaCluster = {
      primaryNote,
      basebackupSeconds,
      primaryUrl: (database) => url(primaryHost, primaryPort, database),
      replicaUrl: (database) => url("127.0.0.1", replicaPort, database),
      async createDatabase(name) {
        await onPrimary(`CREATE DATABASE ${name}`);
        created.push(name);
        const there = await waitUntil(
          async () =>
            (await onReplica<{ n: string }>("SELECT count(*) AS n FROM pg_database WHERE datname = $1", [name]))[0]
              .n === "1",
          30_000,
        );
        if (!there) throw new Error(`database ${name} did not reach the replica`);
      },
      async pauseReplay() {
        await onReplica("SELECT pg_wal_replay_pause()");
      },
      async resumeReplay() {
        await onReplica("SELECT pg_wal_replay_resume()");
      },
      async stopReplica() {
        await pgRun("pg_ctl", ["-D", replicaDir, "-m", "immediate", "-w", "stop"]);
        servers.splice(servers.indexOf(replicaDir), 1);
      },
      async waitCaughtUp(timeoutMs = 30_000) {
        const [{ lsn }] = await onPrimary<{ lsn: string }>("SELECT pg_current_wal_lsn()::text AS lsn");
        const ok = await waitUntil(async () => {
          const [r] = await onReplica<{ ok: boolean }>(
            "SELECT pg_wal_lsn_diff(pg_last_wal_replay_lsn(), $1::pg_lsn) >= 0 AS ok",
            [lsn],
          );
          return r.ok;
        }, timeoutMs);
        if (!ok) throw new Error(`the replica did not replay up to ${lsn} within ${timeoutMs} ms`);
      },
      async close() {
        // On the local server the databases outlive the replica: drop them (a throwaway primary goes whole).
        if (refusal === null) {
          for (const name of created) await onPrimary(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
        }
        forget();
        cleanupSync();
      },
    };
    return cluster;
  } catch (err) {
    const logs = ["primary.log", "replica.log"].map((f) => readLog(base, f)).join("\n");
    forget();
    cleanupSync();
    const detail = (err as { stderr?: string }).stderr ?? "";
    throw new Error(`could not start the replica: ${(err as Error).message}\n${detail}\n${logs}`);
  }
}

/** Why the local server cannot be the primary of a replica, or null when it can. Reads only. */
async function localReplicationRefusal(): Promise<string | null> {
  const rows = await adminQuery<{ name: string; setting: string }>(
    "SELECT name, setting FROM pg_settings WHERE name IN ('wal_level', 'max_wal_senders')",
  );
  const setting = Object.fromEntries(rows.map((r) => [r.name, r.setting]));
  if (setting.wal_level === "minimal") return "wal_level is minimal";
  if (Number(setting.max_wal_senders) < 2) return `max_wal_senders is ${setting.max_wal_senders} (2 needed)`;
  // pg_hba decides replication connections apart from others ("replication" database): try one.
  const client = new pg.Client({ connectionString: PG_ADMIN_URL, replication: "true" } as pg.ClientConfig);
  client.on("error", () => {});
  try {
    await client.connect();
    await client.query("IDENTIFY_SYSTEM");
    return null;
  } catch (err) {
    return `a replication connection is refused (${(err as Error).message})`;
  } finally {
    await client.end().catch(() => {});
  }
}

function findBindir(major: number): { dir: string } | { reason: string } {
  const packaged = `/usr/lib/postgresql/${major}/bin`;
  const candidates = [packaged];
  try {
    candidates.push(execFileSync("pg_config", ["--bindir"], { encoding: "utf8" }).trim());
  } catch {
    // no pg_config on PATH
  }
  for (const dir of candidates) {
    if (["postgres", "pg_ctl", "pg_basebackup", "initdb"].every((b) => fs.existsSync(path.join(dir, b)))) {
      try {
        const v = execFileSync(path.join(dir, "postgres"), ["--version"], { encoding: "utf8" });
        if (new RegExp(`\\b${major}\\.`).test(v)) return { dir };
      } catch {
        // not runnable
      }
    }
  }
  return {
    reason: `no PostgreSQL ${major} binaries (postgres, pg_ctl, pg_basebackup, initdb) in ${candidates.join(" or ")}`,
  };
}

function osUser(): OsUser | string {
  if (process.getuid?.() !== 0) return { prefix: [], uid: null, gid: null };
  // PostgreSQL refuses to run as root: run its programs as the postgres OS user.
  try {
    const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
    const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
    execFileSync("runuser", ["-u", "postgres", "--", "true"]);
    return { prefix: ["runuser", "-u", "postgres", "--"], uid, gid };
  } catch (err) {
    return `running as root and cannot run PostgreSQL as the postgres OS user (runuser): ${(err as Error).message}`;
  }
}

async function adminQuery<T>(sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: PG_ADMIN_URL });
  client.on("error", () => {});
  await client.connect();
  try {
    return (await client.query(sql, params)).rows as T[];
  } finally {
    await client.end().catch(() => {});
  }
}

async function primaryQuery<T>(host: string, port: number, sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ host, port, user: "postgres", database: "postgres", connectionTimeoutMillis: 5000 });
  client.on("error", () => {});
  await client.connect();
  try {
    return (await client.query(sql, params)).rows as T[];
  } finally {
    await client.end().catch(() => {});
  }
}

/** A TCP port nothing listens on now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

async function waitUntil(fn: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await fn().catch(() => false)) return true;
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
}

function readLog(base: string, file: string): string {
  try {
    return `${file}:\n${fs.readFileSync(path.join(base, file), "utf8").split("\n").slice(-30).join("\n")}`;
  } catch {
    return "";
  }
}

/** Stops and deletes what a killed test process left: directories whose maker is gone. */
function sweepStale(): void {
  for (const name of fs.readdirSync(os.tmpdir())) {
    if (!name.startsWith(DIR_PREFIX)) continue;
    const pid = Number(name.slice(DIR_PREFIX.length).split("-")[0]);
    if (!pid || pid === process.pid || alive(pid)) continue;
    const base = path.join(os.tmpdir(), name);
    for (const sub of ["replica", "primary"]) {
      const pidFile = path.join(base, sub, "postmaster.pid");
      if (!fs.existsSync(pidFile)) continue;
      const postmaster = Number(fs.readFileSync(pidFile, "utf8").split("\n")[0]);
      if (postmaster && alive(postmaster)) {
        try {
          process.kill(postmaster, "SIGQUIT"); // immediate shutdown
        } catch {
          // gone meanwhile
        }
      }
    }
    fs.rmSync(base, { recursive: true, force: true });
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}
