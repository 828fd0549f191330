// The explorer's link to polgraph: clients of polgraph.v1.GraphService and polgraph.v1.ReviewService in
// the Connect protocol (JSON over HTTP POST, generated from the same .proto files as the gRPC API), the
// editor's API key that review calls carry, and a watch on /healthz that tells a service that cannot be
// reached from one whose database does not answer.
import { Code, ConnectError, createClient, type Interceptor } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-web";
import { BinaryReader } from "@bufbuild/protobuf/wire";
import { GraphService } from "./gen/polgraph/v1/graph_service_pb";
import { ReviewService } from "./gen/polgraph/v1/review_service_pb";
import { ViewService } from "./gen/polgraph/v1/view_service_pb";
import { WriteService } from "./gen/polgraph/v1/write_service_pb";

/** Reads: anonymous, as polgraph allows on loopback. */
export const client = createClient(
  GraphService,
  createConnectTransport({ baseUrl: location.origin, defaultTimeoutMs: 20_000 }),
);

// The review queue needs the editor role: an API key, kept for this tab only (sessionStorage, gone when
// the tab closes) and sent only with review calls, as `authorization: Bearer <key>`. A client certificate
// with the editor role (mutual TLS) works without one: the browser presents it on every call.
const keyItem = "polgraph.editorKey";

/** The editor's API key this tab holds, or "". */
export function editorKey(): string {
  try {
    return sessionStorage.getItem(keyItem) ?? "";
  } catch {
    return ""; // storage turned off: no key is kept
  }
}

/** Keeps the key for this tab; "" forgets it. */
export function setEditorKey(key: string): void {
  try {
    if (key) sessionStorage.setItem(keyItem, key);
    else sessionStorage.removeItem(keyItem);
  } catch {
    // storage turned off: the key cannot be kept, and calls go without it
  }
}

const withEditorKey: Interceptor = (next) => (req) => {
  const key = editorKey();
  if (key) req.header.set("Authorization", `Bearer ${key}`);
  return next(req);
};

/** The review queue, with the editor's key. Reading a document may take a while: 60 s. */
export const reviewClient = createClient(
  ReviewService,
  createConnectTransport({ baseUrl: location.origin, defaultTimeoutMs: 60_000, interceptors: [withEditorKey] }),
);

/** Writes with the same key: the merges and "not the same" judgements of the review view (admin role). */
export const writeClient = createClient(
  WriteService,
  createConnectTransport({ baseUrl: location.origin, defaultTimeoutMs: 60_000, interceptors: [withEditorKey] }),
);

/** Saved views: listed and opened by anyone who reads; saved with the editor's key. */
export const viewClient = createClient(
  ViewService,
  createConnectTransport({ baseUrl: location.origin, defaultTimeoutMs: 20_000, interceptors: [withEditorKey] }),
);

/** Why the explorer cannot work right now. */
export interface Outage {
  /** unreachable: no answer from polgraph at all; database: polgraph answers, its database does not. */
  kind: "unreachable" | "database";
  message: string;
}

/** A call's failure, in words for people, with the field violations of a refused request. */
export function describeError(err: unknown): string {
  const ce = ConnectError.from(err);
  const violations = fieldViolations(ce);
  const msg = ce.rawMessage || Code[ce.code];
  return violations.length ? `${msg} (${violations.join("; ")})` : msg;
}

/** The google.rpc.BadRequest field violations of an error, as "field: description". */
export function fieldViolations(err: ConnectError): string[] {
  const out: string[] = [];
  for (const d of err.details) {
    if (!("type" in d) || d.type !== "google.rpc.BadRequest" || !(d.value instanceof Uint8Array)) continue;
    try {
      const r = new BinaryReader(d.value);
      while (r.pos < r.len) {
        const [no, wt] = r.tag();
        if (no !== 1) {
          r.skip(wt);
          continue;
        }
        const v = new BinaryReader(r.bytes());
        let field = "";
        let desc = "";
        while (v.pos < v.len) {
          const [n, w] = v.tag();
          if (n === 1) field = v.string();
          else if (n === 2) desc = v.string();
          else v.skip(w);
        }
        out.push(field ? `${field}: ${desc}` : desc);
      }
    } catch {
      // A detail that does not decode is left out; the message still says what went wrong.
    }
  }
  return out;
}

/** Whether a failed call means the service or its database is down, rather than a bad request. */
export function outageOf(err: unknown): Outage | null {
  const ce = ConnectError.from(err);
  if (ce.code === Code.Unavailable) {
    // From polgraph itself (the database does not answer), or an HTTP 502/503/504 on the way.
    return { kind: "database", message: ce.rawMessage || "the service is unavailable" };
  }
  if (ce.code === Code.Unknown || ce.code === Code.Internal) {
    const cause = ce.cause instanceof Error ? ce.cause.message : ce.rawMessage;
    if (ce.cause instanceof TypeError || /fetch|network|load failed/i.test(cause)) {
      return { kind: "unreachable", message: cause };
    }
  }
  return null;
}

/** Health watches the service: every 10 s while it is well, every 2 s while it is not. */
export class Health {
  outage: Outage | null = null;
  private known = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private checking: Promise<Outage | null> | undefined;

  constructor(
    private readonly onChange: (outage: Outage | null, previous: Outage | null) => void,
    private readonly okEvery = 10_000,
    private readonly downEvery = 2_000,
  ) {}

  start(): void {
    void this.check();
  }

  /** Asks /healthz now, and reports a change. */
  check(): Promise<Outage | null> {
    this.checking ??= this.probe().then((o) => {
      this.checking = undefined;
      this.set(o);
      return o;
    });
    return this.checking;
  }

  /** Reports a failed call: a sign of an outage that /healthz then confirms or clears. */
  report(o: Outage): void {
    if (o.kind === "database" || !this.outage) this.set(o);
    void this.check();
  }

  private async probe(): Promise<Outage | null> {
    let resp: Response;
    try {
      resp = await fetch("/healthz", { cache: "no-store", signal: AbortSignal.timeout(5_000) });
      // Read the answer whole: a body left unread is cut off by the timeout, an aborted request.
      await resp.text();
    } catch (e) {
      return { kind: "unreachable", message: e instanceof Error ? e.message : String(e) };
    }
    if (resp.ok && !this.outage) return null;
    if (!resp.ok && !(resp.headers.get("Content-Type") ?? "").startsWith("application/json")) {
      // Not polgraph's /healthz: something between the page and polgraph answered.
      return { kind: "unreachable", message: `HTTP ${resp.status} ${resp.statusText}`.trim() };
    }
    // /healthz follows the database every few seconds, and says little; a real call says what is wrong
    // (its error names the database's address), and must get through before an outage is lifted. An
    // unknown entity's NOT_FOUND is such a call: the database answered.
    try {
      await client.getEntity({ name: "actors/polgraph-explorer-probe" }, { timeoutMs: 5_000 });
    } catch (e) {
      return outageOf(e);
    }
    return null;
  }

  private set(o: Outage | null): void {
    const prev = this.outage;
    this.outage = o;
    const first = !this.known;
    this.known = true;
    if (first || (prev === null) !== (o === null) || (prev && o && (prev.kind !== o.kind || prev.message !== o.message))) {
      this.onChange(o, prev);
    }
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.check(), o ? this.downEvery : this.okEvery);
  }
}
