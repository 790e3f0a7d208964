/** A small client for amem's agent API (/api/v1/): one bearer key, a timeout on every request. */

import { ACTING_HEADER } from "./identity.js";

export type ErrorKind = "no_key" | "unreachable" | "timeout" | "auth" | "no_route" | "http";

export class AmemError extends Error {
  constructor(
    message: string,
    readonly kind: ErrorKind,
    readonly status?: number,
    readonly detail?: string,
  ) {
    super(message);
    this.name = "AmemError";
  }
}

export type ClientOptions = {
  serverUrl: string;
  apiKey: string | undefined;
  /** Where the key came from, for error messages ("environment variable AMEM_API_KEY"). */
  keySource: string;
  /** The OpenClaw agent the key serves, for error messages. */
  openclawAgent: string;
  /**
   * The amem agent to act for (the X-Amem-Agent header), for a gateway key; undefined for an agent
   * key. Asked before each request; it throws when this OpenClaw agent may not use the key.
   */
  acting?: () => Promise<string | undefined>;
  fetchImpl?: typeof fetch;
};

export type RequestOptions = { timeoutMs: number; query?: Record<string, string | number | undefined> };

export class AmemClient {
  constructor(readonly options: ClientOptions) {}

  get base(): string {
    return `${this.options.serverUrl}/api/v1`;
  }

  async request<T>(method: string, path: string, body: unknown, opts: RequestOptions): Promise<T> {
    const { apiKey, keySource, openclawAgent, serverUrl } = this.options;
    if (!apiKey) {
      throw new AmemError(
        `no amem API key for OpenClaw agent "${openclawAgent}": set apiKey (or agents.${openclawAgent}.apiKey) ` +
          `in plugins.entries.amem.config, or ${keySource || "the AMEM_API_KEY environment variable"}`,
        "no_key",
      );
    }
    const acting = this.options.acting ? await this.options.acting() : undefined;
    const url = new URL(`${this.base}${path}`);
    for (const [k, v] of Object.entries(opts.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    const headers: Record<string, string> = { Authorization: `Bearer ${apiKey}`, Accept: "application/json" };
    if (acting) headers[ACTING_HEADER] = acting;
    if (body !== undefined) headers["Content-Type"] = "application/json";
    let response: Response;
    try {
      response = await (this.options.fetchImpl ?? fetch)(url, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(opts.timeoutMs),
      });
    } catch (err) {
      const name = (err as { name?: string })?.name;
      if (name === "TimeoutError" || name === "AbortError") {
        throw new AmemError(`amem at ${serverUrl} did not answer within ${opts.timeoutMs} ms`, "timeout");
      }
      const cause = (err as { cause?: { code?: string; message?: string } })?.cause;
      throw new AmemError(
        `amem is not reachable at ${serverUrl} (${cause?.code ?? cause?.message ?? String(err)})`,
        "unreachable",
      );
    }
    const text = await response.text();
    let data: unknown = undefined;
    try {
      data = text ? JSON.parse(text) : undefined;
    } catch {
      data = undefined;
    }
    if (response.ok) return data as T;
    const detail = typeof (data as { detail?: unknown })?.detail === "string" ? (data as { detail: string }).detail : "";
    if (response.status === 401) {
      throw new AmemError(
        `amem rejected the API key for OpenClaw agent "${openclawAgent}" (401: ${detail || "unauthorized"}); ` +
          `check ${keySource || "the configured key"} — create one with \`manage.py amem_gateway create openclaw-<name>-\` ` +
          "(one key, every OpenClaw agent its own memory) or `manage.py amem_agent create <id>`",
        "auth",
        401,
        detail,
      );
    }
    if (response.status === 403 && acting) {
      // amem refused the gateway's acting agent: outside its prefix, not its own, or deactivated.
      throw new AmemError(
        `amem refused OpenClaw agent "${openclawAgent}" as amem agent "${acting}" (403: ${detail})`,
        "auth",
        403,
        detail,
      );
    }
    if (response.status === 404 && !detail) {
      // Django's own 404 (HTML): this server has no such route (an older amem).
      throw new AmemError(
        `this amem server has no ${method} /api/v1${path.split("?")[0]} route; update amem`,
        "no_route",
        404,
      );
    }
    throw new AmemError(
      `amem answered ${response.status} to ${method} ${path}: ${detail || text.slice(0, 200) || response.statusText}`,
      "http",
      response.status,
      detail,
    );
  }
}
