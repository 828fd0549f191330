package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	pb "github.com/polgraph/polgraph/api/polgraph/v1"
	"github.com/polgraph/polgraph/graph"
)

// clientFlags are the flags shared by the analyst commands, which call a running polgraph over gRPC.
type clientFlags struct {
	server, asOf, knownOn, types, excludeTypes, statuses, undated string
	minConfidence                                                 float64
	json                                                          bool
	timeout                                                       time.Duration

	// How to reach a polgraph that asks for credentials or speaks TLS (see dialOptions).
	apiKey, tlsCA, tlsCert, tlsKey string
}

func (c *clientFlags) register(fs *flag.FlagSet) {
	c.registerCall(fs)
	fs.StringVar(&c.asOf, "as-of", "", "only relations that held at this date: YYYY, YYYY-MM or YYYY-MM-DD")
	fs.StringVar(&c.knownOn, "known-on", "", "answer as the graph stood then: a day (YYYY-MM-DD, its end) or an RFC 3339 time")
	fs.StringVar(&c.undated, "undated", "", "whether relations without a date count: include or exclude (default: exclude with --as-of, include without)")
	fs.StringVar(&c.types, "types", "", "only these relation types, comma-separated (e.g. ENDORSES,MEMBER_OF)")
	fs.StringVar(&c.excludeTypes, "exclude-types", "", "never these relation types, comma-separated")
	fs.StringVar(&c.statuses, "statuses", "", "claim statuses that count, comma-separated (default ALLEGED,REPORTED,CONFIRMED)")
	fs.Float64Var(&c.minConfidence, "min-confidence", 0, "only relations with a counted claim at least this sure (0 to 1)")
}

// registerCall registers the flags of every analyst command: where the server is, --json, --timeout.
func (c *clientFlags) registerCall(fs *flag.FlagSet) {
	fs.StringVar(&c.server, "server", envOr("POLGRAPH_ADDR", "127.0.0.1:50051"), "polgraph's gRPC address ($POLGRAPH_ADDR)")
	// The key's default stays out of the flag, so that -h never prints it.
	fs.StringVar(&c.apiKey, "api-key", "", "API key to call with, sent as authorization: Bearer (default $POLGRAPH_API_KEY, which keeps it out of the process list)")
	fs.StringVar(&c.tlsCA, "tls-ca", envOr("POLGRAPH_TLS_CA", ""), "PEM CA certificate(s) to verify polgraph's certificate with; turns TLS on ($POLGRAPH_TLS_CA)")
	fs.StringVar(&c.tlsCert, "tls-cert", envOr("POLGRAPH_CLIENT_TLS_CERT", ""), "PEM client certificate, for a polgraph that asks for one (mutual TLS); turns TLS on ($POLGRAPH_CLIENT_TLS_CERT)")
	fs.StringVar(&c.tlsKey, "tls-key", envOr("POLGRAPH_CLIENT_TLS_KEY", ""), "PEM key of --tls-cert ($POLGRAPH_CLIENT_TLS_KEY)")
	fs.BoolVar(&c.json, "json", false, "print the answer as JSON")
	fs.DurationVar(&c.timeout, "timeout", 30*time.Second, "give up after this long")
}

// filter builds the request filter; unknown names are left for the server to refuse with a clear message.
func (c *clientFlags) filter() *pb.RelationFilter {
	f := &pb.RelationFilter{AsOf: c.asOf, KnownOn: c.knownOn, MinConfidence: c.minConfidence}
	for _, t := range splitList(c.types) {
		f.IncludeTypes = append(f.IncludeTypes, pb.RelationType(pb.RelationType_value["RELATION_TYPE_"+t]))
	}
	for _, t := range splitList(c.excludeTypes) {
		f.ExcludeTypes = append(f.ExcludeTypes, pb.RelationType(pb.RelationType_value["RELATION_TYPE_"+t]))
	}
	for _, s := range splitList(c.statuses) {
		f.Statuses = append(f.Statuses, pb.ClaimStatus(pb.ClaimStatus_value["CLAIM_STATUS_"+s]))
	}
	if c.undated != "" {
		f.Undated = pb.UndatedPolicy(pb.UndatedPolicy_value["UNDATED_POLICY_"+strings.ToUpper(c.undated)])
	}
	return f
}

// checkNames refuses names the vocabulary does not have before any call is made.
func (c *clientFlags) checkNames() error {
	var v graph.Violations
	for flagName, list := range map[string]string{"--types": c.types, "--exclude-types": c.excludeTypes} {
		for _, t := range splitList(list) {
			if !graph.RelationType(t).Valid() {
				v.Add(flagName, "%q is not a relation type", t)
			}
		}
	}
	for _, s := range splitList(c.statuses) {
		if graph.ClaimStatus(s).Index() < 0 {
			v.Add("--statuses", "%q is not a claim status (ALLEGED, REPORTED, CONFIRMED, DENIED)", s)
		}
	}
	if u := strings.ToLower(c.undated); u != "" && u != "include" && u != "exclude" {
		v.Add("--undated", "%q: want include or exclude", c.undated)
	}
	return v.Err("", "invalid flags")
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.ToUpper(strings.TrimSpace(p)); p != "" {
			out = append(out, strings.ReplaceAll(p, "-", "_"))
		}
	}
	return out
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

func (c *clientFlags) dial() (pb.GraphServiceClient, func(), error) {
	conn, err := c.dialConn()
	if err != nil {
		return nil, nil, err
	}
	return pb.NewGraphServiceClient(conn), func() { conn.Close() }, nil
}

// dialConn connects to polgraph as the flags say, for any of its services.
func (c *clientFlags) dialConn() (*grpc.ClientConn, error) {
	opts, err := c.dialOptions()
	if err != nil {
		return nil, err
	}
	opts = append(opts, grpc.WithDefaultCallOptions(grpc.MaxCallSendMsgSize(maxRequestBytes)))
	return grpc.NewClient(c.server, opts...)
}

