/**
 * The relevance floor: whether a recalled note or a search match bears on the message at all, so
 * an unrelated turn gets no memory block and memory_search is not padded to topK with weak matches.
 *
 * amem's `similarity` is the cosine between the query and the note (its dense model), an absolute
 * measure, unlike the fused `score`, which is scaled to each search's own best hit. A match whose
 * similarity is 0 was found by its words alone: amem does not embed a query its dense model cannot
 * read (Chinese on the English-only default). Such a match counts when it shares words with the
 * query: two Chinese word pairs not among the commonest, or one Latin word of four letters or more.
 */

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

export type Scored = { content: string; similarity?: number; via?: string };

/** Relevant: similarity at least `threshold`, or, found by its words alone, sharing words with the query. */
export function relevant(hit: Scored, query: string, threshold: number): boolean {
  if (threshold <= 0) return true; // no floor
  if (typeof hit.similarity === "number" && hit.similarity !== 0) return hit.similarity >= threshold;
  return sharesWords(hit.content, query);
}
