/** Exit codes by error class and the table layout of the API commands (runtime/cli/api/common.ts; README "CLI"). */
import { describe, expect, it } from "vitest";
import { EXIT, exitCodeOf, formatTable, UsageError } from "../../../runtime/cli/api/common.js";
import { SluiceApiError } from "../../../runtime/sdk/errors.js";

describe("exit codes", () => {
  it("follow the README's table", () => {
    const api = (status: number) => exitCodeOf(new SluiceApiError(status, "X", "x"));
    expect([401, 404, 409, 400, 413, 429, 500, 503].map(api)).toEqual([4, 5, 6, 7, 7, 7, 8, 8]);
    expect(exitCodeOf(new UsageError("bad"))).toBe(2);
    const refused = new TypeError("fetch failed", { cause: { code: "ECONNREFUSED" } });
    expect(exitCodeOf(refused)).toBe(3);
    expect(exitCodeOf(new Error("boom"))).toBe(1);
    expect(EXIT).toMatchObject({ ok: 0, failure: 1, usage: 2 });
  });
});

describe("formatTable", () => {
  it("pads columns to their widest cell and shows missing values as -", () => {
    const text = formatTable(
      ["id", "name"],
      [
        { id: "wh_1", name: "a" },
        { id: "wh_22", name: null },
      ],
    );
    expect(text).toBe("ID     NAME\nwh_1   a\nwh_22  -\n");
  });
});
