/**
 * The self-check: what keeps amem from working as configured, read from OpenClaw's own config,
 * each as one line that says what to set. Logged once at gateway start (the start-up service),
 * printed by `openclaw amem status`, and put at the top of every memory_search result.
 *
 * What OpenClaw does, as read from openclaw 2026.9.6 (src/plugins/hook-policy-decisions.ts and
 * docs/plugins/hooks.md): a plugin that is not bundled gets the conversation hooks
 * (before_prompt_build, agent_end, …) only with `plugins.entries.<id>.hooks.allowConversationAccess
 * = true`, and prompt hooks also need `allowPromptInjection` not false; a blocked hook is dropped
 * without a word. Only the plugin named in `plugins.slots.memory` (default: the bundled
 * memory-core) is OpenClaw's memory plugin; memory-core, when enabled, registers memory_search and
 * memory_get itself, and the first plugin to register a tool name keeps it.
 */

import {
  type AmemPluginConfig,
  conversationAccessBlocked,
  entryOf,
  pluginsOf,
  promptInjectionBlocked,
} from "./config.js";

export const MEMORY_CORE = "memory-core";
/** The tools memory-core registers under the same names as amem's. */
export const MEMORY_CORE_TOOLS = ["memory_search", "memory_get"];

export type Finding = {
  /** A stable name, for tests and `details`. */
  id:
    | "recall-blocked"
    | "capture-blocked"
    | "recall-off"
    | "capture-off"
    | "slot"
    | "memory-core"
    | "unreachable"
    | "recall-host-timeout"
    | "capture-host-timeout"
    | "heartbeat"
    | "pending";
  line: string;
};

export type Switches = { recallBlocked: boolean; captureBlocked: boolean };

/** Which of the plugin's hooks OpenClaw will drop, from its config. */
export function blockedHooks(openclaw: unknown, pluginId: string): Switches {
  const noConversation = conversationAccessBlocked(openclaw, pluginId);
  return {
    recallBlocked: noConversation || promptInjectionBlocked(openclaw, pluginId),
    captureBlocked: noConversation,
  };
}

const anyAgent = (cfg: AmemPluginConfig, key: "autoRecall" | "autoCapture") =>
  cfg[key] || Object.values(cfg.agents).some((o) => o[key] === true);

/**
 * How long OpenClaw waits for each of the plugin's hooks (openclaw 2026.9.6 resolveTypedHookTimeoutMs):
 * `hooks.timeouts.<hook>`, else `hooks.timeoutMs`, else what the plugin registered.
 */
export function hostTimeouts(
  openclaw: unknown,
  pluginId: string,
  registered: { recall: number; capture: number },
): { recall: number; capture: number; recallSet?: string; captureSet?: string } {
  const hooks = entryOf(openclaw, pluginId)?.hooks as { timeouts?: Record<string, unknown>; timeoutMs?: unknown } | undefined;
  const pick = (hook: string, fallback: number): [number, string | undefined] => {
    const own = hooks?.timeouts?.[hook];
    if (typeof own === "number" && own > 0) return [own, `plugins.entries.${pluginId}.hooks.timeouts.${hook} = ${own}`];
    if (typeof hooks?.timeoutMs === "number" && hooks.timeoutMs > 0) return [hooks.timeoutMs, `plugins.entries.${pluginId}.hooks.timeoutMs = ${hooks.timeoutMs}`];
    return [fallback, undefined];
  };
  const [recall, recallSet] = pick("before_prompt_build", registered.recall);
  const [capture, captureSet] = pick("agent_end", registered.capture);
  return { recall, capture, recallSet, captureSet };
}

