/**
 * A LIVE amem server for the tests: a temporary data dir (SQLite + embedded index), migrated,
 * agents created with `manage.py amem_agent create` (the documented way to get a key), and
 * `manage.py runserver` on a free port. Python: $AMEM_PYTHON, else the repository's .venv (what
 * `make test` installs). No mocks: every request goes over HTTP to the real API.
 */

import { execFile, spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

export const REPO = resolve(process.env.AMEM_REPO ?? join(process.cwd(), "..", ".."));
export const PYTHON = process.env.AMEM_PYTHON ?? join(REPO, ".venv", "bin", "python");

export type LiveAmem = {
  url: string;
  keys: Record<string, string>;
  stop: () => Promise<void>;
  manage: (...args: string[]) => Promise<string>;
};

export async function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once("error", fail);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => done(port));
    });
  });
}

async function waitFor(url: string, child: ChildProcess, log: () => string, ms = 120_000): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`amem exited (${child.exitCode}) before serving:\n${log()}`);
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
      if (response.ok) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`amem did not answer ${url} within ${ms} ms:\n${log()}`);
}

/**
 * The environment of a throw-away amem: its own data dir and SQLite file, the offline model, and
 * nothing inherited that would point it at another index, broker, key or role. Also used by
 * scripts/gateway-e2e.mjs (from build-test/).
 */
export function amemEnv(dataDir: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    AMEM_DATA_DIR: dataDir,
    DATABASE_URL: `sqlite:///${join(dataDir, "amem.sqlite3")}`,
    AMEM_LLM_PROVIDER: "none",
    AMEM_LOG_LEVEL: "WARNING",
    DJANGO_DEBUG: "0",
    PYTHONUNBUFFERED: "1",
  };
  for (const name of ["AMEM_QDRANT_URL", "AMEM_REDIS_URL", "AMEM_API_KEY", "AMEM_PROCESS_ROLE"]) delete env[name];
  return env;
}

export async function startAmem(agents: string[] = ["oc-main", "oc-writer"]): Promise<LiveAmem> {
  if (!existsSync(PYTHON)) {
    throw new Error(`no Python for amem at ${PYTHON}: run \`make install\` in ${REPO}, or set AMEM_PYTHON`);
  }
  const dataDir = mkdtempSync(join(tmpdir(), "amem-openclaw-test-"));
  const env = amemEnv(dataDir);
  const manage = async (...args: string[]) =>
    (await run(PYTHON, ["manage.py", ...args], { cwd: REPO, env, maxBuffer: 16 << 20 })).stdout;
  await manage("migrate", "--verbosity", "0");
  const keys: Record<string, string> = {};
  for (const agent of agents) {
    const out = await manage("amem_agent", "create", agent);
    const key = /api key: (\S+)/.exec(out)?.[1];
    if (!key) throw new Error(`amem_agent create ${agent} printed no key:\n${out}`);
    keys[agent] = key;
  }
  const port = await freePort();
  const child = spawn(PYTHON, ["manage.py", "runserver", `127.0.0.1:${port}`, "--noreload"], {
    cwd: REPO,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (d) => (output += d));
  child.stderr?.on("data", (d) => (output += d));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null) {
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
      if (child.exitCode === null) child.kill("SIGKILL");
    }
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await waitFor(`${url}/healthz`, child, () => output.slice(-4000));
  } catch (err) {
    await stop();
    throw err;
  }
  return { url, keys, stop, manage };
}

/** Tokens in `text` as amem counts recall budgets (engine/layers/tokens.py), to check a budget end to end. */
export async function countTokens(text: string): Promise<number> {
  const script = "import sys\nfrom engine.layers import tokens\nprint(tokens.count(sys.stdin.read()))";
  const child = execFile(PYTHON, ["-c", script], { cwd: REPO });
  child.stdin?.end(text);
  let out = "";
  child.stdout?.on("data", (d) => (out += d));
  const code = await new Promise<number | null>((r) => child.once("exit", r));
  if (code !== 0) throw new Error(`token count failed (${code})`);
  return Number(out.trim());
}
