// The review view: the documents the ingest pipeline read (polgraph.v1.ReviewService), each with its text,
// the excerpts its proposals were read from highlighted, and beside it the proposals and proposed entities
// with the reviewer's decisions in place: approve (one, the ones selected, or all shown), reject with a
// reason, merge a proposed entity into one the graph holds, or reject it. Beside the documents, the pairs of
// entities of the graph that may be one (ListMatchCandidates), each merged either way or judged not the
// same (the admin role). Every call needs the editor role: the view asks for an API key when the service
// wants one (api.ts keeps it for the tab).
import { Code, ConnectError } from "@connectrpc/connect";
import { timestampDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import { client, describeError, editorKey, outageOf, reviewClient, setEditorKey, writeClient } from "./api";
import { h, safeLink } from "./dom";
import {
  ReviewState,
  type GetDocumentResponse,
  type MatchCandidate,
  type Proposal,
  type ProposedEntity,
  type ReviewDocument,
} from "./gen/polgraph/v1/review_service_pb";
import { ClaimStatus, RelationType, type Entity } from "./gen/polgraph/v1/resources_pb";
import { byteIndexer, pieces } from "./highlight";
import { kindKey, kinds, relationTypes, statusKey, timeLabel, typeLabel } from "./vocab";

/** What the review view needs from the page around it. */
export interface ReviewHost {
  /** Runs a call with the page's busy mark and its watch for outages (which then show in the banner). */
  call<T>(doing: string, f: () => Promise<T>): Promise<T>;
  /** Records in the address where the review view is: "" for the list of documents, or a document's hash. */
  save(review: string): void;
  /** Leaves the review for the graph, showing the relation an approval wrote its claim to. */
  showInGraph(relation: string, denied: boolean): Promise<void>;
}

const stateKey = (s: ReviewState) => (ReviewState[s] ?? "UNSPECIFIED") as keyof typeof ReviewState;
const stateLabel = (s: ReviewState) => stateKey(s).toLowerCase();

/** A day as YYYY-MM-DD, in the page's time zone. */
function day(t: Timestamp | undefined): string {
  if (!t) return "";
  const d = timestampDate(t);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, "0")}-${String(d.getDate()).padStart(2, "0")}`;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** What a decision in progress is about: the reason form or merge search open in place. */
type Pending =
  | { op: "reject"; proposals: string[]; key: string }
  | { op: "reject-entity"; entity: string }
  | { op: "merge"; entity: string }
  | { op: "apart"; pair: string }
  | null;

export class ReviewView {
  private readonly gate = h("div", { class: "review-gate", "data-testid": "review-gate", hidden: true });
  private readonly keyLine = h("div", { class: "review-key", "data-testid": "review-key" });
  private readonly docList = h("ul", { class: "doc-list", "data-testid": "review-documents" });
  private readonly docMore = h("button", { type: "button", hidden: true, onclick: () => void this.loadDocuments(true) }, "More documents");
  private readonly docHead = h("header", { class: "doc-head" });
  private readonly docText = h("div", { class: "doc-text", "data-testid": "review-text" });
  private readonly side = h("div", { class: "review-side-inner" });
  private readonly matchList = h("ul", { class: "match-list", "data-testid": "review-matches" });
  private readonly matchHead = h("h2", null, "Entities that may be one");
  private matches: MatchCandidate[] = [];
  private readonly status = h("div", { class: "review-status", role: "status", "aria-live": "polite", "data-testid": "review-status" });

  private documents: ReviewDocument[] = [];
  private nextPage = "";
  private total = 0;
  private listed = false;
  /** The document asked for, and the one shown. */
  private wanted = "";
  private hash = "";
  private doc: GetDocumentResponse | null = null;
  /** Display names of the entities proposals name, proposed or of the graph. */
  private readonly names = new Map<string, string>();
  private readonly selected = new Set<string>();
  private stateFilter = ReviewState.UNSPECIFIED;
  private typeFilter = RelationType.UNSPECIFIED;
  private pending: Pending = null;
  /** The proposals whose excerpts were clicked in the text, marked in the list. */
  private focused: string[] = [];
  private generation = 0;

  constructor(
    root: HTMLElement,
    private readonly host: ReviewHost,
  ) {
    root.append(
      this.gate,
      h("div", { class: "review-grid" },
        h("aside", { class: "review-docs", "aria-label": "Documents" },
          this.keyLine,
          h("h2", null, "Documents ", h("button", { type: "button", class: "link", onclick: () => void this.refresh() }, "refresh")),
          this.docList,
          this.docMore,
          this.matchHead,
          this.matchList,
          this.ingestForm(),
        ),
        h("section", { class: "review-doc", "aria-label": "The document's text" }, this.docHead, this.docText),
        h("aside", { class: "review-side", "aria-label": "Proposals", "data-testid": "review-proposals" }, this.side),
      ),
      this.status,
    );
    this.showDocument();
  }

  /** Shows the list of documents and, when hash is not "", that document. */
  async open(hash: string): Promise<void> {
    this.wanted = hash;
    if (!this.listed) {
      if (!(await this.loadDocuments(false))) return;
    }
    if (hash && hash !== this.hash) await this.openDocument(hash);
    else if (!hash) this.closeDocument();
  }

  // -------------------------------------------------------------------------------------------------------
  // Calls, and what their failures say.

  private say(text: string, error = false): void {
    this.status.textContent = text;
    this.status.classList.toggle("error", error);
  }

  /** Runs a review call; a failure is said (or asks for a key) and gives undefined. An admin's call
   * refused for its role says so, and keeps the editor's key. */
  private async run<T>(doing: string, f: () => Promise<T>, admin = false): Promise<T | undefined> {
    try {
      const r = await this.host.call(doing, f);
      this.gate.hidden = true;
      return r;
    } catch (e) {
      if (admin && ConnectError.from(e).code === Code.PermissionDenied) {
        this.say(`Could not ${doing.charAt(0).toLowerCase() + doing.slice(1)}: it needs an admin's key (${ConnectError.from(e).rawMessage}).`, true);
        return undefined;
      }
      this.failed(doing, e);
      return undefined;
    }
  }

  private failed(doing: string, e: unknown): void {
    const ce = ConnectError.from(e);
    const what = doing.charAt(0).toLowerCase() + doing.slice(1);
    if (ce.code === Code.Unauthenticated) {
      const had = editorKey() !== "";
      setEditorKey("");
      this.askForKey(had ? `polgraph does not take that key (${ce.rawMessage}).` : "");
      return;
    }
    if (ce.code === Code.PermissionDenied && /\brole\b/.test(ce.rawMessage)) {
      // A reader's key, or a client certificate with a role too low.
      const had = editorKey() !== "";
      setEditorKey("");
      this.askForKey(`${had ? "That key" : "This connection"} cannot review: ${ce.rawMessage}.`);
      return;
    }
    if (ce.code === Code.Unimplemented) {
      this.say("This polgraph serves no review queue (polgraph.v1.ReviewService): it runs without writes.", true);
      return;
    }
    const o = outageOf(e);
    if (o) {
      this.say(`Could not ${what}: ${o.kind === "unreachable" ? "polgraph" : "its database"} is not answering (see the banner).`, true);
      return;
    }
    this.say(`Could not ${what}: ${describeError(e)}`, true);
  }

  /** Shows the form that asks for an editor's key, with why it is asked. */
  private askForKey(why: string): void {
    const input = h("input", {
      type: "password", id: "review-key-input", autocomplete: "off", spellcheck: "false", required: true,
      placeholder: "pgk_…", "aria-describedby": "review-key-help",
    });
    const form = h("form", { class: "keyform", "data-testid": "review-keyform" },
      h("h2", null, "The review queue needs an editor’s API key"),
      why ? h("p", { class: "note" }, why) : null,
      h("p", { id: "review-key-help" },
        "Reading documents and deciding on what they propose change what the graph may hold, so polgraph asks for a key with the ",
        h("strong", null, "editor"), " role. Where polgraph runs, make one (it is shown once):"),
      h("pre", null, "./bin/polgraph keys create --name YOUR-NAME --role editor"),
      h("label", { for: "review-key-input" }, "Editor API key"),
      h("div", { class: "keyrow" }, input, h("button", { type: "submit", class: "primary" }, "Use this key")),
      h("p", { class: "hint" },
        "The key is kept for this tab only (sessionStorage; closing the tab forgets it) and sent only with the review’s calls, as ",
        h("code", null, "Authorization: Bearer"), "."),
    );
    form.addEventListener("submit", (ev) => {
      ev.preventDefault();
      const key = input.value.trim();
      if (!key) return;
      setEditorKey(key);
      this.gate.hidden = true;
      this.listed = false;
      void this.open(this.wanted).then(() => this.showKey());
    });
    this.gate.replaceChildren(form);
    this.gate.hidden = false;
    this.say("");
    this.showKey();
    input.focus();
  }

  private showKey(): void {
    const key = editorKey();
    this.keyLine.replaceChildren(
      key
        ? h("span", null, "Reviewing with an editor’s key ", h("code", null, `${key.slice(0, 8)}…`), " ",
            h("button", { type: "button", class: "link", "data-testid": "review-forget-key", onclick: () => this.forgetKey() }, "forget it"))
        : h("span", { class: "muted" },
            this.gate.hidden ? "Reviewing without a key (polgraph lets this connection review)." : "No editor’s key yet."),
    );
  }

  private forgetKey(): void {
    setEditorKey("");
    this.listed = false;
    this.documents = [];
    this.doc = null;
    this.hash = "";
    this.renderDocuments();
    this.showDocument();
    this.askForKey("The key is forgotten: this tab no longer holds it.");
  }

  // -------------------------------------------------------------------------------------------------------
  // The documents.

  private async loadDocuments(more: boolean): Promise<boolean> {
    const resp = await this.run("Listing the documents read", () =>
      reviewClient.listDocuments({ pageSize: 50, pageToken: more ? this.nextPage : "" }),
    );
    if (!resp) return false;
    this.documents = more ? [...this.documents, ...resp.documents] : resp.documents;
    this.nextPage = resp.nextPageToken;
    this.total = resp.totalSize;
    this.listed = true;
    this.renderDocuments();
    this.showKey();
    if (!more) await this.loadMatches();
    if (!more && this.total === 0) this.say("No document has been read yet: add one below, or with `polgraph ingest`.");
    return true;
  }

  /** The graph changed (the explorer's live mode): the counts and the open document are read again. */
  async changed(): Promise<void> {
    if (this.listed) await this.refresh();
  }

  /** Reads the list and the open document again. */
  private async refresh(): Promise<void> {
    const open = this.hash;
    if (!(await this.loadDocuments(false))) return;
    if (open) await this.openDocument(open, true);
  }

  private renderDocuments(): void {
    this.docList.replaceChildren(
      ...this.documents.map((d) => {
        const s = d.source;
        const meta = [s?.outlet, s?.published || day(d.ingested)].filter(Boolean).join(" · ");
        return h("li", null,
          h("button", {
              type: "button", class: "doc-item", "data-document": d.hash, "aria-current": d.hash === this.hash ? "true" : "false",
              title: d.path || d.name, onclick: () => void this.select(d.hash),
            },
            h("span", { class: "doc-title" }, s?.title || d.path || d.hash.slice(0, 12)),
            meta ? h("span", { class: "doc-meta" }, meta) : null,
            h("span", { class: "doc-counts" },
              h("span", { class: d.pending ? "count pending" : "count none", "data-count": "pending" }, `${d.pending} pending`),
              ` · ${d.approved} approved · ${d.rejected} rejected`),
          ),
        );
      }),
    );
    if (this.listed && this.documents.length === 0) this.docList.append(h("li", { class: "muted" }, "No documents yet."));
    this.docMore.hidden = !this.nextPage;
    this.docMore.textContent = `More documents (${this.total - this.documents.length} more)`;
  }

  private async select(hash: string): Promise<void> {
    this.wanted = hash;
    this.host.save(hash);
    await this.openDocument(hash);
  }

  private closeDocument(): void {
    this.hash = "";
    this.doc = null;
    this.renderDocuments();
    this.showDocument();
  }

  /** Reads a document with its proposals; `again` keeps the filters, the selection and the scroll. */
  private async openDocument(hash: string, again = false): Promise<void> {
    const generation = ++this.generation;
    // Its proposed entities are those its proposals name and those it proposed first, so one merged away
    // still shows how it was decided.
    const resp = await this.run("Reading the document", () => reviewClient.getDocument({ name: hash }));
    if (!resp || generation !== this.generation) return;
    const d = resp.document!;
    if (!again || d.hash !== this.hash) {
      this.selected.clear();
      this.stateFilter = ReviewState.UNSPECIFIED;
      this.typeFilter = RelationType.UNSPECIFIED;
      this.focused = [];
      this.docText.scrollTop = 0;
    }
    this.pending = null;
    this.hash = d.hash;
    this.doc = resp;
    await this.loadNames(resp);
    if (generation !== this.generation) return;
    // Only what can still be decided stays selected.
    const pendingNames = new Set(resp.proposals.filter((p) => p.state === ReviewState.PENDING).map((p) => p.name));
    for (const n of [...this.selected]) if (!pendingNames.has(n)) this.selected.delete(n);
    // The list's counts follow the document.
    const i = this.documents.findIndex((x) => x.hash === d.hash);
    if (i >= 0) this.documents[i] = { ...this.documents[i], pending: d.pending, approved: d.approved, rejected: d.rejected };
    this.renderDocuments();
    this.showDocument();
  }

  /** Display names for the ends of the document's proposals: proposed ones from the answer, others asked. */
  private async loadNames(d: GetDocumentResponse): Promise<void> {
    for (const e of d.entities) this.names.set(e.name, e.displayName);
    const want = new Set<string>();
    for (const p of d.proposals) for (const n of [p.from, p.to, p.saidBy]) if (n && !this.names.has(n)) want.add(n);
    for (const e of d.entities) if (e.mergedInto && !this.names.has(e.mergedInto)) want.add(e.mergedInto);
    if (want.size === 0) return;
    try {
      const r = await this.host.call("Loading names", () => client.batchGetEntities({ names: [...want].slice(0, 1000) }));
      for (const e of r.entities) this.names.set(e.name, e.displayName);
    } catch {
      // The resource names stand in for display names.
    }
  }

  // -------------------------------------------------------------------------------------------------------
  // The document: its text with the excerpts highlighted.

  private showDocument(): void {
    const resp = this.doc;
    if (!resp) {
      this.docHead.replaceChildren();
      this.docText.replaceChildren(
        h("p", { class: "placeholder" },
          "Pick a document on the left to read it with what the pipeline proposes from it, or add one. " +
          "Nothing proposed counts as a link until it is approved."),
      );
      this.side.replaceChildren();
      return;
    }
    const d = resp.document!;
    const s = d.source;
    const meta: (Node | string)[] = [];
    const where = [s?.outlet, s?.published, s?.author].filter(Boolean).join(" · ");
    if (where) meta.push(where, " · ");
    meta.push(`read ${day(d.ingested)} as ${d.format}`);
    if (s?.url) meta.push(" · ", safeLink(s.url, "the original"));
    this.docHead.replaceChildren(
      h("h3", { "data-testid": "review-title" }, s?.title || d.path || d.hash.slice(0, 12)),
      h("p", { class: "sub" }, meta),
      h("p", { class: "sub small" }, `${d.name} · cited as ${s?.name ?? ""}`),
      h("p", { class: "legend-line small" },
        h("mark", { class: "span pending" }, "pending"), " ",
        h("mark", { class: "span approved" }, "approved"), " ",
        h("mark", { class: "span rejected" }, "rejected"), " ",
        h("span", { class: "muted" }, "— click a highlighted sentence for what was read from it")),
    );
    this.renderText();
    this.renderSide();
  }

  private renderText(): void {
    const resp = this.doc!;
    const text = resp.document!.text;
    const at = byteIndexer(text);
    const byName = new Map(resp.proposals.map((p) => [p.name, p]));
    const spans = resp.proposals.map((p) => ({ id: p.name, start: at(p.spanStart), end: at(p.spanEnd) }));
    const focused = new Set(this.focused);
    this.docText.replaceChildren(
      ...pieces(text, spans).map((piece) => {
        if (piece.ids.length === 0) return piece.text;
        const states = piece.ids.map((id) => byName.get(id)!.state);
        const cls = states.includes(ReviewState.PENDING) ? "pending" : states.includes(ReviewState.APPROVED) ? "approved" : "rejected";
        const kinds = piece.ids.map((id) => {
          const p = byName.get(id)!;
          return `${typeLabel(p.type)} (${stateLabel(p.state)})`;
        });
        return h("mark", {
            class: `span ${cls}${piece.ids.some((id) => focused.has(id)) ? " focus" : ""}`,
            "data-proposals": piece.ids.join(" "),
            title: [...new Set(kinds)].join("; "),
            onclick: () => this.focusProposals(piece.ids),
          },
          piece.text,
        );
      }),
    );
  }

  /** Marks the proposals read from a sentence in the list, and brings the first into view. */
  private focusProposals(ids: string[]): void {
    this.focused = ids;
    // A proposal the filters hide is shown: the filters go back to all.
    const shown = new Set(this.shownProposals().map((p) => p.name));
    if (ids.some((id) => !shown.has(id))) {
      this.stateFilter = ReviewState.UNSPECIFIED;
      this.typeFilter = RelationType.UNSPECIFIED;
    }
    this.renderText();
    this.renderSide();
    const first = this.side.querySelector<HTMLElement>("li.proposal.focus");
    first?.scrollIntoView({ block: "nearest" });
  }

  /** Brings a proposal's excerpt into view in the text, marked. */
  private showExcerpt(p: Proposal): void {
    this.focused = [p.name];
    this.renderText();
    for (const li of this.side.querySelectorAll("li.proposal")) li.classList.toggle("focus", li.getAttribute("data-proposal") === p.name);
    const mark = this.docText.querySelector<HTMLElement>("mark.focus");
    mark?.scrollIntoView({ block: "center" });
  }

  private hoverExcerpt(name: string, on: boolean): void {
    for (const m of this.docText.querySelectorAll("mark[data-proposals]")) {
      if ((m.getAttribute("data-proposals") ?? "").split(" ").includes(name)) m.classList.toggle("hover", on);
    }
  }

  // -------------------------------------------------------------------------------------------------------
  // Beside it: the proposals and the proposed entities, with the decisions in place.

  private shownProposals(): Proposal[] {
    const ps = this.doc?.proposals ?? [];
    return ps.filter(
      (p) =>
        (this.stateFilter === ReviewState.UNSPECIFIED || p.state === this.stateFilter) &&
        (this.typeFilter === RelationType.UNSPECIFIED || p.type === this.typeFilter),
    );
  }

  private renderSide(): void {
    const resp = this.doc!;
    const all = resp.proposals;
    const shown = this.shownProposals();
    const count = (s: ReviewState) => all.filter((p) => p.state === s).length;
    const types = [...new Set(all.map((p) => p.type))];
    const stateSelect = h("select", { "aria-label": "Proposals in this state", "data-testid": "review-state-filter" },
      ...[ReviewState.UNSPECIFIED, ReviewState.PENDING, ReviewState.APPROVED, ReviewState.REJECTED].map((s) =>
        h("option", { value: s, selected: s === this.stateFilter },
          s === ReviewState.UNSPECIFIED ? `all (${all.length})` : `${stateLabel(s)} (${count(s)})`)),
    );
    stateSelect.addEventListener("change", () => {
      this.stateFilter = Number(stateSelect.value) as ReviewState;
      this.renderSide();
    });
    const typeSelect = h("select", { "aria-label": "Proposals of this type" },
      h("option", { value: RelationType.UNSPECIFIED }, "every type"),
      ...relationTypes.filter((t) => types.includes(t.type)).map((t) =>
        h("option", { value: t.type, selected: t.type === this.typeFilter }, typeLabel(t.type))),
    );
    typeSelect.addEventListener("change", () => {
      this.typeFilter = Number(typeSelect.value) as RelationType;
      this.renderSide();
    });
    const ents = resp.entities;
    this.side.replaceChildren(
      h("h2", null, `Proposals (${all.length})`),
      h("div", { class: "review-filters" }, stateSelect, typeSelect),
      this.bulkBar(shown),
      shown.length
        ? h("ul", { class: "proposals" }, shown.map((p) => this.proposalItem(p)))
        : h("p", { class: "muted" }, all.length ? "No proposal of this document matches the filters." : "Nothing was proposed from this document."),
      h("h2", null, `Proposed entities (${ents.length})`),
      ents.length
        ? h("ul", { class: "pentities" }, ents.map((e) => this.entityItem(e)))
        : h("p", { class: "muted" }, "Its proposals name only entities the graph holds."),
    );
  }

  /** Select all, approve or reject the selected, approve all shown. */
  private bulkBar(shown: Proposal[]): HTMLElement {
    const pendingShown = shown.filter((p) => p.state === ReviewState.PENDING);
    const sel = [...this.selected];
    const all = h("input", {
      type: "checkbox", "aria-label": "Select every pending proposal shown", "data-testid": "review-select-all",
      checked: pendingShown.length > 0 && pendingShown.every((p) => this.selected.has(p.name)),
      disabled: pendingShown.length === 0,
    });
    all.addEventListener("change", () => {
      for (const p of pendingShown) {
        if (all.checked) this.selected.add(p.name);
        else this.selected.delete(p.name);
      }
      this.renderSide();
    });
    const rejecting = this.pending?.op === "reject" && this.pending.key === "selected";
    return h("div", { class: "bulk", "data-testid": "review-bulk" },
      h("label", { class: "check" }, all, sel.length ? `${sel.length} selected` : "select all"),
      h("button", {
          type: "button", class: "primary", disabled: sel.length === 0, "data-action": "approve-selected",
          onclick: () => void this.approve(sel),
        }, "Approve selected"),
      h("button", {
          type: "button", disabled: sel.length === 0, "data-action": "reject-selected",
          onclick: () => this.startReject(sel, "selected"),
        }, "Reject selected…"),
      h("button", {
          type: "button", disabled: pendingShown.length === 0, "data-action": "approve-shown",
          title: "Approve every pending proposal the filters show",
          onclick: () => void this.approve(pendingShown.map((p) => p.name)),
        }, `Approve all shown (${pendingShown.length})`),
      rejecting ? this.reasonForm(`Reject ${plural(sel.length, "proposal")}`, (reason) => void this.reject(sel, reason)) : null,
    );
  }

  private endLabel(name: string): HTMLElement {
    const e = this.doc?.entities.find((x) => x.name === name);
    return h("span", { class: "end", title: name },
      this.names.get(name) ?? name,
      e && e.state === ReviewState.PENDING ? h("span", { class: "newtag", title: "A proposed entity: created when a proposal naming it is approved" }, "new") : null,
      e && e.state === ReviewState.REJECTED ? h("span", { class: "newtag rejected" }, "rejected") : null,
    );
  }

  private proposalItem(p: Proposal): HTMLElement {
    const st = stateKey(p.state);
    const pending = p.state === ReviewState.PENDING;
    const status = statusKey(p.status);
    const meta: (Node | string)[] = [
      h("span", { class: `badge ${status}` }, status.toLowerCase()), " ",
      h("span", { class: "conf", title: "confidence" }, `confidence ${p.confidence.toFixed(2)}`),
    ];
    const when = timeLabel(p);
    if (when) meta.push(` · ${when}`);
    if (p.role) meta.push(` · ${p.role}`);
    if (p.rule) meta.push(" · rule ", h("code", { class: "rule", title: "the wording that proposed it" }, p.rule));
    if (p.saidBy) meta.push(" · said by ", this.endLabel(p.saidBy));
    const box = h("input", { type: "checkbox", "aria-label": "Select", checked: this.selected.has(p.name) });
    box.addEventListener("change", () => {
      if (box.checked) this.selected.add(p.name);
      else this.selected.delete(p.name);
      this.renderSide();
    });
    const rejecting = this.pending?.op === "reject" && this.pending.key === p.name;
    const li = h("li", {
        class: `proposal${this.focused.includes(p.name) ? " focus" : ""}`,
        "data-proposal": p.name, "data-state": st,
        onmouseenter: () => this.hoverExcerpt(p.name, true),
        onmouseleave: () => this.hoverExcerpt(p.name, false),
      },
      h("div", { class: "p-head" },
        pending ? box : null,
        h("button", { type: "button", class: "link p-type", title: "Show its excerpt in the text", onclick: () => this.showExcerpt(p) },
          typeLabel(p.type)),
        h("span", { class: `state ${st}`, "data-testid": "proposal-state" }, stateLabel(p.state)),
      ),
      h("div", { class: "p-ends" }, this.endLabel(p.from), " → ", this.endLabel(p.to)),
      h("div", { class: "p-meta" }, meta),
      ...p.resolved.map((r) => h("div", { class: "p-resolved", "data-testid": "proposal-resolved", title: "resolved through the graph, as of the document's date" }, r)),
      pending && !rejecting
        ? h("div", { class: "p-actions" },
            h("button", { type: "button", class: "primary", "data-action": "approve", onclick: () => void this.approve([p.name]) }, "Approve"),
            h("button", { type: "button", "data-action": "reject", onclick: () => this.startReject([p.name], p.name) }, "Reject…"),
          )
        : null,
      rejecting ? this.reasonForm("Reject", (reason) => void this.reject([p.name], reason)) : null,
      p.state === ReviewState.APPROVED
        ? h("p", { class: "p-outcome" },
            "Approved", p.reviewer ? ` by ${p.reviewer}` : "", ": its claim is in ",
            h("code", null, p.relation), " ",
            h("button", {
                type: "button", class: "link", "data-action": "show-in-graph",
                onclick: () => void this.host.showInGraph(p.relation, p.status === ClaimStatus.DENIED),
              }, "show in graph"))
        : null,
      p.state === ReviewState.REJECTED
        ? h("p", { class: "p-outcome rejected" }, "Rejected", p.reviewer ? ` by ${p.reviewer}` : "", ": ", h("q", { class: "reason" }, p.reason))
        : null,
    );
    return li;
  }

  private entityItem(e: ProposedEntity): HTMLElement {
    const st = stateKey(e.state);
    const kind = kindKey(e.kind);
    const pending = e.state === ReviewState.PENDING;
    const merging = this.pending?.op === "merge" && this.pending.entity === e.name;
    const rejecting = this.pending?.op === "reject-entity" && this.pending.entity === e.name;
    return h("li", { class: "pentity", "data-entity": e.name, "data-state": st },
      h("div", { class: "p-head" },
        h("span", { class: "kindtag", style: `background:${kinds[kind].color}` }, kinds[kind].label),
        h("strong", null, e.displayName),
        h("span", { class: `state ${st}` }, stateLabel(e.state)),
      ),
      h("p", { class: "sub small" }, e.name, e.aliases.length ? ` · also ${e.aliases.join(", ")}` : ""),
      pending && !merging && !rejecting
        ? h("div", { class: "p-actions" },
            h("button", { type: "button", "data-action": "merge", title: "It is an entity the graph holds", onclick: () => this.startMerge(e.name) }, "Merge into…"),
            h("button", { type: "button", "data-action": "reject-entity", onclick: () => this.setPending({ op: "reject-entity", entity: e.name }) }, "Reject…"),
          )
        : null,
      merging ? this.mergeSearch(e) : null,
      rejecting
        ? this.reasonForm("Reject", (reason) => void this.rejectEntity(e.name, reason),
            "Its pending proposals are rejected with it.")
        : null,
      e.state === ReviewState.MERGED
        ? h("p", { class: "p-outcome" }, "Merged into ", h("strong", { title: e.mergedInto }, this.names.get(e.mergedInto) ?? e.mergedInto),
            e.reviewer ? ` by ${e.reviewer}` : "")
        : null,
      e.state === ReviewState.APPROVED ? h("p", { class: "p-outcome" }, "Created in the graph by an approval.") : null,
      e.state === ReviewState.REJECTED
        ? h("p", { class: "p-outcome rejected" }, "Rejected", e.reviewer ? ` by ${e.reviewer}` : "", ": ", h("q", { class: "reason" }, e.reason))
        : null,
    );
  }

  private setPending(p: Pending): void {
    this.pending = p;
    this.renderSide();
    this.side.querySelector<HTMLInputElement>("form.reason input, .merge input")?.focus();
  }

  private startReject(names: string[], key: string): void {
    if (names.length) this.setPending({ op: "reject", proposals: names, key });
  }

  private startMerge(entity: string): void {
    this.setPending({ op: "merge", entity });
  }

  /** The form a rejection asks its reason in: one line, required. */
  private reasonForm(label: string, done: (reason: string) => void, note = ""): HTMLElement {
    const input = h("input", {
      type: "text", required: true, maxlength: 1000, "aria-label": "Why it is rejected",
      placeholder: "Why? e.g. a reader’s comment, not the outlet’s", "data-testid": "reject-reason",
    });
    const form = h("form", { class: "reason" },
      note ? h("p", { class: "hint" }, note) : null,
      input,
      h("div", { class: "p-actions" },
        h("button", { type: "submit", class: "danger", "data-action": "confirm-reject" }, label),
        h("button", { type: "button", onclick: () => this.setPending(null) }, "Cancel"),
      ),
    );
    form.addEventListener("submit", (ev) => {
      ev.preventDefault();
      const reason = input.value.replace(/\s+/g, " ").trim();
      if (!reason) {
        input.focus();
        return;
      }
      done(reason);
    });
    input.addEventListener("keydown", (ev) => {
      if (ev.key === "Escape") this.setPending(null);
    });
    return form;
  }

  /** A search box for the entity of the graph a proposed one is: SearchEntities, of the same kind. */
  private mergeSearch(e: ProposedEntity): HTMLElement {
    const input = h("input", {
      type: "search", autocomplete: "off", spellcheck: "false", "aria-label": `The entity ${e.displayName} is`,
      placeholder: `an existing ${kinds[kindKey(e.kind)].label}…`, value: e.displayName, "data-testid": "merge-search",
    });
    const list = h("ul", { class: "suggestions", role: "listbox", hidden: true });
    let results: Entity[] = [];
    let active = -1;
    let seq = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const mark = () => [...list.children].forEach((li, i) => li.setAttribute("aria-selected", String(i === active)));
    const choose = (i: number) => {
      const into = results[i];
      if (into) void this.merge(e, into);
    };
    const search = async () => {
      const q = input.value.trim();
      const mine = ++seq;
      if (q.length < 2) {
        list.hidden = true;
        return;
      }
      try {
        const found = await this.host.call(`Searching for “${q}”`, () => this.searchLike(q, e));
        if (mine !== seq) return;
        results = found;
        active = results.length ? 0 : -1;
        list.replaceChildren(
          ...(results.length
            ? results.map((r, i) =>
                h("li", { role: "option", "data-name": r.name, onmousedown: (ev: Event) => { ev.preventDefault(); choose(i); } },
                  h("span", { class: "name" }, r.displayName), h("span", { class: "matched" }, r.name)))
            : [h("li", { class: "none" }, `The graph holds no ${kinds[kindKey(e.kind)].label} like “${q}”.`)]),
        );
        mark();
        list.hidden = false;
      } catch (err) {
        if (mine === seq) this.failed(`search for “${q}”`, err);
      }
    };
    input.addEventListener("input", () => {
      clearTimeout(timer);
      timer = setTimeout(() => void search(), 150);
    });
    input.addEventListener("keydown", (ev) => {
      if ((ev.key === "ArrowDown" || ev.key === "ArrowUp") && results.length) {
        ev.preventDefault();
        active = (active + (ev.key === "ArrowDown" ? 1 : results.length - 1)) % results.length;
        mark();
      } else if (ev.key === "Enter") {
        ev.preventDefault();
        if (!list.hidden && active >= 0) choose(active);
      } else if (ev.key === "Escape") {
        this.setPending(null);
      }
    });
    // The display name is searched at once: the entity it is often has the same name, spelled otherwise.
    setTimeout(() => void search(), 0);
    return h("div", { class: "merge" },
      h("div", { class: "search" }, input, list),
      h("p", { class: "hint" }, "Pick the entity it is: its proposals then name that one."),
      h("button", { type: "button", onclick: () => this.setPending(null) }, "Cancel"),
    );
  }

  /**
   * Entities of the graph of e's kind that q may name: SearchEntities on q, and when that finds none, on
   * each of its words (a misspelt name often has one word right: "Rabena Kahn" is Rabina Khan).
   */
  private async searchLike(q: string, e: ProposedEntity): Promise<Entity[]> {
    const search = async (query: string) =>
      (await client.searchEntities({ query, kinds: [e.kind], pageSize: 8 })).results.map((r) => r.entity!).filter(Boolean);
    const whole = await search(q);
    const words = q.split(/\s+/).filter((w) => w.length >= 3);
    if (whole.length || words.length < 2) return whole;
    const seen = new Map<string, Entity>();
    for (const found of await Promise.all(words.map(search))) for (const x of found) if (!seen.has(x.name)) seen.set(x.name, x);
    return [...seen.values()].slice(0, 8);
  }

  // -------------------------------------------------------------------------------------------------------
  // Decisions.

  private async approve(names: string[]): Promise<void> {
    if (!names.length) return;
    const resp = await this.run(`Approving ${plural(names.length, "proposal")}`, () => reviewClient.approveProposals({ names }));
    if (!resp) return;
    for (const n of names) this.selected.delete(n);
    const created = resp.createdEntities.length ? `; created ${resp.createdEntities.map((n) => this.names.get(n) ?? n).join(", ")}` : "";
    const unchanged = resp.unchanged.length ? ` (${plural(resp.unchanged.length, "was", "were")} approved before)` : "";
    this.say(`Approved ${plural(resp.approved.length, "proposal")}${unchanged}: their claims count in the graph now${created}.`);
    await this.openDocument(this.hash, true);
  }

  private async reject(names: string[], reason: string): Promise<void> {
    const resp = await this.run(`Rejecting ${plural(names.length, "proposal")}`, () => reviewClient.rejectProposals({ names, reason }));
    if (!resp) return;
    for (const n of names) this.selected.delete(n);
    this.say(`Rejected ${plural(resp.rejected.length, "proposal")}: “${reason}”. The same reading is not proposed again.`);
    await this.openDocument(this.hash, true);
  }

  private async merge(e: ProposedEntity, into: Entity): Promise<void> {
    const resp = await this.run(`Merging ${e.displayName} into ${into.displayName}`, () =>
      reviewClient.mergeProposedEntity({ name: e.name, into: into.name }),
    );
    if (!resp) return;
    this.names.set(into.name, into.displayName);
    const rejected = resp.rejected.length ? `; ${plural(resp.rejected.length, "proposal")} that would join it to itself rejected` : "";
    const n = resp.repointed.length;
    this.say(`${e.displayName} is ${into.displayName}: ${plural(n, "pending proposal")} ${n === 1 ? "names" : "name"} ${into.displayName} now${rejected}.`);
    await this.openDocument(this.hash, true);
  }

  private async rejectEntity(name: string, reason: string): Promise<void> {
    const resp = await this.run(`Rejecting ${this.names.get(name) ?? name}`, () => reviewClient.rejectProposedEntity({ name, reason }));
    if (!resp) return;
    this.say(`Rejected ${resp.entity?.displayName ?? name} with ${plural(resp.rejected.length, "pending proposal")}: “${reason}”.`);
    await this.openDocument(this.hash, true);
  }

  // -------------------------------------------------------------------------------------------------------
  // Entities that may be one.

  private async loadMatches(): Promise<void> {
    const resp = await this.run("Listing the entities that may be one", () => reviewClient.listMatchCandidates({ pageSize: 20 }));
    if (!resp) return;
    this.matches = resp.candidates;
    this.matchHead.textContent = `Entities that may be one (${resp.totalSize})`;
    this.renderMatches();
  }

  private renderMatches(): void {
    const shown = (e: Entity | undefined) => h("strong", { title: e?.name ?? "" }, e?.displayName ?? "");
    this.matchList.replaceChildren(
      ...this.matches.map((m) => {
        const a = m.a, b = m.b;
        if (!a || !b) return h("li", null);
        const pair = `${a.name}~${b.name}`;
        const apart = this.pending?.op === "apart" && this.pending.pair === pair;
        return h("li", { class: "match", "data-pair": pair },
          h("p", null, shown(a), " ~ ", shown(b)),
          h("p", { class: "sub small" }, `${a.name} · ${b.name}`),
          h("p", { class: "small" }, m.explanation),
          apart
            ? this.reasonForm("Not the same", (reason) => void this.separate(m, reason),
                "The pair is not proposed again, and no import or merge joins it.")
            : h("div", { class: "p-actions" },
                h("button", { type: "button", "data-action": "merge-into-a", onclick: () => void this.mergePair(b, a) }, `Merge into ${a.displayName}`),
                h("button", { type: "button", "data-action": "merge-into-b", onclick: () => void this.mergePair(a, b) }, `Merge into ${b.displayName}`),
                h("button", { type: "button", "data-action": "apart", onclick: () => { this.pending = { op: "apart", pair }; this.renderMatches(); } }, "Not the same…"),
              ),
        );
      }),
    );
    this.matchList.querySelector<HTMLInputElement>("form.reason input")?.focus();
  }

  private async mergePair(from: Entity, into: Entity): Promise<void> {
    const resp = await this.run(`Merging ${from.displayName} into ${into.displayName}`, () =>
      writeClient.mergeEntities({ from: from.name, into: into.name, reason: "one entity: merged in review" }), true,
    );
    if (!resp) return;
    this.say(`${from.displayName} (${from.name}) is merged into ${into.displayName}; undo with UnmergeEntities.`);
    await this.loadMatches();
  }

  private async separate(m: MatchCandidate, reason: string): Promise<void> {
    const resp = await this.run(`Keeping ${m.a?.displayName} and ${m.b?.displayName} apart`, () =>
      writeClient.separateEntities({ a: m.a?.name ?? "", b: m.b?.name ?? "", reason }), true,
    );
    this.pending = null;
    if (!resp) return;
    this.say(`${m.a?.displayName} and ${m.b?.displayName} are judged not the same: “${reason}”.`);
    await this.loadMatches();
  }

  // -------------------------------------------------------------------------------------------------------
  // Adding a document.

  private ingestForm(): HTMLElement {
    const content = h("textarea", { name: "content", rows: 6, required: true, placeholder: "Paste an article, an HTML page, or posts (one a line)…", "aria-label": "The document" });
    const file = h("input", { type: "file", accept: ".txt,.html,.htm,.json,.md,text/*", "aria-label": "Read a file" });
    const title = h("input", { type: "text", name: "title", placeholder: "title (else the text’s)" });
    const outlet = h("input", { type: "text", name: "outlet", placeholder: "outlet, e.g. BBC News" });
    const published = h("input", { type: "text", name: "published", placeholder: "published: YYYY, YYYY-MM or YYYY-MM-DD", pattern: "\\d{4}(-\\d{2}(-\\d{2})?)?" });
    const url = h("input", { type: "url", name: "url", placeholder: "https://… (where it can be read)" });
    const format = h("select", { name: "format", "aria-label": "What it is" },
      h("option", { value: "" }, "detect the format"), h("option", { value: "text" }, "plain text"),
      h("option", { value: "html" }, "HTML"), h("option", { value: "posts" }, "social posts"));
    let path = "";
    file.addEventListener("change", async () => {
      const f = file.files?.[0];
      if (!f) return;
      content.value = await f.text();
      path = f.name;
    });
    const form = h("form", { class: "ingest", "data-testid": "review-ingest" },
      file, content, title, outlet, published, url, format,
      h("button", { type: "submit", class: "primary" }, "Read it into the queue"),
      h("p", { class: "hint" }, "Up to 1 MB here; more with polgraph ingest. A text read before proposes nothing again."),
    );
    form.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      const resp = await this.run("Reading the document into the queue", () =>
        reviewClient.ingestDocuments({
          documents: [{
            content: content.value, format: format.value, path: path || "explorer", title: title.value.trim(),
            outlet: outlet.value.trim(), published: published.value.trim(), url: url.value.trim(),
          }],
        }),
      );
      const got = resp?.documents[0];
      if (!got) return;
      const d = got.document!;
      this.say(got.alreadyRead
        ? `“${d.source?.title || d.path}” was read before: nothing is queued again.`
        : `Read “${d.source?.title || d.path}”: ${plural(got.queuedProposals, "proposal")} and ${plural(got.queuedEntities, "proposed entity", "proposed entities")} queued.`);
      form.reset();
      path = "";
      (form.parentElement as HTMLDetailsElement | null)?.removeAttribute("open");
      await this.loadDocuments(false);
      await this.select(d.hash);
    });
    return h("details", { class: "ingest-box" }, h("summary", null, "Add a document"), form);
  }
}
