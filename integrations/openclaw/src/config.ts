/**
 * The plugin's configuration (`plugins.entries.amem.config` in openclaw.json): defaults, validation,
 * API keys from the environment, and which amem key serves which OpenClaw agent.
 *
 * The JSON Schema the gateway shows and checks is in openclaw.plugin.json; `validateConfig` applies the
 * same rules at run time (a test keeps the two in step).
 */

export type CaptureTarget = "turns" | "conversations";

/** A secret given as a reference instead of in clear: `{"source": "env", "id": "AMEM_API_KEY"}`. */
export type SecretRef = { source: "env"; provider?: string; id: string };

/** What one OpenClaw agent (or one session key) may override. */
export type AgentOverride = {
  apiKey?: string | SecretRef;
  apiKeyEnv?: string;
  autoRecall?: boolean;
  autoCapture?: boolean;
  topK?: number;
  tokenBudget?: number;
};

export type AmemPluginConfig = {
  serverUrl: string;
  apiKey?: string | SecretRef;
  apiKeyEnv: string;
  topK: number;
  tokenBudget: number;
  autoRecall: boolean;
  autoCapture: boolean;
  captureTarget: CaptureTarget;
  recallTimeoutMs: number;
  captureTimeoutMs: number;
  toolTimeoutMs: number;
  minPromptChars: number;
  shareAgentKey: boolean;
  agents: Record<string, AgentOverride>;
};

export const DEFAULTS: Omit<AmemPluginConfig, "apiKey"> = {
  serverUrl: "http://127.0.0.1:8000",
  apiKeyEnv: "AMEM_API_KEY",
  topK: 5,
  tokenBudget: 1200,
  autoRecall: true,
  autoCapture: true,
  captureTarget: "turns",
  recallTimeoutMs: 3000,
  captureTimeoutMs: 15000,
  toolTimeoutMs: 30000,
  minPromptChars: 5,
  shareAgentKey: false,
  agents: {},
};

type Rule = (value: unknown) => string | null;

const isInt = (min: number, max: number): Rule => (v) =>
  typeof v === "number" && Number.isInteger(v) && v >= min && v <= max ? null : `must be an integer from ${min} to ${max}`;
const isBool: Rule = (v) => (typeof v === "boolean" ? null : "must be true or false");
const isEnvName: Rule = (v) =>
  typeof v === "string" && /^[A-Za-z_][A-Za-z0-9_]*$/.test(v) ? null : "must be an environment variable name";
const isUrl: Rule = (v) => {
  if (typeof v !== "string") return "must be an http(s) URL";
  try {
    const url = new URL(v);
    return url.protocol === "http:" || url.protocol === "https:" ? null : "must be an http(s) URL";
  } catch {
    return "must be an http(s) URL";
  }
};
const isSecret: Rule = (v) => {
  if (typeof v === "string") return v.trim() ? null : "must not be empty";
  if (v && typeof v === "object" && !Array.isArray(v)) {
    const ref = v as Record<string, unknown>;
    const extra = Object.keys(ref).filter((k) => !["source", "provider", "id"].includes(k));
    if (ref.source === "env" && typeof ref.id === "string" && ref.id && extra.length === 0) return null;
  }
  return 'must be a key ("amem_…", "${AMEM_API_KEY}") or {"source": "env", "id": "AMEM_API_KEY"}';
};

export const OVERRIDE_RULES: Record<keyof AgentOverride, Rule> = {
  apiKey: isSecret,
  apiKeyEnv: isEnvName,
  autoRecall: isBool,
  autoCapture: isBool,
  topK: isInt(1, 100),
  tokenBudget: isInt(64, 32000),
};

export const RULES: Record<Exclude<keyof AmemPluginConfig, "agents">, Rule> = {
  serverUrl: isUrl,
  apiKey: isSecret,
  apiKeyEnv: isEnvName,
  topK: isInt(1, 100),
  tokenBudget: isInt(64, 32000),
  autoRecall: isBool,
  autoCapture: isBool,
  captureTarget: (v) => (v === "turns" || v === "conversations" ? null : 'must be "turns" or "conversations"'),
  recallTimeoutMs: isInt(100, 120000),
  captureTimeoutMs: isInt(100, 300000),
  toolTimeoutMs: isInt(100, 600000),
  minPromptChars: isInt(0, 1000),
  shareAgentKey: isBool,
};

function isObject(value: unknown): value is Record<string, unknown> {
  return !!value && typeof value === "object" && !Array.isArray(value);
}

