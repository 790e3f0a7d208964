/** What the hooks and tools share: the parsed config, the logger, the self-check, a client per call. */

import { homedir } from "node:os";
import { join } from "node:path";

import type { PluginLogger } from "openclaw/plugin-sdk/plugin-entry";

import { AmemClient, AmemError } from "./client.js";
import { type AmemPluginConfig, type Resolved, resolveFor } from "./config.js";
import {
  amemAgentId,
  DEFAULT_OPENCLAW_AGENT,
  type KeyInfo,
  KeyKinds,
  type PersonContext,
  personAgentId,
  sharedAgentId,
} from "./identity.js";
import { Outbox } from "./outbox.js";
import { blockedHooks, type Finding, hostTimeouts, notice, selfCheck, unreachable } from "./selfcheck.js";
import { type Watch, watchFor } from "./watch.js";

export type CallContext = { agentId?: string; sessionId?: string } & PersonContext;

const GATEWAY_KEY = /^amem_gw_/;
const KEY_TIMEOUT_MS = 10_000;

export class PluginState {
  /** What the self-check found in OpenClaw's config (blocked hooks, slot, memory-core, switches). */
  readonly findings: Finding[];
  /** OpenClaw drops before_prompt_build / agent_end for this plugin. */
  readonly recallBlocked: boolean;
  readonly captureBlocked: boolean;
  private readonly kinds: KeyKinds;
  /** How long OpenClaw waits for each hook: plugins.entries.<id>.hooks.timeouts, else what the plugin registers. */
  readonly hostTimeoutMs: { recall: number; capture: number };
  /** The plugin's files: heartbeats.json (watch.ts), pending-captures.jsonl (outbox.ts). */
  readonly dir: string;
  readonly watch: Watch;
  readonly outbox: Outbox;

  constructor(
    readonly cfg: AmemPluginConfig,
    readonly logger: PluginLogger,
    readonly pluginId: string,
    readonly openclawConfig: unknown,
    readonly env: NodeJS.ProcessEnv = process.env,
    readonly fetchImpl?: typeof fetch,
    stateDir?: string,
  ) {
    this.hostTimeoutMs = hostTimeouts(openclawConfig, pluginId, {
      recall: cfg.recallTimeoutMs + 1000,
      capture: cfg.captureTimeoutMs + 1000,
    });
    this.findings = selfCheck(openclawConfig, cfg, pluginId, this.hostTimeoutMs);
    this.dir = join(stateDir ?? env.OPENCLAW_STATE_DIR ?? join(homedir(), ".openclaw"), "plugins", pluginId);
    this.watch = watchFor(join(this.dir, "heartbeats.json"), (line) => logger.warn(line));
    this.outbox = new Outbox(join(this.dir, "pending-captures.jsonl"));
    ({ recallBlocked: this.recallBlocked, captureBlocked: this.captureBlocked } = blockedHooks(openclawConfig, pluginId));
    this.kinds = new KeyKinds((apiKey) => this.askKind(apiKey));
  }

  resolve(ctx: CallContext | undefined): Resolved {
    return resolveFor(this.cfg, ctx, this.env);
  }

  clientFor(ctx: CallContext | undefined): { client: AmemClient; resolved: Resolved } {
    const resolved = this.resolve(ctx);
    const client = new AmemClient({
      serverUrl: this.cfg.serverUrl,
      apiKey: resolved.apiKey,
      keySource: resolved.keySource,
      openclawAgent: resolved.openclawAgent,
      acting: () => this.actingFor(resolved),
      fetchImpl: this.fetchImpl,
    });
    return { client, resolved };
  }

  /**
   * The amem agent a call acts for (identity.ts): with a gateway key, `<prefix><OpenClaw agent>`;
   * with an agent key, none (the key's own agent), and only for the agent the key serves.
   */
  async actingFor(resolved: Resolved): Promise<string | undefined> {
    if (!resolved.apiKey) return undefined;
    const info = await this.keyInfo(resolved.apiKey);
    if (info.kind === "gateway") return scopedAgentId(info.prefix, resolved);
    if (resolved.memoryScope === "person") {
      throw new AmemError(
        `memoryScope "person" needs a gateway key: each person talking to OpenClaw agent "${resolved.openclawAgent}" gets an ` +
          `amem agent of their own under its prefix, and ${resolved.keySource || "this key"} is one amem agent's key ` +
          "(create a gateway key with `manage.py amem_gateway create openclaw-<name>-`, or set memoryScope to \"agent\")",
        "no_key",
      );
    }
    if (resolved.memoryScope === "shared") return undefined; // sharing one agent's memory is what was asked for
    if (resolved.sharedKey && resolved.openclawAgent !== DEFAULT_OPENCLAW_AGENT && !this.cfg.shareAgentKey) {
      const agent = resolved.openclawAgent;
      throw new AmemError(
        `OpenClaw agent "${agent}" has no amem memory of its own: the top-level apiKey is an agent key, which serves ` +
          `OpenClaw agent "${DEFAULT_OPENCLAW_AGENT}" only (never another agent's memories by default). Use a gateway key ` +
          `(manage.py amem_gateway create openclaw-<name>-: every OpenClaw agent gets its own amem agent), set ` +
          `agents.${agent}.apiKey, or set shareAgentKey: true to let agents without a key share that memory`,
        "no_key",
      );
    }
    return undefined;
  }

  keyInfo(apiKey: string): Promise<KeyInfo> {
    // Only a gateway key needs the round trip: an agent key is its own agent.
    return GATEWAY_KEY.test(apiKey) ? this.kinds.of(apiKey) : Promise.resolve({ kind: "agent" });
  }

  private async askKind(apiKey: string): Promise<KeyInfo> {
    const bare = new AmemClient({
      serverUrl: this.cfg.serverUrl,
      apiKey,
      keySource: "the gateway key",
      openclawAgent: "(any)",
      fetchImpl: this.fetchImpl,
    });
    const out = await bare.request<{ kind: string; prefix?: string; agent?: string }>("GET", "/key", undefined, {
      timeoutMs: KEY_TIMEOUT_MS,
    });
    if (out.kind === "gateway" && out.prefix) return { kind: "gateway", prefix: out.prefix };
    return { kind: "agent", agent: out.agent };
  }

  /** Everything wrong right now: the config findings, whether amem answered, and what the heartbeats of `agent` saw. */
  problems(agent?: string): Finding[] {
    const seen = agent ? this.watch.problems(agent).map((line) => ({ id: "heartbeat" as const, line })) : [];
    const kept = this.outbox.size;
    const pending = kept ? [{ id: "pending" as const, line: `${kept} turn(s) amem could not take are kept for capture (${this.outbox.file}) and go in order once it answers` }] : [];
    return [...this.findings, ...unreachable(this.cfg.serverUrl), ...seen, ...pending];
  }

  /** The notice a memory_search result starts with while something is wrong for `agent`. */
  noticeFor(agent?: string): string {
    return notice(this.problems(agent));
  }
}

/** The amem agent a gateway key acts for under each memoryScope. */
export function scopedAgentId(prefix: string, resolved: Resolved): string {
  if (resolved.memoryScope === "shared") return sharedAgentId(prefix);
  if (resolved.memoryScope === "person") return personAgentId(prefix, resolved.openclawAgent, resolved.person);
  return amemAgentId(prefix, resolved.openclawAgent);
}
