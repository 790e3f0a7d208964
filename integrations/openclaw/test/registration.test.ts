/** Registration against the SDK types, the manifest, the config rules, session keys, the self-check. */

import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";

import plugin, { PLUGIN_ID, configSchema } from "../src/index.js";
import {
  agentIdFromSessionKey,
  conversationAccessBlocked,
  parseConfig,
  resolveAgentId,
  resolveFor,
} from "../src/config.js";
import { CONFIG_JSON_SCHEMA, UI_HINTS } from "../src/schema.js";
import { toolCalls } from "../src/text.js";
import { TOOL_NAMES } from "../src/tools.js";
import { fakeApi } from "./helpers/fake-api.js";

const ROOT = process.cwd();
const manifest = JSON.parse(readFileSync(join(ROOT, "openclaw.plugin.json"), "utf8"));
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));

/** The openclaw.json of the README's example (its plugin config part). */
export const README_CONFIG = {
  serverUrl: "http://127.0.0.1:8000",
  apiKey: "${AMEM_API_KEY}",
  topK: 5,
  tokenBudget: 1200,
  autoRecall: true,
  autoCapture: true,
  captureTarget: "turns",
  agents: {
    writer: { apiKey: { source: "env", provider: "default", id: "AMEM_WRITER_KEY" } },
    "agent:main:telegram:family": { autoCapture: false },
  },
};

describe("manifest and package", () => {
  it("declares a memory plugin whose id, tools and config schema match the code", () => {
    assert.equal(manifest.kind, "memory");
    assert.equal(manifest.id, PLUGIN_ID);
    assert.equal(plugin.id, PLUGIN_ID);
    assert.deepEqual(manifest.contracts.tools, TOOL_NAMES);
    assert.deepEqual(manifest.configSchema, JSON.parse(JSON.stringify(CONFIG_JSON_SCHEMA)));
    assert.deepEqual(manifest.uiHints, JSON.parse(JSON.stringify(UI_HINTS)));
    assert.equal(manifest.configSchema.additionalProperties, false);
    assert.deepEqual(Object.keys(manifest.uiHints).sort(), Object.keys(manifest.configSchema.properties).sort());
    assert.equal(manifest.configSchema.properties.apiKey.sensitive, true);
    assert.equal(manifest.version, pkg.version);
  });

  it("points OpenClaw at the built entry, which exports the plugin with register()", async () => {
    assert.equal(pkg.type, "module");
    assert.deepEqual(pkg.openclaw.extensions, ["./dist/index.js"]);
    assert.ok(existsSync(join(ROOT, "dist", "index.js")), "npm run build first");
    const built = await import(join(ROOT, "dist", "index.js"));
    assert.equal(built.default.id, "amem");
    assert.equal(typeof built.default.register, "function");
    assert.equal(typeof built.default.configSchema.validate, "function");
    assert.ok(!("dependencies" in pkg), "nothing to install at run time: OpenClaw provides the SDK");
  });
});

describe("register()", () => {
  it("registers every tool through one per-call factory and both hooks with a bounded timeout", () => {
    const rec = fakeApi({ pluginConfig: { apiKey: "amem_x" } });
    plugin.register(rec.api);
    assert.equal(rec.factories.length, 1);
    assert.deepEqual(rec.factories[0].names, TOOL_NAMES);
    const tools = rec.tools({ sessionKey: "agent:main:cli:1" });
    assert.deepEqual([...tools.keys()], TOOL_NAMES);
    for (const tool of tools.values()) {
      assert.equal(typeof tool.execute, "function");
      assert.ok(tool.label && tool.description.length > 20, tool.name);
      const params = tool.parameters as { type?: string; additionalProperties?: boolean };
      assert.equal(params.type, "object");
      assert.equal(params.additionalProperties, false);
    }
    assert.equal(typeof rec.hooks.before_prompt_build, "function");
    assert.equal(typeof rec.hooks.agent_end, "function");
    assert.deepEqual(rec.hookOptions.before_prompt_build, { timeoutMs: 4000 });
    assert.deepEqual(rec.hookOptions.agent_end, { timeoutMs: 16000 });
    assert.deepEqual(rec.services.map((s) => s.id), ["amem-startup-check"]);
    assert.deepEqual(rec.warnings(), []);
  });

  it("registers nothing for cli-metadata", () => {
    const rec = fakeApi({ pluginConfig: { apiKey: "amem_x" }, registrationMode: "cli-metadata" });
    plugin.register(rec.api);
    assert.equal(rec.factories.length, 0);
    assert.deepEqual(rec.hooks, {});
    assert.deepEqual(rec.services, []);
  });

  it("refuses an invalid config with every problem named", () => {
    const rec = fakeApi({ pluginConfig: { topK: 0, captureTarget: "all", agentId: "x", agents: { w: { key: "k" } } } });
    assert.throws(
      () => plugin.register(rec.api),
      (err: Error) =>
        /topK: must be an integer from 1 to 100/.test(err.message) &&
        /captureTarget: must be "turns" or "conversations"/.test(err.message) &&
        /agentId: unknown field/.test(err.message) &&
        /agents\.w\.key: unknown field/.test(err.message),
    );
  });
});

