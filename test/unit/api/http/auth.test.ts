/**
 * The pure access decision (runtime/api/http/auth.ts) against SPEC.md "Authentication", plus the
 * refuse-to-start rule 4 as enforced by parseConfig.
 */
import { describe, expect, it } from "vitest";
import {
  type AccessInput,
  decideAccess,
  parseBearer,
  surfaceForPath,
  tokensEqual,
} from "../../../../runtime/api/http/auth.js";
import { parseConfig } from "../../../../runtime/config/index.js";
import { ConfigError } from "../../../../runtime/internal/errors.js";

const T = "secret-token";

describe("decideAccess", () => {
  const cases: [string, AccessInput, "allow" | "deny"][] = [
    [
      "public surface is always open",
      { surface: "public", publishedOnLoopback: false, instanceToken: T, presentedToken: null },
      "allow",
    ],
    [
      "loopback read, no token presented",
      { surface: "read", publishedOnLoopback: true, instanceToken: T, presentedToken: null },
      "allow",
    ],
    [
      "loopback read, wrong token ignored",
      { surface: "read", publishedOnLoopback: true, instanceToken: T, presentedToken: "nope" },
      "allow",
    ],
    [
      "loopback read, no instance token",
      { surface: "read", publishedOnLoopback: true, instanceToken: null, presentedToken: "x" },
      "allow",
    ],
    [
      "published read, no token",
      { surface: "read", publishedOnLoopback: false, instanceToken: T, presentedToken: null },
      "deny",
    ],
    [
      "published read, wrong token",
      { surface: "read", publishedOnLoopback: false, instanceToken: T, presentedToken: "nope" },
      "deny",
    ],
    [
      "published read, right token",
      { surface: "read", publishedOnLoopback: false, instanceToken: T, presentedToken: T },
      "allow",
    ],
    [
      "published read, no instance token (fail closed)",
      { surface: "read", publishedOnLoopback: false, instanceToken: null, presentedToken: null },
      "deny",
    ],
    [
      "loopback write, token set, none presented",
      { surface: "write", publishedOnLoopback: true, instanceToken: T, presentedToken: null },
      "deny",
    ],
    [
      "loopback write, token set, wrong one",
      { surface: "write", publishedOnLoopback: true, instanceToken: T, presentedToken: "nope" },
      "deny",
    ],
    [
      "loopback write, token set, right one",
      { surface: "write", publishedOnLoopback: true, instanceToken: T, presentedToken: T },
      "allow",
    ],
    [
      "loopback write, no token set",
      { surface: "write", publishedOnLoopback: true, instanceToken: null, presentedToken: null },
      "allow",
    ],
    [
      "published write, no token set (fail closed)",
      { surface: "write", publishedOnLoopback: false, instanceToken: null, presentedToken: null },
      "deny",
    ],
    [
      "published write, right token",
      { surface: "write", publishedOnLoopback: false, instanceToken: T, presentedToken: T },
      "allow",
    ],
    [
      "loopback status, token set, none presented",
      { surface: "status", publishedOnLoopback: true, instanceToken: T, presentedToken: null },
      "deny",
    ],
    [
      "loopback status, token set, right one",
      { surface: "status", publishedOnLoopback: true, instanceToken: T, presentedToken: T },
      "allow",
    ],
    [
      "loopback status, no token set",
      { surface: "status", publishedOnLoopback: true, instanceToken: null, presentedToken: null },
      "allow",
    ],
    [
      "empty instance token counts as unset",
      { surface: "write", publishedOnLoopback: true, instanceToken: "", presentedToken: "" },
      "allow",
    ],
  ];
  it.each(cases)("%s", (_name, input, want) => {
    expect(decideAccess(input)).toBe(want);
  });
});

describe("tokensEqual", () => {
  it("compares by value, including different lengths and non-ASCII", () => {
    expect(tokensEqual("abc", "abc")).toBe(true);
    expect(tokensEqual("abc", "abcd")).toBe(false);
    expect(tokensEqual("", "abc")).toBe(false);
    expect(tokensEqual("clé-ü", "clé-ü")).toBe(true);
  });
});

describe("parseBearer", () => {
  it.each([
    [undefined, null],
    ["", null],
    ["Bearer abc", "abc"],
    ["bearer abc", "abc"],
    ["BEARER   abc  ", "abc"],
    ["Basic abc", null],
    ["Bearer", null],
    ["Bearer a b", "a b"],
    ["Bearer  \t ", null],
    ["Bearerabc", null],
  ])("%j → %j", (header, want) => {
    expect(parseBearer(header)).toBe(want);
  });
});

describe("surfaceForPath", () => {
  it.each([
    ["/v1", "read"],
    ["/v1/subgraphs/x/y", "read"],
    ["/V1/subgraphs", "read"],
    ["//v1//subgraphs", "read"],
    ["/extended/x", "read"],
    ["/v10/x", "public"],
    ["/api/webhooks", "write"],
    ["/apis", "public"],
    ["/status", "status"],
    ["/health", "public"],
    ["/public/streams/signing-key", "public"],
  ])("%s → %s", (path, want) => {
    expect(surfaceForPath(path)).toBe(want);
  });
});

describe("rule 4: an instance binding past loopback with no token refuses to start", () => {
  it("API_HOST=0.0.0.0 without a token makes parseConfig throw a clear message", () => {
    const attempt = () => parseConfig({ API_HOST: "0.0.0.0" });
    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow(/INSTANCE_TOKEN is not set/);
  });

  it("published past loopback without a token makes parseConfig throw", () => {
    expect(() => parseConfig({ API_PUBLISH_ADDR: "0.0.0.0:3800" })).toThrow(/INSTANCE_TOKEN/);
  });

  it("binding past loopback with a token (or the legacy alias) starts", () => {
    expect(parseConfig({ API_HOST: "0.0.0.0", INSTANCE_TOKEN: T }).publishedOnLoopback).toBe(false);
    expect(parseConfig({ API_HOST: "0.0.0.0", SLUICE_API_KEY: T }).instanceToken).toBe(T);
  });
});
