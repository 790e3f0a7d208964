// Compile the plugin against the REAL openclaw plugin SDK instead of types/openclaw-plugin-sdk.d.ts.
// Needs the package somewhere: `npm install --no-save openclaw@2026.9.6` here, or OPENCLAW_NODE_MODULES
// pointing at a node_modules folder that has it (and its typebox / zod dependencies).
// Not part of `npm test` (the package is 95 MB with 65 dependencies); run it when bumping OpenClaw.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
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

// And at run time: OpenClaw's own loader takes the built module, and definePluginEntry builds the same object.
const dist = join(modules, "openclaw", "dist");
const built = await import(join(here, "dist", "index.js"));
const loaderFile = readdirSync(dist).find((n) => n.startsWith("module-export-") && n.endsWith(".mjs"));
const resolveExport = loaderFile
  ? Object.values(await import(join(dist, loaderFile))).find((v) => typeof v === "function" && v.name === "resolvePluginModuleExport")
  : undefined;
if (!resolveExport) {
  console.log("(openclaw's loader function was not found in this version: run-time check skipped)");
} else {
  const resolved = resolveExport(built);
  if (typeof resolved.register !== "function" || resolved.definition?.id !== "amem") {
    console.error("openclaw's loader does not find register() in dist/index.js");
    process.exit(1);
  }
  const { definePluginEntry } = await import(join(dist, "plugin-sdk", "plugin-entry.js"));
  const wrapped = definePluginEntry(built.default);
  const same = Object.keys(wrapped).sort().join() === Object.keys(built.default).sort().join();
  console.log(`openclaw's loader finds register() in dist/index.js; definePluginEntry builds the same keys: ${same}`);
  if (!same) process.exit(1);
}
