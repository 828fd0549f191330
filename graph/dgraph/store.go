// Package dgraph is the graph.Store on Dgraph, through dgo. It is the only package that knows DQL. Every
// user-supplied string reaches Dgraph as a query variable, never as query text.
package dgraph

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dgraph-io/dgo/v230"
	"github.com/dgraph-io/dgo/v230/protos/api"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/schema"
)

// Store is a graph.Store on one Dgraph alpha.
type Store struct {
	addr           string
	user, password string
	pool           *alphaPool
	stopWatch      context.CancelFunc
	dg             *dgo.Dgraph
	log            *slog.Logger
	// retries counts transactions retried after Dgraph aborted them for a concurrent write.
	retries atomic.Int64
	// packsUsed and packsMissed count the nodes (sources, entities, relations) Changes read from their
	// packs, and those it read from their predicates instead (pack.go).
	packsUsed, packsMissed atomic.Int64
	// staleFills counts the audits of a fill's pack stamps that failed (stampAudit), each of which made
	// the fill read every node of the audited type again.
	staleFills atomic.Int64
	uidsMu     sync.RWMutex
	uids       map[string]string // resource name → uid, for names seen to exist
	// leaseTime is how long a bulk load's hold on its version lasts unless renewed.
	leaseTime time.Duration
	// seen is the newest graph version read: a Dgraph showing an older one is not ready (see Ping).
	seen atomic.Int64
	// metaUID is the uid of the graph's meta node once read, so that the version every answer asks for is
	// read by uid rather than through the name index (changes.go). It names the graph: one dropped and
	// written again has a meta node of its own (noteMeta).
	metaUID   atomic.Pointer[string]
	replaceMu sync.Mutex
	// generation counts the graphs this store has seen replaced (graph.Generations).
	generation atomic.Int64
	// onVersion, when set, is told each newer graph version the store reads or writes (OnVersion).
	onVersion atomic.Pointer[func(int64)]
	// logStart is the oldest version the change log can start after, once found, with the generation it
	// was found in (changelog.go).
	logStart atomic.Pointer[[2]int64]
}

// OnVersion has f told each newer graph version the store reads (every version query: searches, the
// graph in memory catching up) or writes (a write through this store): what wakes watchers of the change
// feed at once when the write is this process's own.
func (s *Store) OnVersion(f func(int64)) { s.onVersion.Store(&f) }

// DefaultLeaseTime is how long a bulk load's hold on its version lasts unless renewed (it is renewed every
// quarter of that). Clocks of the machines writing to and reading from one Dgraph must agree to well
// within a third of it.
const DefaultLeaseTime = time.Minute

var _ graph.Store = (*Store)(nil)

// Config says how to reach Dgraph and log in to it.
type Config struct {
	// Addr is the alpha's gRPC address, host:port, or several alphas of one cluster separated by commas:
	// calls are then spread over the alphas that answer, and a call one of them refuses as unavailable
	// is tried again on another, within the call's deadline.
	Addr string
	// User and Password log in to a Dgraph with ACL on; empty User: no login (a Dgraph without ACL).
	User, Password string
	// AuthToken is sent with every call as Dgraph's admin token (its --security token), which a Dgraph
	// that sets one asks for at login and for schema changes.
	AuthToken string
	// TLS, when set, encrypts the connection (and authenticates polgraph when it holds a certificate).
	TLS *tls.Config
	// DialOptions are added to the connection's own, after them: how the caller watches the calls to
	// Dgraph (interceptors that measure them, a stats handler that traces them), without this package
	// knowing how.
	DialOptions []grpc.DialOption
}

