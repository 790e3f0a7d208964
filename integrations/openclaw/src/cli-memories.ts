/**
 * `openclaw amem init | list | get | forget | history | stats` (mem0's plugin has the same set):
 * `init` sets OpenClaw up for amem; the others read or change one OpenClaw agent's memories as
 * its tools would, through the same key and amem agent.
 */

import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline/promises";

import type { AmemClient } from "./client.js";
import { MEMORY_CORE } from "./selfcheck.js";
import type { PluginState } from "./state.js";
import { fence } from "./text.js";

type Out = (line: string) => void;
type Note = { id: string; content: string; created_at?: string; scope?: string; subjects?: string[] };

const TIMEOUT = { timeoutMs: 30_000 };

export async function listMemories(client: AmemClient, out: Out, limit = 20, offset = 0): Promise<void> {
  const page = await client.request<{ results: Note[]; total: number }>("GET", "/memories", undefined, { ...TIMEOUT, query: { limit, offset } });
  out(`${page.total} memories${page.total > page.results.length ? ` (showing ${offset + 1}–${offset + page.results.length})` : ""}`);
  for (const n of page.results) out(`${n.id}  ${(n.created_at ?? "").slice(0, 10)}  ${fence(n.content)}`);
}

export async function getMemory(client: AmemClient, id: string, out: Out): Promise<void> {
  const n = await client.request<Note & { links?: string[] }>("GET", `/memories/${encodeURIComponent(id)}`, undefined, TIMEOUT);
  out(fence(n.content));
  out(`id ${n.id}, ${n.scope ?? "private"}, created ${n.created_at ?? "?"}${n.subjects?.length ? `, about ${n.subjects.join(", ")}` : ""}`);
  if (n.links?.length) out(`links: ${n.links.join(", ")}`);
}

/** Erase for good (`DELETE ?purge=true`): a person asking to be forgotten means the text goes. */
export async function forgetMemory(client: AmemClient, id: string, out: Out, retireOnly = false): Promise<void> {
  const done = await client.request<{ id: string; erased?: boolean }>(
    "DELETE",
    `/memories/${encodeURIComponent(id)}${retireOnly ? "" : "?purge=true"}`,
    undefined,
    TIMEOUT,
  );
  out(done.erased ? `erased ${done.id} (its text, history text and index entry are gone)` : `retired ${done.id} (undo in amem's review app)`);
}

export async function memoryHistory(client: AmemClient, id: string, out: Out): Promise<void> {
  const h = await client.request<{ events: { action: string; actor: string; at: string; before?: string | null; after?: string | null }[] }>(
    "GET",
    `/memories/${encodeURIComponent(id)}/history`,
    undefined,
    TIMEOUT,
  );
  for (const e of h.events) {
    const change = e.before && e.after && e.before !== e.after ? `: "${fence(e.before)}" → "${fence(e.after)}"` : e.after ? `: "${fence(e.after)}"` : "";
    out(`${e.at.slice(0, 19)}  ${e.action} by ${e.actor}${change}`);
  }
}

export async function memoryStats(state: PluginState, client: AmemClient, agent: string, out: Out): Promise<void> {
  const { count } = await client.request<{ count: number }>("GET", "/memories/count", undefined, TIMEOUT);
  const own = await client.request<{ total: number }>("GET", "/memories", undefined, { ...TIMEOUT, query: { limit: 1 } });
  out(`agent "${agent}": ${count} memories visible (${own.total} its own, the rest shared with it)`);
  out(`kept for capture while amem was down: ${state.outbox.size}`);
}

/** Where OpenClaw keeps its config: OPENCLAW_CONFIG_PATH, else <state dir>/openclaw.json. */
export function configPath(env: NodeJS.ProcessEnv, stateDir?: string): string {
  return env.OPENCLAW_CONFIG_PATH ?? join(stateDir ?? env.OPENCLAW_STATE_DIR ?? join(homedir(), ".openclaw"), "openclaw.json");
}

export type InitOptions = { url?: string; key?: string; keepMemoryCore?: boolean; yes?: boolean };

async function answers(url: string): Promise<boolean> {
  try {
    return (await fetch(`${url.replace(/\/+$/, "")}/healthz`, { signal: AbortSignal.timeout(3000) })).ok;
  } catch {
    return false;
  }
}

/**
 * Write amem into openclaw.json: the plugin's config (serverUrl, the key as ${AMEM_API_KEY} when it
 * comes from the environment), `hooks.allowConversationAccess`, the memory slot, and memory-core
 * disabled (it registers memory_search and memory_get too) unless `keepMemoryCore`. Returns the
 * lines said; throws when it cannot find or ask what it needs.
 */
export async function init(pluginId: string, file: string, env: NodeJS.ProcessEnv, opts: InitOptions, out: Out): Promise<void> {
  const ask = process.stdin.isTTY && !opts.yes ? createInterface({ input: process.stdin, output: process.stdout }) : undefined;
  try {
    let url = opts.url;
    if (!url) {
      for (const guess of [env.AMEM_SERVER_URL, "http://127.0.0.1:8000"].filter((u): u is string => !!u)) {
        if (await answers(guess)) {
          url = guess;
          break;
        }
      }
    }
    if (!url && ask) url = (await ask.question("amem's URL (where `make run` serves it, e.g. http://127.0.0.1:8000): ")).trim();
    if (!url) throw new Error("no amem answers at http://127.0.0.1:8000: start it (`make run`) or give --url");
    if (!(await answers(url))) throw new Error(`amem does not answer at ${url}/healthz: start it or check --url`);
    let apiKey: string | undefined = opts.key;
    let keyLine = "the key given with --key (stored in openclaw.json)";
    if (!apiKey && env.AMEM_API_KEY) {
      apiKey = "${AMEM_API_KEY}";
      keyLine = "the key in AMEM_API_KEY (openclaw.json says ${AMEM_API_KEY}; keep it in the gateway's environment)";
    }
    if (!apiKey && ask) apiKey = (await ask.question("amem API key (manage.py amem_gateway create openclaw-<name>- prints one): ")).trim();
    if (!apiKey) throw new Error("no amem key: set AMEM_API_KEY (from `manage.py amem_gateway create openclaw-<name>-`) or give --key");
    const config = existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as Record<string, any>) : {};
    config.plugins ??= {};
    config.plugins.entries ??= {};
    const entry = (config.plugins.entries[pluginId] ??= {});
    entry.enabled = true;
    entry.hooks = { ...(entry.hooks ?? {}), allowConversationAccess: true };
    entry.config = { ...(entry.config ?? {}), serverUrl: url.replace(/\/+$/, ""), apiKey };
    config.plugins.slots = { ...(config.plugins.slots ?? {}), memory: pluginId };
    if (opts.keepMemoryCore) {
      out(`memory-core: left as it is; amem's memory_search and memory_get may lose their names to it ("plugin tool name conflict"), so the agent may search workspace files instead; run init without --keep-memory-core to disable it`);
    } else {
      config.plugins.entries[MEMORY_CORE] = { ...(config.plugins.entries[MEMORY_CORE] ?? {}), enabled: false };
      out(`memory-core: disabled (plugins.entries.${MEMORY_CORE}.enabled = false): it registers memory_search and memory_get too, and would keep those names`);
    }
    writeFileSync(file, `${JSON.stringify(config, null, 2)}\n`);
    out(`wrote ${file}: plugins.slots.memory = "${pluginId}", plugins.entries.${pluginId}.hooks.allowConversationAccess = true, serverUrl ${url}, key: ${keyLine}`);
  } finally {
    ask?.close();
  }
}
