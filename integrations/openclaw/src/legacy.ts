/**
 * The config keys of the plugins people move from (openclaw-amem, memory-engine, @mem0/openclaw-mem0):
 * accepted, so that their openclaw.json keeps loading (OpenClaw refuses a config its schema does not
 * know, and then every `openclaw` command fails), and each either mapped onto an amem setting or
 * explained in one line, which the gateway logs at start and `openclaw amem status` prints.
 *
 * mem0's `userId`, `searchThreshold`, `topK`, `autoRecall`, `autoCapture` and `apiKey` are this
 * plugin's own keys (config.ts), with the same meaning; they are not listed here.
 */

export type LegacyKey = {
  /** Whose key it is, for the line ("mem0's baseUrl"). */
  from: "openclaw-amem" | "memory-engine" | "mem0";
  /** What to do instead, when the key has no effect here. */
  instead: string;
};

const SERVER = "the amem server";

export const LEGACY_KEYS: Record<string, LegacyKey> = {
  agentId: {
    from: "openclaw-amem",
    instead:
      "each OpenClaw agent gets its own amem agent (a gateway key names it <prefix><agent id>); its old memories come over with `manage.py amem_import --format openclaw-amem --map-agent <old>=<amem agent>`",
  },
  collection: {
    from: "openclaw-amem",
    instead: `an amem agent's own index is its \`collection\` field on ${SERVER} (\`manage.py amem_agent create <id> --collection <name>\`)`,
  },
  qdrantUrl: { from: "openclaw-amem", instead: `set AMEM_QDRANT_URL on ${SERVER}; the plugin only needs serverUrl` },
  qdrantApiKey: { from: "openclaw-amem", instead: `set on ${SERVER}; the plugin only needs serverUrl and apiKey` },
  embeddingModel: { from: "openclaw-amem", instead: `amem embeds with its own model (AMEM_EMBEDDING_MODEL on ${SERVER})` },
  crudUpdateMinSim: { from: "openclaw-amem", instead: `amem's CRUD gate is configured on ${SERVER}` },
  conflictSweep: { from: "openclaw-amem", instead: `amem's nightly jobs are set on ${SERVER} (AMEM_*_CRON, manage.py amem_schedules)` },
  workspace: {
    from: "memory-engine",
    instead: "amem keeps memories on its server; import the workspace with `manage.py amem_import --format memory-engine`",
  },
  coreSizeLimit: { from: "memory-engine", instead: `core block size limits are amem's (AMEM_CORE_BLOCK_LIMIT on ${SERVER})` },
  mode: { from: "mem0", instead: "amem has one mode: the server at serverUrl" },
  baseUrl: { from: "mem0", instead: "amem's address is serverUrl" },
  userEmail: { from: "mem0", instead: "amem accounts are agents and keys on the amem server" },
  customInstructions: { from: "mem0", instead: `what amem keeps is decided by its CRUD gate on ${SERVER} (docs/llm.md)` },
  customCategories: { from: "mem0", instead: "amem derives categories and topics itself" },
  customPrompt: { from: "mem0", instead: `amem's prompts are on ${SERVER} (docs/llm.md)` },
  oss: { from: "mem0", instead: `the embedder, index and model are amem's, set on ${SERVER}` },
  skills: { from: "mem0", instead: "use the memory tools (memory_add, memory_search, …) and autoCapture" },
  anonymousTelemetryId: { from: "mem0", instead: "amem sends no telemetry" },
};

/** openclaw-amem's model settings: llmProvider, llmModel, llmBaseUrl, llmApiKey, llmStrongModel, … */
export const LEGACY_LLM = /^llm/;
const LLM_LINE = `the model is amem's: set AMEM_LLM_* on ${SERVER} (docs/llm.md)`;

/** Keys an `agents.<id>` entry of openclaw-amem may carry. */
export const LEGACY_AGENT_KEYS = ["agentId", "collection"];

export function isLegacyKey(key: string): boolean {
  return key in LEGACY_KEYS || LEGACY_LLM.test(key);
}

/** The one line OpenClaw shows for a legacy key that has no effect here. */
export function legacyLine(path: string, key: string): string {
  if (LEGACY_LLM.test(key) && !(key in LEGACY_KEYS)) return `config key ${path} (openclaw-amem's) has no effect here: ${LLM_LINE}`;
  const known = LEGACY_KEYS[key];
  return `config key ${path} (${known.from}'s) has no effect here: ${known.instead}`;
}
