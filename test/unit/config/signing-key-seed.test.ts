/**
 * SIGNING_KEY_SEED in runtime/config (DESIGN.md §6): a valid seed is kept; a bad one is one clear
 * problem that never echoes the (secret) value.
 */
import { describe, expect, it } from "vitest";
import { parseConfig } from "../../../runtime/config/index.js";
import { ConfigError } from "../../../runtime/internal/errors.js";

describe("SIGNING_KEY_SEED", () => {
  it("absent or blank → null (the key lives in DATA_DIR)", () => {
    expect(parseConfig({}).signingKeySeed).toBeNull();
    expect(parseConfig({ SIGNING_KEY_SEED: "  " }).signingKeySeed).toBeNull();
  });

  it("base64 or base64url of 32 bytes is accepted", () => {
    const seed = Buffer.alloc(32, 0xfb);
    expect(parseConfig({ SIGNING_KEY_SEED: seed.toString("base64") }).signingKeySeed).toBe(seed.toString("base64"));
    expect(parseConfig({ SIGNING_KEY_SEED: seed.toString("base64url") }).signingKeySeed).toBe(
      seed.toString("base64url"),
    );
  });

  it.each([
    Buffer.alloc(31, 1).toString("base64"),
    Buffer.alloc(33, 1).toString("base64"),
    "not base64 at all!!",
    "c2VjcmV0",
  ])("%j is one problem naming the variable, not the value", (value) => {
    let error: unknown;
    try {
      parseConfig({ SIGNING_KEY_SEED: value });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems;
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain("SIGNING_KEY_SEED");
    expect((error as ConfigError).message).not.toContain(value);
  });
});
