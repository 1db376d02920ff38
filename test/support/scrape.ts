/**
 * Reads GET /metrics the way Prometheus would: the text format parsed by an independent parser
 * (parse-prometheus-text-format), with lookups by metric name and labels for assertions.
 *
 * That parser folds a histogram's samples into one and drops their labels, so histograms are
 * read a second time with their `# TYPE … histogram` lines removed: each `_bucket`, `_sum` and
 * `_count` line is then an untyped sample of its own, labels kept.
 */
import parsePrometheusTextFormat, { type ParsedFamily } from "parse-prometheus-text-format";

export interface Scrape {
  families: Map<string, ParsedFamily>;
  /** The value of the sample of `name` whose labels include `labels`; undefined when absent. */
  value(name: string, labels?: Record<string, string>): number | undefined;
  /** Sum of every sample of `name` matching `labels`. */
  sum(name: string, labels?: Record<string, string>): number;
  /** A histogram's observation count (its `_count` sample) matching `labels`; undefined when absent. */
  count(name: string, labels?: Record<string, string>): number | undefined;
  /** Every label set of `name`. */
  labels(name: string): Record<string, string>[];
}

export async function scrape(apiUrl: string, headers: Record<string, string> = {}): Promise<Scrape> {
  const res = await fetch(`${apiUrl}/metrics`, { headers });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`GET /metrics answered ${res.status}: ${text}`);
  return parseScrape(text);
}

export function parseScrape(text: string): Scrape {
  const families = new Map(parsePrometheusTextFormat(text).map((f) => [f.name, f]));
  const untyped = text
    .split("\n")
    .filter((line) => !/^# TYPE \S+ histogram$/.test(line))
    .join("\n");
  // A histogram's series alternate _bucket, _sum, _count lines: each run is a family of its own here.
  const samples = new Map<string, ParsedFamily>();
  for (const f of parsePrometheusTextFormat(untyped)) {
    const known = samples.get(f.name);
    if (known) known.metrics.push(...f.metrics);
    else samples.set(f.name, { ...f, metrics: [...f.metrics] });
  }
  const matching = (name: string, labels: Record<string, string> = {}) =>
    (samples.get(name)?.metrics ?? []).filter((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
  return {
    families,
    value(name, labels) {
      const m = matching(name, labels)[0];
      return m?.value === undefined ? undefined : Number(m.value);
    },
    sum(name, labels) {
      return matching(name, labels).reduce((n, m) => n + Number(m.value ?? 0), 0);
    },
    count(name, labels) {
      const m = matching(`${name}_count`, labels)[0];
      return m?.value === undefined ? undefined : Number(m.value);
    },
    labels(name) {
      const histogram = families.get(name)?.type === "HISTOGRAM";
      return (samples.get(histogram ? `${name}_count` : name)?.metrics ?? []).map((m) => m.labels ?? {});
    },
  };
}
