/**
 * A hand-made OpenClawPluginApi (typed by the SDK's own type) that records what the plugin registers,
 * so the tests can call the tools and hooks as the gateway would.
 */

import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import type { AnyAgentTool, OpenClawPluginApi } from "openclaw/plugin-sdk/plugin-entry";

import type { AgentEndHandler, BeforePromptBuildHandler, MemoryCapability, ToolFactory } from "../../src/sdk.js";

type CliRegistrar = Parameters<OpenClawPluginApi["registerCli"]>[0];

/** Enough of commander's Command to record a plugin's commands and run one. */
class FakeCommand {
  readonly children = new Map<string, FakeCommand>();
  run?: (...args: unknown[]) => void | Promise<void>;
  text = "";
  option(): FakeCommand {
    return this;
  }
  command(name: string): FakeCommand {
    const child = new FakeCommand();
    this.children.set(name.split(" ")[0], child);
    return child;
  }
  description(text: string): FakeCommand {
    this.text = text;
    return this;
  }
  action(fn: (...args: unknown[]) => void | Promise<void>): FakeCommand {
    this.run = fn;
    return this;
  }
}

export type Logged = { level: "debug" | "info" | "warn" | "error"; message: string };

export type Recorded = {
  api: OpenClawPluginApi;
  stateDir: string;
  logs: Logged[];
  warnings: () => string[];
  factories: { factory: ToolFactory; names?: string[] }[];
  hooks: { before_prompt_build?: BeforePromptBuildHandler; agent_end?: AgentEndHandler };
  hookOptions: Record<string, unknown>;
  services: { id: string; start: (ctx: never) => void | Promise<void> }[];
  capabilities: MemoryCapability[];
  startServices: () => Promise<void>;
  clis: { registrar: CliRegistrar; descriptors?: readonly { name: string; description: string }[] }[];
  /** Run a registered CLI command (e.g. ["amem", "status"]) as OpenClaw would; its stdout and exit code. */
  runCli: (path: string[], ...args: unknown[]) => Promise<{ out: string; code: number }>;
  tools: (ctx?: { agentId?: string; sessionKey?: string; sessionId?: string }) => Map<string, AnyAgentTool>;
};

/** The plugins part of openclaw.json as the README says to write it: nothing for the self-check to report. */
export const GOOD_CONFIG = {
  plugins: {
    slots: { memory: "amem" },
    entries: { amem: { hooks: { allowConversationAccess: true } }, "memory-core": { enabled: false } },
  },
};

export function fakeApi(options: {
  pluginConfig?: Record<string, unknown>;
  config?: OpenClawPluginApi["config"];
  registrationMode?: OpenClawPluginApi["registrationMode"];
  id?: string;
  /** OpenClaw's state dir (heartbeats, kept captures): a fresh one per plugin unless given. */
  stateDir?: string;
}): Recorded {
  const stateDir = options.stateDir ?? mkdtempSync(join(tmpdir(), "amem-openclaw-state-"));
  const logs: Logged[] = [];
  const factories: Recorded["factories"] = [];
  const hooks: Recorded["hooks"] = {};
  const hookOptions: Record<string, unknown> = {};
  const services: Recorded["services"] = [];
  const capabilities: MemoryCapability[] = [];
  const clis: Recorded["clis"] = [];
  const api: OpenClawPluginApi = {
    id: options.id ?? "amem",
    name: "Memory (amem)",
    source: "test",
    registrationMode: options.registrationMode ?? "full",
    config: options.config ?? GOOD_CONFIG,
    pluginConfig: options.pluginConfig,
    runtime: { state: { resolveStateDir: () => stateDir } },
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
    registerCli: (registrar, opts) => {
      clis.push({ registrar, descriptors: opts?.descriptors });
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
    stateDir,
    logs,
    warnings: () => logs.filter((l) => l.level === "warn").map((l) => l.message),
    factories,
    hooks,
    hookOptions,
    services,
    capabilities,
    clis,
    runCli: async (path, ...args) => {
      const program = new FakeCommand();
      for (const { registrar } of clis) {
        await registrar({ program, parentPath: [], config: api.config, logger: api.logger } as never);
      }
      let node: FakeCommand | undefined = program;
      for (const name of path) node = node?.children.get(name);
      if (!node?.run) throw new Error(`no command ${path.join(" ")}`);
      const write = process.stdout.write.bind(process.stdout);
      const before = process.exitCode;
      let out = "";
      process.exitCode = 0;
      process.stdout.write = ((chunk: string) => {
        out += chunk;
        return true;
      }) as typeof process.stdout.write;
      try {
        await node.run(...args);
      } finally {
        process.stdout.write = write;
      }
      const code = Number(process.exitCode ?? 0);
      process.exitCode = before ?? 0; // the command's exit code must not become the test run's
      return { out, code };
    },
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