// tls reports whether the CLI speaks TLS to polgraph: when it was given a CA or a client certificate.
func (c *clientFlags) tls() bool { return c.tlsCA != "" || c.tlsCert != "" || c.tlsKey != "" }

// dialOptions are how the analyst commands reach polgraph: TLS when --tls-ca or --tls-cert is given
// (verifying polgraph with --tls-ca, else the system's roots), plaintext otherwise; and the API key of
// --api-key or $POLGRAPH_API_KEY with every call, which is never sent in the clear but to loopback.
func (c *clientFlags) dialOptions() ([]grpc.DialOption, error) {
	creds := insecure.NewCredentials()
	if c.tls() {
		t := &tls.Config{MinVersion: tls.VersionTLS12}
		if c.tlsCA != "" {
			pem, err := os.ReadFile(c.tlsCA)
			if err != nil {
				return nil, fmt.Errorf("--tls-ca: %w", err)
			}
			t.RootCAs = x509.NewCertPool()
			if !t.RootCAs.AppendCertsFromPEM(pem) {
				return nil, fmt.Errorf("--tls-ca: %s holds no PEM certificate", c.tlsCA)
			}
		}
		if (c.tlsCert == "") != (c.tlsKey == "") {
			return nil, errors.New("--tls-cert and --tls-key go together")
		}
		if c.tlsCert != "" {
			pair, err := tls.LoadX509KeyPair(c.tlsCert, c.tlsKey)
			if err != nil {
				return nil, fmt.Errorf("--tls-cert/--tls-key: %w", err)
			}
			t.Certificates = []tls.Certificate{pair}
		}
		creds = credentials.NewTLS(t)
	}
	opts := []grpc.DialOption{grpc.WithTransportCredentials(creds)}
	key := c.apiKey
	if key == "" {
		key = os.Getenv("POLGRAPH_API_KEY")
	}
	if key != "" {
		if !c.tls() && !onLoopback(c.server) {
			return nil, fmt.Errorf("an API key is never sent unencrypted but to loopback, and %s is not: pass --tls-ca (polgraph's CA) to speak TLS", c.server)
		}
		opts = append(opts, grpc.WithPerRPCCredentials(bearerKey(key)))
	}
	return opts, nil
}

// bearerKey sends an API key with every call as `authorization: Bearer <key>`.
type bearerKey string

func (k bearerKey) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{"authorization": "Bearer " + string(k)}, nil
}

// RequireTransportSecurity is false so that a key can reach a polgraph on loopback without TLS;
// dialOptions refuses to send it in the clear anywhere else.
func (bearerKey) RequireTransportSecurity() bool { return false }

// callError explains a failed call in the terms of the CLI.
func (c *clientFlags) callError(err error) error {
	st := status.Convert(err)
	msg := st.Message()
	switch {
	case st.Code() == codes.Unavailable && !strings.Contains(msg, "Dgraph"):
		hint := "start it with `make run`, or pass --server"
		if !c.tls() {
			hint += "; if it speaks TLS, pass --tls-ca"
		}
		msg = fmt.Sprintf("cannot reach polgraph at %s (%s): %s", c.server, hint, msg)
	case st.Code() == codes.Unauthenticated:
		msg += " (pass an API key with --api-key or $POLGRAPH_API_KEY; `polgraph keys create` makes one)"
	}
	var b strings.Builder
	b.WriteString(msg)
	for _, d := range st.Details() {
		if br, ok := d.(*errdetails.BadRequest); ok {
			for _, v := range br.GetFieldViolations() {
				fmt.Fprintf(&b, "\n  %s: %s", v.GetField(), v.GetDescription())
			}
		}
	}
	return fmt.Errorf("%s (%s)", b.String(), st.Code())
}

func printJSON(w io.Writer, m proto.Message) error {
	b, err := protojson.MarshalOptions{Multiline: true, Indent: "  "}.Marshal(m)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(w, string(b))
	return err
}

// clientCommand parses an analyst command's flags (its own, added by more, and the shared ones) and
// wants exactly nargs arguments.
func clientCommand(name, usage string, nargs int, args []string, stderr io.Writer, more func(*flag.FlagSet)) (*clientFlags, *flag.FlagSet, error) {
	return parseClientCommand(name, usage, nargs, nargs, true, args, stderr, more)
}

