/** The handler expression language (DESIGN.md §3): parser, template values, checker, compiler. */
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the spec language writes ${expression} in plain strings
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { checkExpression, expectCondition } from "../../generator/expr/check-expression.js";
import { compileCondition, compileDelta, compileExpression } from "../../generator/expr/compile-expression.js";
import type { Expr, ExprIssue } from "../../generator/expr/nodes.js";
import { parseExpression } from "../../generator/expr/parse-expression.js";
import { parseTemplate } from "../../generator/expr/parse-template.js";
import { helperSources } from "../../generator/expr/runtime-helpers.js";
import { ExprSyntaxError } from "../../generator/expr/tokenize.js";
import { addDecimals } from "../../runtime/subgraphs/decimal.js";

/** A compact rendering of a node tree, to keep the given/want tables readable. */
function show(expr: Expr): string {
  switch (expr.kind) {
    case "literal":
      return expr.type === "text" ? JSON.stringify(expr.value) : `${expr.type}:${String(expr.value)}`;
    case "path":
      return [expr.root, ...expr.segments].join(".");
    case "neg":
      return `(neg ${show(expr.operand)})`;
    case "call":
      return `(${expr.fn} ${expr.args.map(show).join(" ")})`;
    case "compare":
      return `(${expr.op} ${show(expr.left)} ${show(expr.right)})`;
    case "and":
    case "or":
      return `(${expr.kind} ${show(expr.left)} ${show(expr.right)})`;
    case "not":
      return `(not ${show(expr.operand)})`;
  }
}

describe("parseExpression", () => {
  const cases: [string, string][] = [
    ["event.sender", "event.sender"],
    ["event.payload.request-id", "event.payload.request-id"],
    ["-event.amount", "(neg event.amount)"],
    ["--event.amount", "(neg (neg event.amount))"],
    ["-12", "number:-12"],
    ["'it\\'s'", '"it\'s"'],
    ['"a\\"b"', '"a\\"b"'],
    ["1.50", "number:1.50"],
    ["true", "boolean:true"],
    ["null", "null:null"],
    ["concat(tx.id, ':', block.height)", '(concat tx.id ":" block.height)'],
    ["lower()", "(lower )"],
    ["a == 1 and b != 2 or not c", "(or (and (== a number:1) (!= b number:2)) (not c))"],
    ["not (a < b)", "(not (< a b))"],
    ["a <= b", "(<= a b)"],
    ["x >= -1", "(>= x number:-1)"],
    ["add(event.event_index, -1)", "(add event.event_index number:-1)"],
    ["add(-event.amount, 1.5)", "(add (neg event.amount) number:1.5)"],
    ['event.payload.topic == "burn-name"', '(== event.payload.topic "burn-name")'],
  ];
  it.each(cases)("%s", (source, want) => {
    expect(show(parseExpression(source))).toBe(want);
  });

  const errors: [string, number, string][] = [
    ["event.amount >", 14, "expected a value, found the end of the expression"],
    ["(a", 2, 'expected ")", found the end of the expression'],
    ["a b", 2, 'expected the end of the expression, found "b"'],
    ["a.", 2, 'expected a field name after ".", found the end of the expression'],
    ["'open", 0, "unterminated string (expected a closing ')"],
    ["a # b", 2, 'unexpected character "#"'],
    ["and", 0, 'expected a value, found "and"'],
    ["f(a,)", 4, 'expected a value, found ")"'],
  ];
  it.each(errors)("rejects %s", (source, offset, message) => {
    try {
      parseExpression(source);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ExprSyntaxError);
      expect({ offset: (error as ExprSyntaxError).offset, message: (error as Error).message }).toEqual({
        offset,
        message,
      });
    }
  });

  it("records offsets of nodes", () => {
    const expr = parseExpression("  a ==  b", 10);
    expect(expr.kind === "compare" && [expr.offset, expr.right.offset]).toEqual([12, 18]);
  });
});