describe("the memory section of the system prompt", () => {
  const section = (pluginConfig: Record<string, unknown>, tools: string[], config?: object, ctx: object = {}) => {
    const rec = fakeApi({ pluginConfig, ...(config ? { config } : {}) });
    plugin.register(rec.api);
    assert.equal(rec.capabilities.length, 1);
    return rec.capabilities[0].promptBuilder!({ availableTools: new Set(tools), ...ctx });
  };

  it("says what happens on its own and names only the tools the agent has", () => {
    const lines = section({ apiKey: "amem_x" }, ["memory_search", "memory_add", "exec"]);
    assert.equal(lines[0], "## Long-term memory (amem)");
    assert.match(lines[1], /prepended inside <amem-memory>/);
    assert.match(lines[2], /Each finished turn is sent to amem/);
    assert.deepEqual(lines.slice(3).map((l) => l.split(":")[0]), ["- memory_search", "- memory_add"]);
  });

  it("does not promise capture when it is blocked or recall when it is off for the agent", () => {
    const blocked = section({ apiKey: "amem_x" }, [], { plugins: { entries: { amem: {} } } });
    assert.ok(!blocked.some((l) => /finished turn/.test(l)));
    const quiet = section(
      { apiKey: "amem_x", agents: { quiet: { autoRecall: false } } },
      [],
      undefined,
      { agentSessionKey: "agent:quiet:cli:1" },
    );
    assert.ok(!quiet.some((l) => /amem-memory/.test(l)));
  });
});

describe("config", () => {
  it("validates like the manifest's schema and accepts the README example", () => {
    assert.deepEqual(configSchema.validate!(README_CONFIG), { ok: true, value: README_CONFIG });
    assert.deepEqual(configSchema.validate!(undefined), { ok: true, value: undefined });
    const bad = configSchema.validate!({ serverUrl: "ftp://x", apiKey: { source: "file", id: "x" }, tokenBudget: 10 });
    assert.equal(bad.ok, false);
    assert.equal((bad as { errors: string[] }).errors.length, 3);
  });

  it("fills the defaults", () => {
    const cfg = parseConfig({ serverUrl: "http://localhost:9000/" });
    assert.equal(cfg.serverUrl, "http://localhost:9000");
    assert.deepEqual(
      [cfg.topK, cfg.tokenBudget, cfg.autoRecall, cfg.autoCapture, cfg.captureTarget, cfg.apiKeyEnv],
      [5, 1200, true, true, "turns", "AMEM_API_KEY"],
    );
  });
});