// parseClientCommand parses an analyst command's flags (its own, added by more, the call flags and, when
// filtered, the filter flags) and wants from minArgs to maxArgs arguments.
func parseClientCommand(name, usage string, minArgs, maxArgs int, filtered bool, args []string, stderr io.Writer, more func(*flag.FlagSet)) (*clientFlags, *flag.FlagSet, error) {
	c := &clientFlags{}
	fs := flag.NewFlagSet("polgraph "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	if filtered {
		c.register(fs)
	} else {
		c.registerCall(fs)
	}
	more(fs)
	fs.Usage = func() {
		fmt.Fprintln(stderr, usage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(reorder(fs, args)); err != nil || fs.NArg() < minArgs || fs.NArg() > maxArgs {
		if err == nil {
			fs.Usage()
		}
		return nil, nil, errUsage
	}
	if err := c.checkNames(); err != nil {
		return nil, nil, err
	}
	return c, fs, nil
}

// call dials the server, makes one call under the command's timeout, and prints its answer: as JSON with
// --json, else with write.
func call[M proto.Message](ctx context.Context, c *clientFlags, stdout io.Writer, do func(context.Context, pb.GraphServiceClient) (M, error), write func(M)) error {
	client, done, err := c.dial()
	if err != nil {
		return err
	}
	defer done()
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	resp, err := do(ctx, client)
	if err != nil {
		return c.callError(err)
	}
	if c.json {
		return printJSON(stdout, resp)
	}
	if k, ok := any(resp).(interface{ GetKnown() *pb.KnownGraph }); ok && k.GetKnown() != nil {
		writeKnown(stdout, k.GetKnown())
	}
	write(resp)
	return nil
}

// writeKnown says which past graph an answer read (--known-on).
func writeKnown(w io.Writer, k *pb.KnownGraph) {
	through := "before any recorded change"
	if k.GetThrough() != "" {
		through = "through the change of " + k.GetThrough()
	}
	fmt.Fprintf(w, "As known on %s (%s; %d later %s undone):\n", k.GetKnownOn(), through, k.GetUndone(), plural(int(k.GetUndone()), "change", "changes"))
}

// sourceFilterFlags is the source filter --outlets (comma-separated) and --min-outlets ask for, or nil.
func sourceFilterFlags(outlets string, minOutlets int) *pb.SourceFilter {
	if outlets == "" && minOutlets <= 0 {
		return nil
	}
	sources := &pb.SourceFilter{MinOutlets: int32(minOutlets)}
	for _, o := range strings.Split(outlets, ",") {
		if o = strings.TrimSpace(o); o != "" {
			sources.Outlets = append(sources.Outlets, o)
		}
	}
	return sources
}

// pathCmd is `polgraph path FROM TO`.
func pathCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var maxDepth, maxPaths, longerBy, minOutlets *int
	var outlets *string
	var coTemporal *bool
	var directed, followVia *bool
	c, fs, err := clientCommand("path", "usage: polgraph path [flags] FROM TO\n\nFROM and TO are resource names (actors/keir-starmer) or names (\"Keir Starmer\").",
		2, args, stderr, func(fs *flag.FlagSet) {
			maxDepth = fs.Int("max-depth", 0, "longest path in hops (default 4, at most 8)")
			maxPaths = fs.Int("max-paths", 0, "how many routes (default 3, at most 20)")
			directed = fs.Bool("directed", false, "follow relations only in their direction")
			coTemporal = fs.Bool("co-temporal", false, "only routes whose hops all held at one moment (of --as-of, or of all time)")
			followVia = fs.Bool("follow-via", false, "also walk from a relation's from to its via (an MP to the party they sat for)")
			longerBy = fs.Int("longer-by", 0, "admit routes up to this many hops longer when much better evidenced (0 to 3)")
			outlets = fs.String("outlets", "", "only claims of these outlets count, comma-separated (\"Daily Mail,BBC\")")
			minOutlets = fs.Int("min-outlets", 0, "a relation counts only with claims from at least this many outlets")
		})
	if err != nil {
		return err
	}
	from, to := fs.Arg(0), fs.Arg(1)
	sources := sourceFilterFlags(*outlets, *minOutlets)
	return call(ctx, c, stdout, func(ctx context.Context, client pb.GraphServiceClient) (*pb.FindPathsResponse, error) {
		resp, err := client.FindPaths(ctx, &pb.FindPathsRequest{From: from, To: to, MaxDepth: int32(*maxDepth),
			MaxPaths: int32(*maxPaths), Directed: *directed, Filter: c.filter(), CoTemporal: *coTemporal, FollowVia: *followVia,
			LongerBy: int32(*longerBy), Sources: sources})
		if err != nil || c.json {
			return resp, err
		}
		// The seats and terms of hops through a via are not on the path: their names are asked for, to
		// show them by name.
		known := map[string]bool{}
		for _, e := range resp.GetEntities() {
			known[e.GetName()] = true
		}
		var more []string
		for _, p := range resp.GetPaths() {
			for _, h := range p.GetHops() {
				for _, r := range append([]*pb.Relation{h.GetRelation()}, hopParallel(h)...) {
					for _, n := range []string{r.GetFrom(), r.GetTo(), r.GetVia(), r.GetTerm()} {
						if n != "" && !known[n] && len(more) < 100 {
							known[n] = true
							more = append(more, n)
						}
					}
				}
			}
		}
		if len(more) > 0 {
			if got, err := client.BatchGetEntities(ctx, &pb.BatchGetEntitiesRequest{Names: more}); err == nil {
				resp.Entities = append(resp.Entities, got.GetEntities()...)
			}
		}
		return resp, nil
	}, func(resp *pb.FindPathsResponse) { writePaths(stdout, from, to, resp) })
}

// writePaths prints paths for a reader: each hop with every relation that makes it, its verdict, and one
// line of evidence per claim.
func writePaths(w io.Writer, from, to string, resp *pb.FindPathsResponse) {
	names := map[string]string{}
	for _, e := range resp.GetEntities() {
		names[e.GetName()] = e.GetDisplayName()
	}
	show := func(n string) string {
		if d, ok := names[n]; ok {
			return d
		}
		return n
	}
	if len(resp.GetPaths()) == 0 {
		why := "within the depth and filters asked"
		if resp.GetNoPath() != "" {
			why = "(" + resp.GetNoPath() + ")"
		}
		fmt.Fprintf(w, "No path from %s to %s %s%s.\n", from, to, why, ifRelaxed(resp.GetIfRelaxed(), "path"))
		return
	}
	for i, p := range resp.GetPaths() {
		ents := p.GetEntities()
		fmt.Fprintf(w, "Path %d (%d hops): %s\n", i+1, len(p.GetHops()), chain(ents, p.GetHops(), show))
		if p.GetReason() != "" {
			fmt.Fprintf(w, "  %s\n", p.GetReason())
		}
		if len(p.GetDuring()) > 0 {
			var spans []string
			for _, d := range p.GetDuring() {
				spans = append(spans, d.GetFrom()+"–"+d.GetTo())
			}
			fmt.Fprintf(w, "  held as a whole during %s\n", strings.Join(spans, ", "))
		}
		for _, h := range p.GetHops() {
			rels := append([]*pb.Relation{h.GetRelation()}, hopParallel(h)...)
			vias := []bool{h.GetThroughVia()}
			for _, par := range h.GetParallel() {
				vias = append(vias, par.GetThroughVia())
			}
			if len(rels) > 1 {
				fmt.Fprintf(w, "  %d relations, %s\n", len(rels), h.GetVerdict().GetSummary())
			}
			for i, r := range rels {
				fmt.Fprintf(w, "  %s %s %s%s", show(r.GetFrom()), typeWords(r.GetType()), show(r.GetTo()), when(r))
				if r.GetTerm() != "" || vias[i] {
					sep := ", "
					if r.GetRole() != "" {
						fmt.Fprintf(w, " as %s", r.GetRole())
					} else {
						sep = " in "
					}
					if r.GetVia() != "" {
						fmt.Fprintf(w, " for %s", show(r.GetVia()))
					}
					if r.GetTerm() != "" {
						fmt.Fprintf(w, "%s%s", sep, show(r.GetTerm()))
					}
					if vias[i] {
						fmt.Fprint(w, " (the hop goes through its via)")
					}
				}
				if v := r.GetVerdict(); v.GetDenyingClaims() > 0 {
					fmt.Fprintf(w, " [disputed: %s]", v.GetSummary())
				}
				fmt.Fprintln(w)
				for _, c := range r.GetClaims() {
					evidence := fmt.Sprintf("%q", oneLine(c.GetExcerpt(), 140))
					if c.GetExcerpt() == "" && c.GetRecordId() != "" {
						evidence = "record " + oneLine(c.GetRecordId(), 140)
					}
					fmt.Fprintf(w, "    %s %.2f  %s — %s\n", strings.TrimPrefix(c.GetStatus().String(), "CLAIM_STATUS_"),
						c.GetConfidence(), evidence, sourceLine(c.GetSource()))
				}
			}
		}
		fmt.Fprintln(w)
	}
}

func hopParallel(h *pb.Hop) []*pb.Relation {
	var out []*pb.Relation
	for _, p := range h.GetParallel() {
		out = append(out, p.GetRelation())
	}
	return out
}

// chain writes a route on one line: each hop by its first relation's type, and how many more it has.
func chain(ents []string, hops []*pb.Hop, show func(string) string) string {
	var b strings.Builder
	for i, e := range ents {
		b.WriteString(show(e))
		if i < len(hops) {
			t := strings.TrimPrefix(hops[i].GetRelation().GetType().String(), "RELATION_TYPE_")
			if n := len(hops[i].GetParallel()); n > 0 {
				t += fmt.Sprintf(" +%d", n)
			}
			switch {
			case hops[i].GetRelation().GetSymmetric():
				fmt.Fprintf(&b, " —%s— ", t)
			case hops[i].GetForward():
				fmt.Fprintf(&b, " —%s→ ", t)
			default:
				fmt.Fprintf(&b, " ←%s— ", t)
			}
		}
	}
	return b.String()
}

func typeWords(t pb.RelationType) string {
	if t == pb.RelationType_RELATION_TYPE_DESELECTED {
		return "deselected as candidate for"
	}
	return strings.ReplaceAll(strings.ToLower(strings.TrimPrefix(t.String(), "RELATION_TYPE_")), "_", " ")
}

// countWords is a relation count in words: "2 member of out", "1 founded in", and for a symmetric type,
// which has no direction, "2 appeared with".
func countWords(c *pb.RelationCount) string {
	switch {
	case c.GetUndirected():
		return fmt.Sprintf("%d %s", c.GetCount(), typeWords(c.GetType()))
	case c.GetOutgoing():
		return fmt.Sprintf("%d %s out", c.GetCount(), typeWords(c.GetType()))
	}
	return fmt.Sprintf("%d %s in", c.GetCount(), typeWords(c.GetType()))
}

// when writes a relation's dates, or says it has none.
func when(r *pb.Relation) string {
	switch {
	case r.GetValidFrom() != "" || r.GetValidTo() != "":
		return fmt.Sprintf(" (%s–%s)", r.GetValidFrom(), r.GetValidTo())
	case r.GetDate() != "":
		return " (" + r.GetDate() + ")"
	}
	return " (undated)"
}

func sourceLine(s *pb.Source) string {
	parts := []string{}
	if s.GetOutlet() != "" {
		parts = append(parts, s.GetOutlet())
	} else {
		parts = append(parts, oneLine(s.GetTitle(), 50))
	}
	if s.GetPublished() != "" {
		parts = append(parts, s.GetPublished())
	}
	return strings.Join(parts, ", ")
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// aroundCmd is `polgraph around NAME`.
func aroundCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var depth, perNode, maxNodes, maxEdges *int
	var followVia *bool
	c, fs, err := clientCommand("around", "usage: polgraph around [flags] NAME", 1, args, stderr, func(fs *flag.FlagSet) {
		followVia = fs.Bool("follow-via", false, "also join a relation's from to its via (a member to the party they sat for)")
		depth = fs.Int("depth", 1, "hops out, 1 to 3")
		perNode = fs.Int("max-per-node", 0, "new neighbours shown per entity (default 25)")
		maxNodes = fs.Int("max-nodes", 0, "entities in all (default 100)")
		maxEdges = fs.Int("max-edges", 0, "relations in all (default 1000)")
	})
	if err != nil {
		return err
	}
	return call(ctx, c, stdout, func(ctx context.Context, client pb.GraphServiceClient) (*pb.ExploreNeighborhoodResponse, error) {
		return client.ExploreNeighborhood(ctx, &pb.ExploreNeighborhoodRequest{Name: fs.Arg(0), Depth: int32(*depth),
			MaxPerNode: int32(*perNode), MaxNodes: int32(*maxNodes), MaxEdges: int32(*maxEdges), Filter: c.filter(), FollowVia: *followVia})
	}, func(resp *pb.ExploreNeighborhoodResponse) { writeNeighborhood(stdout, resp) })
}

func writeNeighborhood(w io.Writer, resp *pb.ExploreNeighborhoodResponse) {
	names := map[string]string{}
	dist := map[string]int32{}
	for _, n := range resp.GetNodes() {
		names[n.GetEntity().GetName()] = n.GetEntity().GetDisplayName()
		dist[n.GetEntity().GetName()] = n.GetDistance()
	}
	show := func(n string) string {
		if d, ok := names[n]; ok {
			return d
		}
		return n
	}
	center := resp.GetCenter()
	fmt.Fprintf(w, "%s (%s): %d entities around it%s\n", center.GetDisplayName(), kindWord(center.GetKind()), resp.GetTotalNodes()-1,
		ifRelaxed(resp.GetIfRelaxed(), "entity"))
	// Each node once, under the edge that reached it from one hop nearer.
	for _, n := range resp.GetNodes()[1:] {
		name := n.GetEntity().GetName()
		var via []string
		for _, e := range resp.GetEdges() {
			var other string
			switch name {
			case e.GetFrom():
				other = e.GetTo()
			case e.GetTo():
				other = e.GetFrom()
			default:
				continue
			}
			if d, ok := dist[other]; ok && d == n.GetDistance()-1 {
				arrow := "—"
				if !e.GetSymmetric() {
					arrow = "→"
				}
				disputed := ""
				if v := e.GetVerdict(); v.GetDenyingClaims() > 0 {
					disputed = " [disputed: " + v.GetSummary() + "]"
				}
				through := ""
				if e.GetThroughVia() {
					through = " (through its via: " + e.GetRole() + ")"
				}
				via = append(via, fmt.Sprintf("%s %s %s %s%s%s%s", show(e.GetFrom()), typeWords(e.GetType()), arrow, show(e.GetTo()), edgeWhen(e), through, disputed))
			}
		}
		fmt.Fprintf(w, "%s%s (%s)  %s\n", strings.Repeat("  ", int(n.GetDistance())), n.GetEntity().GetDisplayName(),
			kindWord(n.GetEntity().GetKind()), strings.Join(via, "; "))
	}
	for _, t := range resp.GetTruncated() {
		var parts []string
		for _, c := range t.GetByType() {
			parts = append(parts, countWords(c))
		}
		beyond := ""
		if t.GetUnexpanded() {
			beyond = ", not expanded"
		}
		fmt.Fprintf(w, "%s: %d more %s not shown%s (%d %s: %s)\n", show(t.GetEntity()), t.GetLeftOut(), plural(int(t.GetLeftOut()), "entity", "entities"),
			beyond, t.GetRelationsLeftOut(), plural(int(t.GetRelationsLeftOut()), "relation", "relations"), strings.Join(parts, ", "))
	}
	if n := resp.GetEdgesLeftOut(); n > 0 {
		fmt.Fprintf(w, "%d more %s among these entities not shown (raise --max-edges)\n", n, plural(int(n), "relation", "relations"))
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func edgeWhen(e *pb.Edge) string {
	return when(&pb.Relation{ValidFrom: e.GetValidFrom(), ValidTo: e.GetValidTo(), Date: e.GetDate()})
}

func kindWord(k pb.EntityKind) string {
	return strings.ToLower(strings.TrimPrefix(k.String(), "ENTITY_KIND_"))
}

// reorder moves flags before positional arguments, so `polgraph path A B --max-depth 3` works.
func reorder(fs *flag.FlagSet, args []string) []string {
	var flags, pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if strings.HasPrefix(a, "-") && len(a) > 1 {
			flags = append(flags, a)
			if !strings.Contains(a, "=") && i+1 < len(args) && !isBoolFlag(fs, a) {
				flags = append(flags, args[i+1])
				i++
			}
			continue
		}
		pos = append(pos, a)
	}
	return append(flags, pos...)
}

// isBoolFlag reports whether a (-name or --name) is a flag of fs that takes no value.
func isBoolFlag(fs *flag.FlagSet, a string) bool {
	f := fs.Lookup(strings.TrimLeft(a, "-"))
	if f == nil {
		return false
	}
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// pagingFlags are the flags of a command whose answer comes in pages.
type pagingFlags struct {
	size  *int
	token *string
}

func (p *pagingFlags) register(fs *flag.FlagSet, size int, what string) {
	p.size = fs.Int("page-size", size, "at most this many "+what+" (at most "+fmt.Sprint(size)+")")
	p.token = fs.String("page-token", "", "continue where an earlier answer stopped (its last line gives the token)")
}

// writeMore tells how to get the next page, if there is one.
func writeMore(w io.Writer, token string) {
	if token != "" {
		fmt.Fprintf(w, "More: --page-token %s\n", token)
	}
}

// namesOf maps resource names to display names; show falls back to the resource name.
func namesOf(ents ...[]*pb.Entity) func(string) string {
	names := map[string]string{}
	for _, es := range ents {
		for _, e := range es {
			names[e.GetName()] = e.GetDisplayName()
		}
	}
	return func(n string) string {
		if d, ok := names[n]; ok && d != "" {
			return d
		}
		return n
	}
}

// relationPhrase writes a relation without its dates: "Lutfur Rahman holds office Mayor of Tower Hamlets:
// Mayor", with the entity it was via, if any.
func relationPhrase(r *pb.Relation, show func(string) string) string {
	s := show(r.GetFrom()) + " " + typeWords(r.GetType()) + " " + show(r.GetTo())
	if r.GetVia() != "" {
		s += " via " + show(r.GetVia())
	}
	if r.GetRole() != "" {
		s += ": " + r.GetRole()
	}
	return s
}

func statusWord(s pb.ClaimStatus) string { return strings.TrimPrefix(s.String(), "CLAIM_STATUS_") }

// writeClaims writes one line of evidence per claim.
func writeClaims(w io.Writer, indent string, r *pb.Relation) {
	for _, c := range r.GetClaims() {
		fmt.Fprintf(w, "%s%s %.2f  %q — %s\n", indent, statusWord(c.GetStatus()), c.GetConfidence(), oneLine(c.GetExcerpt(), 140), sourceLine(c.GetSource()))
	}
}

// directionOf reads --direction.
func directionOf(s string) (pb.RelationDirection, error) {
	switch strings.ToLower(s) {
	case "", "any", "both":
		return pb.RelationDirection_RELATION_DIRECTION_ANY, nil
	case "out", "outgoing":
		return pb.RelationDirection_RELATION_DIRECTION_OUTGOING, nil
	case "in", "incoming":
		return pb.RelationDirection_RELATION_DIRECTION_INCOMING, nil
	}
	var v graph.Violations
	v.Add("--direction", "%q: want out or in", s)
	return 0, v.Err("", "invalid flags")
}

// relationsCmd is `polgraph relations NAME`.
func relationsCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var direction *string
	var page pagingFlags
	c, fs, err := clientCommand("relations", "usage: polgraph relations [flags] NAME\n\nNAME's relations that count under the filters, newest first, each with its claims.",
		1, args, stderr, func(fs *flag.FlagSet) {
			direction = fs.String("direction", "", "only relations from NAME (out) or to it (in); symmetric ones either way")
			page.register(fs, graph.MaxRelationsPageSize, "relations")
		})
	if err != nil {
		return err
	}
	dir, err := directionOf(*direction)
	if err != nil {
		return err
	}
	return call(ctx, c, stdout, func(ctx context.Context, client pb.GraphServiceClient) (*pb.ListRelationsResponse, error) {
		return client.ListRelations(ctx, &pb.ListRelationsRequest{Entity: fs.Arg(0), Filter: c.filter(), Direction: dir,
			PageSize: int32(*page.size), PageToken: *page.token})
	}, func(resp *pb.ListRelationsResponse) { writeRelations(stdout, resp) })
}

func writeRelations(w io.Writer, resp *pb.ListRelationsResponse) {
	e := resp.GetEntity()
	show := namesOf([]*pb.Entity{e}, resp.GetRelatedEntities())
	n := int(resp.GetTotalSize())
	if n == 0 {
		fmt.Fprintf(w, "%s (%s): no relations under the filters asked\n", e.GetDisplayName(), kindWord(e.GetKind()))
		return
	}
	fmt.Fprintf(w, "%s (%s): %d %s, newest first\n", e.GetDisplayName(), kindWord(e.GetKind()), n, plural(n, "relation", "relations"))
	for _, r := range resp.GetRelations() {
		fmt.Fprintf(w, "  %s%s — %s\n", relationPhrase(r, show), when(r), r.GetVerdict().GetSummary())
		writeClaims(w, "    ", r)
	}
	writeMore(w, resp.GetNextPageToken())
}

// timelineCmd is `polgraph timeline NAME`.
func timelineCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var page pagingFlags
	c, fs, err := clientCommand("timeline", "usage: polgraph timeline [flags] NAME\n\nNAME's relations in time: events and states by when they start, undated ones apart.",
		1, args, stderr, func(fs *flag.FlagSet) { page.register(fs, graph.MaxTimelinePageSize, "relations") })
	if err != nil {
		return err
	}
	return call(ctx, c, stdout, func(ctx context.Context, client pb.GraphServiceClient) (*pb.GetTimelineResponse, error) {
		return client.GetTimeline(ctx, &pb.GetTimelineRequest{Entity: fs.Arg(0), Filter: c.filter(),
			PageSize: int32(*page.size), PageToken: *page.token})
	}, func(resp *pb.GetTimelineResponse) { writeTimeline(stdout, resp) })
}

func writeTimeline(w io.Writer, resp *pb.GetTimelineResponse) {
	e := resp.GetEntity()
	show := namesOf([]*pb.Entity{e}, resp.GetRelatedEntities())
	fmt.Fprintf(w, "%s (%s): %d dated %s, %d undated\n", e.GetDisplayName(), kindWord(e.GetKind()),
		resp.GetTotalDated(), plural(int(resp.GetTotalDated()), "relation", "relations"), resp.GetTotalUndated())
	dates := func(r *pb.Relation) string {
		if r.GetValidFrom() != "" || r.GetValidTo() != "" {
			return r.GetValidFrom() + "–" + r.GetValidTo()
		}
		return r.GetDate()
	}
	width := 0
	for _, en := range resp.GetEntries() {
		width = max(width, len([]rune(dates(en.GetRelation()))))
	}
	for _, en := range resp.GetEntries() {
		r := en.GetRelation()
		kind := strings.ToLower(strings.TrimPrefix(en.GetKind().String(), "TIMELINE_ENTRY_KIND_"))
		fmt.Fprintf(w, "  %-*s  %-5s  %s — %s\n", width, dates(r), kind, relationPhrase(r, show), r.GetVerdict().GetSummary())
	}
	if len(resp.GetUndated()) > 0 {
		fmt.Fprintln(w, "Undated:")
		for _, r := range resp.GetUndated() {
			fmt.Fprintf(w, "  %s — %s\n", relationPhrase(r, show), r.GetVerdict().GetSummary())
		}
	}
	writeMore(w, resp.GetNextPageToken())
}

// sourceCmd is `polgraph source NAME`.
func sourceCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var page pagingFlags
	c, fs, err := parseClientCommand("source", "usage: polgraph source [flags] NAME\n\nA source (sources/..., or its title) and every claim that cites it, with the relation it backs.",
		1, 1, false, args, stderr, func(fs *flag.FlagSet) { page.register(fs, graph.MaxSourcePageSize, "claims") })
	if err != nil {
		return err
	}
	return call(ctx, c, stdout, func(ctx context.Context, client pb.GraphServiceClient) (*pb.GetSourceResponse, error) {
		return client.GetSource(ctx, &pb.GetSourceRequest{Name: fs.Arg(0), PageSize: int32(*page.size), PageToken: *page.token})
	}, func(resp *pb.GetSourceResponse) { writeSource(stdout, resp) })
}

// sourceWords describes a source on one line: kind, outlet, author, date.
func sourceWords(s *pb.Source) string {
	parts := []string{strings.ReplaceAll(strings.ToLower(strings.TrimPrefix(s.GetKind().String(), "SOURCE_KIND_")), "_", " ")}
	for _, p := range []string{s.GetOutlet(), s.GetAuthor(), s.GetPublished()} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, ", ")
}