// Open connects to the alpha, logs in when cfg names a user, and checks that it answers. It fails with an
// Unavailable error naming the address when it does not, or when Dgraph refuses the login.
func Open(ctx context.Context, cfg Config, log *slog.Logger) (*Store, error) {
	creds := insecure.NewCredentials()
	if cfg.TLS != nil {
		creds = credentials.NewTLS(cfg.TLS)
	}
	opts := []grpc.DialOption{grpc.WithTransportCredentials(creds),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(256<<20), grpc.MaxCallSendMsgSize(256<<20))}
	if cfg.AuthToken != "" {
		md := func(ctx context.Context) context.Context {
			return metadata.AppendToOutgoingContext(ctx, "auth-token", cfg.AuthToken)
		}
		opts = append(opts,
			grpc.WithChainUnaryInterceptor(func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, o ...grpc.CallOption) error {
				return invoker(md(ctx), method, req, reply, cc, o...)
			}),
			grpc.WithChainStreamInterceptor(func(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, streamer grpc.Streamer, o ...grpc.CallOption) (grpc.ClientStream, error) {
				return streamer(md(ctx), desc, cc, method, o...)
			}))
	}
	addrs, err := Alphas(cfg.Addr)
	if err != nil {
		return nil, &graph.Error{Op: "dgraph.Open", Kind: graph.Invalid, Message: err.Error()}
	}
	pool, err := dialPool(addrs, append(opts, cfg.DialOptions...))
	if err != nil {
		return nil, &graph.Error{Op: "dgraph.Open", Kind: graph.Unavailable, Message: "bad Dgraph address " + cfg.Addr, Err: err}
	}
	s := &Store{addr: cfg.Addr, user: cfg.User, password: cfg.Password, pool: pool, dg: dgo.NewDgraphClient(pool),
		log: log, uids: map[string]string{}, leaseTime: DefaultLeaseTime}
	if err := s.login(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	if err := s.Ping(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	var watchCtx context.Context
	watchCtx, s.stopWatch = context.WithCancel(context.Background())
	go pool.watch(watchCtx, s.alphaReady, s.loginProbe, log)
	return s, nil
}

// login logs in as the configured user, if any. dgo then renews the session by itself; Ping logs in
// again should the session be lost all the same (e.g. its refresh token expired).
func (s *Store) login(ctx context.Context) error {
	if s.user == "" {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	err := s.dg.Login(ctx, s.user, s.password)
	switch {
	case err == nil:
		return nil
	case status.Code(err) == codes.Unavailable || errors.Is(err, context.DeadlineExceeded):
		return s.wrap("dgraph.Login", err)
	}
	return &graph.Error{Op: "dgraph.Login", Kind: graph.Unavailable, Reason: "DATABASE_LOGIN_REFUSED",
		Message: "Dgraph at " + s.addr + " refused polgraph's login as " + s.user +
			" (check --dgraph-user, --dgraph-password-file and --dgraph-auth-token-file)", Err: err}
}

// Ping implements graph.Store: it reads the graph's version, bounded to 5 seconds. A Dgraph that answers
// but shows an older graph than this store has seen is not ready: an alpha just restarted shows nothing
// to polgraph's user until its access rules are loaded, and then, for a few seconds, may show the graph
// without the last writes committed before it died; a replica may lag behind its group's leader. Of
// several alphas, the others are asked then, and those that lag are set aside. When none shows the graph
// seen, Dgraph is Unavailable, reason DATABASE_NOT_READY, so that nobody is served an old graph meanwhile.
func (s *Store) Ping(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	// The version to show is the newest seen before the read began: one seen while it ran (a write
	// committed meanwhile, read by another call) may be newer than this read's snapshot, rightly.
	seen, gen := s.seen.Load(), s.generation.Load()
	v, err := s.Version(ctx)
	if graph.KindOf(err) == graph.Unavailable && s.user != "" {
		var ge *graph.Error
		if errors.As(err, &ge) && ge.Reason == "DATABASE_LOGIN_REFUSED" {
			if err = s.login(ctx); err == nil {
				v, err = s.Version(ctx)
			}
		}
	}
	if err != nil {
		return err
	}
	if s.generation.Load() != gen {
		seen = s.seen.Load() // the graph was replaced meanwhile: what was seen of the old one says nothing
	}
	if v < seen {
		// The alpha that answered is not ready; another may be (a replica that lags behind its group's
		// leader, or has just rejoined it). It is set aside, and the database is up if another shows the
		// graph already seen.
		if len(s.pool.alphas) > 1 && s.pool.recheck(ctx, s.alphaReady, s.loginProbe, s.log) == nil {
			return nil
		}
		// Not ready; the version read says nothing of the graph.
		return &graph.Error{Op: "dgraph.Ping", Kind: graph.Unavailable, Reason: "DATABASE_NOT_READY",
			Message: fmt.Sprintf("Dgraph at %s answers but shows graph version %d, older than the %d already seen, on every alpha: it is starting, or lags behind its group", s.addr, v, seen)}
	}
	return nil
}

// sawVersion records a graph version read: the newest one is what a ready Dgraph shows at least.
func (s *Store) sawVersion(v int64) {
	for {
		seen := s.seen.Load()
		if v <= seen {
			return
		}
		if s.seen.CompareAndSwap(seen, v) {
			if f := s.onVersion.Load(); f != nil {
				(*f)(v)
			}
			return
		}
	}
}

// Retries returns how many transactions were retried after Dgraph aborted them for a concurrent write.
func (s *Store) Retries() int64 { return s.retries.Load() }

// Packs returns how many sources, entities and relations Changes has read from their packs, and how many
// from their predicates because their pack could not be used (none, stale, or of another format).
func (s *Store) Packs() (used, missed int64) { return s.packsUsed.Load(), s.packsMissed.Load() }

// Close closes the connection.
func (s *Store) Close() error {
	if s.stopWatch != nil {
		s.stopWatch()
	}
	return s.pool.Close()
}

// alphaReady tells whether one alpha, through its own client, is ready: it answers, and shows at least the
// newest graph version read (see Ping).
func (s *Store) alphaReady(ctx context.Context, dg *dgo.Dgraph) error {
	seen := s.seen.Load() // before the read, as in Ping
	v, err := s.version(ctx, dg.NewReadOnlyTxn())
	if err != nil {
		return err
	}
	if v < seen {
		return fmt.Errorf("it shows graph version %d, older than the %d already seen", v, seen)
	}
	return nil
}

// loginProbe logs one alpha's own client in, as the store's user.
func (s *Store) loginProbe(ctx context.Context, dg *dgo.Dgraph) error {
	if s.user == "" {
		return nil
	}
	return dg.Login(ctx, s.user, s.password)
}

// wrap turns a dgo error into a *graph.Error with a kind a user can act on; a *graph.Error, and a write's
// staleRead, are left as they are.
func (s *Store) wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	var ge *graph.Error
	var behind staleRead
	if errors.As(err, &ge) || errors.As(err, &behind) {
		return err // a staleRead goes back to the write's loop, which starts the write again (lagged)
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded) || status.Code(err) == codes.DeadlineExceeded:
		return &graph.Error{Op: op, Kind: graph.DeadlineExceeded, Message: "the query ran out of time", Err: err}
	case errors.Is(err, context.Canceled) || status.Code(err) == codes.Canceled:
		return &graph.Error{Op: op, Kind: graph.DeadlineExceeded, Message: "the query was cancelled", Err: err}
	case status.Code(err) == codes.Unauthenticated:
		return &graph.Error{Op: op, Kind: graph.Unavailable, Reason: "DATABASE_LOGIN_REFUSED",
			Message: "Dgraph at " + s.addr + " does not accept polgraph's login (is its ACL on? check --dgraph-user and --dgraph-password-file)", Err: err}
	case status.Code(err) == codes.PermissionDenied:
		return &graph.Error{Op: op, Kind: graph.Internal, Message: "Dgraph refused polgraph's user access to what it needs (see the log)", Err: err}
	case notReady(err):
		return &graph.Error{Op: op, Kind: graph.Unavailable, Reason: "DATABASE_NOT_READY",
			Message: "Dgraph at " + s.addr + " is starting or electing a leader and cannot answer yet", Err: err}
	case status.Code(err) == codes.Unavailable:
		return &graph.Error{Op: op, Kind: graph.Unavailable, Reason: "DATABASE_UNAVAILABLE",
			Message: "cannot reach Dgraph at " + s.addr + " (start it with `make run`, or point --dgraph at a running alpha)", Err: err}
	}
	return &graph.Error{Op: op, Kind: graph.Internal, Message: "Dgraph query failed", Err: err}
}