describe("which OpenClaw agent, which amem key (seed B164, B165)", () => {
  it("reads the agent id from session keys shaped agent:<id>:<rest>", () => {
    assert.equal(agentIdFromSessionKey("agent:writer:session-123"), "writer");
    assert.equal(agentIdFromSessionKey("agent:writer:a:b:c"), "writer");
    assert.equal(agentIdFromSessionKey(":agent:writer:session"), "writer");
    for (const key of ["user:writer:session", "agent:writer", "agent:writer:", "agent::session", "", undefined]) {
      assert.equal(agentIdFromSessionKey(key), undefined, String(key));
    }
  });

  it("prefers ctx.agentId, then the session key, then main", () => {
    assert.equal(resolveAgentId({ agentId: "ops", sessionKey: "agent:writer:s" }), "ops");
    assert.equal(resolveAgentId({ sessionKey: "agent:writer:s" }), "writer");
    assert.equal(resolveAgentId({ sessionKey: "weird" }), "main");
    assert.equal(resolveAgentId(undefined), "main");
  });

  it("maps agents and exact session keys to their own keys and switches", () => {
    const env = { AMEM_API_KEY: "amem_main", AMEM_WRITER_KEY: "amem_writer", OTHER: "amem_other" };
    const cfg = parseConfig(README_CONFIG);
    const main = resolveFor(cfg, { sessionKey: "agent:main:cli:1" }, env);
    assert.deepEqual([main.openclawAgent, main.apiKey, main.autoCapture], ["main", "amem_main", true]);
    const writer = resolveFor(cfg, { sessionKey: "agent:writer:telegram:9" }, env);
    assert.deepEqual([writer.openclawAgent, writer.apiKey], ["writer", "amem_writer"]);
    assert.equal(writer.keySource, "environment variable AMEM_WRITER_KEY");
    const family = resolveFor(cfg, { sessionKey: "agent:main:telegram:family" }, env);
    assert.deepEqual([family.apiKey, family.autoCapture, family.autoRecall], ["amem_main", false, true]);
    const byEnvName = parseConfig({ agents: { ops: { apiKeyEnv: "OTHER", topK: 9 } } });
    assert.deepEqual(
      [resolveFor(byEnvName, { agentId: "ops" }, env).apiKey, resolveFor(byEnvName, { agentId: "ops" }, env).topK],
      ["amem_other", 9],
    );
    assert.equal(resolveFor(parseConfig({}), {}, {}).apiKey, undefined);
  });
});

describe("hook self-check (seed B167)", () => {
  const entry = (hooks?: object) => ({ plugins: { entries: { amem: { enabled: true, ...(hooks ? { hooks } : {}) } } } });

  it("reports blocked only when this plugin's entry lacks allowConversationAccess: true", () => {
    assert.equal(conversationAccessBlocked(entry(), "amem"), true);
    assert.equal(conversationAccessBlocked(entry({ allowConversationAccess: false }), "amem"), true);
    assert.equal(conversationAccessBlocked(entry({ allowConversationAccess: true }), "amem"), false);
    assert.equal(conversationAccessBlocked(undefined, "amem"), false);
    assert.equal(conversationAccessBlocked({}, "amem"), false);
    assert.equal(conversationAccessBlocked({ plugins: { entries: { other: {} } } }, "amem"), false);
  });

  it("warns once at start when auto-capture is on and blocked, not when it is off", () => {
    const blocked = fakeApi({ pluginConfig: { apiKey: "amem_x" }, config: entry() });
    plugin.register(blocked.api);
    assert.equal(blocked.warnings().length, 1);
    assert.match(blocked.warnings()[0], /plugins\.entries\.amem\.hooks\.allowConversationAccess = true/);
    const off = fakeApi({ pluginConfig: { apiKey: "amem_x", autoCapture: false }, config: entry() });
    plugin.register(off.api);
    assert.deepEqual(off.warnings(), []);
  });
});

describe("toolCalls", () => {
  it("names a tool called through OpenClaw's Tool Search (tool_call) as the tool it ran", () => {
    const assistant = (...blocks: unknown[]) => ({ role: "assistant", content: blocks });
    assert.deepEqual(toolCalls([assistant({ type: "toolCall", name: "memory_add", arguments: {} })]), ["memory_add"]);
    assert.deepEqual(
      toolCalls([assistant({ type: "toolCall", name: "tool_call", arguments: { id: "memory_add", args: { text: "x" } } })]),
      ["tool_call", "memory_add"],
    );
    assert.deepEqual(
      toolCalls([assistant({ type: "tool_use", name: "tool_call", input: '{"id": "openclaw:amem:graph_add"}' })]),
      ["tool_call", "graph_add"],
    );
    assert.deepEqual(toolCalls([assistant({ type: "toolCall", name: "tool_call", arguments: "not json" })]), ["tool_call"]);
  });
});