func writeSource(w io.Writer, resp *pb.GetSourceResponse) {
	s := resp.GetSource()
	show := namesOf(resp.GetRelatedEntities())
	fmt.Fprintf(w, "%s (%s)\n", s.GetName(), sourceWords(s))
	fmt.Fprintf(w, "  %q\n", oneLine(s.GetTitle(), 140))
	if s.GetUrl() != "" {
		fmt.Fprintf(w, "  %s\n", s.GetUrl())
	}
	n := int(resp.GetClaimCount())
	fmt.Fprintf(w, "%d %s %s it:\n", n, plural(n, "claim", "claims"), plural(n, "cites", "cite"))
	for _, c := range resp.GetClaims() {
		r := c.GetRelation()
		said := ""
		if c.GetSaidBy() != "" {
			said = " (said by " + show(c.GetSaidBy()) + ")"
		}
		fmt.Fprintf(w, "  %s %.2f  %s %s %s%s  %q\n", statusWord(c.GetStatus()), c.GetConfidence(), show(r.GetFrom()), typeWords(r.GetType()),
			show(r.GetTo()), said, oneLine(c.GetExcerpt(), 140))
	}
	writeMore(w, resp.GetNextPageToken())
}

// sourcesCmd is `polgraph sources`.
func sourcesCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var kind, outlet *string
	var page pagingFlags
	c, _, err := parseClientCommand("sources", "usage: polgraph sources [flags]\n\nThe sources, in name order, each with how many claims cite it.",
		0, 0, false, args, stderr, func(fs *flag.FlagSet) {
			kind = fs.String("kind", "", "only sources of this kind: article, social-post, dataset or other")
			outlet = fs.String("outlet", "", `only sources from this outlet, as the sources give it (e.g. "Daily Mail")`)
			page.register(fs, graph.MaxSourcesPageSize, "sources")
		})
	if err != nil {
		return err
	}
	var k pb.SourceKind
	if *kind != "" {
		v, ok := pb.SourceKind_value["SOURCE_KIND_"+strings.ToUpper(strings.ReplaceAll(*kind, "-", "_"))]
		if !ok || v == 0 {
			var vs graph.Violations
			vs.Add("--kind", "%q: want article, social-post, dataset or other", *kind)
			return vs.Err("", "invalid flags")
		}
		k = pb.SourceKind(v)
	}
	return call(ctx, c, stdout, func(ctx context.Context, client pb.GraphServiceClient) (*pb.ListSourcesResponse, error) {
		return client.ListSources(ctx, &pb.ListSourcesRequest{Kind: k, Outlet: *outlet, PageSize: int32(*page.size), PageToken: *page.token})
	}, func(resp *pb.ListSourcesResponse) { writeSources(stdout, resp) })
}