describe("parseTemplate", () => {
  const cases: [string, string][] = [
    ["ft", '"ft"'],
    ["", '""'],
    ["${event.sender}", "event.sender"],
    ["${ -event.amount }", "(neg event.amount)"],
    ["${a}.${b}", '(concat a "." b)'],
    ["fee ${a} at ${b}", '(concat "fee " a " at " b)'],
    ["$${literal}", '"${literal}"'],
    ["${concat('}', a)}", '(concat "}" a)'],
  ];
  it.each(cases)("%s", (source, want) => {
    expect(show(parseTemplate(source))).toBe(want);
  });

  it("offsets point into the template string", () => {
    const expr = parseTemplate("x ${a} ${ b.c }");
    expect(expr.kind === "call" && expr.args.map((a) => a.offset)).toEqual([0, 4, 6, 10]);
  });

  it("rejects an unterminated part", () => {
    expect(() => parseTemplate("a ${b")).toThrow('unterminated "${" (expected a closing "}")');
  });
});

describe("checkExpression", () => {
  const check = (source: string) => {
    const issues: ExprIssue[] = [];
    const type = checkExpression(parseExpression(source), issues);
    return { type, issues: issues.map((i) => `${i.offset}: ${i.message}`) };
  };
  const types: [string, string][] = [
    ["event.sender", "text"],
    ["event.amount", "number"],
    ["-event.amount", "number"],
    ["event.payload.name.name", "json"],
    ["block.height", "number"],
    ["config.bnsContractId", "text"],
    ["buff_to_utf8(event.payload.name)", "text"],
    ["coalesce(event.sender, 'x')", "text"],
    ["coalesce(event.sender, 1)", "json"],
    ["add(event.event_index, -1)", "number"],
    ["add(event.payload.fee, block.height)", "number"],
    ["add(null, 1)", "number"],
    ["a == b", "boolean"],
  ];
  it.each(types)("%s is %s", (source, type) => {
    const result = check(source.replace(/^a == b$/, "tx.id == tx.sender"));
    expect(result).toEqual({ type, issues: [] });
  });

  const problems: [string, string][] = [
    ["evnt.sender", '0: unknown name "evnt" (did you mean "event"?); paths start with event, tx, block or config'],
    ["event", '0: "event" is not a value; name one of its fields, e.g. event.type'],
    ["tx.hash", '0: unknown field "tx.hash"; tx has id, sender, type, contract_id, function_name, status, index'],
    ["block.height.x", '0: "block.height" has no fields (only event.payload and event.value do)'],
    [
      "config.bns",
      '0: unknown field "config.bns"; config has bnsContractId, sbtcAssetIdentifier, sbtcRegistryContractId, sbtcTokenContractId',
    ],
    ["-tx.id", "0: unary minus needs a number, got text"],
    [
      "lowr(tx.id)",
      '0: unknown function "lowr" (did you mean "lower"?); functions are concat, lower, upper, coalesce, buff_to_utf8, split_part, to_string, to_timestamp, add',
    ],
    ["split_part(tx.id, '.')", "0: split_part() takes 3 arguments, got 2"],
    ["split_part(tx.id, '.', 'x')", "23: argument 3 of split_part() must be a number, got text"],
    ["lower(block.height)", "6: argument 1 of lower() must be text, got a number"],
    ["add(block.height)", "0: add() takes 2 arguments, got 1"],
    ["add(1, 2, 3)", "0: add() takes 2 arguments, got 3"],
    ["add(tx.id, 1)", "4: argument 1 of add() must be a number, got text"],
    ["add(1, true)", "7: argument 2 of add() must be a number, got a boolean"],
    ["true < false", '0: "<" cannot order booleans'],
  ];
  it.each(problems)("%s", (source, issue) => {
    expect(check(source).issues).toEqual([issue]);
  });

  it("conditions must be boolean", () => {
    const issues: ExprIssue[] = [];
    expectCondition(parseExpression("tx.id"), issues);
    expectCondition(parseExpression("event.payload.flag"), issues);
    expectCondition(parseExpression("tx.id and true"), issues);
    expect(issues.map((i) => i.message)).toEqual([
      "a when: condition needs a boolean (e.g. a comparison), got text",
      '"and" needs a boolean (e.g. a comparison), got text',
    ]);
  });
});