// notReadyMessages are what Dgraph says, with gRPC code Unknown, while it cannot answer for a moment: an
// alpha starting, a group without a leader, a predicate moving between groups.
var notReadyMessages = []string{
	"server is not ready to accept requests",
	"No connection exists",
	"Tablet isn't being served by this instance",
	"Unable to find any servers for group",
}

func notReady(err error) bool {
	msg := err.Error()
	for _, m := range notReadyMessages {
		if strings.Contains(msg, m) {
			return true
		}
	}
	return false
}

// ApplySchema implements graph.Store. When Dgraph does not let polgraph change the schema (it was not
// given the admin token of a Dgraph that sets one), it is enough that an administrator applied it: every
// predicate must be there, else the error lists the missing ones.
func (s *Store) ApplySchema(ctx context.Context) error {
	err := s.dg.Alter(ctx, &api.Operation{Schema: schema.DQL})
	// A load killed outright leaves transactions Dgraph holds open until it aborts them, and Dgraph
	// refuses schema changes meanwhile: try again for a while.
	for wait := 500 * time.Millisecond; err != nil && strings.Contains(err.Error(), "Pending transactions found") && wait <= 8*time.Second; wait *= 2 {
		s.log.Info("Dgraph holds transactions of an earlier client open; applying the schema again shortly", "wait", wait)
		select {
		case <-ctx.Done():
			return s.wrap("dgraph.ApplySchema", ctx.Err())
		case <-time.After(wait):
		}
		err = s.dg.Alter(ctx, &api.Operation{Schema: schema.DQL})
	}
	if err == nil {
		return nil
	}
	if c := status.Code(err); c == codes.Unavailable || c == codes.DeadlineExceeded || c == codes.Canceled {
		return s.wrap("dgraph.ApplySchema", err)
	}
	have, qerr := s.HasPredicates(ctx, schema.Predicates())
	if qerr != nil {
		return s.wrap("dgraph.ApplySchema", err)
	}
	var missing []string
	for _, p := range schema.Predicates() {
		if !have[p] {
			missing = append(missing, p)
		}
	}
	if len(missing) > 0 {
		return &graph.Error{Op: "dgraph.ApplySchema", Kind: graph.Unavailable, Reason: "SCHEMA_MISSING",
			Message: "Dgraph at " + s.addr + " refused polgraph's schema and lacks " + strings.Join(missing, ", ") +
				": give polgraph the admin token (--dgraph-auth-token-file) or have an administrator apply schema/schema.dql", Err: err}
	}
	s.log.WarnContext(ctx, "Dgraph refused the schema change, but has every predicate polgraph needs; going on", "err", err)
	return nil
}

