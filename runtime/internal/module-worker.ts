/**
 * A worker thread running one of the runtime's modules, from the compiled build or, under tsx
 * (development, tests), from its TypeScript source with tsx registered in the worker first.
 */
import { Worker, type WorkerOptions } from "node:worker_threads";

/**
 * Starts the module named `name` (without extension) beside `importMetaUrl`, the caller's
 * `import.meta.url`: its `.ts` source when the caller runs from source, its `.js` build otherwise.
 */
export function startModuleWorker(importMetaUrl: string, name: string, options: WorkerOptions = {}): Worker {
  if (!importMetaUrl.endsWith(".ts")) return new Worker(new URL(`./${name}.js`, importMetaUrl), options);
  const source = JSON.stringify(new URL(`./${name}.ts`, importMetaUrl).href);
  return new Worker(`import("tsx/esm/api").then((tsx) => { tsx.register(); return import(${source}); })`, {
    ...options,
    eval: true,
  });
}
