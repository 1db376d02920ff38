import { describe, expect, it } from "vitest";
import { newRequestId } from "../../../../runtime/api/http/request-context.js";

describe("request ids", () => {
  it("stay well-formed and distinct across many draws of random bytes", () => {
    // 20,000 ids span several 4 KiB draws (512 ids each), so refills are crossed many times.
    const ids = Array.from({ length: 20_000 }, newRequestId);
    for (const id of ids) expect(id).toMatch(/^req_[0-9a-f]{16}$/);
    expect(new Set(ids).size).toBe(ids.length);
    // Not a counter: consecutive ids share no common 8-character prefix in general.
    const samePrefix = ids.slice(1).filter((id, i) => id.slice(0, 12) === ids[i].slice(0, 12)).length;
    expect(samePrefix).toBeLessThan(5);
  });
});