var predicateName = regexp.MustCompile(`^[A-Za-z0-9_.]+$`)

// HasPredicates reports which of the named predicates the database's schema holds (as far as the user
// may see). Names are predicate names from polgraph's own schema, never user input.
func (s *Store) HasPredicates(ctx context.Context, names []string) (map[string]bool, error) {
	for _, n := range names {
		if !predicateName.MatchString(n) {
			return nil, &graph.Error{Op: "dgraph.HasPredicates", Kind: graph.Invalid, Message: "not a predicate name: " + n}
		}
	}
	resp, err := s.dg.NewReadOnlyTxn().Query(ctx, "schema(pred: ["+strings.Join(names, ", ")+"]) { type }")
	if err != nil {
		return nil, s.wrap("dgraph.HasPredicates", err)
	}
	var out struct {
		Schema []struct{ Predicate string } `json:"schema"`
	}
	if err := json.Unmarshal(resp.Json, &out); err != nil {
		return nil, &graph.Error{Op: "dgraph.HasPredicates", Kind: graph.Internal, Message: "cannot decode Dgraph's schema", Err: err}
	}
	have := map[string]bool{}
	for _, p := range out.Schema {
		have[p.Predicate] = true
	}
	return have, nil
}

// DropAll deletes every node and the schema. For tests and `polgraph reset` only.
func (s *Store) DropAll(ctx context.Context) error {
	s.replaceMu.Lock()
	s.forget(nil, 0)
	s.replaceMu.Unlock()
	return s.wrap("dgraph.DropAll", s.dg.Alter(ctx, &api.Operation{DropAll: true}))
}

// metaSeen is a meta node read, against the one the store knows (noteMeta).
type metaSeen int

const (
	metaSame  metaSeen = iota // the graph the store knows, or the first it reads
	metaNewer                 // another graph's, made after the one known: the graph was replaced
	metaOlder                 // an older graph's: an alpha behind a graph dropped and written again
)

// noteMeta compares the graph's meta node read (its uid, and the version it shows) with the one the store
// knows. A graph dropped and written again (by an administrator) has a meta node of its own, and Dgraph
// gives uids in increasing order, never again after a drop: a larger uid is a newer graph. The store then
// forgets the graph it knew: the uids of its resources, and the version seen, which the new graph's
// replaces, so that it is not taken for an alpha that lags; and counts a generation, for the topology to
// fill again. A smaller uid is an older graph, shown by an alpha that lags behind the drop.
func (s *Store) noteMeta(ctx context.Context, uid string, version int64) metaSeen {
	known := s.metaUID.Load()
	if known != nil && *known == uid {
		return metaSame
	}
	s.replaceMu.Lock()
	defer s.replaceMu.Unlock()
	known = s.metaUID.Load()
	switch {
	case known == nil:
		s.metaUID.Store(&uid)
		return metaSame
	case *known == uid:
		return metaSame
	case uidNumber(uid) < uidNumber(*known):
		return metaOlder
	}
	s.log.WarnContext(ctx, "the graph in Dgraph was replaced (dropped and written again): polgraph follows the new one", "meta_was", *known, "meta_now", uid, "version_seen", s.seen.Load(), "version_now", version)
	s.forget(&uid, version)
	return metaNewer
}

// forget drops what the store knows of the graph: the uids of its resources and its meta node (meta, when
// not nil, is the new graph's), and sets the version seen; a new generation begins. Under replaceMu.
func (s *Store) forget(meta *string, version int64) {
	s.uidsMu.Lock()
	s.uids = map[string]string{}
	s.uidsMu.Unlock()
	s.metaUID.Store(meta)
	s.seen.Store(version)
	s.generation.Add(1)
}

// Generation implements graph.Generations: it counts the graphs this store has seen replaced.
func (s *Store) Generation() int64 { return s.generation.Load() }

// uidNumber is a uid's number (0 for what is not a uid).
func uidNumber(uid string) uint64 {
	n, _ := strconv.ParseUint(strings.TrimPrefix(uid, "0x"), 16, 64)
	return n
}

// query runs a read-only query with variables and decodes the JSON answer into out.
func (s *Store) query(ctx context.Context, op, q string, vars map[string]string, out any) error {
	resp, err := s.dg.NewReadOnlyTxn().QueryWithVars(ctx, q, vars)
	if err != nil {
		return s.wrap(op, err)
	}
	if err := json.Unmarshal(resp.Json, out); err != nil {
		return &graph.Error{Op: op, Kind: graph.Internal, Message: "cannot decode Dgraph's answer", Err: err}
	}
	return nil
}

// nameBlocks builds a query for the resources with these names, `q(func: eq(pg.name, [$n0, $n1, …]))
// { fields }`, with the names as variables. It returns the query and its variables.
func nameBlocks(names []string, fields string) (string, map[string]string) {
	return eqBlocks("pg.name", names, fields)
}

