/**
 * The few types of OpenClaw's plugin SDK that this plugin uses, vendored so that building and
 * testing it does not install the `openclaw` package (95 MB, 65 direct dependencies).
 *
 * Read from `openclaw@2026.9.6` (`npm pack openclaw@2026.9.6`). `dist/plugin-sdk/plugin-entry.d.ts`
 * exports the names marked `export` below (and only those: the hook event types, AgentToolResult and
 * TSchema are not exported by name, src/sdk.ts derives them from `on` and AnyAgentTool); it re-exports them from `dist/agent-harness-runtime-*.d.ts` (OpenClawPluginApi,
 * OpenClawPluginToolContext, OpenClawPluginConfigSchema, definePluginEntry), `dist/common-*.d.ts`
 * (AnyAgentTool), `dist/types-*.d.ts` (AgentToolResult) and `dist/cli-backend.types-*.d.ts`
 * (the hook events and PluginHookHandlerMap). Fields this plugin never touches are left out;
 * every field kept has the SDK's name and type. `npm run check:sdk` compiles the plugin against
 * the real package instead of this file (see scripts/check-sdk.mjs).
 */
declare module "openclaw/plugin-sdk/plugin-entry" {
  /** Logger passed into plugin registration, services, and CLI surfaces. */
  export type PluginLogger = {
    debug?: (message: string) => void;
    info: (message: string) => void;
    warn: (message: string) => void;
    error: (message: string) => void;
  };

  type PluginRegistrationMode =
    | "full"
    | "discovery"
    | "tool-discovery"
    | "setup-only"
    | "setup-runtime"
    | "cli-metadata";

  /** typebox's TSchema: tool parameters are JSON Schema objects (the host compiles them with typebox 1.x). */
  type TSchema = { [key: string]: unknown };

  interface TextContent {
    type: "text";
    text: string;
  }

  /** Final or partial result produced by a tool. */
  interface AgentToolResult<T> {
    content: TextContent[];
    details: T;
  }

  type AgentToolUpdateCallback<T = unknown> = (partialResult: AgentToolResult<T>) => void;

  /** AgentTool with an erased `execute` (SDK: "Throw on failure instead of encoding errors in `content`"). */
  export type AnyAgentTool = {
    name: string;
    description: string;
    parameters: TSchema;
    label: string;
    execute(
      this: void,
      toolCallId: string,
      params: unknown,
      signal?: AbortSignal,
      onUpdate?: AgentToolUpdateCallback,
    ): Promise<AgentToolResult<unknown>>;
  };

  /** The subset of the OpenClaw configuration this plugin reads (its own entry's hooks). */
  export type OpenClawConfig = {
    plugins?: {
      slots?: { memory?: string };
      entries?: Record<
        string,
        {
          enabled?: boolean;
          hooks?: {
            allowPromptInjection?: boolean;
            allowConversationAccess?: boolean;
            timeoutMs?: number;
            timeouts?: Record<string, number>;
          };
          config?: unknown;
        }
      >;
    };
  };

  export type OpenClawPluginToolContext = {
    config?: OpenClawConfig;
    workspaceDir?: string;
    agentDir?: string;
    agentId?: string;
    sessionKey?: string;
    /** Ephemeral session UUID - regenerated on /new and /reset. */
    sessionId?: string;
    messageChannel?: string;
    /** Trusted sender id from inbound context (runtime-provided, not tool args). */
    requesterSenderId?: string;
  };

  export type OpenClawPluginToolFactory = (
    ctx: OpenClawPluginToolContext,
  ) => AnyAgentTool | AnyAgentTool[] | null | undefined;

  type OpenClawPluginToolOptions = {
    name?: string;
    names?: string[];
    optional?: boolean;
  };

  type PluginHookAgentContext = {
    runId?: string;
    agentId?: string;
    sessionKey?: string;
    sessionId?: string;
    workspaceDir?: string;
    messageProvider?: string;
    channel?: string;
    trigger?: string;
    channelId?: string;
    /** Sender identity for channel-originated runs when available. */
    senderId?: string;
    /** Channel-owned sender/chat details. */
    channelContext?: { sender?: { id?: string; [key: string]: unknown }; chat?: { id?: string; [key: string]: unknown } };
    /** Present for before_prompt_build only: throws once OpenClaw no longer accepts this handler's result (it timed out). */
    readonly hookInvocation?: Readonly<{ assertActive(): void }>;
  };

  type PluginHookBeforePromptBuildEvent = {
    prompt: string;
    /** Current request before projection. Empty means no textual request; omission is legacy. */
    currentUserMessage?: string;
    currentUserMessageId?: string;
    /** Session messages prepared for this run. */
    messages: unknown[];
  };

  type PluginHookBeforePromptBuildResult = {
    systemPrompt?: string;
    prependContext?: string;
    appendContext?: string;
    toolsAllow?: string[];
    prependSystemContext?: string;
    appendSystemContext?: string;
  };

  type PluginHookAgentEndEvent = {
    runId?: string;
    messages: unknown[];
    success: boolean;
    error?: string;
    durationMs?: number;
  };

