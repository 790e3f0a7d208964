// A minimal OpenAI-compatible chat server over node-llama-cpp, for trying amem against a
// real local model (tools/local_llm/__main__.py installs the pieces and starts this).
//
//   node server.mjs --model <file.gguf> [--port 0] [--threads 2] [--ctx 4096] [--api-key KEY]
//
// POST /v1/chat/completions  messages, max_tokens / max_completion_tokens, temperature,
//                            response_format {type: "json_schema", json_schema: {schema}} or
//                            {type: "json_object"}: the output is then constrained by a grammar.
// GET  /v1/models, GET /health
//
// One request is generated at a time (a small model on a shared CPU gains nothing from
// parallel sequences); the others wait in line. Prints "listening on <port>" once ready.
import http from "node:http";
import path from "node:path";
import { parseArgs } from "node:util";
import { getLlama, LlamaChatSession } from "node-llama-cpp";

const { values: args } = parseArgs({
    options: {
        model: { type: "string" },
        port: { type: "string", default: "0" },
        host: { type: "string", default: "127.0.0.1" },
        threads: { type: "string", default: "2" },
        ctx: { type: "string", default: "4096" },
        "api-key": { type: "string", default: "" },
    },
});
if (!args.model) {
    console.error("--model <file.gguf> is required");
    process.exit(2);
}
const modelName = path.basename(args.model, ".gguf");
const threads = Number(args.threads);

const llama = await getLlama({ gpu: false, maxThreads: threads, logLevel: "error" });
const model = await llama.loadModel({ modelPath: args.model });
const context = await model.createContext({ contextSize: Number(args.ctx), sequences: 1, threads });
const grammars = new Map(); // schema JSON -> grammar (building one costs a few ms)

let queue = Promise.resolve();

function inLine(job) {
    const run = queue.then(job, job);
    queue = run.catch(() => undefined);
    return run;
}

async function grammarFor(format) {
    if (!format || typeof format !== "object") return undefined;
    if (format.type === "json_object") return llama.getGrammarFor("json");
    if (format.type !== "json_schema") return undefined;
    const schema = format.json_schema?.schema;
    if (!schema) return llama.getGrammarFor("json");
    const key = JSON.stringify(schema);
    if (!grammars.has(key)) {
        try {
            grammars.set(key, await llama.createGrammarForJsonSchema(schema));
        } catch (error) {
            // A schema feature the grammar builder lacks: plain JSON is the next best constraint.
            console.error(`schema not supported by the grammar builder (${error.message}); using plain JSON`);
            grammars.set(key, await llama.getGrammarFor("json"));
        }
    }
    return grammars.get(key);
}

function history(messages) {
    const system = messages.filter((m) => m.role === "system").map((m) => text(m.content)).join("\n");
    const turns = messages.filter((m) => m.role !== "system");
    const last = turns.pop();
    if (!last || last.role !== "user") throw new Error("the last message must come from the user");
    const earlier = turns.map((m) =>
        m.role === "assistant" ? { type: "model", response: [text(m.content)] } : { type: "user", text: text(m.content) },
    );
    return { system, earlier, prompt: text(last.content) };
}

function text(content) {
    if (typeof content === "string") return content;
    if (Array.isArray(content)) return content.map((part) => part?.text ?? "").join("");
    return "";
}

async function complete(body) {
    const { system, earlier, prompt } = history(body.messages ?? []);
    const maxTokens = Number(body.max_completion_tokens ?? body.max_tokens ?? 256);
    const grammar = await grammarFor(body.response_format);
    const sequence = context.getSequence();
    const before = sequence.tokenMeter.getState();
    try {
        const session = new LlamaChatSession({ contextSequence: sequence, systemPrompt: system || undefined });
        if (earlier.length) session.setChatHistory([...session.getChatHistory(), ...earlier]);
        const answer = await session.prompt(prompt, {
            maxTokens,
            grammar,
            temperature: Number(body.temperature ?? 0),
        });
        const used = sequence.tokenMeter.diff(before);
        return {
            text: answer,
            promptTokens: used.usedInputTokens,
            completionTokens: used.usedOutputTokens,
            finish: used.usedOutputTokens >= maxTokens ? "length" : "stop",
        };
    } finally {
        sequence.dispose();
    }
}

function send(res, status, payload) {
    const data = JSON.stringify(payload);
    res.writeHead(status, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(data) });
    res.end(data);
}

function authorised(req) {
    if (!args["api-key"]) return true;
    return req.headers.authorization === `Bearer ${args["api-key"]}`;
}

const server = http.createServer((req, res) => {
    const url = req.url.split("?")[0];
    if (req.method === "GET" && url === "/health") return send(res, 200, { status: "ok", model: modelName });
    if (!authorised(req)) return send(res, 401, { error: { type: "invalid_request_error", message: "bad api key" } });
    if (req.method === "GET" && url === "/v1/models") {
        return send(res, 200, { object: "list", data: [{ id: modelName, object: "model", owned_by: "local" }] });
    }
    if (req.method !== "POST" || url !== "/v1/chat/completions") {
        return send(res, 404, { error: { type: "not_found_error", message: url } });
    }
    const chunks = [];
    req.on("data", (chunk) => chunks.push(chunk));
    req.on("end", () => {
        let body;
        try {
            body = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}");
        } catch {
            return send(res, 400, { error: { type: "invalid_request_error", message: "body is not JSON" } });
        }
        inLine(() => complete(body)).then(
            (out) =>
                send(res, 200, {
                    id: `chatcmpl-local-${Date.now()}`,
                    object: "chat.completion",
                    created: Math.floor(Date.now() / 1000),
                    model: body.model ?? modelName,
                    choices: [{ index: 0, message: { role: "assistant", content: out.text }, finish_reason: out.finish }],
                    usage: {
                        prompt_tokens: out.promptTokens,
                        completion_tokens: out.completionTokens,
                        total_tokens: out.promptTokens + out.completionTokens,
                    },
                }),
            (error) => send(res, 400, { error: { type: "invalid_request_error", message: String(error?.message ?? error) } }),
        );
    });
});

server.listen(Number(args.port), args.host, () => {
    console.log(`listening on ${server.address().port}`);
});

for (const signal of ["SIGINT", "SIGTERM"]) {
    process.on(signal, () => {
        server.close();
        process.exit(0);
    });
}