// readBlocks builds a read query for the resources with these names: by uid for those whose uid the store
// has seen (one variable holds them all, which Dgraph parses far faster than one variable per name), by
// name for the others. Callers must ignore rows whose name they did not ask for: a uid is trusted only
// because resources are never deleted.
func (s *Store) readBlocks(names []string, fields string) (string, map[string]string) {
	var uids, rest []string
	s.uidsMu.RLock()
	for _, n := range names {
		if u, ok := s.uids[n]; ok {
			uids = append(uids, u)
		} else {
			rest = append(rest, n)
		}
	}
	s.uidsMu.RUnlock()
	var decls, blocks []string
	vars := map[string]string{}
	if len(uids) > 0 {
		decls = append(decls, "$u: string")
		blocks = append(blocks, "u(func: uid($u)) { "+fields+" }")
		vars["$u"] = "[" + strings.Join(uids, ", ") + "]"
	}
	if len(rest) > 0 {
		decl, list, more := eqClause(rest)
		decls = append(decls, decl)
		blocks = append(blocks, "q(func: eq(pg.name, ["+list+"])) { "+fields+" }")
		maps.Copy(vars, more)
	}
	return "query q(" + strings.Join(decls, ", ") + ") {\n" + strings.Join(blocks, "\n") + "\n}", vars
}

// readNamed reads the resources with these names, n names to a query (by uid where the store knows it,
// see readBlocks), and calls keep with every row whose name name(row) was asked for.
func readNamed[T any](ctx context.Context, s *Store, op string, names []string, n int, fields string, name func(T) string, keep func(T)) error {
	for _, chunk := range chunks(names, n) {
		q, vars := s.readBlocks(chunk, fields)
		var res map[string][]T
		if err := s.query(ctx, op, q, vars, &res); err != nil {
			return err
		}
		asked := set(chunk)
		for _, rows := range res {
			for _, r := range rows {
				if asked[name(r)] {
					keep(r)
				}
			}
		}
	}
	return nil
}

// rememberAll caches the uids of many resources at once.
func (s *Store) rememberAll(pairs [][2]string) {
	s.uidsMu.Lock()
	defer s.uidsMu.Unlock()
	for _, p := range pairs {
		if p[0] != "" && uidPattern.MatchString(p[1]) {
			s.uids[p[0]] = p[1]
		}
	}
}

// eqBlocks builds a query for the nodes whose indexed predicate pred has one of values, in one block
// named q, with the values as variables. pred and fields are polgraph's own text, never a user's.
func eqBlocks(pred string, values []string, fields string) (string, map[string]string) {
	decl, list, vars := eqClause(values)
	return fmt.Sprintf("query q(%s) {\nq(func: eq(%s, [%s])) { %s }\n}", decl, pred, list, fields), vars
}

// eqClause declares one string variable per value and lists them, for eq(pred, [list]).
func eqClause(values []string) (decl, list string, vars map[string]string) {
	var d, l strings.Builder
	vars = make(map[string]string, len(values))
	for i, n := range values {
		v := "$n" + strconv.Itoa(i)
		if i > 0 {
			d.WriteString(", ")
			l.WriteString(", ")
		}
		d.WriteString(v + ": string")
		l.WriteString(v)
		vars[v] = n
	}
	return d.String(), l.String(), vars
}

// --- decoding -----------------------------------------------------------------------------------------

type nameRef struct {
	UID  string `json:"uid"`
	Name string `json:"pg.name"`
}

type entityJSON struct {
	tombstoneJSON
	UID         string   `json:"uid"`
	Name        string   `json:"pg.name"`
	Kind        string   `json:"pg.kind"`
	DisplayName string   `json:"pg.display_name"`
	Aliases     []string `json:"pg.aliases"`
	Description string   `json:"pg.description"`
	Identifiers string   `json:"pg.identifiers"`
	Attributes  string   `json:"pg.attributes"`
	AliasOrder  string   `json:"pg.alias_order"`
	ValidFrom   string   `json:"pg.valid_from"`
	ValidTo     string   `json:"pg.valid_to"`
	MergedInto  *nameRef `json:"pg.merged_into"`
}

const entityFields = `uid pg.name pg.kind pg.display_name pg.aliases pg.description pg.identifiers pg.attributes pg.alias_order pg.valid_from pg.valid_to ` + deletedFields + ` pg.merged_into { pg.name }`

