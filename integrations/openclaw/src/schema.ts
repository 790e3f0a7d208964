import { LEGACY_KEYS } from "./legacy.js";
import { RELEVANCE_FLOOR } from "./relevance.js";

/**
 * The config's JSON Schema and UI hints. openclaw.plugin.json carries the same two objects (the
 * gateway reads the manifest); a test fails when they drift apart.
 */

const secret = {
  oneOf: [
    { type: "string", minLength: 1 },
    {
      type: "object",
      additionalProperties: false,
      required: ["source", "id"],
      properties: { source: { const: "env" }, provider: { type: "string" }, id: { type: "string", minLength: 1 } },
    },
  ],
  sensitive: true,
};
const envName = { type: "string", pattern: "^[A-Za-z_][A-Za-z0-9_]*$" };
const memoryScope = {
  type: "string",
  enum: ["agent", "person", "shared"],
  description: "agent: each OpenClaw agent its own memory; person: each person talking to an agent their own (needs a gateway key); shared: one memory for all",
};
/** Another plugin's key: any value is accepted (OpenClaw would refuse the whole config otherwise); legacy.ts says what it means here. */
const legacy = (whose: string) => ({ description: `${whose}'s key, accepted so the config loads; the plugin logs what it means here` });
const LEGACY_PROPERTIES = Object.fromEntries(
  Object.entries(LEGACY_KEYS).map(([key, { from }]) => [key, legacy(from)]),
);

export const CONFIG_JSON_SCHEMA = {
  type: "object",
  additionalProperties: false,
  properties: {
    serverUrl: { type: "string", default: "http://127.0.0.1:8000", description: "amem's base URL (http or https)" },
    apiKey: { ...secret, description: "amem API key: ${AMEM_API_KEY}, a SecretRef, or the key itself" },
    apiKeyEnv: { ...envName, default: "AMEM_API_KEY", description: "environment variable holding the key when apiKey is not set" },
    topK: { type: "integer", minimum: 1, maximum: 100, default: 5, description: "memories per recall and search" },
    tokenBudget: { type: "integer", minimum: 64, maximum: 32000, default: 1200, description: "tokens the recall bundle may use" },
    autoRecall: { type: "boolean", default: true, description: "prepend amem's recall bundle before every prompt" },
    autoCapture: { type: "boolean", default: true, description: "send every finished turn to amem" },
    captureTarget: {
      type: "string",
      enum: ["turns", "conversations"],
      default: "turns",
      description: "turns: amem's CRUD gate keeps what is durable; conversations: every turn stored as an episodic note",
    },
    recallTimeoutMs: { type: "integer", minimum: 100, maximum: 120000, default: 3000 },
    captureTimeoutMs: { type: "integer", minimum: 100, maximum: 300000, default: 15000 },
    toolTimeoutMs: { type: "integer", minimum: 100, maximum: 600000, default: 30000 },
    minPromptChars: { type: "integer", minimum: 0, maximum: 1000, default: 5 },
    shareAgentKey: {
      type: "boolean",
      default: false,
      description: "let OpenClaw agents without their own key share the top-level agent key's memory (a gateway key needs no sharing)",
    },
    memoryScope: { ...memoryScope, default: "agent" },
    searchThreshold: {
      type: "number",
      minimum: 0,
      maximum: 1,
      default: RELEVANCE_FLOOR,
      description: "memory_search leaves out matches less likely than this to bear on the query (amem's relevance, 0-1; mem0's searchThreshold)",
    },
    recallThreshold: {
      type: "number",
      minimum: 0,
      maximum: 1,
      default: RELEVANCE_FLOOR,
      description: "auto-recall leaves out notes less likely than this to bear on the message (amem's relevance, 0-1), and the whole block when none is left",
    },
    userId: {
      type: "string",
      minLength: 1,
      maxLength: 200,
      default: "default",
      description: "mem0's userId: the person a turn belongs to when OpenClaw names no sender (memoryScope person)",
    },
    sharing: { type: "boolean", description: "memory-engine's cross-agent sharing: true reads as memoryScope shared, false as agent" },
    ...LEGACY_PROPERTIES,
    agents: {
      type: "object",
      description: "per OpenClaw agent id (or exact session key): its own amem key and switches",
      additionalProperties: {
        type: "object",
        additionalProperties: false,
        properties: {
          apiKey: secret,
          apiKeyEnv: envName,
          autoRecall: { type: "boolean" },
          autoCapture: { type: "boolean" },
          topK: { type: "integer", minimum: 1, maximum: 100 },
          tokenBudget: { type: "integer", minimum: 64, maximum: 32000 },
          memoryScope,
          agentId: legacy("openclaw-amem"),
          collection: legacy("openclaw-amem"),
        },
      },
    },
  },
  // openclaw-amem's model settings (llmProvider, llmModel, llmBaseUrl, …): accepted and explained.
  patternProperties: { "^llm": legacy("openclaw-amem") },
  required: [],
} as const;