func writeSources(w io.Writer, resp *pb.ListSourcesResponse) {
	n := int(resp.GetTotalSize())
	fmt.Fprintf(w, "%d %s\n", n, plural(n, "source", "sources"))
	for _, s := range resp.GetSources() {
		src := s.GetSource()
		fmt.Fprintf(w, "  %s (%s): %d %s  %q\n", src.GetName(), sourceWords(src), s.GetClaimCount(),
			plural(int(s.GetClaimCount()), "claim", "claims"), oneLine(src.GetTitle(), 60))
	}
	writeMore(w, resp.GetNextPageToken())
}

// statsCmd is `polgraph stats`.
func statsCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c, _, err := parseClientCommand("stats", "usage: polgraph stats [flags]\n\nWhat the graph holds, and when it was last written.",
		0, 0, false, args, stderr, func(*flag.FlagSet) {})
	if err != nil {
		return err
	}
	return call(ctx, c, stdout, func(ctx context.Context, client pb.GraphServiceClient) (*pb.GetGraphStatsResponse, error) {
		return client.GetGraphStats(ctx, &pb.GetGraphStatsRequest{})
	}, func(resp *pb.GetGraphStatsResponse) { writeStats(stdout, resp) })
}

// writeStats writes the totals on one line, then each breakdown under a heading, most first.
func writeStats(w io.Writer, resp *pb.GetGraphStatsResponse) {
	written := "when is not recorded"
	if resp.GetWrittenAt() != nil {
		written = resp.GetWrittenAt().AsTime().UTC().Format("2006-01-02 15:04:05 UTC")
	}
	fmt.Fprintf(w, "Graph version %d, last written %s\n", resp.GetVersion(), written)
	fmt.Fprintf(w, "In all: %d entities, %d relations, %d claims, %d sources\n", resp.GetEntities(), resp.GetRelations(), resp.GetClaims(), resp.GetSources())
	group := func(heading, prefix string, n int, each func(i int) (fmt.Stringer, int32)) {
		fmt.Fprintln(w, heading)
		for i := range n {
			e, c := each(i)
			fmt.Fprintf(w, "  %s %d\n", strings.ReplaceAll(strings.ToLower(strings.TrimPrefix(e.String(), prefix)), "_", " "), c)
		}
	}
	kinds, types, statuses, sources := resp.GetEntitiesByKind(), resp.GetRelationsByType(), resp.GetClaimsByStatus(), resp.GetSourcesByKind()
	group("Entities by kind:", "ENTITY_KIND_", len(kinds), func(i int) (fmt.Stringer, int32) { return kinds[i].GetKind(), kinds[i].GetCount() })
	group("Relations by type:", "RELATION_TYPE_", len(types), func(i int) (fmt.Stringer, int32) { return types[i].GetType(), types[i].GetCount() })
	group("Claims by status:", "CLAIM_STATUS_", len(statuses), func(i int) (fmt.Stringer, int32) { return statuses[i].GetStatus(), statuses[i].GetCount() })
	group("Sources by kind:", "SOURCE_KIND_", len(sources), func(i int) (fmt.Stringer, int32) { return sources[i].GetKind(), sources[i].GetCount() })
}