// entity is the entity as read. pg.identifiers and pg.attributes hold the JSON that identifiersJSON and
// attributesJSON write; one written by other means may not decode: entity then returns the entity without
// it, and an Internal error naming the entity and the predicate.
func (e entityJSON) entity() (graph.Entity, error) {
	out := graph.Entity{Name: graph.EntityName(e.Name), Kind: graph.Kind(e.Kind), DisplayName: e.DisplayName,
		Aliases: e.Aliases, Description: e.Description, Deleted: e.deleted(), MergedInto: e.mergedInto()}
	out.ValidFrom, _ = graph.ParseFuzzyDate(e.ValidFrom)
	out.ValidTo, _ = graph.ParseFuzzyDate(e.ValidTo)
	var errs []error
	if e.Identifiers != "" {
		if err := json.Unmarshal([]byte(e.Identifiers), &out.Identifiers); err != nil {
			errs = append(errs, fmt.Errorf("pg.identifiers: %w", err))
		}
	}
	if e.Attributes != "" {
		if err := json.Unmarshal([]byte(e.Attributes), &out.Attributes); err != nil {
			errs = append(errs, fmt.Errorf("pg.attributes: %w", err))
		}
	}
	// pg.aliases is a set: the order the aliases were written in is kept beside it.
	var order []string
	if e.AliasOrder != "" && json.Unmarshal([]byte(e.AliasOrder), &order) == nil && sameSet(order, e.Aliases) {
		out.Aliases = order
	}
	if len(errs) > 0 {
		return out, &graph.Error{Kind: graph.Internal, Message: "entity " + e.Name + " does not decode", Err: errors.Join(errs...)}
	}
	return out, nil
}

// mergedInto is the entity this one was merged into, or "".
func (e entityJSON) mergedInto() graph.EntityName {
	if e.MergedInto == nil {
		return ""
	}
	return graph.EntityName(e.MergedInto.Name)
}

// entityForTrail is the entity as read, for an audit record of a write that goes ahead whatever it held:
// a field that does not decode is left out of the record, and logged.
func (s *Store) entityForTrail(ctx context.Context, e entityJSON) graph.Entity {
	out, err := e.entity()
	if err != nil {
		s.log.WarnContext(ctx, "the audit trail records a stored entity without the fields that do not decode", "err", err)
	}
	return out
}

func set(xs []string) map[string]bool {
	m := make(map[string]bool, len(xs))
	for _, x := range xs {
		m[x] = true
	}
	return m
}

func (s *Store) remember(name, uid string) {
	if name == "" || uid == "" {
		return
	}
	s.uidsMu.Lock()
	s.uids[name] = uid
	s.uidsMu.Unlock()
}

// GetEntity implements graph.Store.
func (s *Store) GetEntity(ctx context.Context, name graph.EntityName) (graph.Entity, error) {
	m, err := s.GetEntities(ctx, []graph.EntityName{name})
	if err != nil {
		return graph.Entity{}, err
	}
	e, ok := m[name]
	if !ok {
		return e, &graph.Error{Op: "GetEntity", Kind: graph.NotFound, Reason: "ENTITY_NOT_FOUND", Message: "no entity named " + string(name)}
	}
	return e, nil
}

// GetEntities implements graph.Store.
func (s *Store) GetEntities(ctx context.Context, names []graph.EntityName) (map[graph.EntityName]graph.Entity, error) {
	out := make(map[graph.EntityName]graph.Entity, len(names))
	var undecoded error
	err := readNamed(ctx, s, "dgraph.GetEntities", strs(names), 500, entityFields, func(r entityJSON) string { return r.Name },
		func(r entityJSON) {
			if r.Kind != "" { // else a relation, claim or source with this name, not an entity
				s.remember(r.Name, r.UID)
				e, err := r.entity()
				if err != nil && undecoded == nil {
					undecoded = err
				}
				out[graph.EntityName(r.Name)] = e
			}
		})
	if err == nil && undecoded != nil {
		err = fmt.Errorf("dgraph.GetEntities: %w", undecoded)
	}
	return out, err
}

// EntitiesByOCD returns, for each Open Civic Data division id (an entity's identifiers.ocd), the entities
// that hold it, ordered by name; ids no entity holds are absent. Each id should have one holder: two mean
// the same seat was loaded under two names. It returns Unavailable, DeadlineExceeded or Internal errors.
func (s *Store) EntitiesByOCD(ctx context.Context, ids []string) (map[string][]graph.Entity, error) {
	out := make(map[string][]graph.Entity)
	for _, chunk := range chunks(ids, 500) {
		q, vars := eqBlocks("pg.ocd_id", chunk, entityFields+" pg.ocd_id")
		var res map[string][]struct {
			entityJSON
			OCD string `json:"pg.ocd_id"`
		}
		if err := s.query(ctx, "dgraph.EntitiesByOCD", q, vars, &res); err != nil {
			return nil, err
		}
		for _, rows := range res {
			for _, r := range rows {
				if r.Kind == "" || r.OCD == "" || r.DeletedAt != nil {
					continue
				}
				s.remember(r.Name, r.UID)
				e, err := r.entity()
				if err != nil {
					return nil, fmt.Errorf("dgraph.EntitiesByOCD: %w", err)
				}
				out[r.OCD] = append(out[r.OCD], e)
			}
		}
	}
	for id, es := range out {
		slices.SortFunc(es, func(a, b graph.Entity) int { return strings.Compare(string(a.Name), string(b.Name)) })
		out[id] = slices.CompactFunc(es, func(a, b graph.Entity) bool { return a.Name == b.Name })
	}
	return out, nil
}

