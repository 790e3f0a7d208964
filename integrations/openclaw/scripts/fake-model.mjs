#!/usr/bin/env node
/**
 * A fake OpenAI-compatible model provider for the gateway end-to-end run (scripts/gateway-e2e.mjs).
 *
 *   node scripts/fake-model.mjs <port> <record.jsonl>
 *
 * GET  /v1/models            one model, "fake-model"
 * POST /v1/chat/completions  a fixed reply (streamed as SSE when the request asks for stream: true)
 *
 * Every request is appended to <record.jsonl> as {"path", "body"} so the script can check what
 * OpenClaw sent (the recalled memory must be in the prompt). The reply is fixed unless the last user
 * message contains "[call:<tool> <json args>]": then the model answers with that tool call once
 * (the next request, carrying the tool result, gets the fixed reply).
 */

import { appendFileSync } from "node:fs";
import { createServer } from "node:http";

const port = Number(process.argv[2] ?? 0);
const record = process.argv[3] ?? "fake-model-requests.jsonl";
const REPLY = "OK, noted. (fake model reply)";

/** The text of the user messages since the last assistant message; null when a tool result came back. */
function lastUserText(body) {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  const parts = [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m.role === "tool") return null; // a tool result came back: answer in text
    if (m.role === "assistant") break;
    if (m.role !== "user") continue;
    if (typeof m.content === "string") parts.unshift(m.content);
    else if (Array.isArray(m.content)) parts.unshift(m.content.map((p) => p?.text ?? "").join("\n"));
  }
  return parts.join("\n");
}

function toolCallFor(body) {
  const text = lastUserText(body);
  if (!text) return null;
  const match = /\[call:([a-z_]+) (\{.*?\})\]/s.exec(text);
  if (!match) return null;
  const tools = Array.isArray(body.tools) ? body.tools.map((t) => t?.function?.name) : [];
  if (!tools.includes(match[1])) return null;
  return { id: `call_${Date.now()}`, type: "function", function: { name: match[1], arguments: match[2] } };
}

function send(res, body) {
  const created = Math.floor(Date.now() / 1000);
  const call = toolCallFor(body);
  const model = body.model ?? "fake-model";
  const usage = { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 };
  if (!body.stream) {
    const message = call ? { role: "assistant", content: null, tool_calls: [call] } : { role: "assistant", content: REPLY };
    res.writeHead(200, { "content-type": "application/json" });
    res.end(
      JSON.stringify({
        id: "chatcmpl-fake",
        object: "chat.completion",
        created,
        model,
        choices: [{ index: 0, message, finish_reason: call ? "tool_calls" : "stop" }],
        usage,
      }),
    );
    return;
  }
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
  const chunk = (delta, finish = null, extra = {}) =>
    res.write(
      `data: ${JSON.stringify({
        id: "chatcmpl-fake",
        object: "chat.completion.chunk",
        created,
        model,
        choices: [{ index: 0, delta, finish_reason: finish }],
        ...extra,
      })}\n\n`,
    );
  if (call) {
    chunk({ role: "assistant", content: null, tool_calls: [{ index: 0, ...call }] });
    chunk({}, "tool_calls");
  } else {
    chunk({ role: "assistant", content: REPLY });
    chunk({}, "stop");
  }
  res.write(`data: ${JSON.stringify({ id: "chatcmpl-fake", object: "chat.completion.chunk", created, model, choices: [], usage })}\n\n`);
  res.end("data: [DONE]\n\n");
}

const server = createServer((req, res) => {
  let raw = "";
  req.on("data", (d) => (raw += d));
  req.on("end", () => {
    let body = {};
    try {
      body = raw ? JSON.parse(raw) : {};
    } catch {
      body = { unparsed: raw };
    }
    appendFileSync(record, JSON.stringify({ method: req.method, path: req.url, body }) + "\n");
    const path = (req.url ?? "").split("?")[0];
    if (req.method === "GET" && path.endsWith("/models")) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ object: "list", data: [{ id: "fake-model", object: "model", owned_by: "fake" }] }));
      return;
    }
    if (req.method === "POST" && path.endsWith("/chat/completions")) {
      send(res, body);
      return;
    }
    res.writeHead(404, { "content-type": "application/json" });
    res.end(JSON.stringify({ error: { message: `fake model: no route ${req.method} ${path}` } }));
  });
});

server.listen(port, "127.0.0.1", () => {
  const address = server.address();
  process.stdout.write(`fake model listening on http://127.0.0.1:${address.port}/v1\n`);
});
for (const sig of ["SIGTERM", "SIGINT"]) process.on(sig, () => server.close(() => process.exit(0)));
