/**
 * A hand-made OpenClawPluginApi (typed by the SDK's own type) that records what the plugin registers,
 * so the tests can call the tools and hooks as the gateway would.
 */

import type { AnyAgentTool, OpenClawPluginApi } from "openclaw/plugin-sdk/plugin-entry";

import type { AgentEndHandler, BeforePromptBuildHandler, MemoryCapability, ToolFactory } from "../../src/sdk.js";

export type Logged = { level: "debug" | "info" | "warn" | "error"; message: string };

export type Recorded = {
  api: OpenClawPluginApi;
  logs: Logged[];
  warnings: () => string[];
  factories: { factory: ToolFactory; names?: string[] }[];
  hooks: { before_prompt_build?: BeforePromptBuildHandler; agent_end?: AgentEndHandler };
  hookOptions: Record<string, unknown>;
  services: { id: string; start: (ctx: never) => void | Promise<void> }[];
  capabilities: MemoryCapability[];
  startServices: () => Promise<void>;
  tools: (ctx?: { agentId?: string; sessionKey?: string; sessionId?: string }) => Map<string, AnyAgentTool>;
};

export function fakeApi(options: {
  pluginConfig?: Record<string, unknown>;
  config?: OpenClawPluginApi["config"];
  registrationMode?: OpenClawPluginApi["registrationMode"];
  id?: string;
}): Recorded {
  const logs: Logged[] = [];
  const factories: Recorded["factories"] = [];
  const hooks: Recorded["hooks"] = {};
  const hookOptions: Record<string, unknown> = {};
  const services: Recorded["services"] = [];
  const capabilities: MemoryCapability[] = [];
  const api: OpenClawPluginApi = {
    id: options.id ?? "amem",
    name: "Memory (amem)",
    source: "test",
    registrationMode: options.registrationMode ?? "full",
    config: options.config ?? {
      plugins: { slots: { memory: "amem" }, entries: { amem: { hooks: { allowConversationAccess: true } } } },
    },
    pluginConfig: options.pluginConfig,
    logger: {
      debug: (message) => logs.push({ level: "debug", message }),
      info: (message) => logs.push({ level: "info", message }),
      warn: (message) => logs.push({ level: "warn", message }),
      error: (message) => logs.push({ level: "error", message }),
    },
    registerTool: (tool, opts) => {
      if (typeof tool !== "function") throw new Error("the amem plugin registers tool factories only");
      factories.push({ factory: tool as ToolFactory, names: opts?.names });
    },
    registerMemoryCapability: (capability) => {
      capabilities.push(capability);
    },
    registerService: (service) => {
      services.push(service as Recorded["services"][number]);
    },
    on: (hookName, handler, opts) => {
      (hooks as Record<string, unknown>)[hookName] = handler;
      hookOptions[hookName] = opts;
    },
  } as OpenClawPluginApi;
  const tools = (ctx = {}) => {
    const map = new Map<string, AnyAgentTool>();
    for (const { factory } of factories) {
      const made = factory(ctx);
      for (const tool of Array.isArray(made) ? made : made ? [made] : []) map.set(tool.name, tool);
    }
    return map;
  };
  return {
    api,
    logs,
    warnings: () => logs.filter((l) => l.level === "warn").map((l) => l.message),
    factories,
    hooks,
    hookOptions,
    services,
    capabilities,
    startServices: async () => {
      for (const service of services) {
        await service.start({ config: options.config ?? {}, stateDir: "/tmp", logger: api.logger } as never);
      }
    },
    tools,
  };
}

/** The text a tool returned. */
export function textOf(result: { content: { type: string; text?: string }[] }): string {
  return result.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");
}
