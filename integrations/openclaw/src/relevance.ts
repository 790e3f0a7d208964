/**
 * The relevance floor: whether a recalled note or a search match bears on the message at all, so
 * an unrelated turn gets no memory block and memory_search is not padded to topK with weak matches.
 *
 * amem gives each note a `relevance`: how likely it bears on the query (0–1), a model over its
 * cosine, the share of the query's words it holds and its BM25 score, fitted on labelled recall
 * queries in English and Chinese (amem's docs/benchmarks.md, "Recall floor"). The floor compares
 * that. A raw cosine made a poor floor: the note that answered "Where do I live these days?" had
 * 0.29 against a default of 0.3, and a Chinese query has no cosine at all on the English-only model.
 *
 * A note without a `relevance` (a Chinese query, which amem's English-only default model does not
 * embed; or an amem before 2026-12) is read as before: its cosine, or for a match without one, shared
 * words (two Chinese word pairs not among the commonest, or one Latin word of four letters or more).
 */

/**
 * amem's default floor (its engine/retrieval/relevance_weights.py FLOOR): half the lowest relevance a
 * note labelled relevant got in its English fit sets. It drops little; a stricter floor buys
 * precision at the answer's cost (amem's docs/benchmarks.md, "Recall floor", has the trade). Both
 * thresholds default to it.
 */
export const RELEVANCE_FLOOR = 0.02;

const CJK = /[\u3400-\u4dbf\u4e00-\u9fff]/;
// Character pairs so common that sharing one says nothing about the topic.
const COMMON_PAIRS = new Set(
  "我们 你们 他们 什么 一个 没有 可以 这个 那个 今天 明天 昨天 时候 现在 已经 还是 就是 不是 自己 知道 觉得 开始 一下 一些 怎么 为什么 哪里 我的 你的 是的 了吗 好的 这些 那些 因为 所以 但是 如果 然后 的时 时间 一直 还有 喜欢 我在 我是 我有 我想 在哪"
    .split(" "),
);
const LATIN_STOP = new Set(
  "what when where which while with that this these those there their them they have has had does did done from into about your yours mine were been being will would could should shall than then also just only very much many more most some such like know tell said says".split(" "),
);

function pairs(text: string): Set<string> {
  const out = new Set<string>();
  const chars = [...text];
  for (let i = 0; i + 1 < chars.length; i++) {
    if (CJK.test(chars[i]) && CJK.test(chars[i + 1])) {
      const pair = chars[i] + chars[i + 1];
      if (!COMMON_PAIRS.has(pair)) out.add(pair);
    }
  }
  return out;
}

function words(text: string): Set<string> {
  return new Set((text.toLowerCase().match(/[a-z][a-z'-]{3,}/g) ?? []).filter((w) => !LATIN_STOP.has(w)));
}

/** Whether `content` shares enough words with `query` to be about the same thing. */
export function sharesWords(content: string, query: string): boolean {
  const q = pairs(query);
  let shared = 0;
  for (const p of pairs(content)) if (q.has(p) && ++shared >= 2) return true;
  const qw = words(query);
  for (const w of words(content)) if (qw.has(w)) return true;
  return false;
}

export type Scored = { content: string; similarity?: number; relevance?: number; via?: string };

/** Relevant: `relevance` at least `threshold`; from an older amem, its cosine or shared words. */
export function relevant(hit: Scored, query: string, threshold: number): boolean {
  if (threshold <= 0) return true; // no floor
  if (typeof hit.relevance === "number") return hit.relevance >= threshold;
  if (typeof hit.similarity === "number" && hit.similarity !== 0) return hit.similarity >= threshold;
  return sharesWords(hit.content, query);
}
