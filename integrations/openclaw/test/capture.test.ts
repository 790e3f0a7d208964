/**
 * Auto-capture on the labelled chat turns (test/fixtures/capture-turns.jsonl, 210 turns: statement /
 * request / question / chit-chat, English and Chinese), through the plugin's agent_end hook and a LIVE
 * amem (POST /turns, its offline CRUD gate): what is stored is scored against the statements each turn
 * lists. Precision: stored statements that are listed; recall: listed statements that were stored.
 * Each turn gets an amem agent of its own (a gateway key), so no turn's memory shadows another's.
 */

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";

import plugin from "../src/index.js";
import { fakeApi } from "./helpers/fake-api.js";
import { startAmem, type LiveAmem } from "./helpers/server.js";

type Turn = { id: string; lang: string; kind: string; text: string; keep: string[] };

const TURNS: Turn[] = readFileSync(join(process.cwd(), "test", "fixtures", "capture-turns.jsonl"), "utf8")
  .split("\n")
  .filter(Boolean)
  .map((l) => JSON.parse(l));

// A date the capture writes beside a relative one ("last month (October 2026)") is not part of the statement.
const ANCHOR = /\s*[(（][^()（）]*\d{4}[^()（）]*[)）]/g;
const norm = (t: string) => t.replace(ANCHOR, "").toLowerCase().replace(/[\p{P}\p{S}\s_]+/gu, "");
const matches = (kept: string, gold: string) => {
  const [a, b] = [norm(kept), norm(gold)];
  return !!a && !!b && (a.includes(b) || b.includes(a));
};

export function score(kept: Map<string, string[]>, turns: Turn[]): { precision: number; recall: number } {
  let keptTotal = 0, keptRight = 0, goldTotal = 0, goldFound = 0;
  for (const t of turns) {
    const mine = kept.get(t.id) ?? [];
    keptTotal += mine.length;
    keptRight += mine.filter((k) => t.keep.some((g) => matches(k, g))).length;
    goldTotal += t.keep.length;
    goldFound += t.keep.filter((g) => mine.some((k) => matches(k, g))).length;
  }
  return { precision: keptRight / Math.max(keptTotal, 1), recall: goldFound / Math.max(goldTotal, 1) };
}

let amem: LiveAmem;
before(async () => {
  amem = await startAmem([]);
});
after(async () => {
  await amem?.stop();
});

describe("auto-capture on 210 labelled chat turns", () => {
  it("keeps statements about the user and the world, not requests, questions or chit-chat", async () => {
    const key = /api key: (\S+)/.exec(await amem.manage("amem_gateway", "create", "capture-set-"))![1];
    const rec = fakeApi({ pluginConfig: { serverUrl: amem.url, apiKey: key, captureTimeoutMs: 60000, toolTimeoutMs: 60000 } });
    plugin.register(rec.api);
    const kept = new Map<string, string[]>();
    for (const turn of TURNS) {
      const ctx = { agentId: turn.id, sessionKey: `agent:${turn.id}:cli:1`, sessionId: turn.id };
      const messages = [
        { role: "user", content: turn.text },
        { role: "assistant", content: turn.lang === "zh" ? "好的。" : "Okay." },
      ];
      await rec.hooks.agent_end!({ success: true, messages, runId: `run-${turn.id}` }, ctx);
      const listed = await rec.tools(ctx).get("memory_list")!.execute("list", { limit: 100 });
      kept.set(turn.id, ((listed.details as { results: { content: string }[] }).results ?? []).map((n) => n.content));
    }
    assert.deepEqual(rec.warnings(), []);
    const all = score(kept, TURNS);
    const lines = [`capture through the plugin on ${TURNS.length} turns: precision ${all.precision.toFixed(3)}, recall ${all.recall.toFixed(3)}`];
    for (const lang of ["en", "zh"]) {
      const part = score(kept, TURNS.filter((t) => t.lang === lang));
      lines.push(`  ${lang}: precision ${part.precision.toFixed(3)}, recall ${part.recall.toFixed(3)}`);
    }
    for (const kind of ["statement", "request", "question", "chitchat"]) {
      const of = TURNS.filter((t) => t.kind === kind && !t.keep.length);
      if (of.length) lines.push(`  pure ${kind}s with something stored: ${of.filter((t) => kept.get(t.id)?.length).length} of ${of.length}`);
    }
    const wrong = TURNS.filter((t) => {
      const s = score(new Map([[t.id, kept.get(t.id) ?? []]]), [t]);
      return (kept.get(t.id)?.length || t.keep.length) && (s.precision < 1 || s.recall < 1);
    }).map((t) => `${t.id} ${t.text} → ${JSON.stringify(kept.get(t.id))}`);
    console.log([...lines, ...wrong.map((w) => `  wrong: ${w}`)].join("\n"));
    assert.ok(all.precision >= 0.95, lines.join("\n"));
    assert.ok(all.recall >= 0.9, lines.join("\n"));
  });
});
