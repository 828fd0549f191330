package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"

	"google.golang.org/protobuf/types/known/fieldmaskpb"

	pb "github.com/polgraph/polgraph/api/polgraph/v1"
	"github.com/polgraph/polgraph/graph"
)

const reviewUsage = `usage: polgraph review COMMAND [flags] ...

The review queue of a running polgraph (needs an editor's API key): what polgraph ingest read, and the
decisions on it. Nothing proposed is in the graph until it is approved.

  documents                       the documents read, newest first, with their proposals by state
  list [--document H] [--entity NAME] [--state S] [--type T]
                                  proposals (pending ones unless --state says otherwise: pending,
                                  approved, rejected or all), newest document first, in text order
  show DOC [--text]               a document, its proposed entities and every proposal read from it;
                                  --text prints its text with each proposal's sentence marked
  entities [--state S] [--document H]
                                  the entities documents proposed
  approve ID... | --all [--document H] [--min-confidence X] [--type T] [--status S]
                                  make proposals claims in the graph, many at once
  reject ID... --reason R | --all --document H --reason R
                                  reject proposals, keeping the reason: never proposed again
  edit ID [--type T] [--from NAME] [--to NAME] [--status S] [--confidence X] [--role R]
          [--date D] [--valid-from D] [--valid-to D]
                                  change a pending proposal before deciding on it
  merge PROPOSED INTO             a proposed entity is an entity the graph holds: its proposals name that
  reject-entity NAME --reason R   a proposed entity is not one: it and its proposals are rejected

DOC and H are a document's hash (or its first 8 or more hex digits), documents/<hash> or the source name
its claims cite; ID is a proposal's name, proposals/<16 hex digits>, or the digits alone.`

// reviewCmd is `polgraph review COMMAND ...`.
func reviewCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprintln(stderr, reviewUsage)
		return errUsage
	}
	cmds := map[string]func(context.Context, []string, io.Writer, io.Writer) error{
		"documents": reviewDocumentsCmd, "list": reviewListCmd, "show": reviewShowCmd, "entities": reviewEntitiesCmd,
		"approve": reviewApproveCmd, "reject": reviewRejectCmd, "edit": reviewEditCmd, "merge": reviewMergeCmd,
		"reject-entity": reviewRejectEntityCmd,
	}
	run, ok := cmds[args[0]]
	if !ok {
		if args[0] != "help" && args[0] != "-h" && args[0] != "--help" {
			fmt.Fprintf(stderr, "polgraph review: unknown command %q\n\n", args[0])
		}
		fmt.Fprintln(stderr, reviewUsage)
		return errUsage
	}
	return run(ctx, args[1:], stdout, stderr)
}

// reviewWrites are the review commands that write (the queue, and the graph on approval).
var reviewWrites = map[string]bool{"approve": true, "reject": true, "edit": true, "merge": true, "reject-entity": true}

// reviewCall parses a review command's flags, says where a command that writes writes, dials the server
// and makes the calls of do under the command's timeout.
func reviewCall(ctx context.Context, name, usage string, minArgs, maxArgs int, args []string, stderr io.Writer, more func(*flag.FlagSet),
	do func(context.Context, *clientFlags, *flag.FlagSet, pb.ReviewServiceClient) error) error {
	c, fs, err := parseClientCommand("review "+name, usage, minArgs, maxArgs, false, args, stderr, more)
	if err != nil {
		return err
	}
	if reviewWrites[name] {
		writeTarget{server: c.server}.say(stderr)
	}
	conn, err := c.dialConn()
	if err != nil {
		return err
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	return do(ctx, c, fs, pb.NewReviewServiceClient(conn))
}

// proposalName makes a proposal's name of what a user typed: the name, or its hex digits alone.
func proposalName(s string) string {
	if strings.HasPrefix(s, "proposals/") {
		return s
	}
	return "proposals/" + s
}

func proposalNames(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = proposalName(a)
	}
	return out
}