export function selfCheck(
  openclaw: unknown,
  cfg: AmemPluginConfig,
  pluginId: string,
  host?: { recall: number; capture: number; recallSet?: string; captureSet?: string },
): Finding[] {
  const found: Finding[] = [];
  const entry = `plugins.entries.${pluginId}`;
  const { recallBlocked, captureBlocked } = blockedHooks(openclaw, pluginId);
  const noConversation = conversationAccessBlocked(openclaw, pluginId);
  if (anyAgent(cfg, "autoRecall") && recallBlocked) {
    const fix = noConversation
      ? `set ${entry}.hooks.allowConversationAccess = true`
      : `remove ${entry}.hooks.allowPromptInjection = false`;
    found.push({
      id: "recall-blocked",
      line: `auto-recall is BLOCKED: OpenClaw drops this plugin's before_prompt_build hook, so no memories are prepended to prompts; ${fix} in openclaw.json`,
    });
  }
  if (anyAgent(cfg, "autoCapture") && captureBlocked) {
    found.push({
      id: "capture-blocked",
      line: `auto-capture is BLOCKED: OpenClaw drops this plugin's agent_end hook, so nothing from conversations is remembered automatically; set ${entry}.hooks.allowConversationAccess = true in openclaw.json`,
    });
  }
  if (!anyAgent(cfg, "autoRecall")) {
    found.push({ id: "recall-off", line: "auto-recall is off (autoRecall: false): memories reach the agent only through memory_search and the other tools" });
  }
  if (!anyAgent(cfg, "autoCapture")) {
    found.push({ id: "capture-off", line: "auto-capture is off (autoCapture: false): nothing is remembered unless the agent calls memory_add" });
  }
  // OpenClaw stops waiting for a hook after its timeout: a recall cut short prepends nothing.
  if (host?.recallSet && host.recall < cfg.recallTimeoutMs && anyAgent(cfg, "autoRecall") && !recallBlocked) {
    found.push({
      id: "recall-host-timeout",
      line: `auto-recall will TIME OUT: OpenClaw waits ${host.recall} ms for it (${host.recallSet}), less than a recall may take (recallTimeoutMs ${cfg.recallTimeoutMs}); a recall that takes longer prepends nothing: raise it or remove it`,
    });
  }
  if (host?.captureSet && host.capture < cfg.captureTimeoutMs && anyAgent(cfg, "autoCapture") && !captureBlocked) {
    found.push({
      id: "capture-host-timeout",
      line: `auto-capture will be reported TIMED OUT by OpenClaw: it waits ${host.capture} ms for it (${host.captureSet}), less than a capture may take (captureTimeoutMs ${cfg.captureTimeoutMs}); the capture still lands, but raise it or remove it`,
    });
  }
  const plugins = pluginsOf(openclaw);
  if (plugins) {
    const slots = plugins.slots as { memory?: unknown } | undefined;
    const slot = typeof slots?.memory === "string" ? slots.memory : undefined;
    if (slot !== pluginId) {
      const holder = slot === undefined ? `${MEMORY_CORE} (the default)` : `"${slot}"`;
      found.push({
        id: "slot",
        line: `amem is not OpenClaw's memory plugin: plugins.slots.memory is ${holder}; set plugins.slots.memory = "${pluginId}" in openclaw.json`,
      });
    }
    if (memoryCoreEnabled(plugins)) {
      found.push({
        id: "memory-core",
        line:
          `OpenClaw's bundled ${MEMORY_CORE} is enabled and registers ${MEMORY_CORE_TOOLS.join(" and ")} too; whichever plugin loads first keeps ` +
          `those names ("plugin tool name conflict (${pluginId})"), so the agent may search workspace files instead of amem; ` +
          `set plugins.entries.${MEMORY_CORE}.enabled = false (openclaw plugins disable ${MEMORY_CORE})`,
      });
    }
  }
  return found;
}

/** memory-core is on unless disabled by its entry, left out of an allow list, or denied. */
export function memoryCoreEnabled(plugins: Record<string, unknown>): boolean {
  if (plugins.enabled === false) return false;
  if (entryOf({ plugins }, MEMORY_CORE)?.enabled === false) return false;
  const allow = plugins.allow;
  if (Array.isArray(allow) && allow.length > 0 && !allow.includes(MEMORY_CORE)) return false;
  const deny = plugins.deny;
  return !(Array.isArray(deny) && deny.includes(MEMORY_CORE));
}

/** The notice a memory_search result starts with while something is wrong ("" when all is well). */
export function notice(findings: Finding[]): string {
  if (!findings.length) return "";
  return ["⚠ amem self-check:", ...findings.map((f) => `- ${f.line}`)].join("\n");
}

/** Reachability of each amem server, as the last start-up check or status call found it (one per process). */
const reachability = new Map<string, string>();

export function markUnreachable(serverUrl: string, why: string | undefined): void {
  if (why) reachability.set(serverUrl, why);
  else reachability.delete(serverUrl);
}

export function unreachable(serverUrl: string): Finding[] {
  const why = reachability.get(serverUrl);
  return why ? [{ id: "unreachable", line: `amem is not usable: ${why}` }] : [];
}
