/** STACKS_NODE_RPC_URL (runtime/config/index.ts): unset is null, an http(s) URL is kept, anything else is one clear problem. */
import { describe, expect, it } from "vitest";
import { parseConfig } from "../../../runtime/config/index.js";
import { ConfigError } from "../../../runtime/internal/errors.js";

function problemsOf(env: Record<string, string>): string[] {
  try {
    parseConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  throw new Error("expected parseConfig to throw");
}

describe("STACKS_NODE_RPC_URL", () => {
  it("is null when unset or empty", () => {
    expect(parseConfig({}).stacksNodeRpcUrl).toBeNull();
    expect(parseConfig({ STACKS_NODE_RPC_URL: "" }).stacksNodeRpcUrl).toBeNull();
  });

  it("keeps an http or https URL", () => {
    for (const url of ["http://127.0.0.1:20443", "https://node.example/rpc/", "http://[::1]:20443"]) {
      expect(parseConfig({ STACKS_NODE_RPC_URL: url }).stacksNodeRpcUrl).toBe(url);
    }
  });

  it("reports a value that is not a URL, or not http(s), naming the variable and an example", () => {
    expect(problemsOf({ STACKS_NODE_RPC_URL: "127.0.0.1:20443" })).toEqual([
      'STACKS_NODE_RPC_URL="127.0.0.1:20443" is not a URL (expected e.g. http://127.0.0.1:20443)',
    ]);
    expect(problemsOf({ STACKS_NODE_RPC_URL: "node.example:20443" })).toEqual([
      'STACKS_NODE_RPC_URL="node.example:20443" must be an http:// or https:// URL with a host',
    ]);
    expect(problemsOf({ STACKS_NODE_RPC_URL: "not a url" })).toEqual([
      'STACKS_NODE_RPC_URL="not a url" is not a URL (expected e.g. http://127.0.0.1:20443)',
    ]);
    expect(problemsOf({ STACKS_NODE_RPC_URL: "ftp://node.example" })).toEqual([
      'STACKS_NODE_RPC_URL="ftp://node.example" must be an http:// or https:// URL with a host',
    ]);
  });
});
