// Write the config schema and UI hints of src/schema.ts (built to dist/) into openclaw.plugin.json, which
// the gateway reads before it loads the plugin. `npm run manifest` after changing a setting; a test
// fails while the two differ.
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const { CONFIG_JSON_SCHEMA, UI_HINTS } = await import(join(here, "dist", "schema.js"));
const path = join(here, "openclaw.plugin.json");
const manifest = JSON.parse(readFileSync(path, "utf8"));
manifest.uiHints = UI_HINTS;
manifest.configSchema = CONFIG_JSON_SCHEMA;
writeFileSync(path, `${JSON.stringify(manifest, null, 2)}\n`);
console.log(`wrote ${path}`);
