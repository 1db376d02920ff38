/**
 * Bundles the web console (console/src, console/style.css) into dist/console/app.js and app.css,
 * which runtime/api/console.ts serves at /console. Run by `npm run build`; the console e2e test
 * runs it too. Everything is bundled: the page loads nothing from another origin.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const here = path.dirname(fileURLToPath(import.meta.url));
const outdir = path.join(here, "..", "dist", "console");

export async function buildConsole() {
  await build({
    entryPoints: { app: path.join(here, "src", "main.ts") },
    bundle: true,
    format: "esm",
    target: "es2022",
    platform: "browser",
    minify: true,
    sourcemap: false,
    legalComments: "none",
    outdir,
    logLevel: "warning",
  });
  await build({
    entryPoints: { app: path.join(here, "style.css") },
    bundle: true,
    minify: true,
    outdir,
    logLevel: "warning",
  });
  return outdir;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const out = await buildConsole();
  console.log(`console bundled into ${path.relative(process.cwd(), out) || "."}`);
}
