/**
 * The plugin's configuration (`plugins.entries.amem.config` in openclaw.json): defaults, validation,
 * API keys from the environment, and which amem key serves which OpenClaw agent.
 *
 * The JSON Schema the gateway shows and checks is in openclaw.plugin.json; `validateConfig` applies the
 * same rules at run time (a test keeps the two in step).
 */

import { type PersonContext, personOf } from "./identity.js";
import { isLegacyKey, LEGACY_AGENT_KEYS, legacyLine } from "./legacy.js";
import { RELEVANCE_FLOOR } from "./relevance.js";

export type CaptureTarget = "turns" | "conversations";
/**
 * Whose memory a call uses: each OpenClaw agent its own (`agent`), each person talking to an agent
 * their own inside it (`person`), or one memory for every agent and person (`shared`).
 */
export type MemoryScope = "agent" | "person" | "shared";
export const MEMORY_SCOPES: MemoryScope[] = ["agent", "person", "shared"];

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
  memoryScope?: MemoryScope;
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
  memoryScope: MemoryScope;
  /** memory_search leaves out matches less relevant than this (amem's `relevance`, 0–1; mem0's searchThreshold). */
  searchThreshold: number;
  /** Auto-recall leaves out notes less relevant than this (amem's `relevance`, 0–1), and the whole block when none is left. */
  recallThreshold: number;
  /** mem0's userId: the person a turn belongs to when OpenClaw names no sender (memoryScope "person"). */
  userId: string;
  agents: Record<string, AgentOverride>;
  /** One line for each key of another plugin that was mapped or has no effect (legacy.ts). */
  notes: string[];
};

export const DEFAULTS: Omit<AmemPluginConfig, "apiKey" | "notes"> = {
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
  memoryScope: "agent",
  searchThreshold: RELEVANCE_FLOOR,
  recallThreshold: RELEVANCE_FLOOR,
  userId: "default",
  agents: {},
};

type Rule = (value: unknown) => string | null;

const isInt = (min: number, max: number): Rule => (v) =>
  typeof v === "number" && Number.isInteger(v) && v >= min && v <= max ? null : `must be an integer from ${min} to ${max}`;
const isScope: Rule = (v) =>
  MEMORY_SCOPES.includes(v as MemoryScope) ? null : `must be one of ${MEMORY_SCOPES.map((m) => `"${m}"`).join(", ")}`;
const isPersonId: Rule = (v) =>
  typeof v === "string" && v.trim() && v.length <= 200 ? null : "must be a non-empty string of at most 200 characters";
const isFraction: Rule = (v) => (typeof v === "number" && v >= 0 && v <= 1 ? null : "must be a number from 0 to 1");
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
  memoryScope: isScope,
};

export const RULES: Record<Exclude<keyof AmemPluginConfig, "agents" | "notes">, Rule> = {
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
  memoryScope: isScope,
  searchThreshold: isFraction,
  recallThreshold: isFraction,
  userId: isPersonId,
};

/** memory-engine's `sharing` (cross-agent sharing on or off): the memoryScope it stands for. */
const SHARING_RULE = isBool;

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
          if (!rule && LEGACY_AGENT_KEYS.includes(k)) continue; // openclaw-amem's: explained in cfg.notes
          const problem = rule ? rule(v) : "unknown field";
          if (problem) errors.push(`agents.${who}.${k}: ${problem}`);
        }
      }
      continue;
    }
    if (key === "sharing") {
      const problem = SHARING_RULE(value);
      if (problem) errors.push(`sharing: ${problem} (memory-engine's cross-agent sharing)`);
      continue;
    }
    const rule = RULES[key as keyof typeof RULES];
    if (!rule && isLegacyKey(key)) continue; // another plugin's key: explained in cfg.notes, never a refusal
    const problem = rule ? rule(value) : "unknown field";
    if (problem) errors.push(`${key}: ${problem}`);
  }
  return errors;
}

/** The config with defaults filled in; throws with every problem listed when it is invalid. */
export function parseConfig(raw: unknown): AmemPluginConfig {
  const errors = configErrors(raw);
  if (errors.length) throw new Error(`amem plugin config is invalid: ${errors.join("; ")}`);
  const given = (raw ?? {}) as Record<string, unknown>;
  const own = Object.fromEntries(Object.entries(given).filter(([k]) => k in RULES || k === "agents"));
  const agents: Record<string, AgentOverride> = {};
  const notes: string[] = [];
  for (const [who, override] of Object.entries((given.agents ?? {}) as Record<string, Record<string, unknown>>)) {
    agents[who] = Object.fromEntries(Object.entries(override).filter(([k]) => k in OVERRIDE_RULES)) as AgentOverride;
    for (const k of Object.keys(override)) if (!(k in OVERRIDE_RULES)) notes.push(legacyLine(`agents.${who}.${k}`, k));
  }
  const cfg = { ...DEFAULTS, ...own, agents, notes } as AmemPluginConfig;
  cfg.serverUrl = cfg.serverUrl.replace(/\/+$/, "");
  cfg.userId = cfg.userId.trim();
  for (const key of Object.keys(given)) if (!(key in RULES) && key !== "agents" && key !== "sharing") notes.push(legacyLine(key, key));
  if (typeof given.sharing === "boolean") {
    // memory-engine: sharing true = every agent reads the same memories, false = each agent its own.
    const meant: MemoryScope = given.sharing ? "shared" : "agent";
    if (given.memoryScope === undefined) {
      cfg.memoryScope = meant;
      notes.push(`config key sharing (memory-engine's) is read as memoryScope: "${meant}"`);
    } else {
      notes.push(`config key sharing (memory-engine's) is ignored: memoryScope "${cfg.memoryScope}" is set`);
    }
  }
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
  /** Who the turn is with (identity.ts personOf): used by memoryScope "person". */
  person: string;
  apiKey: string | undefined;
  keySource: string;
  /** The key is the top-level one (no agents entry gave this agent its own). */
  sharedKey: boolean;
  autoRecall: boolean;
  autoCapture: boolean;
  topK: number;
  tokenBudget: number;
  memoryScope: MemoryScope;
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
  ctx: ({ agentId?: string } & PersonContext) | undefined,
  env: NodeJS.ProcessEnv = process.env,
): Resolved {
  const openclawAgent = resolveAgentId(ctx);
  const person = personOf(ctx, cfg.userId);
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
    person,
    apiKey,
    keySource,
    sharedKey,
    autoRecall: override.autoRecall ?? cfg.autoRecall,
    autoCapture: override.autoCapture ?? cfg.autoCapture,
    topK: override.topK ?? cfg.topK,
    tokenBudget: override.tokenBudget ?? cfg.tokenBudget,
    memoryScope: override.memoryScope ?? cfg.memoryScope,
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
