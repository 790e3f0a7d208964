/**
 * The recall block's token budget, counted the way the agents' models count: OpenAI's cl100k_base
 * (GPT-4, GPT-3.5) and o200k_base (GPT-4o, GPT-5, o-series), with js-tiktoken (the tiktoken port
 * OpenAI's own JS libraries use). amem packs the bundle with its own tokenizer, which counts
 * Chinese and code lower than both; the plugin counts the whole block, tags and heading included,
 * with each encoding and drops notes from the end until the larger count fits.
 */

import type { Tiktoken } from "js-tiktoken/lite";

type Encodings = { cl100k: Tiktoken; o200k: Tiktoken };
let loaded: Promise<Encodings> | undefined;

/** Both encodings, loaded once on first use (their rank tables are a few MB of JavaScript). */
export function encodings(): Promise<Encodings> {
  loaded ??= (async () => {
    const { Tiktoken } = await import("js-tiktoken/lite");
    const [cl100k, o200k] = await Promise.all([import("js-tiktoken/ranks/cl100k_base"), import("js-tiktoken/ranks/o200k_base")]);
    return { cl100k: new Tiktoken(cl100k.default), o200k: new Tiktoken(o200k.default) };
  })();
  return loaded;
}

/** Tokens of `text` under each encoding. */
export async function countTokens(text: string): Promise<{ cl100k: number; o200k: number }> {
  const { cl100k, o200k } = await encodings();
  return { cl100k: cl100k.encode(text).length, o200k: o200k.encode(text).length };
}

/** The larger of the two counts: what the block may take. */
export async function maxTokens(text: string): Promise<number> {
  const counted = await countTokens(text);
  return Math.max(counted.cl100k, counted.o200k);
}

/** A line the block can do without: a note or fact item ("- …"), never a heading or core memory. */
const DROPPABLE = /^- /;

/**
 * The recalled text cut to fit: `wrap(text)` (the block as injected) at most `budget` tokens under
 * both encodings, dropping the last note or fact lines first (amem orders notes by day, so the
 * ones given way are its last), then any heading or day line left with nothing under it. "" when
 * not even one item fits.
 */
export async function fitToBudget(text: string, budget: number, wrap: (t: string) => string): Promise<string> {
  let lines = text.split("\n");
  while (lines.some((l) => DROPPABLE.test(l)) && (await maxTokens(wrap(lines.join("\n")))) > budget) {
    let last = -1;
    for (let i = lines.length - 1; i >= 0; i--) if (DROPPABLE.test(lines[i])) ((last = i), (i = -1));
    lines.splice(last, 1);
    lines = withoutEmptyHeadings(lines);
  }
  if (!lines.some((l) => DROPPABLE.test(l))) return "";
  return (await maxTokens(wrap(lines.join("\n")))) <= budget ? lines.join("\n") : "";
}

/** Headings ("# Relevant notes") and day lines ("[1 May 2026]") with no item after them go. */
export function withoutEmptyHeadings(lines: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (/^# /.test(line) && !/^# Core memory$/.test(line)) {
      const next = lines.slice(i + 1).find((l) => !/^\[[^\]]*\d{4}\]$/.test(l));
      if (next === undefined || /^# /.test(next)) continue;
    }
    if (/^\[[^\]]*\d{4}\]$/.test(line) && (i + 1 >= lines.length || !DROPPABLE.test(lines[i + 1]))) continue;
    out.push(line);
  }
  return out;
}
