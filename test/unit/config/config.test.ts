/**
 * parseConfig (runtime/config/index.ts, DESIGN.md §6): defaults, the token alias, loopback
 * derivation, and bad values each reported on its own line, all of them at once.
 */
import path from "node:path";
import { describe, expect, it } from "vitest";
import { isLoopbackHost, parseConfig, parseHostPort } from "../../../runtime/config/index.js";
import { ConfigError } from "../../../runtime/internal/errors.js";

/** The problems parseConfig reports for env (fails the test when it does not throw). */
function problemsOf(env: Record<string, string>): string[] {
  try {
    parseConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  throw new Error("expected parseConfig to throw");
}

describe("parseConfig defaults", () => {
  it("an empty environment gives the documented defaults, frozen", () => {
    const config = parseConfig({});
    expect(config).toMatchObject({
      apiHost: "127.0.0.1",
      apiPort: 3800,
      apiPublishAddr: { host: "127.0.0.1", port: 3800 },
      publishedOnLoopback: true,
      observerHost: "127.0.0.1",
      observerPort: 3700,
      instanceToken: null,
      databaseUrl: null,
      dataDir: path.resolve("./data"),
      network: "mainnet",
      finalityBurnConfirmations: 6,
      webhookAllowPrivate: false,
    });
    expect(Object.isFrozen(config)).toBe(true);
  });

  it("API_PUBLISH_ADDR falls back to the listen address", () => {
    expect(parseConfig({ API_HOST: "localhost", API_PORT: "4000" }).apiPublishAddr).toEqual({
      host: "localhost",
      port: 4000,
    });
  });

  it("API_PUBLISH_ADDR decides loopback, in IPv4, IPv6 and name forms", () => {
    expect(parseConfig({ API_PUBLISH_ADDR: "127.0.0.2:80" }).publishedOnLoopback).toBe(true);
    expect(parseConfig({ API_PUBLISH_ADDR: "[::1]:3800" }).publishedOnLoopback).toBe(true);
    expect(parseConfig({ API_PUBLISH_ADDR: "localhost:3800" }).publishedOnLoopback).toBe(true);
    expect(parseConfig({ API_PUBLISH_ADDR: "10.0.0.5:3800", INSTANCE_TOKEN: "t" }).publishedOnLoopback).toBe(false);
    expect(parseConfig({ API_PUBLISH_ADDR: "[2001:db8::1]:3800", INSTANCE_TOKEN: "t" }).publishedOnLoopback).toBe(
      false,
    );
  });
});

describe("instance token", () => {
  it("INSTANCE_TOKEN is the token", () => {
    expect(parseConfig({ INSTANCE_TOKEN: "canonical" }).instanceToken).toBe("canonical");
  });

  it("the legacy SLUICE_API_KEY is used when INSTANCE_TOKEN is unset", () => {
    expect(parseConfig({ SLUICE_API_KEY: "legacy" }).instanceToken).toBe("legacy");
  });

  it("INSTANCE_TOKEN wins when both are set", () => {
    expect(parseConfig({ INSTANCE_TOKEN: "canonical", SLUICE_API_KEY: "legacy" }).instanceToken).toBe("canonical");
  });

  it("an empty INSTANCE_TOKEN counts as unset", () => {
    expect(parseConfig({ INSTANCE_TOKEN: "", SLUICE_API_KEY: "legacy" }).instanceToken).toBe("legacy");
  });

  it("binding past loopback with no token is refused with a message saying what to do", () => {
    const problems = problemsOf({ API_HOST: "0.0.0.0" });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/API_HOST=0\.0\.0\.0/);
    expect(problems[0]).toMatch(/set INSTANCE_TOKEN or bind to 127\.0\.0\.1/);
  });
});

