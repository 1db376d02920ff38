/**
 * Query-parameter validation (runtime/api/http/query-params.ts): suggestions, the list alias rule,
 * integer parsing, repeated parameters; unit tables plus one route over real HTTP.
 */
import { describe, expect, it } from "vitest";
import {
  didYouMean,
  editDistance,
  parseEnumParam,
  parseIntegerParam,
  rejectListAliases,
  rejectUnknownParams,
} from "../../../../runtime/api/http/query-params.js";
import { ServiceError } from "../../../../runtime/internal/errors.js";
import { bodyOf, startTestApi } from "../../../support/api-harness.js";
import { allRoutes } from "../../../support/test-routes.js";

const LIST = [
  "_limit",
  "cursor",
  "_order",
  "_sort",
  "_fields",
  "_search",
  "name",
  "deployer",
  "contract_id",
  "deploy_block.gte",
];

/** Runs fn and returns the ServiceError it throws. */
function caught(fn: () => unknown): ServiceError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ServiceError) return err;
    throw err;
  }
  throw new Error("expected a ServiceError");
}

describe("didYouMean", () => {
  it.each([
    ["limt", "_limit"],
    ["_limt", "_limit"],
    ["LIMIT", "_limit"],
    ["fields", "_fields"],
    ["_serach", "_search"],
    ["cusor", "cursor"],
    ["curosr", "cursor"],
    ["ordr", "_order"],
    ["deployr", "deployer"],
    ["contract", "contract_id"],
    ["deploy_block.gt", "deploy_block.gte"],
    ["nmae", "name"],
    ["xyz", undefined],
    ["a", undefined],
    ["", undefined],
    ["completely_unrelated_parameter", undefined],
    ["x".repeat(5000), undefined],
  ])("%j → %j", (unknown, want) => {
    expect(didYouMean(unknown, LIST)).toBe(want);
  });

  it("prefers the closest candidate, then the first listed", () => {
    expect(didYouMean("abcd", ["abxy", "abcx"])).toBe("abcx");
    expect(didYouMean("abcd", ["abcx", "abcy"])).toBe("abcx");
  });

  it("counts an adjacent swap as one edit", () => {
    expect(editDistance("ab", "ba")).toBe(1);
    expect(editDistance("kitten", "sitting")).toBe(3);
    expect(editDistance("", "abc")).toBe(3);
  });
});

describe("rejectUnknownParams", () => {
  it("accepts known names and names the accept rule allows", () => {
    expect(() =>
      rejectUnknownParams({ _limit: "5", "name.like": "x" }, LIST, { accept: (n) => n.endsWith(".like") }),
    ).not.toThrow();
  });

  it("names the closest valid parameter", () => {
    const err = caught(() => rejectUnknownParams({ limt: "5" }, LIST));
    expect(err.status).toBe(400);
    expect(err.code).toBe("UNKNOWN_PARAMETER");
    expect(err.message).toBe('unknown query parameter "limt"; did you mean "_limit"?');
    expect(err.details).toEqual({ parameter: "limt", suggestion: "_limit" });
  });

  it("says nothing more when no name is close", () => {
    const err = caught(() => rejectUnknownParams({ zzz: "1" }, LIST));
    expect(err.message).toBe('unknown query parameter "zzz"');
    expect(err.details).toEqual({ parameter: "zzz", suggestion: null });
  });

  it("draws suggestions from the extra list too", () => {
    expect(
      caught(() => rejectUnknownParams({ "amount.gtee": "1" }, LIST, { suggestions: ["amount.gte"] })).details
        ?.suggestion,
    ).toBe("amount.gte");
  });

  it("does not treat Object.prototype names as known", () => {
    expect(caught(() => rejectUnknownParams({ constructor: "1" }, LIST, { aliases: { limit: "_limit" } })).code).toBe(
      "UNKNOWN_PARAMETER",
    );
  });

  it.each([
    ["limit", "_limit"],
    ["order", "_order"],
    ["sort", "_sort"],
    ["_offset", "cursor"],
  ])("SPEC list rule: %s is refused with INVALID_PARAMETER naming %s", (name, use) => {
    const err = caught(() =>
      rejectUnknownParams({ [name]: "1" }, LIST, {
        aliases: { limit: "_limit", order: "_order", sort: "_sort", _offset: "cursor" },
      }),
    );
    expect(err.code).toBe("INVALID_PARAMETER");
    expect(err.message).toContain(`"${use}"`);
    expect(err.details).toEqual({ parameter: name, use });
    expect(caught(() => rejectListAliases({ [name]: "1" })).details).toEqual({ parameter: name, use });
  });

  it("repeated parameters are a 400 INVALID_PARAMETER unless declared repeatable", () => {
    const err = caught(() => rejectUnknownParams({ _limit: ["1", "2"] }, LIST));
    expect(err.code).toBe("INVALID_PARAMETER");
    expect(err.message).toBe('query parameter "_limit" was given more than once');
    expect(() => rejectUnknownParams({ name: ["a", "b"] }, LIST, { repeatable: ["name"] })).not.toThrow();
    expect(caught(() => rejectUnknownParams({ name: { nested: "x" } }, LIST)).code).toBe("INVALID_PARAMETER");
  });
});

