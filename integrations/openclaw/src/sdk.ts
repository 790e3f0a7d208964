/**
 * Types of the plugin SDK that `openclaw/plugin-sdk/plugin-entry` does not export by name, derived
 * from the ones it does export, so they are the SDK's own whether this compiles against the vendored
 * types/openclaw-plugin-sdk.d.ts or the real package (npm run check:sdk). Types only: no run-time code.
 */

import type { AnyAgentTool, OpenClawPluginApi, definePluginEntry } from "openclaw/plugin-sdk/plugin-entry";

declare const api: OpenClawPluginApi;

export type BeforePromptBuildHandler = Parameters<typeof api.on<"before_prompt_build">>[1];
export type AgentEndHandler = Parameters<typeof api.on<"agent_end">>[1];
export type BeforePromptBuildEvent = Parameters<BeforePromptBuildHandler>[0];
export type BeforePromptBuildResult = Exclude<Awaited<ReturnType<BeforePromptBuildHandler>>, void>;
export type HookContext = Parameters<BeforePromptBuildHandler>[1];
export type AgentEndEvent = Parameters<AgentEndHandler>[0];
export type ToolResult = Awaited<ReturnType<AnyAgentTool["execute"]>>;
export type ToolParameters = AnyAgentTool["parameters"];
export type DefinedPluginEntry = ReturnType<typeof definePluginEntry>;
export type ToolFactory = Extract<Parameters<OpenClawPluginApi["registerTool"]>[0], (...args: never[]) => unknown>;
export type PluginService = Parameters<OpenClawPluginApi["registerService"]>[0];
export type MemoryCapability = Parameters<OpenClawPluginApi["registerMemoryCapability"]>[0];
export type PromptSectionParams = Parameters<NonNullable<MemoryCapability["promptBuilder"]>>[0];
