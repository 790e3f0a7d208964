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
import type { Resolved } from "./config.js";
import { MAX_PENDING, type Pending } from "./outbox.js";
import type { CallContext, PluginState } from "./state.js";
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

type RecallNote = { content: string; similarity?: number; relevance?: number; surrounding?: { content: string }[] };
type RecallOut = { text?: string; notes?: RecallNote[] };

/** A recalled note's lines in the bundle's text: the note and the turns written around it. */
function noteLines(n: RecallNote): string[] {
  return [n.content, ...(n.surrounding ?? []).map((t) => t.content)].map((c) => `- ${fence(c)}`);
}

/**
 * The bundle's text without the notes below the relevance floor (relevance.ts), fenced; "" when no
 * note bears on the message, so an unrelated turn gets no block at all.
 */
export function relevantRecall(bundle: RecallOut, query: string, threshold: number): string {
  const notes = bundle.notes ?? [];
  const weak = notes.filter((n) => !relevant(n, query, threshold));
  if (weak.length === notes.length) return "";
  const kept = new Set(notes.filter((n) => !weak.includes(n)).flatMap(noteLines));
  const drop = new Set(weak.flatMap(noteLines).filter((l) => !kept.has(l)));
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
          // amem leaves out the notes under the floor before packing, so the budget goes to relevant ones.
          {
            query,
            token_budget: resolved.tokenBudget,
            limit: resolved.topK,
            wrapper: RECALL_WRAPPER,
            min_relevance: state.cfg.recallThreshold,
          },
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

  const down = (err: unknown) => err instanceof AmemError && (err.kind === "unreachable" || err.kind === "timeout");

  async function beforePromptBuild(
    event: PluginHookBeforePromptBuildEvent,
    ctx: PluginHookAgentContext,
  ): Promise<PluginHookBeforePromptBuildResult | void> {
    const resolved = state.resolve(ctx);
    const agent = resolved.openclawAgent;
    state.watch.started(agent, "recall", ctx.runId);
    let outcome = "skipped";
    try {
      const result = await recall(event, ctx, resolved);
      outcome = result.outcome;
      return result.out;
    } finally {
      // What ran, not what was configured: OpenClaw may have stopped waiting for this hook already.
      try {
        ctx.hookInvocation?.assertActive();
      } catch {
        outcome = "timed out";
      }
      state.watch.finished(agent, "recall", ctx.runId, outcome, state.hostTimeoutMs.recall);
    }
  }

  async function recall(
    event: PluginHookBeforePromptBuildEvent,
    ctx: PluginHookAgentContext,
    resolved: Resolved,
  ): Promise<{ out?: PluginHookBeforePromptBuildResult; outcome: string }> {
    if (!resolved.autoRecall || nonInteractive(ctx)) return { outcome: "skipped" };
    const query = recallQuery(event.currentUserMessage ?? event.prompt ?? "");
    if (query.length < state.cfg.minPromptChars) return { outcome: "skipped (short message)" };
    const budget = state.cfg.recallTimeoutMs;
    try {
      const text = await within(budget, recallText(query, ctx));
      if (text === undefined) throw new AmemError(`amem at ${state.cfg.serverUrl} did not answer within ${budget} ms`, "timeout");
      void drainPending(); // amem answers: send what it could not take before
      if (!text) return { outcome: "ok (nothing relevant)" };
      // amem packed the bundle with its own tokenizer; the budget must hold as the model counts too.
      const fitted = await fitToBudget(text, resolved.tokenBudget, wrapRecall);
      if (!fitted) return { outcome: "ok (nothing fits the budget)" };
      return { out: { prependContext: wrapRecall(fitted) }, outcome: "ok" };
    } catch (err) {
      state.logger.warn(`amem: recall skipped for agent "${resolved.openclawAgent}": ${reason(err)}`);
      if (!down(err)) return { outcome: `failed: ${reason(err)}` };
      // Said once in the turn, where the model reads it: no memories this time, and the turn is kept.
      const kept = resolved.autoCapture && !state.captureBlocked ? "; this conversation is kept and stored when it is back" : "";
      const line = fence(`amem, the long-term memory, is unreachable right now (${reason(err)}): nothing could be recalled for this message${kept}.`);
      return { out: { prependContext: wrapRecall(line) }, outcome: "amem down" };
    }
  }

  type Request = { route: "/turns" | "/conversations"; body: Record<string, unknown> } | string;

  function captureRequest(event: PluginHookAgentEndEvent, ctx: PluginHookAgentContext): Request {
    const exchange = latestExchange(event.messages ?? []);
    if (!exchange || qualityLength(exchange.user) < MIN_CAPTURE_CHARS) return "nothing to keep";
    const session = (ctx.sessionId || ctx.sessionKey || "openclaw").slice(0, 150);
    const run = (event.runId || new Date().toISOString()).slice(0, 40);
    const user = exchange.user.slice(0, MAX_TURN_CHARS);
    const assistant = exchange.assistant.slice(0, MAX_TURN_CHARS);
    // When it was said: amem reads "last month" against it and dates the fact then, also on a late replay.
    const at = exchange.at ?? new Date().toISOString();
    if (state.cfg.captureTarget === "conversations") {
      const turns = [
        { text: `User: ${user}`, session, source: `${run}:user`, said: user, occurred_at: at },
        { text: `Assistant: ${assistant}`, session, source: `${run}:assistant`, said: assistant, occurred_at: at },
      ]
        .filter((t) => qualityLength(t.said) >= MIN_CAPTURE_CHARS)
        .map(({ said: _said, ...turn }) => turn);
      return { route: "/conversations", body: { turns } };
    }
    return {
      route: "/turns",
      body: {
        messages: [
          { role: "user", content: user },
          { role: "assistant", content: assistant },
        ],
        sources: [`openclaw:${session}:${run}`.slice(0, 200)],
        occurred_at: at,
      },
    };
  }

  async function send(route: string, body: unknown, ctx: CallContext): Promise<string> {
    const { client } = state.clientFor(ctx);
    const timeoutMs = state.cfg.captureTimeoutMs;
    if (route === "/conversations") {
      const out = await client.request<{ ids: string[] }>("POST", route, body, { timeoutMs });
      return `stored ${out.ids.length} turn(s)`;
    }
    const out = await client.request<{ ops: { action: string; status: string }[] }>("POST", route, body, { timeoutMs });
    const applied = out.ops.filter((op) => op.status !== "skipped").map((op) => op.action.toLowerCase());
    return applied.length ? `applied ${applied.join(", ")}` : "nothing new to keep";
  }

  /** Send the kept captures, oldest first; stop at the first amem cannot take. */
  async function drainPending(): Promise<void> {
    if (!state.outbox.size) return;
    const done = await state.outbox.drain(async (item: Pending) => {
      try {
        await send(item.route, item.body, item.ctx);
        return "sent";
      } catch (err) {
        if (down(err)) return "unreachable";
        state.logger.warn(`amem: a kept capture (from ${item.queuedAt}) was refused and dropped: ${reason(err)}`);
        return "refused";
      }
    });
    if (done.sent) state.logger.info(`amem: sent ${done.sent} kept capture(s) in order; ${done.left} still kept`);
  }

  function keep(request: Exclude<Request, string>, ctx: PluginHookAgentContext): void {
    const who = { agentId: ctx.agentId, sessionKey: ctx.sessionKey, sessionId: ctx.sessionId, senderId: ctx.senderId, channel: ctx.channel };
    const dropped = state.outbox.push({ ...request, ctx: who, queuedAt: new Date().toISOString() });
    if (dropped) state.logger.warn(`amem: ${dropped} oldest kept capture(s) dropped: at most ${MAX_PENDING} are kept while amem is down`);
  }

  async function agentEnd(event: PluginHookAgentEndEvent, ctx: PluginHookAgentContext): Promise<void> {
    const resolved = state.resolve(ctx);
    const agent = resolved.openclawAgent;
    state.watch.started(agent, "capture", ctx.runId ?? event.runId);
    let outcome = "skipped";
    try {
      outcome = await captureTurn(event, ctx, resolved);
    } finally {
      state.watch.finished(agent, "capture", ctx.runId ?? event.runId, outcome, state.hostTimeoutMs.capture);
    }
  }

  async function captureTurn(event: PluginHookAgentEndEvent, ctx: PluginHookAgentContext, resolved: Resolved): Promise<string> {
    if (!resolved.autoCapture || !event?.success) return "skipped";
    if (nonInteractive(ctx) || isSubagent(ctx?.sessionKey)) return "skipped";
    if (toolCalls(event.messages ?? []).some((name) => MUTATING_TOOLS.has(name))) {
      state.logger.debug?.("amem: capture skipped, the agent changed memory itself this turn");
      return "skipped (the agent changed memory itself)";
    }
    const request = captureRequest(event, ctx);
    if (typeof request === "string") return request;
    if (state.outbox.size) {
      // Older turns are waiting: this one goes after them, so amem reads them in the order said.
      keep(request, ctx);
      await drainPending();
      return "kept in order";
    }
    const budget = state.cfg.captureTimeoutMs;
    try {
      const outcome = await within(budget, send(request.route, request.body, ctx));
      if (outcome === undefined) throw new AmemError(`amem at ${state.cfg.serverUrl} did not answer within ${budget} ms`, "timeout");
      state.logger.debug?.(`amem: capture for agent "${resolved.openclawAgent}": ${outcome}`);
      return outcome;
    } catch (err) {
      if (down(err)) {
        keep(request, ctx);
        state.logger.warn(`amem: capture kept for later for agent "${resolved.openclawAgent}" (${state.outbox.size} kept): ${reason(err)}`);
        return "kept (amem down)";
      }
      state.logger.warn(`amem: capture skipped for agent "${resolved.openclawAgent}": ${reason(err)}`);
      return `failed: ${reason(err)}`;
    }
  }

  /** OpenClaw's model_call_started: a turn ran; did its recall, and the last turn's capture? (watch.ts) */
  function modelCallStarted(event: { runId?: string; sessionKey?: string }, ctx: PluginHookAgentContext): void {
    const sessionKey = ctx?.sessionKey ?? event?.sessionKey;
    const runId = ctx?.runId ?? event?.runId;
    if (!runId || isSubagent(sessionKey) || nonInteractive({ ...ctx, sessionKey })) return;
    const resolved = state.resolve({ ...ctx, sessionKey });
    state.watch.modelCall(resolved.openclawAgent, runId, {
      recall: resolved.autoRecall, // expected whatever the config says: a blocked hook shows up here too
      capture: resolved.autoCapture,
    });
  }

  return { beforePromptBuild, agentEnd, modelCallStarted, drainPending };
}