// connectionsCmd is `polgraph connections A B [C...]`.
func connectionsCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var maxShared, maxDepth, minOutlets *int
	var outlets *string
	c, fs, err := parseClientCommand("connections", "usage: polgraph connections [flags] A B [C...]\n\nWhat 2 to 10 entities have in common: shared neighbours, shared sources, and the shortest route between each pair.",
		graph.MinConnectionEntities, graph.MaxConnectionEntities, true, args, stderr, func(fs *flag.FlagSet) {
			maxShared = fs.Int("max-shared", 0, "at most this many shared neighbours and shared sources (default 20, at most 100)")
			maxDepth = fs.Int("max-depth", 0, "longest route between two of them, in hops (default 4, at most 8)")
			outlets = fs.String("outlets", "", "only claims of these outlets count, comma-separated (\"Daily Mail,BBC\")")
			minOutlets = fs.Int("min-outlets", 0, "a relation counts only with claims from at least this many outlets")
		})
	if err != nil {
		return err
	}
	return call(ctx, c, stdout, func(ctx context.Context, client pb.GraphServiceClient) (*pb.FindConnectionsResponse, error) {
		return client.FindConnections(ctx, &pb.FindConnectionsRequest{Entities: fs.Args(), Filter: c.filter(),
			MaxShared: int32(*maxShared), MaxDepth: int32(*maxDepth), Sources: sourceFilterFlags(*outlets, *minOutlets)})
	}, func(resp *pb.FindConnectionsResponse) { writeConnections(stdout, resp, *maxDepth) })
}