// stateFlag reads a --state flag: pending, approved, rejected, merged, or all (UNSPECIFIED).
func stateFlag(s string) (pb.ReviewState, error) {
	if strings.EqualFold(s, "all") || s == "" {
		return pb.ReviewState_REVIEW_STATE_UNSPECIFIED, nil
	}
	v, ok := pb.ReviewState_value["REVIEW_STATE_"+strings.ToUpper(s)]
	if !ok || v == 0 {
		return 0, fmt.Errorf("--state %q: want pending, approved, rejected, merged or all", s)
	}
	return pb.ReviewState(v), nil
}

// typeFlag reads a relation type flag ("" for none).
func typeFlag(flagName, s string) (pb.RelationType, error) {
	if s == "" {
		return pb.RelationType_RELATION_TYPE_UNSPECIFIED, nil
	}
	t := strings.ReplaceAll(strings.ToUpper(strings.TrimSpace(s)), "-", "_")
	if !graph.RelationType(t).Valid() {
		return 0, fmt.Errorf("%s %q is not a relation type (MEMBER_OF, ENDORSES, ...; see data/FORMAT.md)", flagName, s)
	}
	return pb.RelationType(pb.RelationType_value["RELATION_TYPE_"+t]), nil
}

func stateName(s pb.ReviewState) string { return strings.TrimPrefix(s.String(), "REVIEW_STATE_") }

func typeName(t pb.RelationType) string { return strings.TrimPrefix(t.String(), "RELATION_TYPE_") }

func statusName(s pb.ClaimStatus) string { return strings.TrimPrefix(s.String(), "CLAIM_STATUS_") }

// writeProposal prints a proposal in a few lines: what it says, the claim, and what became of it.
func writeProposal(w io.Writer, p *pb.Proposal) {
	role := ""
	if p.GetRole() != "" {
		role = fmt.Sprintf(", role %q", p.GetRole())
	}
	fmt.Fprintf(w, "%s  %s  %s %s %s%s%s\n", p.GetName(), stateName(p.GetState()), p.GetFrom(), typeName(p.GetType()), p.GetTo(),
		whenOf(p.GetDate(), p.GetValidFrom(), p.GetValidTo()), role)
	said := ""
	if p.GetSaidBy() != "" {
		said = ", said by " + p.GetSaidBy()
	}
	fmt.Fprintf(w, "    %s %.2f%s: %q\n", statusName(p.GetStatus()), p.GetConfidence(), said, shorten(p.GetExcerpt(), 160))
	switch p.GetState() {
	case pb.ReviewState_REVIEW_STATE_APPROVED:
		fmt.Fprintf(w, "    approved by %s: %s\n", p.GetReviewer(), p.GetRelation())
	case pb.ReviewState_REVIEW_STATE_REJECTED:
		by := ""
		if p.GetReviewer() != "" {
			by = " by " + p.GetReviewer()
		}
		fmt.Fprintf(w, "    rejected%s: %s\n", by, p.GetReason())
	}
}

func writeProposedEntity(w io.Writer, e *pb.ProposedEntity) {
	aliases := ""
	if len(e.GetAliases()) > 0 {
		aliases = " (also " + strings.Join(e.GetAliases(), ", ") + ")"
	}
	fmt.Fprintf(w, "%s  %s  %q%s", e.GetName(), stateName(e.GetState()), e.GetDisplayName(), aliases)
	switch e.GetState() {
	case pb.ReviewState_REVIEW_STATE_MERGED:
		fmt.Fprintf(w, " → %s", e.GetMergedInto())
	case pb.ReviewState_REVIEW_STATE_REJECTED:
		fmt.Fprintf(w, ": %s", e.GetReason())
	}
	fmt.Fprintln(w)
}

// documentTitle is a document in a line: its name, title, outlet and date.
func documentTitle(d *pb.ReviewDocument) string {
	src := d.GetSource()
	var about []string
	for _, s := range []string{src.GetOutlet(), src.GetAuthor(), src.GetPublished()} {
		if s != "" {
			about = append(about, s)
		}
	}
	line := fmt.Sprintf("%s  %q", d.GetName(), src.GetTitle())
	if len(about) > 0 {
		line += " (" + strings.Join(about, ", ") + ")"
	}
	return line
}

func reviewDocumentsCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var pages pagingFlags
	return reviewCall(ctx, "documents", "usage: polgraph review documents [flags]\n\nThe documents read, newest first.", 0, 0, args, stderr,
		func(fs *flag.FlagSet) { pages.register(fs, 50, "documents") },
		func(ctx context.Context, c *clientFlags, _ *flag.FlagSet, client pb.ReviewServiceClient) error {
			resp, err := client.ListDocuments(ctx, &pb.ListDocumentsRequest{PageSize: int32(*pages.size), PageToken: *pages.token})
			if err != nil {
				return c.callError(err)
			}
			if c.json {
				return printJSON(stdout, resp)
			}
			fmt.Fprintf(stdout, "%d %s read\n", resp.GetTotalSize(), plural(int(resp.GetTotalSize()), "document", "documents"))
			for _, d := range resp.GetDocuments() {
				fmt.Fprintln(stdout, documentTitle(d))
				fmt.Fprintf(stdout, "    %d pending, %d approved, %d rejected; from %s\n", d.GetPending(), d.GetApproved(), d.GetRejected(), d.GetPath())
			}
			writeMore(stdout, resp.GetNextPageToken())
			return nil
		})
}

func reviewListCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var document, entity, state, typ *string
	var pages pagingFlags
	return reviewCall(ctx, "list", "usage: polgraph review list [flags]\n\nProposals, newest document first, in the order of its text.", 0, 0, args, stderr,
		func(fs *flag.FlagSet) {
			document = fs.String("document", "", "only those of this document (its hash, or its first 8 or more hex digits)")
			entity = fs.String("entity", "", "only those naming this entity: a resource name (of the graph, or proposed) or a name of the graph")
			state = fs.String("state", "pending", "pending, approved, rejected or all")
			typ = fs.String("type", "", "only those of this relation type, e.g. ENDORSES")
			pages.register(fs, 50, "proposals")
		},
		func(ctx context.Context, c *clientFlags, _ *flag.FlagSet, client pb.ReviewServiceClient) error {
			st, err := stateFlag(*state)
			if err != nil {
				return err
			}
			t, err := typeFlag("--type", *typ)
			if err != nil {
				return err
			}
			name := strings.TrimSpace(*entity)
			if name != "" && !graph.LooksLikeResourceName(name) {
				// A name of the graph: the entity it names.
				conn, err := c.dialConn()
				if err != nil {
					return err
				}
				defer conn.Close()
				e, err := pb.NewGraphServiceClient(conn).GetEntity(ctx, &pb.GetEntityRequest{Name: name})
				if err != nil {
					return c.callError(err)
				}
				name = e.GetEntity().GetName()
			}
			resp, err := client.ListProposals(ctx, &pb.ListProposalsRequest{Document: *document, Entity: name, State: st, Type: t,
				PageSize: int32(*pages.size), PageToken: *pages.token})
			if err != nil {
				return c.callError(err)
			}
			if c.json {
				return printJSON(stdout, resp)
			}
			what := plural(int(resp.GetTotalSize()), "proposal", "proposals")
			if st != pb.ReviewState_REVIEW_STATE_UNSPECIFIED {
				what = strings.ToLower(stateName(st)) + " " + what
			}
			fmt.Fprintf(stdout, "%d %s\n", resp.GetTotalSize(), what)
			for _, p := range resp.GetProposals() {
				writeProposal(stdout, p)
			}
			writeMore(stdout, resp.GetNextPageToken())
			return nil
		})
}

func reviewShowCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var text *bool
	return reviewCall(ctx, "show", "usage: polgraph review show [flags] DOC\n\nA document, its proposed entities and every proposal read from it.", 1, 1, args, stderr,
		func(fs *flag.FlagSet) {
			text = fs.Bool("text", false, "print the document's text, each proposal's sentence marked «…»[n]")
		},
		func(ctx context.Context, c *clientFlags, fs *flag.FlagSet, client pb.ReviewServiceClient) error {
			resp, err := client.GetDocument(ctx, &pb.GetDocumentRequest{Name: fs.Arg(0)})
			if err != nil {
				return c.callError(err)
			}
			if c.json {
				return printJSON(stdout, resp)
			}
			d := resp.GetDocument()
			fmt.Fprintln(stdout, documentTitle(d))
			fmt.Fprintf(stdout, "    read from %s (%s); approved claims cite %s\n", d.GetPath(), d.GetFormat(), d.GetSource().GetName())
			fmt.Fprintf(stdout, "    %d pending, %d approved, %d rejected\n", d.GetPending(), d.GetApproved(), d.GetRejected())
			if *text {
				fmt.Fprintln(stdout)
				fmt.Fprintln(stdout, markedText(d.GetText(), resp.GetProposals()))
			}
			if len(resp.GetEntities()) > 0 {
				fmt.Fprintf(stdout, "\n%d proposed %s:\n", len(resp.GetEntities()), plural(len(resp.GetEntities()), "entity", "entities"))
				for _, e := range resp.GetEntities() {
					writeProposedEntity(stdout, e)
				}
			}
			fmt.Fprintf(stdout, "\n%d %s:\n", len(resp.GetProposals()), plural(len(resp.GetProposals()), "proposal", "proposals"))
			for i, p := range resp.GetProposals() {
				if *text {
					fmt.Fprintf(stdout, "[%d] ", i+1)
				}
				writeProposal(stdout, p)
			}
			return nil
		})
}

// markedText is a document's text with each proposal's sentence marked «…»[n] (proposals numbered from
// 1, several of one sentence [n,m]).
func markedText(text string, ps []*pb.Proposal) string {
	type mark struct {
		start, end int
		nums       []string
	}
	var marks []*mark
	at := map[[2]int]*mark{}
	for i, p := range ps {
		s, e := int(p.GetSpanStart()), int(p.GetSpanEnd())
		if s < 0 || e > len(text) || s >= e {
			continue
		}
		m, ok := at[[2]int{s, e}]
		if !ok {
			m = &mark{start: s, end: e}
			at[[2]int{s, e}] = m
			marks = append(marks, m)
		}
		m.nums = append(m.nums, fmt.Sprint(i+1))
	}
	sort.SliceStable(marks, func(i, j int) bool { return marks[i].start < marks[j].start })
	var b strings.Builder
	pos := 0
	for _, m := range marks {
		if m.start < pos {
			continue // overlaps the sentence marked before
		}
		b.WriteString(text[pos:m.start])
		b.WriteString("«" + text[m.start:m.end] + "»[" + strings.Join(m.nums, ",") + "]")
		pos = m.end
	}
	b.WriteString(text[pos:])
	return b.String()
}

func reviewEntitiesCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var document, state *string
	var pages pagingFlags
	return reviewCall(ctx, "entities", "usage: polgraph review entities [flags]\n\nThe entities documents proposed, in name order.", 0, 0, args, stderr,
		func(fs *flag.FlagSet) {
			document = fs.String("document", "", "only those a document proposed first")
			state = fs.String("state", "pending", "pending, approved, rejected, merged or all")
			pages.register(fs, 50, "entities")
		},
		func(ctx context.Context, c *clientFlags, _ *flag.FlagSet, client pb.ReviewServiceClient) error {
			st, err := stateFlag(*state)
			if err != nil {
				return err
			}
			resp, err := client.ListProposedEntities(ctx, &pb.ListProposedEntitiesRequest{Document: *document, State: st,
				PageSize: int32(*pages.size), PageToken: *pages.token})
			if err != nil {
				return c.callError(err)
			}
			if c.json {
				return printJSON(stdout, resp)
			}
			fmt.Fprintf(stdout, "%d proposed %s\n", resp.GetTotalSize(), plural(int(resp.GetTotalSize()), "entity", "entities"))
			for _, e := range resp.GetEntities() {
				writeProposedEntity(stdout, e)
			}
			writeMore(stdout, resp.GetNextPageToken())
			return nil
		})
}