// EntitiesByIdentifier implements graph.Store: Open Civic Data ids by their own index, the others by
// pg.ids.
func (s *Store) EntitiesByIdentifier(ctx context.Context, scheme string, values []string) (map[string][]graph.Entity, error) {
	out := make(map[string][]graph.Entity)
	if scheme == "ocd" {
		// An entity's first OCD id has an index of its own (written before pg.ids existed too); the others
		// are found through pg.ids below.
		byOCD, err := s.EntitiesByOCD(ctx, values)
		if err != nil {
			return nil, err
		}
		out = byOCD
	}
	for _, chunk := range chunks(values, 500) {
		tokens := make([]string, len(chunk))
		for i, v := range chunk {
			tokens[i] = idToken(scheme, v)
		}
		q, vars := eqBlocks("pg.ids", tokens, entityFields)
		var res map[string][]entityJSON
		if err := s.query(ctx, "dgraph.EntitiesByIdentifier", q, vars, &res); err != nil {
			return nil, err
		}
		for _, rows := range res {
			for _, r := range rows {
				if r.Kind == "" || r.DeletedAt != nil {
					continue
				}
				e, err := r.entity()
				if err != nil {
					return nil, fmt.Errorf("dgraph.EntitiesByIdentifier: %w", err)
				}
				for _, v := range e.Identifiers[scheme] {
					if slices.Contains(chunk, v) && !slices.ContainsFunc(out[v], func(o graph.Entity) bool { return o.Name == e.Name }) {
						out[v] = append(out[v], e)
					}
				}
			}
		}
	}
	for v, es := range out {
		slices.SortFunc(es, func(a, b graph.Entity) int { return strings.Compare(string(a.Name), string(b.Name)) })
		out[v] = slices.CompactFunc(es, func(a, b graph.Entity) bool { return a.Name == b.Name })
	}
	return out, nil
}

// idToken is an external id as pg.ids indexes it.
func idToken(scheme, value string) string { return scheme + ":" + value }

// idTokens are an entity's external ids as pg.ids indexes them.
func idTokens(ids graph.Identifiers) []string {
	out := make([]string, 0, len(ids))
	for _, id := range ids.Pairs() {
		out = append(out, idToken(id.Scheme, id.Value))
	}
	return out
}

// aliasOrder is how pg.alias_order keeps the order of an entity's aliases ("" when it has fewer than two).
func aliasOrder(aliases []string) string {
	if len(aliases) < 2 {
		return ""
	}
	b, _ := json.Marshal(aliases)
	return string(b)
}

// sameSet reports whether a and b hold the same strings.
func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	sa, sb := slices.Clone(a), slices.Clone(b)
	slices.Sort(sa)
	slices.Sort(sb)
	return slices.Equal(sa, sb)
}

// identifiersJSON is how pg.identifiers holds an entity's ids ("" for none).
func identifiersJSON(ids graph.Identifiers) string {
	if ids.Count() == 0 {
		return ""
	}
	b, _ := json.Marshal(ids)
	return string(b)
}

// attributesJSON is how pg.attributes holds an entity's attributes ("" for none).
func attributesJSON(a graph.Attributes) string {
	if a.IsZero() {
		return ""
	}
	b, _ := json.Marshal(a)
	return string(b)
}

// FindByName implements graph.Store.
func (s *Store) FindByName(ctx context.Context, text string) ([]graph.Entity, error) {
	key := graph.NormalizeName(text)
	if key == "" {
		return nil, nil
	}
	var res struct{ Q []entityJSON }
	q := `query q($k: string) { q(func: eq(pg.search_keys, $k), orderasc: pg.name, first: 50) { ` + entityFields + ` } }`
	if err := s.query(ctx, "dgraph.FindByName", q, map[string]string{"$k": key}, &res); err != nil {
		return nil, err
	}
	out := make([]graph.Entity, 0, len(res.Q))
	for _, r := range res.Q {
		s.remember(r.Name, r.UID)
		e, err := r.entity()
		if err != nil {
			return nil, fmt.Errorf("dgraph.FindByName: %w", err)
		}
		if e.Deleted.IsZero() { // deleted entities are found only by their resource name
			out = append(out, e)
		}
	}
	return out, nil
}