describe("observer exposure (OBSERVER_ALLOW_FROM)", () => {
  it("unset by default: the observer on loopback needs no list", () => {
    expect(parseConfig({}).observerAllowFrom).toBeNull();
    expect(parseConfig({ OBSERVER_HOST: "::1" }).observerAllowFrom).toBeNull();
  });

  it.each([["0.0.0.0"], ["::"], ["192.0.2.2"]])(
    "OBSERVER_HOST=%j without OBSERVER_ALLOW_FROM is refused, naming the variable",
    (host) => {
      const problems = problemsOf({ OBSERVER_HOST: host });
      expect(problems).toHaveLength(1);
      expect(problems[0]).toContain(`OBSERVER_HOST=${host}`);
      expect(problems[0]).toMatch(
        /OBSERVER_ALLOW_FROM is not set: set OBSERVER_ALLOW_FROM .* or bind OBSERVER_HOST to 127\.0\.0\.1/,
      );
    },
  );

  it("an empty OBSERVER_ALLOW_FROM counts as unset", () => {
    expect(problemsOf({ OBSERVER_HOST: "0.0.0.0", OBSERVER_ALLOW_FROM: " , " })[0]).toMatch(
      /OBSERVER_ALLOW_FROM is not set/,
    );
  });

  it("with a list, binding past loopback starts and the list is kept", () => {
    const config = parseConfig({ OBSERVER_HOST: "0.0.0.0", OBSERVER_ALLOW_FROM: "10.0.0.0/8, fd00::5" });
    expect(config.observerAllowFrom).toEqual([
      { address: "10.0.0.0", prefix: 8, family: "ipv4" },
      { address: "fd00::5", prefix: 128, family: "ipv6" },
    ]);
  });

  it("each bad entry is a problem naming OBSERVER_ALLOW_FROM, and not also reported as unset", () => {
    expect(problemsOf({ OBSERVER_HOST: "0.0.0.0", OBSERVER_ALLOW_FROM: "10.0.0.0/33, 10.1.0.0/16, lan" })).toEqual([
      'OBSERVER_ALLOW_FROM: "10.0.0.0/33" is not an IPv4 or IPv6 address or CIDR (e.g. 10.0.0.0/8, fd00::/64)',
      'OBSERVER_ALLOW_FROM: "lan" is not an IPv4 or IPv6 address or CIDR (e.g. 10.0.0.0/8, fd00::/64)',
    ]);
    expect(problemsOf({ OBSERVER_HOST: "0.0.0.0", OBSERVER_ALLOW_FROM: "lan" })).toHaveLength(1);
  });
});

