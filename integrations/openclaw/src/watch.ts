/**
 * The self-check's eyes on what ran, not what the config says: a heartbeat for each recall and
 * capture of each OpenClaw agent, and a witness that a turn happened (OpenClaw's model_call_started
 * hook, which no conversation-access setting blocks). At a turn's first model call:
 *
 * - no recall heartbeat for that run: OpenClaw never called before_prompt_build (blocked, or
 *   dropped): "auto-recall did not run";
 * - a recall still running, or finished after OpenClaw stopped accepting its result
 *   (`ctx.hookInvocation.assertActive()` throws): "auto-recall timed out: OpenClaw stopped waiting";
 * - the previous turn had no capture heartbeat: "auto-capture did not run"; a capture that took
 *   longer than OpenClaw's timeout for agent_end: OpenClaw reported it failed (it still landed).
 *
 * Each problem is logged once when it appears, heads memory_search's notice for that agent, and is
 * written with the heartbeats to `<state dir>/plugins/amem/heartbeats.json`, which
 * `openclaw amem status` (another process) reads.
 */

import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";

export type Beat = { runId?: string; at: number; done?: number; outcome?: string };
export type AgentBeats = {
  turn?: { runId: string; at: number; captureExpected: boolean };
  recall?: Beat;
  capture?: Beat;
  problems: { recall?: string; capture?: string };
};
export type Heartbeats = { updatedAt: number; agents: Record<string, AgentBeats> };

export type HookKind = "recall" | "capture";

const watches = new Map<string, Watch>();

/** One watch per heartbeat file in a process: OpenClaw registers the plugin several times. */
export function watchFor(file: string, warn: (line: string) => void): Watch {
  let found = watches.get(file);
  if (!found) {
    found = new Watch(file, warn);
    watches.set(file, found);
  }
  return found;
}

export function readHeartbeats(file: string): Heartbeats | undefined {
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, "utf8")) as Heartbeats;
  } catch {
    return undefined;
  }
}

const clock = (at: number) => new Date(at).toISOString().replace("T", " ").slice(0, 19) + " UTC";

export class Watch {
  private state: Heartbeats;

  constructor(
    readonly file: string,
    private readonly warn: (line: string) => void,
  ) {
    this.state = readHeartbeats(file) ?? { updatedAt: Date.now(), agents: {} };
  }

  private of(agent: string): AgentBeats {
    this.state.agents[agent] ??= { problems: {} };
    return this.state.agents[agent];
  }

  private save(): void {
    this.state.updatedAt = Date.now();
    try {
      mkdirSync(dirname(this.file), { recursive: true });
      writeFileSync(`${this.file}.tmp`, JSON.stringify(this.state, null, 1));
      renameSync(`${this.file}.tmp`, this.file);
    } catch {
      // A read-only state dir must not break a turn; the log and memory_search still say it.
    }
  }

  private problem(agent: string, kind: HookKind, line: string | undefined): void {
    const beats = this.of(agent);
    if (line && beats.problems[kind] !== line) this.warn(`amem: ${line}`);
    beats.problems[kind] = line;
  }

  started(agent: string, kind: HookKind, runId: string | undefined): void {
    this.of(agent)[kind] = { runId, at: Date.now() };
    this.save();
  }

  /** `hostTimeoutMs`: how long OpenClaw waits for this hook; a capture that took longer is reported. */
  finished(agent: string, kind: HookKind, runId: string | undefined, outcome: string, hostTimeoutMs?: number): void {
    const beats = this.of(agent);
    const beat = beats[kind]?.runId === runId ? beats[kind]! : { runId, at: Date.now() };
    beat.done = Date.now();
    beat.outcome = outcome;
    beats[kind] = beat;
    const took = beat.done - beat.at;
    if (outcome === "timed out") {
      this.problem(agent, kind, `auto-${kind} TIMED OUT for agent "${agent}" at ${clock(beat.at)}: OpenClaw stopped waiting for it (after ${hostTimeoutMs ?? "?"} ms) and dropped its result; raise or remove plugins.entries.amem.hooks.timeouts.${kind === "recall" ? "before_prompt_build" : "agent_end"}`);
    } else if (kind === "capture" && hostTimeoutMs !== undefined && took > hostTimeoutMs) {
      this.problem(agent, kind, `auto-capture for agent "${agent}" took ${took} ms, longer than OpenClaw waits for agent_end (${hostTimeoutMs} ms): OpenClaw reported it timed out (the capture itself landed); raise plugins.entries.amem.hooks.timeouts.agent_end`);
    } else {
      this.problem(agent, kind, undefined);
    }
    this.save();
  }

  /** A turn's model call (OpenClaw's model_call_started): did this turn's recall, and the last turn's capture, run? */
  modelCall(agent: string, runId: string, expect: { recall: boolean; capture: boolean }): void {
    const beats = this.of(agent);
    if (beats.turn?.runId === runId) return; // one check per turn, at its first model call
    const previous = beats.turn;
    if (previous?.captureExpected && beats.capture?.runId !== previous.runId) {
      this.problem(agent, "capture", `auto-capture did not run for agent "${agent}"'s turn at ${clock(previous.at)}: OpenClaw never called its agent_end hook (blocked or dropped; see plugins.entries.amem.hooks)`);
    }
    beats.turn = { runId, at: Date.now(), captureExpected: expect.capture };
    if (expect.recall) {
      const recall = beats.recall?.runId === runId ? beats.recall : undefined;
      if (!recall) {
        this.problem(agent, "recall", `auto-recall did not run for agent "${agent}"'s turn at ${clock(beats.turn.at)}: OpenClaw never called its before_prompt_build hook (blocked or dropped; see plugins.entries.amem.hooks)`);
      } else if (recall.done === undefined) {
        this.problem(agent, "recall", `auto-recall TIMED OUT for agent "${agent}" at ${clock(recall.at)}: the model was called while it still ran, so OpenClaw stopped waiting and dropped its result; raise or remove plugins.entries.amem.hooks.timeouts.before_prompt_build`);
      }
    }
    this.save();
  }

  problems(agent: string): string[] {
    const p = this.state.agents[agent]?.problems ?? {};
    return [p.recall, p.capture].filter((l): l is string => !!l);
  }
}

/** What status prints for one agent from the heartbeat file: problems first, then the last beats. */
export function heartbeatLines(beats: Heartbeats | undefined, agent: string, now = Date.now()): { warn: string[]; info: string[] } {
  const mine = beats?.agents[agent];
  if (!mine) return { warn: [], info: [`no turn of agent "${agent}" seen by this gateway yet (no heartbeats)`] };
  const ago = (at: number) => `${Math.max(0, Math.round((now - at) / 1000))} s ago`;
  const info: string[] = [];
  for (const kind of ["recall", "capture"] as const) {
    const beat = mine[kind];
    if (beat) info.push(`auto-${kind} of agent "${agent}" last ran ${ago(beat.at)}${beat.outcome ? ` (${beat.outcome})` : " (still running)"}`);
  }
  return { warn: [mine.problems.recall, mine.problems.capture].filter((l): l is string => !!l), info };
}
