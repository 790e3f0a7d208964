/**
 * `openclaw amem status`: the self-check and a live check of every configured OpenClaw agent, for
 * a person at a terminal (the gateway log has the same lines at start). Exit code 1 when anything
 * is wrong, so a script can tell. `openclaw amem search <query> [--agent id]`: what that agent's
 * memory_search would answer.
 */

import { readFileSync } from "node:fs";

import type { OpenClawPluginApi } from "openclaw/plugin-sdk/plugin-entry";

import { configErrors, entryOf, parseConfig } from "./config.js";
import { openclawAgents, status } from "./startup.js";
import { PluginState } from "./state.js";
import { toolsFor } from "./tools.js";
import { configPath, forgetMemory, getMemory, init, listMemories, memoryHistory, memoryStats } from "./cli-memories.js";

export const CLI_DESCRIPTOR = {
  name: "amem",
  description: "amem memory plugin: init, status, search, list, get, forget, history, stats",
  hasSubcommands: true,
};

export function registerStatusCli(api: OpenClawPluginApi, pluginId: string, stateDir: () => string | undefined = () => undefined): void {
  api.registerCli(
    ({ program, config, logger }) => {
      const root = program.command("amem").description(CLI_DESCRIPTOR.description);
      const say = (line: string) => process.stdout.write(`${line}\n`);
      const stateOf = (cfgFile = config) => {
        const raw = entryOf(cfgFile, pluginId)?.config ?? api.pluginConfig;
        return new PluginState(parseConfig(raw), logger, pluginId, cfgFile, process.env, undefined, stateDir());
      };
      /** Run one agent's command; an amem error is one line and exit 1. */
      const forAgent = (run: (state: PluginState, agent: string) => Promise<void>) => async (...args: unknown[]) => {
        const options = (args.find((a) => a && typeof a === "object" && "agent" in (a as object)) ?? {}) as { agent?: string };
        const agent = options.agent || "main";
        try {
          await run(stateOf(), agent);
        } catch (err) {
          say(`amem: ${err instanceof Error ? err.message : String(err)}`);
          process.exitCode = 1;
        }
      };
      const clientOf = (state: PluginState, agent: string) => state.clientFor({ agentId: agent }).client;
      root
        .command("init")
        .description("point OpenClaw at amem: find or ask the URL and key, write the plugin config, put the memory slot on amem, disable memory-core, then run status")
        .option("--url <url>", "amem's URL (default: the first that answers of $AMEM_SERVER_URL, http://127.0.0.1:8000)")
        .option("--key <key>", "an amem key (default: ${AMEM_API_KEY} from the environment)")
        .option("--keep-memory-core", "leave OpenClaw's memory-core enabled (its memory_search may win the name)")
        .option("--yes", "ask nothing")
        .action(async (options: { url?: string; key?: string; keepMemoryCore?: boolean; yes?: boolean }) => {
          const file = configPath(process.env, stateDir());
          try {
            await init(pluginId, file, process.env, options ?? {}, (l) => say(`amem: ${l}`));
          } catch (err) {
            say(`amem: init: ${err instanceof Error ? err.message : String(err)}`);
            process.exitCode = 1;
            return;
          }
          const written = JSON.parse(readFileSync(file, "utf8"));
          await printStatus(stateOf(written), openclawAgents(written));
          say("amem: start (or restart) the gateway to load it: openclaw gateway run (foreground) or openclaw gateway restart (service)");
        });
      root
        .command("list")
        .description("list an agent's own memories, newest first")
        .option("--agent <id>", "the OpenClaw agent (default: main)")
        .action(forAgent(async (state, agent) => listMemories(clientOf(state, agent), say, 20)));
      root
        .command("get <id>")
        .description("show one memory")
        .option("--agent <id>", "the OpenClaw agent (default: main)")
        .action((id: string, ...rest: unknown[]) => forAgent((state, agent) => getMemory(clientOf(state, agent), id, say))(...rest));
      root
        .command("forget <id>")
        .description("erase a memory for good (purge: its text, history text and index entry go); --retire only retires it")
        .option("--agent <id>", "the OpenClaw agent (default: main)")
        .option("--retire", "retire instead of erasing (undoable)")
        .action((id: string, ...rest: unknown[]) => {
          const retire = !!(rest.find((a) => a && typeof a === "object" && "retire" in (a as object)) as { retire?: boolean } | undefined)?.retire;
          return forAgent((state, agent) => forgetMemory(clientOf(state, agent), id, say, retire))(...rest);
        });
      root
        .command("history <id>")
        .description("a memory's changes, oldest first")
        .option("--agent <id>", "the OpenClaw agent (default: main)")
        .action((id: string, ...rest: unknown[]) => forAgent((state, agent) => memoryHistory(clientOf(state, agent), id, say))(...rest));
      root
        .command("stats")
        .description("how many memories an agent has, and how many turns are kept for capture")
        .option("--agent <id>", "the OpenClaw agent (default: main)")
        .action(forAgent((state, agent) => memoryStats(state, clientOf(state, agent), agent, say)));
      async function printStatus(state: PluginState, agents: string[]): Promise<void> {
        const lines = await status(state, agents);
        const mark = { warn: "⚠ ", note: "ℹ ", info: "✓ " };
        for (const line of lines) say(`${mark[line.level]}${line.text}`);
        if (lines.every((l) => l.level !== "warn")) say("amem: all good");
        else process.exitCode = 1;
      }
      root
        .command("status")
        .description("say what keeps amem from working (blocked hooks, memory slot, memory-core, keys, reachability, what ran)")
        .action(async () => {
          const raw = entryOf(config, pluginId)?.config ?? api.pluginConfig;
          const errors = configErrors(raw);
          if (errors.length) {
            for (const e of errors) process.stdout.write(`amem: config: ${e}\n`);
            process.exitCode = 1;
            return;
          }
          const state = new PluginState(parseConfig(raw), logger, pluginId, config, process.env, undefined, stateDir());
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
          const state = new PluginState(parseConfig(raw), logger, pluginId, config, process.env, undefined, stateDir());
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
