// Compile the plugin against the REAL openclaw plugin SDK instead of types/openclaw-plugin-sdk.d.ts.
// Needs the package somewhere: `npm install --no-save openclaw@2026.9.6` here, or OPENCLAW_NODE_MODULES
// pointing at a node_modules folder that has it (and its typebox / zod dependencies).
// Not part of `npm test` (the package is 95 MB with 65 dependencies); run it when bumping OpenClaw.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const modules = resolve(process.env.OPENCLAW_NODE_MODULES ?? join(here, "node_modules"));
const pkg = join(modules, "openclaw", "package.json");
if (!existsSync(pkg)) {
  console.error(`no openclaw package in ${modules}: npm install --no-save openclaw@2026.9.6 (or set OPENCLAW_NODE_MODULES)`);
  process.exit(2);
}
const version = JSON.parse(readFileSync(pkg, "utf8")).version;
const dir = mkdtempSync(join(tmpdir(), "amem-sdk-check-"));
const config = {
  compilerOptions: {
    target: "ES2022",
    module: "NodeNext",
    moduleResolution: "NodeNext",
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: ["node"],
    typeRoots: [join(here, "node_modules", "@types")],
    baseUrl: here,
    paths: { "openclaw/*": [join(modules, "openclaw", "dist", "*.d.ts")] },
  },
  files: [join(here, "src", "index.ts")],
};
writeFileSync(join(dir, "tsconfig.json"), JSON.stringify(config, null, 2));
try {
  execFileSync(join(here, "node_modules", ".bin", "tsc"), ["-p", join(dir, "tsconfig.json")], { stdio: "inherit" });
} catch {
  console.error(`the plugin does NOT compile against openclaw ${version}'s SDK types`);
  process.exit(1);
}
console.log(`the plugin compiles against openclaw ${version}'s SDK types (openclaw/plugin-sdk/plugin-entry)`);
