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