describe("parseIntegerParam", () => {
  const range = { min: 1, max: 1000, default: 50 };
  it.each([
    [undefined, 50],
    ["1", 1],
    ["1000", 1000],
    ["007", 7],
  ])("%j → %j", (raw, want) => {
    expect(parseIntegerParam("_limit", raw, range)).toBe(want);
  });

  it.each([
    [""],
    ["0"],
    ["-1"],
    ["1001"],
    ["1.5"],
    ["1e3"],
    ["+5"],
    [" 5"],
    ["5 "],
    ["abc"],
    ["0x10"],
    ["99999999999999999999"],
    [["1", "2"]],
  ])("%j → 400 INVALID_PARAMETER (never clamped)", (raw) => {
    const err = caught(() => parseIntegerParam("_limit", raw, range));
    expect(err.status).toBe(400);
    expect(err.code).toBe("INVALID_PARAMETER");
    expect(err.details?.parameter).toBe("_limit");
  });

  it("describes the accepted range in the message", () => {
    expect(caught(() => parseIntegerParam("_limit", "0", range)).message).toBe(
      'query parameter "_limit" must be an integer from 1 to 1000; got "0"',
    );
    expect(caught(() => parseIntegerParam("from_height", "-3", { min: 0 })).message).toBe(
      'query parameter "from_height" must be an integer of at least 0; got "-3"',
    );
  });

  it("returns undefined for an absent parameter without a default; -0 reads as 0", () => {
    expect(parseIntegerParam("to_height", undefined, { min: 0 })).toBeUndefined();
    expect(Object.is(parseIntegerParam("x", "-0"), 0)).toBe(true);
  });
});

describe("parseEnumParam", () => {
  it("accepts listed values, defaults when absent, refuses the rest", () => {
    expect(parseEnumParam("_order", "desc", ["asc", "desc"], "asc")).toBe("desc");
    expect(parseEnumParam("_order", undefined, ["asc", "desc"], "asc")).toBe("asc");
    const err = caught(() => parseEnumParam("_order", "DESC", ["asc", "desc"], "asc"));
    expect(err.code).toBe("INVALID_PARAMETER");
    expect(err.message).toBe('query parameter "_order" must be one of: asc, desc; got "DESC"');
  });
});

describe("over HTTP", () => {
  it("valid parameters pass", async () => {
    const api = await startTestApi({}, { routes: allRoutes });
    const res = await api.get("/v1/test/params?_limit=10&_order=desc");
    expect(await res.json()).toEqual({ limit: 10, order: "desc" });
  });

  it("an unknown parameter answers 400 with the suggestion", async () => {
    const api = await startTestApi({}, { routes: allRoutes });
    const res = await api.get("/v1/test/params?limt=10");
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: 'unknown query parameter "limt"; did you mean "_limit"?',
      code: "UNKNOWN_PARAMETER",
      details: { parameter: "limt", suggestion: "_limit" },
    });
  });

  it.each([
    ["?_limit=1&_limit=2"],
    ["?_limit[]=1"],
    ["?_limit[a]=1"],
    ["?_limit=0"],
    ["?_limit=abc"],
    ["?limit=5"],
    ["?_offset=5"],
  ])("%s answers 400, not 500", async (qs) => {
    const api = await startTestApi({}, { routes: allRoutes });
    const res = await api.get(`/v1/test/params${qs}`);
    expect(res.status).toBe(400);
    expect(["INVALID_PARAMETER", "UNKNOWN_PARAMETER"]).toContain((await bodyOf(res)).code);
  });
});
