/** runtime/internal/errors.ts `isRetryable` and runtime/chain/malformed.ts: which failures are tried again. */
import { describe, expect, it } from "vitest";
import { RetryTransactionError } from "../../../runtime/chain/hooks.js";
import { malformedReason } from "../../../runtime/chain/malformed.js";
import {
  ConfigError,
  isRetryable,
  MalformedPayloadError,
  NonRetryableError,
  RetryableError,
  StartupError,
} from "../../../runtime/internal/errors.js";

const withCode = (code: string, message = code) => Object.assign(new Error(message), { code });

describe("isRetryable", () => {
  it.each([
    ["a RetryableError", new RetryableError("x"), true],
    ["a hook asking for its transaction again", new RetryTransactionError("x"), true],
    ["a NonRetryableError", new NonRetryableError("x"), false],
    ["a malformed payload", new MalformedPayloadError("x"), false],
    ["bad configuration", new ConfigError(["x"]), false],
    ["a start-up failure", new StartupError("x"), false],
    ["a data exception (22P02)", withCode("22P02"), false],
    ["a numeric value out of range (22003)", withCode("22003"), false],
    ["a serialization failure (40001)", withCode("40001"), true],
    ["a deadlock (40P01)", withCode("40P01"), true],
    ["a lost connection (08006)", withCode("08006"), true],
    ["a reset socket", withCode("ECONNRESET"), true],
    ["a server shutting down (57P01)", withCode("57P01"), true],
    ["an unclassified error", new Error("x"), true],
    ["a thrown string", "x", true],
  ])("%s → %s", (_name, err, want) => {
    expect(isRetryable(err)).toBe(want);
  });
});

describe("malformedReason", () => {
  it.each([
    ["decode", new MalformedPayloadError("bad field"), "bad field"],
    ["decode", new TypeError("boom"), "decoder failed: boom"],
    ["apply", withCode("22P02", "invalid input"), "database rejected the data: invalid input"],
    ["apply", withCode("40P01"), null],
    ["apply", new Error("connection lost"), null],
  ] as const)("%s: %s → %s", (stage, err, want) => {
    expect(malformedReason(stage, err)).toBe(want);
  });
});
