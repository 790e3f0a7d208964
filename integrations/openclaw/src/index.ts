/**
 * amem as OpenClaw's memory slot. `register` reads the config, runs the self-check (selfcheck.ts),
 * registers the tools (per calling agent, so each acts for its own amem agent), the two hooks, the
 * start-up check and the `openclaw amem status` command.
 *
 * The default export is the object `definePluginEntry` would build (id, name, description,
 * configSchema, register): OpenClaw's loader takes any module whose default export has `register`,
 * so the plugin needs nothing from the `openclaw` package at run time.
 */

import type { OpenClawPluginApi, OpenClawPluginConfigSchema } from "openclaw/plugin-sdk/plugin-entry";

import { configErrors, parseConfig } from "./config.js";
import { makeHooks } from "./hooks.js";
import { promptSection } from "./prompt.js";
import { registerStatusCli } from "./cli.js";
import { startupCheck } from "./startup.js";
import { CONFIG_JSON_SCHEMA } from "./schema.js";
import type { DefinedPluginEntry } from "./sdk.js";
import { PluginState } from "./state.js";
import { TOOL_NAMES, toolsFor } from "./tools.js";

export const PLUGIN_ID = "amem";

export const configSchema: OpenClawPluginConfigSchema = {
  validate(value: unknown) {
    const errors = configErrors(value);
    return errors.length ? { ok: false, errors } : { ok: true, value };
  },
  jsonSchema: CONFIG_JSON_SCHEMA as unknown as Record<string, unknown>,
};

/** OpenClaw's state dir (OPENCLAW_STATE_DIR or ~/.openclaw), as the gateway resolves it. */
export function stateDirOf(api: OpenClawPluginApi): string | undefined {
  try {
    return (api as { runtime?: { state?: { resolveStateDir?: () => string } } }).runtime?.state?.resolveStateDir?.();
  } catch {
    return undefined;
  }
}

export function register(api: OpenClawPluginApi): void {
  const pluginId = api.id || PLUGIN_ID;
  if (typeof api.registerCli === "function") registerStatusCli(api, pluginId, () => stateDirOf(api));
  if (api.registrationMode === "cli-metadata") return; // only CLI commands are wanted
  const cfg = parseConfig(api.pluginConfig);
  const state = new PluginState(cfg, api.logger, pluginId, api.config, process.env, undefined, stateDirOf(api));
  api.registerTool((ctx) => toolsFor(state, ctx), { names: [...TOOL_NAMES] });
  const hooks = makeHooks(state);
  // Once per gateway: the self-check's lines, and whether amem answers each agent's key.
  api.registerService({
    id: "amem-startup-check",
    start: async () => {
      await startupCheck(state);
      await hooks.drainPending(); // turns kept while amem was down, in the order they were said
    },
  });
  // The memory slot's section of the system prompt: how to use these tools (cacheable, no per-turn cost).
  if (typeof api.registerMemoryCapability === "function") {
    api.registerMemoryCapability({ promptBuilder: (params) => promptSection(state, params) });
  }
  // Each hook bounds its own wait (recallTimeoutMs / captureTimeoutMs); the host's timeout is a backstop.
  api.on("before_prompt_build", hooks.beforePromptBuild, { timeoutMs: cfg.recallTimeoutMs + 1000 });
  api.on("agent_end", hooks.agentEnd, { timeoutMs: cfg.captureTimeoutMs + 1000 });
  // Not a conversation hook, so never blocked: the witness that a turn ran (watch.ts).
  api.on("model_call_started", hooks.modelCallStarted);
  // The truth, not the wish: a hook OpenClaw drops is "BLOCKED" here, and the start-up check says why.
  const recall = !cfg.autoRecall ? "off" : state.recallBlocked ? "BLOCKED by OpenClaw" : "on";
  const capture = !cfg.autoCapture ? "off" : state.captureBlocked ? "BLOCKED by OpenClaw" : `on → /${cfg.captureTarget}`;
  api.logger.info(`amem: memory at ${cfg.serverUrl} (auto-recall ${recall}, auto-capture ${capture})`);
}

const plugin: DefinedPluginEntry = {
  id: PLUGIN_ID,
  name: "Memory (amem)",
  description: "amem agentic long-term memory: recall before each prompt, capture after each turn, memory tools",
  kind: "memory",
  configSchema,
  register,
};

export default plugin;
