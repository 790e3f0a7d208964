/** The start-up check: one request with the default key, one log line saying what was found. */

import type { PluginState } from "./state.js";

export async function startupCheck(state: PluginState): Promise<void> {
  const { client, resolved } = state.clientFor({});
  try {
    const out = await client.request<{ count: number }>("GET", "/memories/count", undefined, {
      timeoutMs: state.cfg.recallTimeoutMs,
    });
    state.logger.info(`amem: reachable at ${state.cfg.serverUrl}; ${out.count} memories visible to agent "${resolved.openclawAgent}"`);
  } catch (err) {
    // Not fatal: the hooks go on without memory until amem answers.
    state.logger.warn(`amem: start-up check failed: ${err instanceof Error ? err.message : String(err)}`);
  }
}