  type PluginHookHandlerMap = {
    before_prompt_build: (
      event: PluginHookBeforePromptBuildEvent,
      ctx: PluginHookAgentContext,
    ) => Promise<PluginHookBeforePromptBuildResult | void> | PluginHookBeforePromptBuildResult | void;
    agent_end: (event: PluginHookAgentEndEvent, ctx: PluginHookAgentContext) => Promise<void> | void;
    model_call_started: (event: PluginHookModelCallStartedEvent, ctx: PluginHookAgentContext) => Promise<void> | void;
  };

  type PluginHookModelCallStartedEvent = {
    runId: string;
    callId: string;
    sessionKey?: string;
    sessionId?: string;
    provider: string;
    model: string;
  };

  type PluginHookName = keyof PluginHookHandlerMap;

  type PluginHookRegistrationOptions = {
    priority?: number;
    registrationId?: string;
    timeoutMs?: number;
  };

  type PluginConfigValidation = { ok: true; value?: unknown } | { ok: false; errors: string[] };

  export type OpenClawPluginConfigSchema = {
    safeParse?: (value: unknown) => {
      success: boolean;
      data?: unknown;
      error?: { issues?: Array<{ path: Array<string | number>; message: string }> };
    };
    parse?: (value: unknown) => unknown;
    validate?: (value: unknown) => PluginConfigValidation;
    jsonSchema?: Record<string, unknown>;
  };

  type OpenClawPluginServiceContext = {
    config: OpenClawConfig;
    workspaceDir?: string;
    stateDir: string;
    logger: PluginLogger;
  };

  type OpenClawPluginService = {
    id: string;
    start: (ctx: OpenClawPluginServiceContext) => void | Promise<void>;
    stop?: (ctx: OpenClawPluginServiceContext) => void | Promise<void>;
  };

  type MemoryPromptSectionParams = {
    availableTools: Set<string>;
    agentId?: string;
    agentSessionKey?: string;
    sandboxed?: boolean;
  };

  type MemoryPromptSectionBuilder = (params: MemoryPromptSectionParams) => string[];

  /** The part of MemoryPluginCapability this plugin provides (the SDK's has runtime, artifacts, …). */
  type MemoryPluginCapability = {
    promptBuilder?: MemoryPromptSectionBuilder;
  };

  /** The part of commander's Command a plugin CLI uses (the SDK passes commander 15's Command). */
  interface Command {
    command(nameAndArgs: string): Command;
    description(str: string): Command;
    option(flags: string, description?: string): Command;
    action(fn: (...args: any[]) => void | Promise<void>): Command;
  }

  type OpenClawPluginCliContext = {
    /** The root `openclaw` program for root registrations. */
    program: Command;
    parentPath: readonly string[];
    config: OpenClawConfig;
    workspaceDir?: string;
    logger: PluginLogger;
  };

  type OpenClawPluginCliRegistrar = (ctx: OpenClawPluginCliContext) => void | Promise<void>;

  type OpenClawPluginCliCommandDescriptor = {
    name: string;
    description: string;
    hasSubcommands: boolean;
  };

  type OpenClawPluginCliRegistrationOptions = {
    parentPath?: readonly [];
    commands?: readonly string[];
    descriptors?: readonly OpenClawPluginCliCommandDescriptor[];
  };

  export type OpenClawPluginApi = {
    id: string;
    name: string;
    version?: string;
    description?: string;
    source: string;
    rootDir?: string;
    registrationMode: PluginRegistrationMode;
    config: OpenClawConfig;
    pluginConfig?: Record<string, unknown>;
    /** In-process runtime helpers; the plugin uses only state.resolveStateDir (feature-detected). */
    runtime: { state: { resolveStateDir: (env?: NodeJS.ProcessEnv) => string } };
    logger: PluginLogger;
    registerTool: (tool: AnyAgentTool | OpenClawPluginToolFactory, opts?: OpenClawPluginToolOptions) => void;
    registerService: (service: OpenClawPluginService) => void;
    /** Root CLI commands (`openclaw <name> …`); also called with registrationMode "cli-metadata". */
    registerCli: (registrar: OpenClawPluginCliRegistrar, opts?: OpenClawPluginCliRegistrationOptions) => void;
    /** Present on gateways with memory capabilities (feature-detect it). */
    registerMemoryCapability: (capability: MemoryPluginCapability) => void;
    on: <K extends PluginHookName>(
      hookName: K,
      handler: PluginHookHandlerMap[K],
      opts?: PluginHookRegistrationOptions,
    ) => void;
  };

  type PluginKind = "memory" | "context-engine";

  export type OpenClawPluginDefinition = {
    id?: string;
    name?: string;
    description?: string;
    version?: string;
    kind?: PluginKind | PluginKind[];
    configSchema?: OpenClawPluginConfigSchema;
    register?: (api: OpenClawPluginApi) => void;
  };

  type DefinePluginEntryOptions = {
    id: string;
    name: string;
    description: string;
    kind?: OpenClawPluginDefinition["kind"];
    configSchema?: OpenClawPluginConfigSchema | (() => OpenClawPluginConfigSchema);
    register: NonNullable<OpenClawPluginDefinition["register"]>;
  };

  type DefinedPluginEntry = Omit<DefinePluginEntryOptions, "configSchema"> & {
    configSchema: OpenClawPluginConfigSchema;
  };

  export function definePluginEntry(options: DefinePluginEntryOptions): DefinedPluginEntry;

  // Only the names above marked `export` exist in the real module; the rest are spelled out here
  // because the real module reaches them through those (e.g. the hook events through `on`).
  export {};
}