/** Every problem with a raw config, as "field: message" lines ([] = fine). Unknown keys are problems. */
export function configErrors(raw: unknown): string[] {
  if (raw === undefined || raw === null) return [];
  if (!isObject(raw)) return ["config must be an object"];
  const errors: string[] = [];
  for (const [key, value] of Object.entries(raw)) {
    if (key === "agents") {
      if (!isObject(value)) {
        errors.push("agents: must be an object mapping an OpenClaw agent id or session key to overrides");
        continue;
      }
      for (const [who, override] of Object.entries(value)) {
        if (!isObject(override)) {
          errors.push(`agents.${who}: must be an object`);
          continue;
        }
        for (const [k, v] of Object.entries(override)) {
          const rule = OVERRIDE_RULES[k as keyof AgentOverride];
          const problem = rule ? rule(v) : seedKeyProblem(k);
          if (problem) errors.push(`agents.${who}.${k}: ${problem}`);
        }
      }
      continue;
    }
    const rule = RULES[key as keyof typeof RULES];
    const problem = rule ? rule(value) : seedKeyProblem(key);
    if (problem) errors.push(`${key}: ${problem}`);
  }
  return errors;
}

/**
 * The seed plugins' config keys that have no place here, each refused with what to use instead
 * (openclaw-amem: agentId, collection, qdrantUrl, llm*; memory-engine: workspace, coreSizeLimit;
 * mem0: userId, …). The full mapping is in the README ("Moving from the seed plugins").
 */
export const SEED_KEYS: Record<string, string> = {
  agentId:
    "not needed: each OpenClaw agent gets its own amem agent (a gateway key names it <prefix><agent id>); to keep an openclaw-amem agent's memories, import them with `manage.py amem_import --format openclaw-amem --map-agent <old>=<amem agent>`",
  collection:
    "set on the amem server, not here: an amem agent's own index is its `collection` field (Django admin or `manage.py amem_agent create <id> --collection <name>`)",
  qdrantUrl: "set on the amem server (AMEM_QDRANT_URL), not here; the plugin only needs serverUrl",
  qdrantApiKey: "set on the amem server, not here; the plugin only needs serverUrl and apiKey",
  llmProvider: "the model is amem's: set AMEM_LLM_PROVIDER (and its key) on the amem server",
  llmModel: "the model is amem's: set AMEM_LLM_MODEL on the amem server",
  llmBaseUrl: "the model is amem's: set AMEM_LLM_BASE_URL on the amem server",
  llmApiKey: "the model is amem's: set its key in the amem server's environment, not in openclaw.json",
  embeddingModel: "amem embeds with its own model (AMEM_EMBEDDING_MODEL on the server)",
  workspace: "amem keeps memories on the server; import a memory-engine workspace with `manage.py amem_import --format memory-engine`",
  coreSizeLimit: "core block size limits are amem's (AMEM_CORE_BLOCK_LIMIT on the server)",
  userId: "mem0's userId: amem's agent comes from the OpenClaw agent (gateway key) or apiKey; people are `subjects`",
  sharing: "sharing is explicit per memory in amem: memory_add with scope: \"shared\"",
  conflictSweep: "amem's nightly jobs are set on the server (AMEM_*_CRON, manage.py amem_schedules)",
  crudUpdateMinSim: "amem's CRUD gate is configured on the server, not here",
};

/** What is wrong with a key this plugin does not have: a seed's key says what to use, others are unknown. */
function seedKeyProblem(key: string): string {
  if (SEED_KEYS[key]) return SEED_KEYS[key];
  if (/^llm/.test(key)) return "the model is amem's: set AMEM_LLM_* on the amem server, not in openclaw.json";
  return "unknown field";
}

/** The config with defaults filled in; throws with every problem listed when it is invalid. */
export function parseConfig(raw: unknown): AmemPluginConfig {
  const errors = configErrors(raw);
  if (errors.length) throw new Error(`amem plugin config is invalid: ${errors.join("; ")}`);
  const given = (raw ?? {}) as Partial<AmemPluginConfig>;
  const cfg = { ...DEFAULTS, ...given, agents: { ...(given.agents ?? {}) } } as AmemPluginConfig;
  cfg.serverUrl = cfg.serverUrl.replace(/\/+$/, "");
  return cfg;
}

/**
 * The OpenClaw agent id inside a session key shaped `agent:<id>:<rest>` (seed B164): at least three
 * segments, none of the first three empty; one leading empty segment (":agent:…") is tolerated.
 */