func writeConnections(w io.Writer, resp *pb.FindConnectionsResponse, maxDepth int) {
	var shared []*pb.Entity
	for _, n := range resp.GetSharedNeighbors() {
		shared = append(shared, n.GetEntity())
	}
	show := namesOf(resp.GetEntities(), shared, resp.GetRelatedEntities())
	var names []string
	for _, e := range resp.GetEntities() {
		names = append(names, e.GetDisplayName())
	}
	asked := len(names)
	fmt.Fprintf(w, "What %s have in common%s\n", strings.Join(names[:asked-1], ", ")+" and "+names[asked-1], ifRelaxed(resp.GetIfRelaxed(), "connection"))

	fmt.Fprintf(w, "Shared neighbours: %d\n", len(resp.GetSharedNeighbors())+int(resp.GetSharedNeighborsLeftOut()))
	for _, n := range resp.GetSharedNeighbors() {
		e := n.GetEntity()
		fmt.Fprintf(w, "  %s (%s): joined to %d of %d, strength %.2f\n", e.GetDisplayName(), kindWord(e.GetKind()), n.GetInputsJoined(), asked, n.GetStrength())
		for _, j := range n.GetJoins() {
			var rels []string
			for _, r := range j.GetRelations() {
				arrow := "→"
				if r.GetSymmetric() {
					arrow = "—"
				}
				rels = append(rels, fmt.Sprintf("%s %s %s %s%s", show(r.GetFrom()), typeWords(r.GetType()), arrow, show(r.GetTo()), edgeWhen(r)))
			}
			fmt.Fprintf(w, "    %s\n", strings.Join(rels, "; "))
		}
	}
	if n := resp.GetSharedNeighborsLeftOut(); n > 0 {
		fmt.Fprintf(w, "  and %d more (raise --max-shared)\n", n)
	}

	fmt.Fprintf(w, "Shared sources: %d\n", len(resp.GetSharedSources())+int(resp.GetSharedSourcesLeftOut()))
	for _, s := range resp.GetSharedSources() {
		src := s.GetSource()
		var about []string
		for _, in := range s.GetInputs() {
			about = append(about, show(in))
		}
		n := len(s.GetClaims())
		fmt.Fprintf(w, "  %s (%s): joins %s in %d %s\n", src.GetName(), sourceWords(src), strings.Join(about, ", "), n, plural(n, "claim", "claims"))
		for _, c := range s.GetClaims() {
			r := c.GetRelation()
			fmt.Fprintf(w, "    %s %.2f  %s %s %s  %q\n", statusWord(c.GetStatus()), c.GetConfidence(), show(r.GetFrom()), typeWords(r.GetType()),
				show(r.GetTo()), oneLine(c.GetExcerpt(), 100))
		}
	}
	if n := resp.GetSharedSourcesLeftOut(); n > 0 {
		fmt.Fprintf(w, "  and %d more (raise --max-shared)\n", n)
	}

	fmt.Fprintln(w, "Routes:")
	if maxDepth == 0 {
		maxDepth = graph.DefaultMaxDepth
	}
	for _, r := range resp.GetRoutes() {
		if !r.GetConnected() {
			fmt.Fprintf(w, "  %s – %s: not connected within %d %s\n", show(r.GetFrom()), show(r.GetTo()), maxDepth, plural(maxDepth, "hop", "hops"))
			continue
		}
		p := r.GetPath()
		fmt.Fprintf(w, "  %s – %s (%d %s): %s\n", show(r.GetFrom()), show(r.GetTo()), len(p.GetHops()), plural(len(p.GetHops()), "hop", "hops"),
			chain(p.GetEntities(), p.GetHops(), show))
	}
}

// ifRelaxed says what would fill an answer its filter emptied: "; 1 path if undated relations are
// included, 2 paths if no date is asked about" (nothing when there is nothing to say).
func ifRelaxed(rs []*pb.Relaxation, noun string) string {
	var parts []string
	for _, r := range rs {
		n := noun
		if r.GetResults() != 1 {
			n = map[string]string{"entity": "entities"}[noun]
			if n == "" {
				n = noun + "s"
			}
		}
		parts = append(parts, fmt.Sprintf("%d %s if %s", r.GetResults(), n, r.GetChange()))
	}
	if len(parts) == 0 {
		return ""
	}
	return "; " + strings.Join(parts, ", ")
}
