/**
 * The start-up check (once per gateway, as a service) and `openclaw amem status`: the self-check's
 * findings, then whether amem answers, which key kind it is and which amem agent each OpenClaw agent
 * uses. One line each; problems are warnings.
 */

import { resolveAgentId } from "./config.js";
import { markUnreachable } from "./selfcheck.js";
import { heartbeatLines, readHeartbeats } from "./watch.js";
import type { PluginState } from "./state.js";

/** warn: something keeps amem from working (status exits 1); note: said once, changes nothing (another plugin's key). */
export type StatusLine = { level: "info" | "note" | "warn"; text: string };

function reason(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** The OpenClaw agents named in its config (agents.entries or agents.list), "main" when none. */
export function openclawAgents(openclaw: unknown): string[] {
  const agents = (openclaw as { agents?: { entries?: unknown; list?: unknown } } | undefined)?.agents;
  const ids = new Set<string>();
  if (agents?.entries && typeof agents.entries === "object") for (const id of Object.keys(agents.entries)) ids.add(id);
  if (Array.isArray(agents?.list)) {
    for (const item of agents.list) if (item && typeof item.id === "string") ids.add(item.id);
  }
  return ids.size ? [...ids] : [resolveAgentId(undefined)];
}

export async function status(state: PluginState, agents: string[]): Promise<StatusLine[]> {
  const lines: StatusLine[] = state.findings.map((f) => ({ level: "warn", text: `amem: ${f.line}` }));
  for (const note of state.cfg.notes) lines.push({ level: "note", text: `amem: ${note}` });
  const url = state.cfg.serverUrl;
  let reached = false;
  for (const agent of agents) {
    const { client, resolved } = state.clientFor({ agentId: agent });
    try {
      const acting = await state.actingFor(resolved);
      const out = await client.request<{ count: number }>("GET", "/memories/count", undefined, {
        timeoutMs: state.cfg.recallTimeoutMs,
      });
      reached = true;
      const who = acting ? `amem agent "${acting}" (gateway key)` : "the key's amem agent";
      const scope =
        resolved.memoryScope === "person"
          ? ` (memoryScope person: each person their own amem agent; this is person "${resolved.person}", used when OpenClaw names no sender)`
          : resolved.memoryScope === "shared"
            ? " (memoryScope shared: one memory for every agent and person)"
            : "";
      lines.push({ level: "info", text: `amem: reachable at ${url}; ${out.count} memories visible to agent "${agent}" → ${who}${scope}` });
    } catch (err) {
      const why = reason(err);
      lines.push({ level: "warn", text: `amem: start-up check failed for agent "${agent}": ${why}` });
      // Unreachable or a refused key means no agent has memory: say so in memory_search too.
      if (!reached && /not reachable|did not answer|rejected the API key|no amem API key/.test(why)) markUnreachable(url, why);
      continue;
    }
    markUnreachable(url, undefined);
  }
  // What ran (the gateway's heartbeats, written to disk, so this also works from `openclaw amem status`).
  const beats = readHeartbeats(state.watch.file);
  for (const agent of agents) {
    const seen = heartbeatLines(beats, agent);
    for (const text of seen.warn) lines.push({ level: "warn", text: `amem: ${text}` });
    for (const text of seen.info) lines.push({ level: "info", text: `amem: ${text}` });
  }
  const kept = state.outbox.size;
  if (kept) lines.push({ level: "warn", text: `amem: ${kept} turn(s) amem could not take are kept for capture (${state.outbox.file}); they go in order once amem answers the gateway` });
  return lines;
}

export async function startupCheck(state: PluginState): Promise<void> {
  // Not fatal: the hooks go on without memory until amem answers.
  for (const line of await status(state, openclawAgents(state.openclawConfig))) {
    if (line.level !== "info") state.logger.warn(line.text);
    else state.logger.info(line.text);
  }
}
