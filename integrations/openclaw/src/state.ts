/** What the hooks and tools share: the parsed config, the logger, the self-check, a client per call. */

import type { PluginLogger } from "openclaw/plugin-sdk/plugin-entry";

import { AmemClient } from "./client.js";
import { type AmemPluginConfig, type Resolved, resolveFor } from "./config.js";

export type CallContext = { agentId?: string; sessionKey?: string; sessionId?: string };

export class PluginState {
  constructor(
    readonly cfg: AmemPluginConfig,
    readonly logger: PluginLogger,
    readonly pluginId: string,
    /** Seed B167: OpenClaw will block agent_end for this plugin (allowConversationAccess not true). */
    readonly captureBlocked: boolean,
    readonly env: NodeJS.ProcessEnv = process.env,
    readonly fetchImpl?: typeof fetch,
  ) {}

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
      fetchImpl: this.fetchImpl,
    });
    return { client, resolved };
  }

  /** The notice every memory_search result carries while auto-capture is blocked. */
  get blockedNotice(): string {
    return (
      `⚠ amem auto-capture is blocked by OpenClaw: set plugins.entries.${this.pluginId}.hooks.allowConversationAccess ` +
      "to true in openclaw.json, otherwise nothing from these conversations is remembered automatically."
    );
  }
}