export function agentIdFromSessionKey(sessionKey: string | undefined | null): string | undefined {
  if (!sessionKey) return undefined;
  const parts = sessionKey.split(":");
  if (parts[0] === "" && parts.length > 1) parts.shift();
  if (parts.length < 3 || parts[0] !== "agent") return undefined;
  if (!parts[1] || !parts[2]) return undefined;
  return parts[1];
}

/** Which OpenClaw agent a call is for (seed B165): ctx.agentId, then the session key, then "main". */
export function resolveAgentId(ctx: { agentId?: string; sessionKey?: string } | undefined): string {
  return ctx?.agentId || agentIdFromSessionKey(ctx?.sessionKey) || "main";
}

/** The settings for one call: an override for the exact session key wins over one for the agent id. */
export type Resolved = {
  openclawAgent: string;
  apiKey: string | undefined;
  keySource: string;
  /** The key is the top-level one (no agents entry gave this agent its own). */
  sharedKey: boolean;
  autoRecall: boolean;
  autoCapture: boolean;
  topK: number;
  tokenBudget: number;
};

const ENV_REFERENCE = /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$/;

function readSecret(secret: string | SecretRef | undefined, env: NodeJS.ProcessEnv): [string | undefined, string] {
  if (secret === undefined) return [undefined, ""];
  if (typeof secret === "string") {
    const ref = ENV_REFERENCE.exec(secret.trim());
    // The gateway substitutes ${VAR} in openclaw.json; a value that reaches us unsubstituted is read here.
    if (ref) return [env[ref[1]] || undefined, `environment variable ${ref[1]}`];
    return [secret.trim(), "apiKey in the plugin config"];
  }
  return [env[secret.id] || undefined, `environment variable ${secret.id}`];
}

export function resolveFor(
  cfg: AmemPluginConfig,
  ctx: { agentId?: string; sessionKey?: string } | undefined,
  env: NodeJS.ProcessEnv = process.env,
): Resolved {
  const openclawAgent = resolveAgentId(ctx);
  const override: AgentOverride =
    (ctx?.sessionKey && cfg.agents[ctx.sessionKey]) || cfg.agents[openclawAgent] || {};
  let [apiKey, keySource] = readSecret(override.apiKey, env);
  if (override.apiKey === undefined && override.apiKeyEnv) {
    [apiKey, keySource] = [env[override.apiKeyEnv] || undefined, `environment variable ${override.apiKeyEnv}`];
  }
  const sharedKey = override.apiKey === undefined && !override.apiKeyEnv;
  if (sharedKey) {
    [apiKey, keySource] = readSecret(cfg.apiKey, env);
    if (cfg.apiKey === undefined) {
      [apiKey, keySource] = [env[cfg.apiKeyEnv] || undefined, `environment variable ${cfg.apiKeyEnv}`];
    }
  }
  return {
    openclawAgent,
    apiKey,
    keySource,
    sharedKey,
    autoRecall: override.autoRecall ?? cfg.autoRecall,
    autoCapture: override.autoCapture ?? cfg.autoCapture,
    topK: override.topK ?? cfg.topK,
    tokenBudget: override.tokenBudget ?? cfg.tokenBudget,
  };
}

/**
 * Seed B167: whether OpenClaw will silently block this plugin's conversation hooks (both
 * before_prompt_build and agent_end: a plugin that is not bundled needs
 * `plugins.entries.<id>.hooks.allowConversationAccess = true`, a missing entry included). A config
 * that cannot be read at all is not reported as blocked.
 */
export function conversationAccessBlocked(config: unknown, pluginId: string): boolean {
  if (!isObject(config)) return false;
  const hooks = entryOf(config, pluginId)?.hooks;
  return !(isObject(hooks) && hooks.allowConversationAccess === true);
}

/** OpenClaw blocks prompt hooks (before_prompt_build) when `hooks.allowPromptInjection` is false. */
export function promptInjectionBlocked(config: unknown, pluginId: string): boolean {
  const hooks = entryOf(config, pluginId)?.hooks;
  return isObject(hooks) && hooks.allowPromptInjection === false;
}

export function entryOf(config: unknown, pluginId: string): Record<string, unknown> | undefined {
  if (!isObject(config) || !isObject(config.plugins) || !isObject(config.plugins.entries)) return undefined;
  const entry = config.plugins.entries[pluginId];
  return isObject(entry) ? entry : undefined;
}

export function pluginsOf(config: unknown): Record<string, unknown> | undefined {
  return isObject(config) && isObject(config.plugins) ? config.plugins : undefined;
}
