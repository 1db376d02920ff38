/**
 * The deployment files (docs/deployment.md) stay usable: deploy/compose.yaml parses and runs the
 * reference layout (PostgreSQL, two ingest, three API and two dispatcher processes of one image,
 * each with the settings every process must share), and the Dockerfile's runtime stage carries
 * what the service reads at run time besides dist/ (generator/repo-paths.ts: specs/, templates/,
 * generated/). Docker itself is not run here.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import YAML from "yaml";
import { REPO_ROOT } from "../../support/fixtures.js";

interface Service {
  command?: string[];
  image?: string;
  environment?: Record<string, string>;
  ports?: string[];
}

const compose = YAML.parse(fs.readFileSync(path.join(REPO_ROOT, "deploy/compose.yaml"), "utf8"), {
  merge: true,
}) as { services: Record<string, Service> };

const roleOf = (s: Service) => (s.command?.[0] === "start" && s.command[1] === "--role" ? s.command[2] : null);

describe("deploy/compose.yaml", () => {
  it("runs PostgreSQL, 2 ingest, 3 API and 2 dispatcher processes of one image", () => {
    const roles: Record<string, number> = {};
    for (const s of Object.values(compose.services)) {
      const role = roleOf(s);
      if (role !== null) roles[role] = (roles[role] ?? 0) + 1;
    }
    expect(roles).toEqual({ ingest: 2, api: 3, dispatcher: 2 });
    expect(compose.services.postgres?.image).toMatch(/^postgres:/);
    const images = new Set(
      Object.values(compose.services)
        .filter((s) => roleOf(s) !== null)
        .map((s) => s.image),
    );
    expect(images.size).toBe(1);
  });

  it("gives every sluice process the shared settings, and the ingest processes an open observer", () => {
    for (const [name, s] of Object.entries(compose.services)) {
      const role = roleOf(s);
      if (role === null) continue;
      const env = s.environment ?? {};
      for (const key of ["DATABASE_URL", "NETWORK", "SIGNING_KEY_SEED", "WEBHOOK_SECRET_KEY", "INSTANCE_TOKEN"])
        expect(env[key], `${name} ${key}`).toBeDefined();
      expect(env.DATABASE_URL).toBe(compose.services["api-1"].environment?.DATABASE_URL);
      if (role === "ingest") {
        expect(env.OBSERVER_HOST, name).toBe("0.0.0.0");
        expect(env.OBSERVER_ALLOW_FROM, name).toBeDefined();
      }
    }
  });
});

describe("Dockerfile", () => {
  it("builds with npm ci and npm run build and runs the CLI's start with what the service reads", () => {
    const text = fs.readFileSync(path.join(REPO_ROOT, "Dockerfile"), "utf8");
    expect(text).toMatch(/RUN npm ci\b/);
    expect(text).toMatch(/npm run build/);
    expect(text).toContain('ENTRYPOINT ["node", "dist/runtime/cli/main.js"]');
    expect(text).toContain('CMD ["start"]');
    const runtimeStage = text.slice(text.lastIndexOf("\nFROM "));
    for (const dir of ["dist", "node_modules", "specs", "templates", "generated"])
      expect(runtimeStage, dir).toContain(`/app/${dir} ./${dir}`);
  });
});