describe("bad values", () => {
  it.each([["abc"], ["-1"], ["65536"], ["80.5"], [" 80"]])("API_PORT=%j is not a port", (raw) => {
    expect(problemsOf({ API_PORT: raw })).toEqual([`API_PORT=${JSON.stringify(raw)} is not a port number (0-65535)`]);
  });

  it.each([
    ["localhost"],
    ["127.0.0.1"],
    [":3800"],
    ["127.0.0.1:99999"],
    ["::1:3800"],
    ["http://127.0.0.1:3800"],
    ["host name:1"],
  ])("API_PUBLISH_ADDR=%j is malformed", (raw) => {
    expect(problemsOf({ API_PUBLISH_ADDR: raw })).toEqual([
      `API_PUBLISH_ADDR=${JSON.stringify(raw)} is not host:port (e.g. 127.0.0.1:3800)`,
    ]);
  });

  it("PAGE_CACHE_MB: default 64 MiB, 0 turns the cache off, anything else not a whole number is refused", () => {
    expect(parseConfig({}).pageCacheBytes).toBe(64 * 1024 * 1024);
    expect(parseConfig({ PAGE_CACHE_MB: "0" }).pageCacheBytes).toBe(0);
    expect(parseConfig({ PAGE_CACHE_MB: "512" }).pageCacheBytes).toBe(512 * 1024 * 1024);
    for (const raw of ["-1", "1.5", "lots", "70000"]) {
      expect(problemsOf({ PAGE_CACHE_MB: raw })).toEqual([
        `PAGE_CACHE_MB=${JSON.stringify(raw)} is not a whole number 0-65536 (0 turns the page cache off)`,
      ]);
    }
  });

  it("PGLITE_SHARED_BUFFERS_MB: default 32, a whole number 1-65536", () => {
    expect(parseConfig({}).pgliteSharedBuffersMb).toBe(32);
    expect(parseConfig({ PGLITE_SHARED_BUFFERS_MB: "128" }).pgliteSharedBuffersMb).toBe(128);
    for (const raw of ["0", "1.5", "big", "70000"]) {
      expect(problemsOf({ PGLITE_SHARED_BUFFERS_MB: raw })).toEqual([
        `PGLITE_SHARED_BUFFERS_MB=${JSON.stringify(raw)} is not a whole number 1-65536`,
      ]);
    }
  });

  it("PGLITE_TEMPLATE: the build's template by default and with on, none with off, else a directory", () => {
    // The build writes it to dist/pglite-template of the repository.
    const built = path.resolve(import.meta.dirname, "../../../dist/pglite-template");
    expect(parseConfig({}).pgliteTemplate).toBe(built);
    expect(parseConfig({ PGLITE_TEMPLATE: "on" }).pgliteTemplate).toBe(built);
    expect(parseConfig({ PGLITE_TEMPLATE: "off" }).pgliteTemplate).toBeNull();
    expect(parseConfig({ PGLITE_TEMPLATE: "./tpl/a" }).pgliteTemplate).toBe(path.resolve("tpl/a"));
    expect(parseConfig({ PGLITE_TEMPLATE: "/srv/tpl" }).pgliteTemplate).toBe("/srv/tpl");
    for (const raw of ["of", "false", "yes"]) {
      expect(problemsOf({ PGLITE_TEMPLATE: raw })).toEqual([
        `PGLITE_TEMPLATE=${JSON.stringify(raw)} is not on, off or a template directory (a path with a /)`,
      ]);
    }
  });

  it("an unknown NETWORK lists the allowed ones", () => {
    expect(problemsOf({ NETWORK: "regtest" })).toEqual(['NETWORK="regtest" is not one of: mainnet, testnet, devnet']);
  });

  it("several bad values are all listed at once, one line each", () => {
    const env = {
      API_PORT: "http",
      OBSERVER_PORT: "70000",
      API_PUBLISH_ADDR: "nowhere",
      NETWORK: "moonnet",
      LOG_LEVEL: "loud",
      WEBHOOK_ALLOW_PRIVATE: "maybe",
      FINALITY_BURN_CONFIRMATIONS: "-6",
      DATABASE_URL: "mysql://x",
    };
    const problems = problemsOf(env);
    expect(problems).toHaveLength(8);
    for (const name of Object.keys(env)) expect(problems.some((p) => p.startsWith(name))).toBe(true);
    let message = "";
    try {
      parseConfig(env);
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message.split("\n")).toHaveLength(9);
    expect(message).toMatch(/^invalid configuration:\n {2}- API_PORT=/);
  });
});

describe("parseHostPort / isLoopbackHost", () => {
  it.each([
    ["127.0.0.1:3800", { host: "127.0.0.1", port: 3800 }],
    ["[::1]:80", { host: "::1", port: 80 }],
    ["example.com:443", { host: "example.com", port: 443 }],
    ["example.com", undefined],
    ["1.2.3.4:65536", undefined],
  ])("parseHostPort(%j)", (raw, want) => {
    expect(parseHostPort(raw)).toEqual(want);
  });

  it.each([
    ["127.0.0.1", true],
    ["127.255.0.9", true],
    ["::1", true],
    ["localhost", true],
    ["0.0.0.0", false],
    ["::", false],
    ["192.168.1.2", false],
    ["127.example.com", false],
  ])("isLoopbackHost(%j) → %j", (host, want) => {
    expect(isLoopbackHost(host)).toBe(want);
  });
});
