/**
 * Auto-recall (before_prompt_build → POST /recall, the bundle prepended) and auto-capture
 * (agent_end → POST /turns or /conversations). Neither ever throws into the turn or waits past its
 * timeout: amem down, slow or misconfigured costs one warning line and the turn goes on.
 */

import { fitToBudget, withoutEmptyHeadings } from "./budget.js";
import { AmemError } from "./client.js";
import { relevant } from "./relevance.js";
import type {
  AgentEndEvent as PluginHookAgentEndEvent,
  BeforePromptBuildEvent as PluginHookBeforePromptBuildEvent,
  BeforePromptBuildResult as PluginHookBeforePromptBuildResult,
  HookContext as PluginHookAgentContext,
} from "./sdk.js";
import type { PluginState } from "./state.js";
import { fence, fenceRecall, latestExchange, packNotes, RECALL_WRAPPER, recallQuery, roughTokens, toolCalls, wrapRecall, type Hit } from "./text.js";

/** Tools that change memory: a turn that called one was already remembered on purpose. */
export const MUTATING_TOOLS = new Set([
  "memory_add",
  "memory_update",
  "memory_forget",
  "core_memory_replace",
  "core_memory_append",
  "graph_add",
  "archival_insert",
  "episode_save",
]);
const SKIP_TRIGGERS = new Set(["cron", "heartbeat", "automation", "schedule"]);
const MIN_CAPTURE_CHARS = 10; // amem's quality gate: shorter user text is never a memory (a CJK character counts 2)
const MAX_TURN_CHARS = 4000;
const RECALL_ROUTE_RETRY_MS = 10 * 60 * 1000;

/** The length amem's quality gate compares (engine/text.py): a CJK character counts 2. */
export function qualityLength(text: string): number {
  const cjk = text.trim().match(/[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]/g)?.length ?? 0;
  return text.trim().length + cjk;
}

export function nonInteractive(ctx: PluginHookAgentContext | undefined): boolean {
  if (ctx?.trigger && SKIP_TRIGGERS.has(ctx.trigger.toLowerCase())) return true;
  return /:(cron|heartbeat):/i.test(ctx?.sessionKey ?? "");
}

export function isSubagent(sessionKey: string | undefined): boolean {
  return /:subagent:/i.test(sessionKey ?? "");
}