describe("compileExpression", () => {
  const compile = (source: string) => {
    const helpers = new Set<string>();
    return { code: compileExpression(parseExpression(source), helpers), helpers: [...helpers].sort() };
  };
  const cases: [string, string, string[]][] = [
    ["event.sender", "ctx.event.sender", []],
    ["event.payload.name.namespace", 'valueAt(ctx.event.payload, "name", "namespace")', ["valueAt"]],
    ["config.sbtcAssetIdentifier", '(ctx.config["sbtcAssetIdentifier"] ?? null)', []],
    ["-event.amount", "negate(ctx.event.amount)", ["negate"]],
    ["12", '"12"', []],
    ["'a\"b'", '"a\\"b"', []],
    ["null", "null", []],
    ["tx.status == 'success'", 'equalValues(ctx.tx.status, "success")', ["equalValues"]],
    ["tx.status != 'success'", '!equalValues(ctx.tx.status, "success")', ["equalValues"]],
    ["block.height >= 10", 'compareValues(ctx.block.height, "10", ">=")', ["compareValues"]],
    ["concat(tx.id, lower(tx.sender))", "concatText(ctx.tx.id, lowerText(ctx.tx.sender))", ["concatText", "lowerText"]],
    ["split_part(tx.contract_id, '.', 2)", 'splitPart(ctx.tx.contract_id, ".", "2")', ["splitPart"]],
    ["to_timestamp(block.time)", "toTimestamp(ctx.block.time)", ["toTimestamp"]],
    ["add(event.event_index, -1)", 'addValues(ctx.event.event_index, "-1")', ["addValues"]],
    [
      "coalesce(tx.sender, to_string(event.value))",
      "coalesceValues(ctx.tx.sender, toText(ctx.event.value))",
      ["coalesceValues", "toText"],
    ],
  ];
  it.each(cases)("%s", (source, code, helpers) => {
    expect(compile(source)).toEqual({ code, helpers });
  });

  it("wraps decoded data in conditions with === true", () => {
    const helpers = new Set<string>();
    expect(compileCondition(parseExpression("event.payload.ok and not tx.index == 0"), helpers)).toBe(
      '((valueAt(ctx.event.payload, "ok")) === true && !(equalValues(ctx.tx.index, "0")))',
    );
  });

  it("compiles deltas to decimal strings, folding literals", () => {
    const helpers = new Set<string>();
    expect(compileDelta(parseExpression("-5"), helpers)).toBe('"-5"');
    expect(compileDelta(parseExpression("-event.amount"), helpers)).toBe("decimalDelta(negate(ctx.event.amount))");
  });
});

describe("add() at run time (the helper inlined into generated modules)", () => {
  const source = helperSources(new Set(["addValues"])).join("\n");
  const js = ts.transpileModule(source, { compilerOptions: { target: ts.ScriptTarget.ES2022 } }).outputText;
  const addValues = new Function(`${js}\nreturn addValues;`)() as (a: unknown, b: unknown) => string | null;

  const sums: [unknown, unknown, string][] = [
    [5, "-1", "4"],
    [0, "-1", "-1"],
    ["1", "2", "3"],
    ["340282366920938463463374607431768211455", "1", "340282366920938463463374607431768211456"],
    ["9007199254740993", "-9007199254740993", "0"],
    ["1.5", "2.25", "3.75"],
    ["-0.5", "0.5", "0.0"],
    ["0.1", "0.2", "0.3"],
    ["007", "-8", "-1"],
    ["-1.05", "1", "-0.05"],
    [10n, "1.0", "11.0"],
  ];
  it.each(sums)("%s + %s = %s, exactly as runtime/subgraphs/decimal.ts addDecimals", (a, b, want) => {
    expect(addValues(a, b)).toBe(want);
    expect(addDecimals(String(a), String(b))).toBe(want);
  });

  it("is null when either side is null", () => {
    expect([addValues(null, "1"), addValues("1", null), addValues(undefined, undefined)]).toEqual([null, null, null]);
  });

  it("refuses values that are not decimals (never a float)", () => {
    expect(() => addValues("0x01", "1")).toThrow('add() needs decimal numbers, got "0x01"');
    expect(() => addValues("1", { a: 1 })).toThrow('add() needs decimal numbers, got {"a":1}');
    expect(() => addValues(0.5, 1)).toThrow("add() needs decimal numbers, got 0.5");
    expect(() => addValues(true, 1)).toThrow("add() needs decimal numbers, got true");
  });
});
