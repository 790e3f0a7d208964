/**
 * The memory tools, with the seeds' names (openclaw-amem: memory_*; memory-engine: core_memory_*,
 * episode_recall, graph_*). Each is one call to amem's agent API with the key of the calling OpenClaw
 * agent. A failure is thrown as an Error with a message the model (and the person) can act on, as the
 * SDK asks ("Throw on failure instead of encoding errors in `content`").
 */

import type { AnyAgentTool } from "openclaw/plugin-sdk/plugin-entry";

import type { AmemClient } from "./client.js";
import type { Resolved } from "./config.js";
import type { ToolParameters as TSchema, ToolResult } from "./sdk.js";
import type { CallContext, PluginState } from "./state.js";
import { relevant } from "./relevance.js";
import { fence, hitLine, type Hit } from "./text.js";

type Params = Record<string, unknown>;
type Done = { text: string; details: unknown };
type Run = (params: Params, client: AmemClient, resolved: Resolved, timeoutMs: number, ctx: CallContext) => Promise<Done>;

type ToolSpec = { name: string; label: string; description: string; parameters: TSchema; run: Run };

const str = (description: string, extra: Record<string, unknown> = {}) => ({ type: "string", description, ...extra });
const int = (description: string, minimum: number, maximum: number) => ({
  type: "integer",
  description,
  minimum,
  maximum,
});
const strings = (description: string) => ({ type: "array", items: { type: "string" }, description });
const object = (properties: Record<string, unknown>, required: string[] = []): TSchema => ({
  type: "object",
  properties,
  required,
  additionalProperties: false,
});
const ANY_JSON = { description: "any JSON value; a string holding JSON (an object or array) is parsed first" };

const path = (...parts: string[]) => parts.map(encodeURIComponent).join("/");

function defined(values: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined));
}

/** memory-engine's core_memory_replace "auto-parses JSON strings": '{"a":1}' becomes an object. */
export function jsonValue(value: unknown): unknown {
  if (typeof value !== "string") return value;
  const t = value.trim();
  if (!(t.startsWith("{") || t.startsWith("["))) return value;
  try {
    return JSON.parse(t);
  } catch {
    return value;
  }
}

type Note = {
  id: string;
  content: string;
  created_at?: string;
  scope?: string;
  tags?: string[];
  subjects?: string[];
  links?: string[];
};

function noteLine(n: Note, i: number): string {
  return `${i + 1}. ${fence(n.content)} (id: ${n.id}${n.created_at ? `, ${n.created_at.slice(0, 10)}` : ""})`;
}

function counts(c: Record<string, number> | undefined): string {
  const parts = Object.entries(c ?? {}).map(([k, v]) => `${k} ${v}`);
  return parts.length ? parts.join(", ") : "nothing to do";
}

/**
 * A search answer as the model reads it, after the self-check's notice while something is wrong.
 * Matches below searchThreshold are left out (relevance.ts), never padded in to reach the limit.
 */
function searchResult(state: PluginState, out: { results: Hit[] }, query: string, agent: string): Done {
  const threshold = state.cfg.searchThreshold;
  const results = out.results.filter((h) => relevant(h, query, threshold));
  const lines = results.map(hitLine);
  const notice = state.noticeFor(agent);
  const weak = out.results.length - results.length;
  const left = weak ? ` (${weak} weaker match${weak === 1 ? "" : "es"} below the threshold ${threshold} left out)` : "";
  const text = results.length ? `Found ${results.length} memories${left}:\n${lines.join("\n")}` : `No memories found${left}.`;
  return {
    text: notice ? `${notice}\n\n${text}` : text,
    details: { count: results.length, results, below_threshold: weak, ...(notice ? { notice } : {}) },
  };
}

