/**
 * `openclaw amem status`: the self-check and a live check of every configured OpenClaw agent, for
 * a person at a terminal (the gateway log has the same lines at start). Exit code 1 when anything
 * is wrong, so a script can tell. `openclaw amem search <query> [--agent id]`: what that agent's
 * memory_search would answer.
 */

import type { OpenClawPluginApi } from "openclaw/plugin-sdk/plugin-entry";

import { configErrors, entryOf, parseConfig } from "./config.js";
import { openclawAgents, status } from "./startup.js";
import { PluginState } from "./state.js";
import { toolsFor } from "./tools.js";

export const CLI_DESCRIPTOR = {
  name: "amem",
  description: "amem memory plugin: status (self-check and a live check of each agent), search",
  hasSubcommands: true,
};

export function registerStatusCli(api: OpenClawPluginApi, pluginId: string): void {
  api.registerCli(
    ({ program, config, logger }) => {
      const root = program.command("amem").description(CLI_DESCRIPTOR.description);
      root
        .command("status")
        .description("say what keeps amem from working (blocked hooks, memory slot, memory-core, keys, reachability)")
        .action(async () => {
          const raw = entryOf(config, pluginId)?.config ?? api.pluginConfig;
          const errors = configErrors(raw);
          if (errors.length) {
            for (const e of errors) process.stdout.write(`amem: config: ${e}\n`);
            process.exitCode = 1;
            return;
          }
          const state = new PluginState(parseConfig(raw), logger, pluginId, config);
          const lines = await status(state, openclawAgents(config));
          const mark = { warn: "⚠ ", note: "ℹ ", info: "✓ " };
          for (const line of lines) process.stdout.write(`${mark[line.level]}${line.text}\n`);
          if (lines.every((l) => l.level !== "warn")) process.stdout.write("amem: all good\n");
          else process.exitCode = 1;
        });
      root
        .command("search <query>")
        .description("search an OpenClaw agent's amem memories, as its memory_search tool would")
        .option("--agent <id>", "the OpenClaw agent (default: main)")
        .action(async (query: string, options: { agent?: string }) => {
          const raw = entryOf(config, pluginId)?.config ?? api.pluginConfig;
          const state = new PluginState(parseConfig(raw), logger, pluginId, config);
          const tool = toolsFor(state, { agentId: options?.agent || "main" }).find((t) => t.name === "memory_search")!;
          try {
            const out = await tool.execute("cli", { query });
            process.stdout.write(`${out.content.map((c) => ("text" in c ? c.text : "")).join("\n")}\n`);
          } catch (err) {
            process.stdout.write(`amem: ${err instanceof Error ? err.message : String(err)}\n`);
            process.exitCode = 1;
          }
        });
    },
    { descriptors: [CLI_DESCRIPTOR] },
  );
}
