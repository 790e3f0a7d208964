/**
 * Which amem agent a call acts for, so that each OpenClaw agent has its own memory without setup.
 *
 * - A **gateway key** (`amem_gw_…`, made with `manage.py amem_gateway create openclaw-home-` or in
 *   Django admin) acts for many amem agents under the id prefix it owns: OpenClaw agent `main`
 *   becomes amem agent `openclaw-home-main`, `writer` becomes `openclaw-home-writer`, each created
 *   by amem on first use. The plugin learns the prefix once (`GET /key`) and names the agent in the
 *   `X-Amem-Agent` header; amem refuses anything outside the prefix.
 * - An **agent key** (`amem_…`) is one amem agent. Given at the top level it serves OpenClaw's
 *   default agent (`main`) only: another agent without its own key gets an error saying what to
 *   set, never main's memories, unless `shareAgentKey: true` says sharing is wanted.
 *
 * `memoryScope` (config.ts) narrows or widens that: `person` gives each person talking to an agent an
 * amem agent of their own under the gateway's prefix (amem isolates agents itself, so one person's
 * memories never reach another's turns, tools or lists); `shared` gives every agent and person one.
 */

import { createHash } from "node:crypto";

export const ACTING_HEADER = "X-Amem-Agent";
export const DEFAULT_OPENCLAW_AGENT = "main";
const MAX_AGENT_ID = 64;

export type KeyInfo = { kind: "agent"; agent?: string } | { kind: "gateway"; prefix: string };

/**
 * The amem agent id for an OpenClaw agent under a gateway prefix: lower case, anything outside
 * amem's id alphabet turned into "-". When that changed the id or it is too long, a short hash of
 * the original keeps two different OpenClaw agents from landing on one amem agent.
 */
export function amemAgentId(prefix: string, openclawAgent: string): string {
  const slug = openclawAgent.toLowerCase().replace(/[^a-z0-9_-]/g, "-");
  const plain = `${prefix}${slug}`;
  if (slug === openclawAgent && plain.length <= MAX_AGENT_ID) return plain;
  const tag = createHash("sha256").update(openclawAgent).digest("hex").slice(0, 8);
  return `${prefix}${slug.slice(0, Math.max(1, MAX_AGENT_ID - prefix.length - tag.length - 1))}-${tag}`;
}

/** The amem agent of one person talking to one OpenClaw agent (always hashed: never a plain agent's id). */
export function personAgentId(prefix: string, openclawAgent: string, person: string): string {
  return amemAgentId(prefix, `${openclawAgent}~${person}`);
}

/** The one amem agent of memoryScope "shared" (hashed, so no OpenClaw agent called "shared" lands on it). */
export function sharedAgentId(prefix: string): string {
  return amemAgentId(prefix, "shared~");
}

/** What OpenClaw tells a hook or a tool about who is talking (the SDK's field names). */
export type PersonContext = {
  sessionKey?: string;
  /** Hooks: the channel-scoped sender of the turn. */
  senderId?: string;
  /** Tools: the same, "trusted sender id from inbound context". */
  requesterSenderId?: string;
  channelContext?: { sender?: { id?: unknown } };
  channel?: string;
  messageProvider?: string;
  messageChannel?: string;
};

/**
 * The person a turn is with: the peer of a direct-message session key first (what OpenClaw itself
 * keeps people apart by, `agent:<id>:<channel>:direct:<peer>` under session.dmScope, canonical
 * across channels with session.identityLinks), then the sender OpenClaw names (qualified by its
 * channel: the same number on two channels is not known to be one person), then `fallback`
 * (mem0's userId) when OpenClaw names nobody, as in a CLI turn.
 */
export function personOf(ctx: PersonContext | undefined, fallback: string): string {
  const parts = (ctx?.sessionKey ?? "").split(":");
  if (parts[0] === "" && parts.length > 1) parts.shift();
  if (parts[0] === "agent" && parts.length > 3) {
    const at = parts.indexOf("direct", 2);
    if (at > 1 && parts[at + 1]) return [...parts.slice(2, at), parts[at + 1]].join(":");
  }
  const sender = ctx?.senderId || ctx?.requesterSenderId || ctx?.channelContext?.sender?.id;
  if (typeof sender === "string" && sender.trim()) {
    const channel = ctx?.channel || ctx?.messageProvider || ctx?.messageChannel;
    return channel ? `${channel}:${sender.trim()}` : sender.trim();
  }
  return fallback;
}

/** What a raw key is, asked of amem once per key and process (GET /key); an amem without the route: an agent key. */
export class KeyKinds {
  private readonly known = new Map<string, Promise<KeyInfo>>();

  constructor(private readonly ask: (apiKey: string) => Promise<KeyInfo>) {}

  of(apiKey: string): Promise<KeyInfo> {
    let found = this.known.get(apiKey);
    if (!found) {
      found = this.ask(apiKey);
      this.known.set(apiKey, found);
      // A failure (amem down) is not remembered: the next call asks again.
      found.catch(() => this.known.delete(apiKey));
    }
    return found;
  }
}