// FindByNames is FindByName for many names in few round trips: the live entities called by each name,
// keyed by the name normalised (graph.NormalizeName).
func (s *Store) FindByNames(ctx context.Context, texts []string) (map[string][]graph.Entity, error) {
	want := map[string]bool{}
	var keys []string
	for _, t := range texts {
		if k := graph.NormalizeName(t); k != "" && !want[k] {
			want[k] = true
			keys = append(keys, k)
		}
	}
	out := make(map[string][]graph.Entity, len(keys))
	for _, chunk := range chunks(keys, 500) {
		q, vars := eqBlocks("pg.search_keys", chunk, entityFields+" pg.search_keys")
		var res map[string][]struct {
			entityJSON
			Keys []string `json:"pg.search_keys"`
		}
		if err := s.query(ctx, "dgraph.FindByNames", q, vars, &res); err != nil {
			return nil, err
		}
		for _, rows := range res {
			for _, r := range rows {
				if r.Kind == "" || r.DeletedAt != nil {
					continue
				}
				e, err := r.entity()
				if err != nil {
					return nil, fmt.Errorf("dgraph.FindByNames: %w", err)
				}
				s.remember(r.Name, r.UID)
				for _, k := range r.Keys {
					if want[k] && !slices.ContainsFunc(out[k], func(o graph.Entity) bool { return o.Name == e.Name }) {
						out[k] = append(out[k], e)
					}
				}
			}
		}
	}
	return out, nil
}

// EntityNames implements graph.EntityLister: live entities in name order, after a name, a page at a time.
func (s *Store) EntityNames(ctx context.Context, after graph.EntityName, limit int) ([]graph.EntityName, error) {
	var res struct {
		Q []nameRef `json:"q"`
	}
	q := `query q($after: string, $first: int) {
  q(func: has(pg.kind), orderasc: pg.name, first: $first) @filter(gt(pg.name, $after) AND NOT has(pg.deleted_at)) { uid pg.name }
}`
	if err := s.query(ctx, "dgraph.EntityNames", q, map[string]string{"$after": string(after), "$first": strconv.Itoa(max(limit, 1))}, &res); err != nil {
		return nil, err
	}
	out := make([]graph.EntityName, 0, len(res.Q))
	for _, r := range res.Q {
		s.remember(r.Name, r.UID)
		out = append(out, graph.EntityName(r.Name))
	}
	return out, nil
}

// Counts implements graph.Store.
func (s *Store) Counts(ctx context.Context) (graph.GraphCounts, error) {
	var res map[string][]struct {
		N int `json:"count"`
	}
	q := `{
` + liveBlocks + `
  entities(func: uid(live_entities)) { count(uid) }
  relations(func: uid(live_relations)) { count(uid) }
  claims(func: uid(live_claims)) { count(uid) }
  sources(func: type(Source)) { count(uid) }
}`
	if err := s.query(ctx, "dgraph.Counts", q, nil, &res); err != nil {
		return graph.GraphCounts{}, err
	}
	n := func(k string) int {
		if len(res[k]) == 0 {
			return 0
		}
		return res[k][0].N
	}
	return graph.GraphCounts{Entities: n("entities"), Relations: n("relations"), Claims: n("claims"), Sources: n("sources")}, nil
}

// liveBlocks are DQL blocks naming what the graph holds: entities and relations not deleted, and their
// claims not retracted (tombstones are kept, but counted nowhere).
const liveBlocks = `  live_entities as var(func: type(Entity)) @filter(not has(pg.deleted_at))
  live_relations as var(func: type(Relation)) @filter(not has(pg.deleted_at)) {
    live_claims as ~pg.claim_of @filter(not has(pg.retracted_at))
  }`

// RelationCounts implements graph.Store.
func (s *Store) RelationCounts(ctx context.Context, name graph.EntityName) ([]graph.RelationCount, error) {
	type group struct {
		Type  string `json:"pg.rel_type"`
		Count int    `json:"count"`
	}
	var res struct {
		Q []struct {
			Out []struct {
				Groups []group `json:"@groupby"`
			} `json:"~pg.from"`
			In []struct {
				Groups []group `json:"@groupby"`
			} `json:"~pg.to"`
		}
	}
	q := `query q($n: string) { q(func: eq(pg.name, $n)) {
  ~pg.from @filter(not has(pg.deleted_at)) @groupby(pg.rel_type) { count(uid) }
  ~pg.to @filter(not has(pg.deleted_at)) @groupby(pg.rel_type) { count(uid) }
} }`
	if err := s.query(ctx, "dgraph.RelationCounts", q, map[string]string{"$n": string(name)}, &res); err != nil {
		return nil, err
	}
	var out []graph.RelationCount
	for _, r := range res.Q {
		for _, o := range r.Out {
			for _, g := range o.Groups {
				t := graph.RelationType(g.Type)
				out = append(out, graph.RelationCount{Type: t, Outgoing: true, Count: g.Count})
			}
		}
		for _, in := range r.In {
			for _, g := range in.Groups {
				t := graph.RelationType(g.Type)
				out = append(out, graph.RelationCount{Type: t, Outgoing: t.Symmetric(), Count: g.Count})
			}
		}
	}
	return graph.SumRelationCounts(out), nil
}

func strs[N ~string](ns []N) []string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = string(n)
	}
	return out
}

func chunks[T any](xs []T, n int) [][]T {
	var out [][]T
	for len(xs) > n {
		out = append(out, xs[:n])
		xs = xs[n:]
	}
	if len(xs) > 0 {
		out = append(out, xs)
	}
	return out
}