export function toolSpecs(state: PluginState): ToolSpec[] {
  const note = (id: unknown) => `/memories/${path(String(id))}`;
  return [
    {
      name: "memory_search",
      label: "Memory search",
      description:
        "Search long-term memory (amem) by meaning and keywords; linked memories come after the matches. " +
        "Use it before answering when the request may depend on past conversations, preferences or decisions.",
      parameters: object(
        {
          query: str("what to look for"),
          limit: int("how many matches (linked memories may be added after them)", 1, 100),
          topicsFilter: strings("keep only knowledge notes carrying every one of these topics"),
          subject: str("only memories about this person (and facts about no one in particular)"),
        },
        ["query"],
      ),
      run: async (p, client, resolved, timeoutMs) => {
        const body = defined({
          query: p.query,
          limit: p.limit ?? resolved.topK,
          topics_filter: p.topicsFilter,
          subject: p.subject,
        });
        return searchResult(state, await client.request<{ results: Hit[] }>("POST", "/memories/search", body, { timeoutMs }), String(p.query), resolved.openclawAgent);
      },
    },
    {
      name: "memory_add",
      label: "Memory add",
      description:
        "Store a durable fact, preference or decision in long-term memory. amem deduplicates, links and " +
        "organises it; an exact or near duplicate is folded into the existing memory.",
      parameters: object(
        {
          text: str("the memory, one self-contained statement (at least 10 characters)"),
          subjects: strings("who the memory is about (empty: a fact about no one in particular)"),
          scope: str("private (this agent only, the default) or shared (every agent may read it)", {
            enum: ["private", "shared"],
          }),
          noteType: str("memory (an event, decision, preference) or knowledge (reference material)", {
            enum: ["memory", "knowledge"],
          }),
          sources: strings("ids of the messages this memory comes from"),
        },
        ["text"],
      ),
      run: async (p, client, _r, timeoutMs) => {
        const body = defined({
          text: p.text,
          subjects: p.subjects,
          scope: p.scope,
          note_type: p.noteType,
          sources: p.sources,
        });
        const out = await client.request<{ id: string; outcome: string; links: string[]; similar_to: string | null }>(
          "POST",
          "/memories",
          body,
          { timeoutMs },
        );
        const said: Record<string, string> = {
          created: `Stored as ${out.id}`,
          duplicate: `Already remembered: ${out.id}`,
          folded: `Merged into the existing memory ${out.id}`,
          flagged: `Stored as ${out.id}; it resembles ${out.similar_to} and will be reviewed for a merge`,
        };
        const links = out.links.length ? ` (linked to ${out.links.length} related memories)` : "";
        return { text: `${said[out.outcome] ?? `${out.outcome}: ${out.id}`}${links}.`, details: out };
      },
    },
    {
      name: "memory_list",
      label: "Memory list",
      description: "List this agent's own memories, newest first, a page at a time.",
      parameters: object({
        limit: int("how many (default 20)", 1, 100),
        offset: int("how many to skip", 0, 1000000),
      }),
      run: async (p, client, _r, timeoutMs) => {
        const out = await client.request<{ results: Note[]; total: number; limit: number; offset: number }>(
          "GET",
          "/memories",
          undefined,
          { timeoutMs, query: { limit: p.limit as number | undefined, offset: p.offset as number | undefined } },
        );
        if (!out.results.length) return { text: `No memories here (${out.total} in all).`, details: out };
        const first = out.offset + 1;
        const lines = out.results.map((n, i) => noteLine(n, out.offset + i));
        return {
          text: `Memories ${first}–${out.offset + out.results.length} of ${out.total}:\n${lines.join("\n")}`,
          details: out,
        };
      },
    },
    {
      name: "memory_get",
      label: "Memory get",
      description: "Read one memory by id, with the ids of the memories it links to.",
      parameters: object({ id: str("the memory's id") }, ["id"]),
      run: async (p, client, _r, timeoutMs) => {
        const out = await client.request<Note>("GET", note(p.id), undefined, { timeoutMs });
        const links = out.links?.length ? `\nLinks: ${out.links.join(", ")}` : "";
        return { text: `${fence(out.content)}\n(id: ${out.id}, ${out.scope ?? "private"}, ${out.created_at ?? ""})${links}`, details: out };
      },
    },
    {
      name: "memory_update",
      label: "Memory update",
      description: "Correct a memory: replace its text (the old text stays in its history).",
      parameters: object({ id: str("the memory's id"), text: str("the corrected memory") }, ["id", "text"]),
      run: async (p, client, _r, timeoutMs) => {
        const out = await client.request<Note>("PATCH", note(p.id), { text: p.text }, { timeoutMs });
        return { text: `Updated ${out.id}: ${out.content}`, details: out };
      },
    },
    {
      name: "memory_forget",
      label: "Memory forget",
      description: "Retire a memory that is wrong or outdated: it leaves every search (undoable in amem's review app).",
      parameters: object({ id: str("the memory's id") }, ["id"]),
      run: async (p, client, _r, timeoutMs) => {
        const out = await client.request<{ id: string; retired: boolean }>("DELETE", note(p.id), undefined, { timeoutMs });
        return { text: `Forgot ${out.id}.`, details: out };
      },
    },
    {
      name: "memory_consolidate",
      label: "Memory consolidate",
      description:
        "Merge this agent's near-duplicate memories now (normally done every night): similar memories in one " +
        "category become one, links are kept.",
      parameters: object({}),
      run: async (_p, client, _r, timeoutMs) => {
        const out = await client.request<{ outcome: string; counts: Record<string, number>; detail: string }>(
          "POST",
          "/jobs/consolidate",
          undefined,
          { timeoutMs },
        );
        const merged = out.counts?.merged ?? 0;
        return { text: `Consolidation ${out.outcome}: merged ${merged} pair(s) (${counts(out.counts)}).${out.detail ? ` ${out.detail}` : ""}`, details: out };
      },
    },
    {
      name: "memory_quality_scan",
      label: "Memory quality scan",
      description:
        "Flag this agent's memories that need a look: too short, expired reminders, unresolved contradictions.",
      parameters: object({}),
      run: async (_p, client, _r, timeoutMs) => {
        const out = await client.request<{
          outcome: string;
          counts: Record<string, number>;
          items: { id: string; reasons: string[] }[];
        }>("POST", "/jobs/quality-scan", undefined, { timeoutMs });
        const lines = out.items.map((i, n) => `${n + 1}. ${i.id}: ${i.reasons.join(", ")}`);
        const head = `Quality scan ${out.outcome}: ${out.items.length} memories flagged (${counts(out.counts)}).`;
        return { text: [head, ...lines].join("\n"), details: out };
      },
    },
    {
      name: "core_memory_read",
      label: "Core memory read",
      description: "Read core memory: the always-loaded blocks (identity, relationship, preferences, current focus).",
      parameters: object({
        name: str("one block's name (default: every block)"),
        subject: str("the person the blocks are about (default: the agent's own)"),
      }),
      run: async (p, client, _r, timeoutMs) => {
        const where = p.name ? `/core/${path(String(p.name))}` : "/core";
        const out = await client.request<unknown>("GET", where, undefined, {
          timeoutMs,
          query: { subject: p.subject as string | undefined },
        });
        return { text: JSON.stringify(out, null, 2), details: out };
      },
    },
    {
      name: "core_memory_replace",
      label: "Core memory replace",
      description:
        "Set a field of a core memory block by dot-path (\"preferences.coffee\", \"\" = the whole block). Blocks are size-limited.",
      parameters: object(
        {
          name: str("the block's name, e.g. identity"),
          path: str("dot-path inside the block; \"\" replaces the whole block"),
          value: ANY_JSON,
          subject: str("the person the block is about (default: the agent's own)"),
        },
        ["name", "path", "value"],
      ),
      run: async (p, client, _r, timeoutMs) => {
        const body = defined({ path: p.path, value: jsonValue(p.value), subject: p.subject });
        const out = await client.request<unknown>("POST", `/core/${path(String(p.name))}/replace`, body, { timeoutMs });
        return { text: `Core memory "${p.name}" updated:\n${JSON.stringify(out, null, 2)}`, details: out };
      },
    },
    {
      name: "core_memory_append",
      label: "Core memory append",
      description: "Append a value to an array field of a core memory block (dot-path, e.g. \"people.friends\").",
      parameters: object(
        {
          name: str("the block's name"),
          path: str("dot-path of the array"),
          value: ANY_JSON,
          subject: str("the person the block is about (default: the agent's own)"),
        },
        ["name", "path", "value"],
      ),
      run: async (p, client, _r, timeoutMs) => {
        const body = defined({ path: p.path, value: jsonValue(p.value), subject: p.subject });
        const out = await client.request<unknown>("POST", `/core/${path(String(p.name))}/append`, body, { timeoutMs });
        return { text: `Core memory "${p.name}" updated:\n${JSON.stringify(out, null, 2)}`, details: out };
      },
    },
    {
      name: "episode_recall",
      label: "Episode recall",
      description: "Past conversations (episode summaries): by topic with a query, else the most recent ones.",
      parameters: object({
        query: str("topic to look for (default: the most recent episodes)"),
        limit: int("how many (default 3)", 1, 50),
      }),
      run: async (p, client, _r, timeoutMs) => {
        const out = await client.request<{ episodes: { id: string; summary: string; session?: string; ended_at?: string }[] }>(
          "GET",
          "/episodes",
          undefined,
          { timeoutMs, query: { query: p.query as string | undefined, limit: (p.limit as number | undefined) ?? 3 } },
        );
        const lines = out.episodes.map((e, i) => `${i + 1}. ${e.summary} (${e.ended_at?.slice(0, 10) ?? ""}, id: ${e.id})`);
        return { text: lines.length ? `Episodes:\n${lines.join("\n")}` : "No episodes found.", details: out };
      },
    },
    {
      name: "graph_query",
      label: "Graph query",
      description: "Facts (subject – relation – object) around an entity, following relations up to `depth` steps.",
      parameters: object(
        {
          entity: str("the person, place or thing"),
          depth: int("how many steps out (default 1)", 1, 3),
          asOf: str("ISO date-time: the facts that held then (default: now)"),
        },
        ["entity"],
      ),
      run: async (p, client, _r, timeoutMs) => {
        const out = await client.request<{ facts: { subject: string; relation: string; object: string; valid_from?: string | null }[] }>(
          "GET",
          "/facts",
          undefined,
          { timeoutMs, query: { entity: p.entity as string, depth: p.depth as number | undefined, as_of: p.asOf as string | undefined } },
        );
        const lines = out.facts.map((f) => `- ${f.subject} ${f.relation} ${f.object}${f.valid_from ? ` (since ${f.valid_from.slice(0, 10)})` : ""}`);
        return { text: lines.length ? lines.join("\n") : `No facts about ${p.entity}.`, details: out };
      },
    },
    {
      name: "graph_add",
      label: "Graph add",
      description: "Record a fact as subject – relation – object; a contradicting older fact is closed, not deleted.",
      parameters: object(
        {
          subject: str("who or what the fact is about"),
          relation: str("the relation, e.g. works_at"),
          object: str("the other end"),
          validFrom: str("ISO date-time the fact holds from (default: now)"),
          sources: strings("ids of the memories this fact comes from"),
        },
        ["subject", "relation", "object"],
      ),
      run: async (p, client, _r, timeoutMs) => {
        const body = defined({ subject: p.subject, relation: p.relation, object: p.object, valid_from: p.validFrom, sources: p.sources });
        const out = await client.request<{ id: number }>("POST", "/facts", body, { timeoutMs });
        return { text: `Recorded: ${p.subject} ${p.relation} ${p.object} (fact ${out.id}).`, details: out };
      },
    },
    {
      name: "memory_reflect",
      label: "Memory reflect",
      description:
        "Reflect now over the memories written since the last reflection: what recurs, what changed, what is " +
        "still open. Stores one reflection memory citing them (normally written once a day).",
      parameters: object({}),
      run: async (_p, client, _r, timeoutMs) => {
        const out = await client.request<{ outcome: string; id?: string; text?: string; cites: string[] }>(
          "POST",
          "/reflect",
          undefined,
          { timeoutMs },
        );
        if (out.outcome !== "written") return { text: "Nothing new to reflect on (fewer than 3 memories since the last reflection).", details: out };
        return { text: `${out.text}\n(reflection ${out.id}, citing ${out.cites.length} memories)`, details: out };
      },
    },
    {
      name: "episode_save",
      label: "Episode save",
      description:
        "Save a summary of this conversation (what happened, decisions, open items) as an episode, so a later " +
        "session can ask what was discussed. memory-engine's episode_save.",
      parameters: object(
        {
          summary: str("what the conversation was about and what came of it (a few sentences)"),
          decisions: strings("decisions taken"),
          topics: strings("topics discussed"),
          mood: str("the user's mood, if it matters"),
          participants: strings("who took part"),
        },
        ["summary"],
      ),
      run: async (p, client, _r, timeoutMs, ctx) => {
        const parts = [`Episode: ${String(p.summary).trim()}`];
        const list = (v: unknown) => (Array.isArray(v) ? v.map(String).filter(Boolean) : []);
        if (list(p.decisions).length) parts.push(`Decisions: ${list(p.decisions).join("; ")}.`);
        if (list(p.topics).length) parts.push(`Topics: ${list(p.topics).join(", ")}.`);
        if (typeof p.mood === "string" && p.mood.trim()) parts.push(`Mood: ${p.mood.trim()}.`);
        if (list(p.participants).length) parts.push(`Participants: ${list(p.participants).join(", ")}.`);
        const session = (ctx.sessionId || ctx.sessionKey || "").slice(0, 150);
        const body = defined({
          text: parts.join("\n"),
          context: `episode summary saved by the agent${session ? ` (session ${session})` : ""}`,
        });
        const out = await client.request<{ id: string }>("POST", "/memories/episodic", body, { timeoutMs });
        return { text: `Episode saved as ${out.id}.`, details: out };
      },
    },
    {
      name: "archival_insert",
      label: "Archival insert",
      description:
        "memory-engine's name for memory_add: store a fact in long-term memory (1–3 specific sentences). " +
        "entity and tags are accepted for compatibility and not stored: amem derives keywords and topics itself.",
      parameters: object(
        {
          content: str("the fact to store (1–3 sentences, specific)"),
          entity: str("the main person or thing it is about"),
          tags: strings("category tags"),
        },
        ["content"],
      ),
      run: async (p, client, _r, timeoutMs) => {
        const out = await client.request<{ id: string; outcome: string }>("POST", "/memories", { text: p.content }, { timeoutMs });
        return { text: `${out.outcome === "created" ? "Stored" : `${out.outcome}:`} ${out.id}.`, details: out };
      },
    },
    {
      name: "archival_search",
      label: "Archival search",
      description: "memory-engine's name for memory_search: search long-term memory by meaning and keywords.",
      parameters: object(
        {
          query: str("what to look for"),
          top_k: int("how many results (default 5)", 1, 100),
        },
        ["query"],
      ),
      run: async (p, client, resolved, timeoutMs) => {
        const body = { query: p.query, limit: p.top_k ?? resolved.topK };
        return searchResult(state, await client.request<{ results: Hit[] }>("POST", "/memories/search", body, { timeoutMs }), String(p.query), resolved.openclawAgent);
      },
    },
  ];
}

export const TOOL_NAMES = [
  "memory_search",
  "memory_add",
  "memory_list",
  "memory_get",
  "memory_update",
  "memory_forget",
  "memory_consolidate",
  "memory_quality_scan",
  "core_memory_read",
  "core_memory_replace",
  "core_memory_append",
  "episode_recall",
  "graph_query",
  "graph_add",
  "memory_reflect",
  "episode_save",
  "archival_insert",
  "archival_search",
];

/** The tools for one OpenClaw agent/session: each call uses the amem key mapped to it. */
export function toolsFor(state: PluginState, ctx: CallContext): AnyAgentTool[] {
  return toolSpecs(state).map((spec) => ({
    name: spec.name,
    label: spec.label,
    description: spec.description,
    parameters: spec.parameters,
    async execute(_toolCallId: string, params: unknown): Promise<ToolResult> {
      const { client, resolved } = state.clientFor(ctx);
      const args = (params && typeof params === "object" ? params : {}) as Params;
      const done = await spec.run(args, client, resolved, state.cfg.toolTimeoutMs, ctx);
      return { content: [{ type: "text", text: done.text }], details: done.details };
    },
  }));
}
