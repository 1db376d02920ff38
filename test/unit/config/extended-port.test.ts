/**
 * EXTENDED_PORT, EXTENDED_HOST and EXTENDED_PUBLISH_ADDR (runtime/config/index.ts, docs/extended.md
 * "Access"): off unless the port is set; its loopback rule comes from its own publish address; a
 * port reachable past loopback without INSTANCE_TOKEN refuses to start.
 */
import { describe, expect, it } from "vitest";
import { parseConfig } from "../../../runtime/config/index.js";

describe("Extended view configuration", () => {
  it("is off unless EXTENDED_PORT is set", () => {
    expect(parseConfig({}).extended).toBeNull();
    expect(parseConfig({ EXTENDED_PORT: "" }).extended).toBeNull();
  });

  it("listens on API_HOST by default and is published where it listens", () => {
    expect(parseConfig({ EXTENDED_PORT: "3999" }).extended).toEqual({
      host: "127.0.0.1",
      port: 3999,
      publishAddr: { host: "127.0.0.1", port: 3999 },
      publishedOnLoopback: true,
    });
  });

  it("takes its own publish address, past loopback only with a token", () => {
    const env = { EXTENDED_PORT: "3999", EXTENDED_PUBLISH_ADDR: "203.0.113.9:443" };
    expect(() => parseConfig(env)).toThrow(/Extended view is reachable past loopback/);
    const config = parseConfig({ ...env, INSTANCE_TOKEN: "t0ken" });
    expect(config.extended?.publishedOnLoopback).toBe(false);
    // The API itself stays on loopback.
    expect(config.publishedOnLoopback).toBe(true);
  });

  it("reports a bad port, a bad publish address and a public host without a token", () => {
    expect(() => parseConfig({ EXTENDED_PORT: "99999" })).toThrow(/EXTENDED_PORT="99999" is not a port/);
    expect(() => parseConfig({ EXTENDED_PORT: "3999", EXTENDED_PUBLISH_ADDR: "nope" })).toThrow(
      /EXTENDED_PUBLISH_ADDR="nope" is not host:port/,
    );
    expect(() => parseConfig({ EXTENDED_PORT: "3999", EXTENDED_HOST: "0.0.0.0" })).toThrow(/INSTANCE_TOKEN is not set/);
  });
});