// pendingOf lists the names of a document's pending proposals (of a type, at least as sure as min).
func pendingOf(ctx context.Context, client pb.ReviewServiceClient, document string, t pb.RelationType, min float64, status pb.ClaimStatus) ([]string, error) {
	var out []string
	token := ""
	for {
		resp, err := client.ListProposals(ctx, &pb.ListProposalsRequest{Document: document, State: pb.ReviewState_REVIEW_STATE_PENDING,
			Type: t, PageSize: 1000, PageToken: token})
		if err != nil {
			return nil, err
		}
		for _, p := range resp.GetProposals() {
			if p.GetConfidence() >= min && (status == pb.ClaimStatus_CLAIM_STATUS_UNSPECIFIED || p.GetStatus() == status) {
				out = append(out, p.GetName())
			}
		}
		if token = resp.GetNextPageToken(); token == "" {
			return out, nil
		}
	}
}

// decisionFlags are approve's and reject's way to name many proposals: --all --document H (for approve,
// --all alone: the whole queue).
type decisionFlags struct {
	all                   *bool
	document, typ, status *string
	minConfidence         *float64
	wholeQueue            bool // --all may leave out --document
}

func (d *decisionFlags) register(fs *flag.FlagSet, verb string) {
	if d.wholeQueue {
		d.all = fs.Bool("all", false, verb+" every pending proposal of --document, or of the whole queue without it (of --type and --status, at least --min-confidence)")
	} else {
		d.all = fs.Bool("all", false, verb+" every pending proposal of --document (of --type and --status, at least --min-confidence)")
	}
	d.document = fs.String("document", "", "with --all: the document")
	d.typ = fs.String("type", "", "with --all: only proposals of this relation type")
	d.status = fs.String("status", "", "with --all: only proposals of this claim status (alleged, reported, confirmed, denied)")
	d.minConfidence = fs.Float64("min-confidence", 0, "with --all: only proposals at least this sure (0 to 1)")
}

// names are the proposals a decision names: its arguments, or with --all those of the document.
func (d *decisionFlags) names(ctx context.Context, c *clientFlags, fs *flag.FlagSet, client pb.ReviewServiceClient) ([]string, error) {
	switch {
	case *d.all && fs.NArg() > 0:
		return nil, errors.New("name proposals, or --all --document H, not both")
	case *d.all && *d.document == "" && !d.wholeQueue:
		return nil, errors.New("--all needs --document: the document whose proposals to decide on")
	case !*d.all && fs.NArg() == 0:
		fs.Usage()
		return nil, errUsage
	case !*d.all:
		return proposalNames(fs.Args()), nil
	}
	t, err := typeFlag("--type", *d.typ)
	if err != nil {
		return nil, err
	}
	status := pb.ClaimStatus_CLAIM_STATUS_UNSPECIFIED
	if *d.status != "" {
		v, ok := pb.ClaimStatus_value["CLAIM_STATUS_"+strings.ToUpper(strings.TrimSpace(*d.status))]
		if !ok {
			return nil, fmt.Errorf("--status %q: want alleged, reported, confirmed or denied", *d.status)
		}
		status = pb.ClaimStatus(v)
	}
	names, err := pendingOf(ctx, client, *d.document, t, *d.minConfidence, status)
	if err != nil {
		return nil, c.callError(err)
	}
	return names, nil
}

// inChunks calls decide with the names, at most 1,000 at a time (what one call takes).
func inChunks(names []string, decide func([]string) error) error {
	for start := 0; start < len(names); start += 1000 {
		if err := decide(names[start:min(start+1000, len(names))]); err != nil {
			return err
		}
	}
	return nil
}

func reviewApproveCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	d := decisionFlags{wholeQueue: true}
	return reviewCall(ctx, "approve", "usage: polgraph review approve [flags] ID...\n       polgraph review approve --all [--document H] [--min-confidence X] [--type T] [--status S]\n\nMakes proposals claims in the graph.",
		0, 1<<20, args, stderr, func(fs *flag.FlagSet) { d.register(fs, "approve") },
		func(ctx context.Context, c *clientFlags, fs *flag.FlagSet, client pb.ReviewServiceClient) error {
			names, err := d.names(ctx, c, fs, client)
			if err != nil {
				return err
			}
			if len(names) == 0 {
				fmt.Fprintln(stdout, "no pending proposal to approve")
				return nil
			}
			var approved []*pb.Proposal
			var unchanged, created []string
			var created2, updated int
			err = inChunks(names, func(chunk []string) error {
				resp, err := client.ApproveProposals(ctx, &pb.ApproveProposalsRequest{Names: chunk})
				if err != nil {
					return c.callError(err)
				}
				if c.json {
					return printJSON(stdout, resp)
				}
				approved = append(approved, resp.GetApproved()...)
				unchanged = append(unchanged, resp.GetUnchanged()...)
				created = append(created, resp.GetCreatedEntities()...)
				created2 += len(resp.GetResult().GetCreated())
				updated += len(resp.GetResult().GetUpdated())
				return nil
			})
			if err != nil || c.json {
				return err
			}
			fmt.Fprintf(stdout, "approved %d %s", len(approved), plural(len(approved), "proposal", "proposals"))
			if len(unchanged) > 0 {
				fmt.Fprintf(stdout, " (%d approved before)", len(unchanged))
			}
			fmt.Fprintf(stdout, "; the graph gained %d and changed %d records\n", created2, updated)
			for _, p := range approved {
				fmt.Fprintf(stdout, "  %s → %s\n", p.GetName(), p.GetRelation())
			}
			for _, e := range created {
				fmt.Fprintf(stdout, "  new entity %s\n", e)
			}
			return nil
		})
}

func reviewRejectCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var d decisionFlags
	var reason *string
	return reviewCall(ctx, "reject", "usage: polgraph review reject [flags] --reason R ID...\n       polgraph review reject --all --document H --reason R\n\nRejects proposals, keeping the reason: the same reading is never proposed again.",
		0, 1<<20, args, stderr, func(fs *flag.FlagSet) {
			d.register(fs, "reject")
			reason = fs.String("reason", "", "why (required)")
		},
		func(ctx context.Context, c *clientFlags, fs *flag.FlagSet, client pb.ReviewServiceClient) error {
			names, err := d.names(ctx, c, fs, client)
			if err != nil {
				return err
			}
			if len(names) == 0 {
				fmt.Fprintln(stdout, "no pending proposal to reject")
				return nil
			}
			rejected, unchanged := 0, 0
			err = inChunks(names, func(chunk []string) error {
				resp, err := client.RejectProposals(ctx, &pb.RejectProposalsRequest{Names: chunk, Reason: *reason})
				if err != nil {
					return c.callError(err)
				}
				if c.json {
					return printJSON(stdout, resp)
				}
				rejected += len(resp.GetRejected())
				unchanged += len(resp.GetUnchanged())
				return nil
			})
			if err != nil || c.json {
				return err
			}
			fmt.Fprintf(stdout, "rejected %d %s", rejected, plural(rejected, "proposal", "proposals"))
			if unchanged > 0 {
				fmt.Fprintf(stdout, " (%d rejected before)", unchanged)
			}
			fmt.Fprintf(stdout, ": %s\n", *reason)
			return nil
		})
}

func reviewEditCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	p := &pb.Proposal{}
	var typ, status string
	return reviewCall(ctx, "edit", "usage: polgraph review edit [flags] ID\n\nChanges a pending proposal: only the fields given.", 1, 1, args, stderr,
		func(fs *flag.FlagSet) {
			fs.StringVar(&typ, "type", "", "the relation type, e.g. ENDORSES")
			fs.StringVar(&p.From, "from", "", "the entity the relation goes from (a resource name)")
			fs.StringVar(&p.To, "to", "", "the entity it goes to")
			fs.StringVar(&status, "status", "", "ALLEGED, REPORTED, CONFIRMED or DENIED")
			fs.Float64Var(&p.Confidence, "confidence", 0, "how sure, 0 to 1")
			fs.StringVar(&p.Role, "role", "", "a short label, e.g. Mayor (empty clears it)")
			fs.StringVar(&p.Date, "date", "", "an event's date, YYYY, YYYY-MM or YYYY-MM-DD (empty clears it)")
			fs.StringVar(&p.ValidFrom, "valid-from", "", "when a state began (empty clears it)")
			fs.StringVar(&p.ValidTo, "valid-to", "", "when it ended (empty clears it)")
		},
		func(ctx context.Context, c *clientFlags, fs *flag.FlagSet, client pb.ReviewServiceClient) error {
			mask := &fieldmaskpb.FieldMask{}
			var err error
			fs.Visit(func(f *flag.Flag) {
				switch f.Name {
				case "type":
					if p.Type, err = typeFlag("--type", typ); err == nil && p.Type == 0 {
						err = errors.New("--type: give a relation type")
					}
				case "status":
					v, ok := pb.ClaimStatus_value["CLAIM_STATUS_"+strings.ToUpper(status)]
					if !ok || v == 0 {
						err = fmt.Errorf("--status %q: want ALLEGED, REPORTED, CONFIRMED or DENIED", status)
					}
					p.Status = pb.ClaimStatus(v)
				case "from", "to", "confidence", "role", "date":
				case "valid-from", "valid-to":
				default:
					return
				}
				mask.Paths = append(mask.Paths, strings.ReplaceAll(f.Name, "-", "_"))
			})
			if err != nil {
				return err
			}
			if len(mask.Paths) == 0 {
				return errors.New("say what to change: --type, --from, --to, --status, --confidence, --role, --date, --valid-from or --valid-to")
			}
			p.Name = proposalName(fs.Arg(0))
			resp, err := client.UpdateProposal(ctx, &pb.UpdateProposalRequest{Proposal: p, UpdateMask: mask})
			if err != nil {
				return c.callError(err)
			}
			if c.json {
				return printJSON(stdout, resp)
			}
			writeProposal(stdout, resp.GetProposal())
			return nil
		})
}

func reviewMergeCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return reviewCall(ctx, "merge", "usage: polgraph review merge [flags] PROPOSED INTO\n\nSays that a proposed entity is an entity the graph holds (INTO: a resource name, or a name of the graph).",
		2, 2, args, stderr, func(*flag.FlagSet) {},
		func(ctx context.Context, c *clientFlags, fs *flag.FlagSet, client pb.ReviewServiceClient) error {
			into := fs.Arg(1)
			if !graph.LooksLikeResourceName(into) {
				conn, err := c.dialConn()
				if err != nil {
					return err
				}
				defer conn.Close()
				e, err := pb.NewGraphServiceClient(conn).GetEntity(ctx, &pb.GetEntityRequest{Name: into})
				if err != nil {
					return c.callError(err)
				}
				into = e.GetEntity().GetName()
			}
			resp, err := client.MergeProposedEntity(ctx, &pb.MergeProposedEntityRequest{Name: fs.Arg(0), Into: into})
			if err != nil {
				return c.callError(err)
			}
			if c.json {
				return printJSON(stdout, resp)
			}
			writeProposedEntity(stdout, resp.GetEntity())
			fmt.Fprintf(stdout, "%d pending %s now name %s", len(resp.GetRepointed()), plural(len(resp.GetRepointed()), "proposal", "proposals"), into)
			if n := len(resp.GetRejected()); n > 0 {
				fmt.Fprintf(stdout, "; %d that would join it to itself %s rejected", n, plural(n, "was", "were"))
			}
			fmt.Fprintln(stdout)
			return nil
		})
}

func reviewRejectEntityCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var reason *string
	return reviewCall(ctx, "reject-entity", "usage: polgraph review reject-entity [flags] --reason R NAME\n\nRejects a proposed entity and the pending proposals that have it as an end.",
		1, 1, args, stderr, func(fs *flag.FlagSet) { reason = fs.String("reason", "", "why (required)") },
		func(ctx context.Context, c *clientFlags, fs *flag.FlagSet, client pb.ReviewServiceClient) error {
			resp, err := client.RejectProposedEntity(ctx, &pb.RejectProposedEntityRequest{Name: fs.Arg(0), Reason: *reason})
			if err != nil {
				return c.callError(err)
			}
			if c.json {
				return printJSON(stdout, resp)
			}
			writeProposedEntity(stdout, resp.GetEntity())
			fmt.Fprintf(stdout, "%d pending %s rejected with it\n", len(resp.GetRejected()), plural(len(resp.GetRejected()), "proposal was", "proposals were"))
			return nil
		})
}
