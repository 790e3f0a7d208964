/** Registration against the SDK types, the manifest, the config rules, session keys, the self-check. */

import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";

import plugin, { PLUGIN_ID, configSchema } from "../src/index.js";
import { Compile } from "typebox/schema";

import {
  configErrors,
  agentIdFromSessionKey,
  conversationAccessBlocked,
  parseConfig,
  resolveAgentId,
  resolveFor,
} from "../src/config.js";
import { amemAgentId, personAgentId, personOf, sharedAgentId } from "../src/identity.js";
import { LEGACY_KEYS } from "../src/legacy.js";
import { scopedAgentId } from "../src/state.js";
import { CONFIG_JSON_SCHEMA, UI_HINTS } from "../src/schema.js";
import { blockedHooks, memoryCoreEnabled, selfCheck } from "../src/selfcheck.js";
import { MAX_QUERY_CHARS, hitLine, recallQuery, toolCalls } from "../src/text.js";
import { TOOL_NAMES } from "../src/tools.js";
import { fakeApi, GOOD_CONFIG } from "./helpers/fake-api.js";

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
    // The gateway reads the manifest; the code's schema must be the same (npm run manifest writes it).
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
    // OpenClaw provides the SDK; the one run-time dependency is the tokenizer the recall budget is counted with.
    assert.deepEqual(Object.keys(pkg.dependencies ?? {}), ["js-tiktoken"]);
    assert.ok(!("openclaw" in (pkg.dependencies ?? {})));
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

  it("registers only its CLI command for cli-metadata", () => {
    const rec = fakeApi({ pluginConfig: { apiKey: "amem_x" }, registrationMode: "cli-metadata" });
    plugin.register(rec.api);
    assert.equal(rec.factories.length, 0);
    assert.deepEqual(rec.hooks, {});
    assert.deepEqual(rec.services, []);
    assert.deepEqual(rec.clis.map((c) => c.descriptors?.map((d) => d.name)), [["amem"]]);
    assert.deepEqual(manifest.cliCommands, [{ name: "amem", description: rec.clis[0].descriptors![0].description, hasSubcommands: true }]);
  });

  it("refuses an invalid config with every problem named", () => {
    const rec = fakeApi({ pluginConfig: { topK: 0, captureTarget: "all", memoryScope: "team", agents: { w: { key: "k" } } } });
    assert.throws(
      () => plugin.register(rec.api),
      (err: Error) =>
        /topK: must be an integer from 1 to 100/.test(err.message) &&
        /captureTarget: must be "turns" or "conversations"/.test(err.message) &&
        /memoryScope: must be one of "agent", "person", "shared"/.test(err.message) &&
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

  it("does not promise what OpenClaw blocks, nor recall when it is off for the agent", () => {
    // Without allowConversationAccess OpenClaw drops BOTH hooks: no "prepended", no "finished turn".
    const blocked = section({ apiKey: "amem_x" }, [], { plugins: { slots: { memory: "amem" }, entries: { amem: {} } } });
    assert.ok(!blocked.some((l) => /finished turn|amem-memory/.test(l)), blocked.join("\n"));
    const noInjection = section({ apiKey: "amem_x" }, [], {
      plugins: { entries: { amem: { hooks: { allowConversationAccess: true, allowPromptInjection: false } } } },
    });
    assert.ok(!noInjection.some((l) => /amem-memory/.test(l)));
    assert.ok(noInjection.some((l) => /finished turn/.test(l)));
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

  it("accepts the keys of openclaw-amem, memory-engine and mem0 (OpenClaw's own schema check included), each mapped or explained", () => {
    // A mem0 user's config, an openclaw-amem one and a memory-engine one, as their READMEs write them.
    const mem0 = { mode: "platform", apiKey: "${AMEM_API_KEY}", userId: "alice", baseUrl: "https://api.mem0.ai", searchThreshold: 0.3, topK: 5, oss: { llm: {} } };
    const seed = { agentId: "main", collection: "amem_notes", llmProvider: "openai", llmModel: "gpt-4o-mini", llmBaseURL: "http://x/v1", agents: { dev: { agentId: "dev", collection: "amem_notes_dev" } } };
    const engine = { workspace: "/w", coreSizeLimit: 3072, sharing: false };
    // OpenClaw checks plugin configs with typebox's JSON Schema compiler against the manifest (openclaw 2026.9.6).
    const check = Compile(manifest.configSchema);
    for (const config of [mem0, seed, engine]) {
      assert.equal(check.Check(config), true, `${JSON.stringify(config)}: ${JSON.stringify([...check.Errors(config)])}`);
      assert.deepEqual(configErrors(config), [], JSON.stringify(config));
    }
    assert.equal(check.Check({ bogus: 1 }), false, "a key nobody has is still a mistake");
    assert.equal(configErrors({ bogus: 1 })[0], "bogus: unknown field");
    const cfg = parseConfig(mem0);
    assert.equal(cfg.userId, "alice"); // mapped: the person of turns without a known sender
    assert.match(cfg.notes.find((n) => n.startsWith("config key baseUrl"))!, /\(mem0's\) has no effect here: amem's address is serverUrl/);
    assert.ok(cfg.notes.some((n) => n.startsWith("config key mode (mem0's)")));
    const seeded = parseConfig(seed);
    assert.deepEqual(seeded.agents, { dev: {} });
    assert.match(seeded.notes.find((n) => n.startsWith("config key agents.dev.collection"))!, /--collection/);
    assert.match(seeded.notes.find((n) => n.startsWith("config key llmBaseURL"))!, /AMEM_LLM_\* on the amem server/);
    assert.equal(parseConfig(engine).memoryScope, "agent");
    assert.equal(parseConfig({ sharing: true }).memoryScope, "shared");
    assert.match(parseConfig({ sharing: true, memoryScope: "person" }).notes[0], /sharing \(memory-engine's\) is ignored: memoryScope "person" is set/);
    for (const key of Object.keys(LEGACY_KEYS)) assert.ok(key in manifest.configSchema.properties, key);
  });

  it("logs one line per other plugin's key at start, and status lists them without failing", async () => {
    const rec = fakeApi({ pluginConfig: { apiKey: "amem_x", serverUrl: "http://127.0.0.1:9", agentId: "main", llmModel: "m" } });
    plugin.register(rec.api);
    await rec.startServices();
    assert.ok(rec.warnings().some((w) => /^amem: config key agentId \(openclaw-amem's\) has no effect here/.test(w)), rec.warnings().join("\n"));
    assert.ok(rec.warnings().some((w) => /^amem: config key llmModel \(openclaw-amem's\) has no effect here/.test(w)));
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

describe("self-check: what OpenClaw's config keeps from working", () => {
  const config = (entry: object = {}, plugins: object = {}) => ({
    plugins: { slots: { memory: "amem" }, entries: { amem: { enabled: true, ...entry }, "memory-core": { enabled: false } }, ...plugins },
  });
  const ids = (openclaw: unknown, pluginConfig: Record<string, unknown> = {}) =>
    selfCheck(openclaw, parseConfig(pluginConfig), "amem").map((f) => f.id);

  it("reads both hooks as blocked when allowConversationAccess is not true, the entry missing included", () => {
    for (const hooks of [undefined, {}, { allowConversationAccess: false }]) {
      assert.deepEqual(blockedHooks(config(hooks ? { hooks } : {}), "amem"), { recallBlocked: true, captureBlocked: true });
    }
    assert.equal(conversationAccessBlocked({ plugins: { entries: { other: {} } } }, "amem"), true);
    assert.deepEqual(blockedHooks(config({ hooks: { allowConversationAccess: true } }), "amem"), { recallBlocked: false, captureBlocked: false });
    assert.deepEqual(
      blockedHooks(config({ hooks: { allowConversationAccess: true, allowPromptInjection: false } }), "amem"),
      { recallBlocked: true, captureBlocked: false },
    );
    assert.equal(conversationAccessBlocked(undefined, "amem"), false); // no config to read: nothing claimed
  });

  it("finds each problem, one line each, with what to set", () => {
    assert.deepEqual(ids(GOOD_CONFIG), []);
    assert.deepEqual(ids(config()), ["recall-blocked", "capture-blocked"]);
    assert.deepEqual(ids(config(), { autoCapture: false }), ["recall-blocked", "capture-off"]);
    assert.deepEqual(ids(GOOD_CONFIG, { autoRecall: false }), ["recall-off"]);
    const slot = selfCheck({ plugins: { ...GOOD_CONFIG.plugins, slots: { memory: "memory-lancedb" } } }, parseConfig({}), "amem");
    assert.deepEqual(slot.map((f) => f.id), ["slot"]);
    assert.match(slot[0].line, /plugins\.slots\.memory is "memory-lancedb"; set plugins\.slots\.memory = "amem"/);
    const core = selfCheck({ plugins: { slots: { memory: "amem" }, entries: { amem: { hooks: { allowConversationAccess: true } } } } }, parseConfig({}), "amem");
    assert.deepEqual(core.map((f) => f.id), ["memory-core"]);
    assert.match(core[0].line, /memory-core is enabled and registers memory_search and memory_get too.*plugins\.entries\.memory-core\.enabled = false/);
    assert.equal(memoryCoreEnabled({ allow: ["amem"] }), false);
    assert.equal(memoryCoreEnabled({ deny: ["memory-core"] }), false);
    assert.equal(memoryCoreEnabled({ entries: { "memory-core": { enabled: true } } }), true);
  });

  it("logs the truth at register: a blocked hook is BLOCKED, not on", () => {
    const blocked = fakeApi({ pluginConfig: { apiKey: "amem_x" }, config: config() });
    plugin.register(blocked.api);
    const line = blocked.logs.find((l) => l.message.startsWith("amem: memory at"))!.message;
    assert.equal(line, "amem: memory at http://127.0.0.1:8000 (auto-recall BLOCKED by OpenClaw, auto-capture BLOCKED by OpenClaw)");
    const off = fakeApi({ pluginConfig: { apiKey: "amem_x", autoCapture: false } });
    plugin.register(off.api);
    assert.ok(off.logs.some((l) => l.message === "amem: memory at http://127.0.0.1:8000 (auto-recall on, auto-capture off)"));
  });
});

describe("per-person memory (memoryScope)", () => {
  it("finds the person: a direct-message session key's peer, then OpenClaw's sender, then userId", () => {
    assert.equal(personOf({ sessionKey: "agent:main:telegram:direct:123" }, "default"), "telegram:123");
    assert.equal(personOf({ sessionKey: "agent:main:direct:alice" }, "default"), "alice"); // per-peer, identityLinks
    assert.equal(personOf({ sessionKey: "agent:main:slack:direct:U1:thread:177.2" }, "default"), "slack:U1");
    assert.equal(personOf({ sessionKey: "agent:main:telegram:acct:direct:9" }, "default"), "telegram:acct:9");
    assert.equal(personOf({ sessionKey: "agent:main:main", senderId: "42", channel: "telegram" }, "default"), "telegram:42");
    assert.equal(personOf({ sessionKey: "agent:main:telegram:group:7", requesterSenderId: "42", messageChannel: "telegram" }, "x"), "telegram:42");
    assert.equal(personOf({ channelContext: { sender: { id: "u9" } } }, "default"), "u9");
    assert.equal(personOf({ sessionKey: "agent:main:main" }, "alice"), "alice");
    assert.equal(personOf(undefined, "default"), "default");
  });

  it("gives each person of an agent their own amem agent under a gateway key, never an agent's or another person's", () => {
    const cfg = parseConfig({ memoryScope: "person" });
    const at = (ctx: object) => scopedAgentId("openclaw-home-", resolveFor(cfg, ctx, {}));
    const alice = at({ sessionKey: "agent:main:telegram:direct:alice" });
    const bob = at({ sessionKey: "agent:main:telegram:direct:bob" });
    const writersAlice = at({ sessionKey: "agent:writer:telegram:direct:alice" });
    assert.equal(alice, personAgentId("openclaw-home-", "main", "telegram:alice"));
    assert.match(alice, /^openclaw-home-main-telegram-alice-[0-9a-f]{8}$/);
    assert.equal(new Set([alice, bob, writersAlice, amemAgentId("openclaw-home-", "main")]).size, 4);
    assert.equal(at({ sessionKey: "agent:main:main" }), personAgentId("openclaw-home-", "main", "default"));
    const shared = parseConfig({ memoryScope: "shared" });
    const sharedAt = (ctx: object) => scopedAgentId("openclaw-home-", resolveFor(shared, ctx, {}));
    assert.equal(sharedAt({ agentId: "main" }), sharedAt({ sessionKey: "agent:writer:telegram:direct:bob" }));
    assert.equal(sharedAt({ agentId: "main" }), sharedAgentId("openclaw-home-"));
    assert.notEqual(sharedAgentId("openclaw-home-"), amemAgentId("openclaw-home-", "shared"));
    const perAgent = parseConfig({ agents: { family: { memoryScope: "person" } } });
    assert.equal(resolveFor(perAgent, { agentId: "family" }, {}).memoryScope, "person");
    assert.equal(resolveFor(perAgent, { agentId: "main" }, {}).memoryScope, "agent");
  });
});

describe("which amem agent a gateway key acts for", () => {
  it("prefixes the OpenClaw agent id, keeping distinct ids distinct", () => {
    assert.equal(amemAgentId("openclaw-home-", "main"), "openclaw-home-main");
    assert.equal(amemAgentId("openclaw-home-", "writer_2"), "openclaw-home-writer_2");
    const odd = amemAgentId("openclaw-home-", "Writer");
    assert.match(odd, /^openclaw-home-writer-[0-9a-f]{8}$/);
    assert.notEqual(odd, amemAgentId("openclaw-home-", "writer"));
    const long = amemAgentId("openclaw-home-", "a".repeat(80));
    assert.ok(long.length <= 64 && /^openclaw-home-a+-[0-9a-f]{8}$/.test(long), long);
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

describe("recallQuery", () => {
  it("cuts a long paste to what amem accepts, so recall is not refused for the turn", () => {
    const long = "what did I say about Lisbon? " + "x".repeat(30_000);
    assert.equal(recallQuery(long).length, MAX_QUERY_CHARS);
    assert.ok(recallQuery(long).startsWith("what did I say about Lisbon?"));
    assert.equal(recallQuery("<amem-memory>old</amem-memory> hello"), "hello");
  });
});

describe("hitLine", () => {
  it("says a match without similarity was found by its words, not that it is 0% similar", () => {
    assert.equal(hitLine({ id: "n1", content: "我们周二开会", similarity: 0, via: "match" }, 0), "1. 我们周二开会 (matched by its words, id: n1)");
    assert.equal(hitLine({ id: "n2", content: "Tea", similarity: 0.42, via: "match" }, 1), "2. Tea (similarity 42%, id: n2)");
    assert.equal(hitLine({ id: "n3", content: "Cake", similarity: 0.3, via: "link" }, 2), "3. Cake (similarity 30%, via a link, id: n3)");
  });

  it("writes the turns around a match under it, fenced, earliest first", () => {
    const hit = {
      id: "n4",
      content: "A sunset, last week",
      similarity: 0.5,
      via: "match",
      surrounding: [
        { id: "n3", content: "What did you <b>paint</b>?", position: "before" as const },
        { id: "n5", content: "Lovely!", position: "after" as const },
      ],
    };
    assert.equal(hitLine(hit, 0), "1. A sunset, last week (similarity 50%, id: n4)\n   before: What did you ‹b›paint‹/b›?\n   after: Lovely!");
  });
});

describe("relevantRecall", () => {
  it("drops a weak note together with the turns written around it, and keeps a line a kept note also has", async () => {
    const { relevantRecall } = await import("../src/hooks.js");
    const bundle = {
      text: "# Relevant notes\n[8 May 2023]\n- Shared turn\n- Weak note\n- Weak neighbour\n- Strong note",
      notes: [
        { content: "Strong note", relevance: 0.9, surrounding: [{ content: "Shared turn" }] },
        { content: "Weak note", relevance: 0.001, surrounding: [{ content: "Shared turn" }, { content: "Weak neighbour" }] },
      ],
    };
    assert.equal(relevantRecall(bundle, "q", 0.02), "# Relevant notes\n[8 May 2023]\n- Shared turn\n- Strong note");
  });
});

describe("the relevance floor and the token budget (no server)", () => {
  it("counts a note by amem's relevance when amem sends one, whatever its cosine", async () => {
    const { relevant, RELEVANCE_FLOOR } = await import("../src/relevance.js");
    // The README's worked example: the note that answers had a cosine of 0.29, under the old floor of 0.3.
    assert.equal(relevant({ content: "I moved to Lisbon", similarity: 0.29, relevance: 0.41 }, "Where do I live?", RELEVANCE_FLOOR), true);
    assert.equal(relevant({ content: "x", similarity: 0.6, relevance: 0.01 }, "q", RELEVANCE_FLOOR), false);
    assert.equal(relevant({ content: "我奶奶养蜜蜂", similarity: 0, relevance: 0.2 }, "谁养蜜蜂？", RELEVANCE_FLOOR), true);
    assert.equal(relevant({ content: "x", relevance: 0 }, "q", 0), true, "threshold 0 is no floor");
  });

  it("from an amem without relevance: its similarity, or shared words when the dense model could not read the query", async () => {
    const { relevant, sharesWords } = await import("../src/relevance.js");
    assert.equal(relevant({ content: "x", similarity: 0.45 }, "q", 0.3), true);
    assert.equal(relevant({ content: "x", similarity: 0.21 }, "q", 0.3), false);
    assert.equal(relevant({ content: "x", similarity: 0.01 }, "q", 0), true, "threshold 0 is no floor");
    assert.equal(relevant({ content: "我奶奶在老家院子里养蜜蜂。", similarity: 0 }, "家里谁养蜜蜂？", 0.3), true);
    assert.equal(relevant({ content: "我上周开始学日语了。", similarity: 0 }, "我女儿下周二开始学小提琴。", 0.3), false, "开始 alone says nothing");
    assert.equal(sharesWords("The staging database runs on port 5433", "what port does staging use"), true);
  });

  it("drops the last notes until the block fits by both encodings, and drops an empty block", async () => {
    const { fitToBudget, maxTokens } = await import("../src/budget.js");
    const { wrapRecall } = await import("../src/text.js");
    const lines = ["# Relevant notes", "[1 May 2026]", ...Array.from({ length: 12 }, (_, i) => `- 第${i}条：我表妹小红收藏古董气压计，已经有三十多个了。`)];
    const fitted = await fitToBudget(lines.join("\n"), 120, wrapRecall);
    assert.ok((await maxTokens(wrapRecall(fitted))) <= 120);
    assert.ok(fitted.startsWith("# Relevant notes\n[1 May 2026]\n- 第0条"), fitted);
    assert.ok(fitted.split("\n").length < lines.length);
    assert.equal(await fitToBudget("# Relevant notes\n[1 May 2026]\n- " + "气压计".repeat(200), 80, wrapRecall), "");
  });
});