function reason(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Resolves to undefined after `ms`, so a hook never waits longer than its budget. */
function within<T>(ms: number, work: Promise<T>): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

type RecallOut = { text?: string; notes?: { content: string; similarity?: number }[] };

/**
 * The bundle's text without the notes below the relevance floor (relevance.ts), fenced; "" when no
 * note bears on the message, so an unrelated turn gets no block at all.
 */
export function relevantRecall(bundle: RecallOut, query: string, threshold: number): string {
  const notes = bundle.notes ?? [];
  const weak = notes.filter((n) => !relevant(n, query, threshold));
  if (weak.length === notes.length) return "";
  const drop = new Set(weak.map((n) => `- ${fence(n.content)}`));
  return withoutEmptyHeadings(fenceRecall(bundle.text ?? "").split("\n").filter((l) => !drop.has(l))).join("\n");
}
type SearchOut = { results: Hit[] };

export function makeHooks(state: PluginState) {
  let recallMissingUntil = 0;

  async function recallText(query: string, ctx: PluginHookAgentContext): Promise<string> {
    const { client, resolved } = state.clientFor(ctx);
    const timeoutMs = state.cfg.recallTimeoutMs;
    if (Date.now() >= recallMissingUntil) {
      try {
        // The wrapper goes with the request: amem counts it, so the whole injected block fits tokenBudget.
        const bundle = await client.request<RecallOut>(
          "POST",
          "/recall",
          { query, token_budget: resolved.tokenBudget, limit: resolved.topK, wrapper: RECALL_WRAPPER },
          { timeoutMs },
        );
        return relevantRecall(bundle ?? {}, query, state.cfg.recallThreshold);
      } catch (err) {
        if (!(err instanceof AmemError && err.kind === "no_route")) throw err;
        // An amem without the memory layers: search instead, and do not ask again for a while.
        recallMissingUntil = Date.now() + RECALL_ROUTE_RETRY_MS;
        state.logger.info?.("amem: this server has no /recall yet; auto-recall uses /memories/search");
      }
    }
    const found = await client.request<SearchOut>(
      "POST",
      "/memories/search",
      { query, limit: resolved.topK },
      { timeoutMs },
    );
    const hits = (found?.results ?? []).filter((h) => relevant(h, query, state.cfg.recallThreshold));
    return packNotes(hits, resolved.tokenBudget - roughTokens(RECALL_WRAPPER));
  }

  async function beforePromptBuild(
    event: PluginHookBeforePromptBuildEvent,
    ctx: PluginHookAgentContext,
  ): Promise<PluginHookBeforePromptBuildResult | void> {
    const resolved = state.resolve(ctx);
    if (!resolved.autoRecall || nonInteractive(ctx)) return;
    const query = recallQuery(event.currentUserMessage ?? event.prompt ?? "");
    if (query.length < state.cfg.minPromptChars) return;
    const budget = state.cfg.recallTimeoutMs;
    try {
      const text = await within(budget, recallText(query, ctx));
      if (text === undefined) {
        state.logger.warn(`amem: recall skipped for agent "${resolved.openclawAgent}": no answer within ${budget} ms`);
        return;
      }
      if (!text) return;
      // amem packed the bundle with its own tokenizer; the budget must hold as the model counts too.
      const fitted = await fitToBudget(text, resolved.tokenBudget, wrapRecall);
      if (!fitted) return;
      return { prependContext: wrapRecall(fitted) };
    } catch (err) {
      state.logger.warn(`amem: recall skipped for agent "${resolved.openclawAgent}": ${reason(err)}`);
      return;
    }
  }

  async function capture(event: PluginHookAgentEndEvent, ctx: PluginHookAgentContext): Promise<string> {
    const { client } = state.clientFor(ctx);
    const exchange = latestExchange(event.messages ?? []);
    if (!exchange || qualityLength(exchange.user) < MIN_CAPTURE_CHARS) return "nothing to keep";
    const session = (ctx.sessionId || ctx.sessionKey || "openclaw").slice(0, 150);
    const run = (event.runId || new Date().toISOString()).slice(0, 40);
    const user = exchange.user.slice(0, MAX_TURN_CHARS);
    const assistant = exchange.assistant.slice(0, MAX_TURN_CHARS);
    const timeoutMs = state.cfg.captureTimeoutMs;
    if (state.cfg.captureTarget === "conversations") {
      const turns = [
        { text: `User: ${user}`, session, source: `${run}:user`, said: user, occurred_at: exchange.at },
        { text: `Assistant: ${assistant}`, session, source: `${run}:assistant`, said: assistant, occurred_at: exchange.at },
      ]
        .filter((t) => qualityLength(t.said) >= MIN_CAPTURE_CHARS)
        .map(({ said: _said, ...turn }) => turn);
      const out = await client.request<{ ids: string[] }>("POST", "/conversations", { turns }, { timeoutMs });
      return `stored ${out.ids.length} turn(s)`;
    }
    const out = await client.request<{ ops: { action: string; status: string }[] }>(
      "POST",
      "/turns",
      {
        messages: [
          { role: "user", content: user },
          { role: "assistant", content: assistant },
        ],
        sources: [`openclaw:${session}:${run}`.slice(0, 200)],
        // When it was said: amem reads "last month" against it and dates the fact then.
        occurred_at: exchange.at ?? new Date().toISOString(),
      },
      { timeoutMs },
    );
    const applied = out.ops.filter((op) => op.status !== "skipped").map((op) => op.action.toLowerCase());
    return applied.length ? `applied ${applied.join(", ")}` : "nothing new to keep";
  }

  async function agentEnd(event: PluginHookAgentEndEvent, ctx: PluginHookAgentContext): Promise<void> {
    const resolved = state.resolve(ctx);
    if (!resolved.autoCapture || !event?.success) return;
    if (nonInteractive(ctx) || isSubagent(ctx?.sessionKey)) return;
    if (toolCalls(event.messages ?? []).some((name) => MUTATING_TOOLS.has(name))) {
      state.logger.debug?.("amem: capture skipped, the agent changed memory itself this turn");
      return;
    }
    const budget = state.cfg.captureTimeoutMs;
    try {
      const outcome = await within(budget, capture(event, ctx));
      if (outcome === undefined) {
        state.logger.warn(`amem: capture skipped for agent "${resolved.openclawAgent}": no answer within ${budget} ms`);
        return;
      }
      state.logger.debug?.(`amem: capture for agent "${resolved.openclawAgent}": ${outcome}`);
    } catch (err) {
      state.logger.warn(`amem: capture skipped for agent "${resolved.openclawAgent}": ${reason(err)}`);
    }
  }

  return { beforePromptBuild, agentEnd };
}