export const UI_HINTS: Record<string, { label: string; help: string; placeholder?: string; advanced?: boolean; sensitive?: boolean }> = {
  serverUrl: { label: "amem server URL", placeholder: "http://127.0.0.1:8000", help: "Where amem serves /api/v1/ (make run: http://127.0.0.1:8000)." },
  apiKey: {
    label: "amem API key",
    sensitive: true,
    placeholder: "${AMEM_API_KEY}",
    help: "A gateway key (manage.py amem_gateway create openclaw-<name>-: each OpenClaw agent gets its own amem agent) or one amem agent's key (manage.py amem_agent create <id>). Prefer ${AMEM_API_KEY} or a SecretRef over the key in clear.",
  },
  apiKeyEnv: { label: "API key variable", advanced: true, help: "Read the key from this environment variable when apiKey is not set." },
  topK: { label: "Top K", placeholder: "5", help: "How many memories a recall or memory_search returns." },
  tokenBudget: { label: "Recall token budget", placeholder: "1200", help: "The most tokens the prepended memory block may take." },
  autoRecall: { label: "Auto-recall", help: "Before each prompt, ask amem for what it remembers about the message and prepend it." },
  autoCapture: {
    label: "Auto-capture",
    help: "After each turn, send the exchange to amem. Needs plugins.entries.amem.hooks.allowConversationAccess = true.",
  },
  captureTarget: { label: "Capture target", help: "turns: amem keeps only durable facts (add/update/retire); conversations: every turn is stored." },
  recallTimeoutMs: { label: "Recall timeout (ms)", advanced: true, help: "Past this the prompt is built without memories." },
  captureTimeoutMs: { label: "Capture timeout (ms)", advanced: true, help: "Past this the capture is dropped with one warning." },
  toolTimeoutMs: { label: "Tool timeout (ms)", advanced: true, help: "How long a memory tool waits for amem." },
  minPromptChars: { label: "Shortest prompt recalled for", advanced: true, help: "Shorter messages (\"ok\") get no recall." },
  shareAgentKey: {
    label: "Share the agent key",
    advanced: true,
    help: "Off: a top-level agent key serves OpenClaw agent main only, other agents need their own key. On: agents without a key share its memory. A gateway key gives every agent its own memory instead.",
  },
  memoryScope: {
    label: "Memory scope",
    help: "agent: each OpenClaw agent its own memory (default). person: each person talking to an agent their own, inside it (needs a gateway key). shared: one memory for every agent and person.",
  },
  searchThreshold: {
    label: "Search threshold",
    placeholder: String(RELEVANCE_FLOOR),
    help: "memory_search leaves out matches less likely than this to bear on the query (amem's relevance, 0–1), instead of padding to Top K with weak ones.",
  },
  recallThreshold: {
    label: "Recall threshold",
    placeholder: String(RELEVANCE_FLOOR),
    advanced: true,
    help: "Auto-recall leaves out notes less likely than this to bear on the message (amem's relevance, 0–1); a message nothing bears on gets no memory block.",
  },
  userId: {
    label: "Default person",
    placeholder: "default",
    advanced: true,
    help: "mem0's userId. With memory scope person: whose memory a turn uses when OpenClaw names no sender (a CLI turn).",
  },
  sharing: { label: "Sharing (memory-engine)", advanced: true, help: "memory-engine's key: true reads as memory scope shared, false as agent." },
  ...Object.fromEntries(
    Object.entries(LEGACY_KEYS).map(([key, { from, instead }]) => [
      key,
      { label: `${key} (${from})`, advanced: true, help: `No effect in amem: ${instead}.` },
    ]),
  ),
  agents: {
    label: "Per-agent keys",
    advanced: true,
    help: "Map an OpenClaw agent id (the <id> of session keys agent:<id>:…) or an exact session key to its own amem key and switches.",
  },
};
