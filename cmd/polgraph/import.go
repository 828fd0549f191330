package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	pb "github.com/polgraph/polgraph/api/polgraph/v1"
	"github.com/polgraph/polgraph/graph"

	"github.com/polgraph/polgraph/graph/dataset"
	"github.com/polgraph/polgraph/graph/ocd"
	"github.com/polgraph/polgraph/graph/popolo"
)

const importUsage = `usage: polgraph import ocd-divisions|popolo|ftm [flags] FILE...

polgraph import ocd-divisions [flags] FILE

Loads an Open Civic Data division list (CSV with the columns id,name,sameAs,sameAsNote,validThrough,
validFrom) as seats: one per row, named seats/<slug of the id's last part>, with its OCD id and dates, and
a SUCCEEDED_BY relation from each seat to its sameAs. A seat the graph already holds under the same OCD id
keeps its name. The file is checked first and nothing is written unless it is valid; importing it again
changes nothing. Writes to Dgraph (--dgraph), or through a running polgraph (--server, with an editor's
--api-key): the seats the graph holds are then read through its API, and the import sent as a Load.

polgraph import popolo [flags] FILE...
Loads Popolo JSON (EveryPolitician's or parlparse's shape): persons, parties and other organisations,
areas and posts as seats, legislative periods as terms, memberships as HOLDS_OFFICE or MEMBER_OF relations
with their role, party (via), term and dates, each claimed by the file as a dataset source. Records the
graph already holds (by wikidata, ocd, parlparse or everypolitician id, or by a name only one entity of
the kind has) are merged, not duplicated; the report says what was merged, created and skipped, and why.
Importing a file again changes nothing.

polgraph import ftm [flags] FILE
Loads FollowTheMoney entities (JSON lines): people, organisations, companies, public bodies and positions,
and their memberships, directorships, employments, family ties, associations and occupancies.
`

// importCmd loads data in formats other than polgraph's own.
func importCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && (args[0] == "popolo" || args[0] == "ftm") {
		return importRecords(ctx, args[0], args[1:], stdout, stderr)
	}
	if len(args) == 0 || args[0] != "ocd-divisions" {
		fmt.Fprint(stderr, importUsage)
		return errUsage
	}
	cfg := defaultConfig()
	fs := cfg.flags("import ocd-divisions", stderr, "dgraph", "data-dir", "log", "batch")
	remote := &clientFlags{}
	remote.registerCall(fs)
	fs.Lookup("timeout").DefValue, remote.timeout = "10m0s", 10*time.Minute
	requestID := fs.String("request-id", "", "with --server: an id that makes an import sent again (after a cut) write once")
	fs.Usage = func() {
		fmt.Fprint(stderr, importUsage+"\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args[1:]); err != nil {
		return errUsage
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return errUsage
	}
	target, err := writeTargetOf(fs, remote.server, cfg.Dgraph)
	if err != nil {
		return err
	}
	log, err := cfg.logger(stderr)
	if err != nil {
		return err
	}
	target.say(stderr)
	path := fs.Arg(0)
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	list, err := ocd.Read(dataset.File{Name: path, R: f})
	if err != nil {
		return err
	}
	if target.server != "" {
		return importThrough(ctx, remote, *requestID, path, list, stdout)
	}
	store, err := cfg.openDgraph(ctx, log)
	if err != nil {
		return err
	}
	defer store.Close()
	known, err := list.Lookup(ctx, store)
	if err != nil {
		return err
	}
	ds, err := list.Dataset(known)
	if err != nil {
		return err
	}
	log.Info("importing Open Civic Data divisions", "file", path, "divisions", len(list.Divisions),
		"already_in_graph", len(known.ByOCD), "source", list.Source().Name)
	fmt.Fprintf(stdout, "%s: %d divisions, %d of them already in the graph by OCD id\n", path, len(list.Divisions), len(known.ByOCD))
	return loadDataset(ctx, store, ds, "import", cfg.Batch, nil, stdout, stderr)
}

// importThrough imports a division list through a running polgraph: what the graph holds is read with
// BatchGetEntities and LookupEntities, and the import is sent as one Load.
func importThrough(ctx context.Context, c *clientFlags, requestID, path string, list *ocd.List, stdout io.Writer) error {
	conn, err := c.dialConn()
	if err != nil {
		return err
	}
	defer conn.Close()
	lctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	known, err := list.Lookup(lctx, remoteGraph{pb.NewGraphServiceClient(conn)})
	if err != nil {
		return c.callError(err)
	}
	ds, err := list.Dataset(known)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: %d divisions, %d of them already in the graph by OCD id\n", path, len(list.Divisions), len(known.ByOCD))
	var buf bytes.Buffer
	err = dataset.WriteSubgraph(&buf, "ocd-divisions", "Open Civic Data divisions imported from "+filepath.Base(path),
		graph.Subgraph{Sources: ds.Sources, Entities: ds.Entities, Relations: ds.Relations})
	if err != nil {
		return err
	}
	return sendLoad(ctx, c, requestID, []dataset.File{{Name: path + " (as a dataset)", R: &buf}}, stdout)
}

// remoteGraph is what an import reads of the graph, through polgraph's API (ocd.Graph, popolo.Graph and
// popolo.Searcher).
type remoteGraph struct{ c pb.GraphServiceClient }

func (g remoteGraph) EntitiesByOCD(ctx context.Context, ids []string) (map[string][]graph.Entity, error) {
	return g.EntitiesByIdentifier(ctx, "ocd", ids)
}

// EntitiesByIdentifier asks LookupEntities.
func (g remoteGraph) EntitiesByIdentifier(ctx context.Context, scheme string, values []string) (map[string][]graph.Entity, error) {
	out := map[string][]graph.Entity{}
	for start := 0; start < len(values); start += graph.MaxBatchGet {
		resp, err := g.c.LookupEntities(ctx, &pb.LookupEntitiesRequest{Scheme: scheme, Values: values[start:min(start+graph.MaxBatchGet, len(values))]})
		if err != nil {
			return nil, err
		}
		for _, m := range resp.GetMatches() {
			for _, e := range m.GetEntities() {
				out[m.GetValue()] = append(out[m.GetValue()], entityOf(e))
			}
		}
	}
	return out, nil
}

// FindByName asks SearchEntities and keeps the entities a name or alias of which is text, normalised.
func (g remoteGraph) FindByName(ctx context.Context, text string) ([]graph.Entity, error) {
	key := graph.NormalizeName(text)
	if key == "" {
		return nil, nil
	}
	resp, err := g.c.SearchEntities(ctx, &pb.SearchEntitiesRequest{Query: text, PageSize: 50})
	if err != nil {
		return nil, err
	}
	var out []graph.Entity
	for _, r := range resp.GetResults() {
		e := entityOf(r.GetEntity())
		if slices.Contains(e.SearchKeys(), key) {
			out = append(out, e)
		}
	}
	return out, nil
}

// Search asks SearchEntities (popolo.Searcher): an import through the server finds a person by a near
// spelling as one reading Dgraph does.
func (g remoteGraph) Search(ctx context.Context, q graph.SearchQuery) ([]graph.SearchResult, error) {
	req := &pb.SearchEntitiesRequest{Query: q.Text, PageSize: graph.MaxPageSize}
	for _, k := range q.Kinds {
		req.Kinds = append(req.Kinds, pb.EntityKind(pb.EntityKind_value["ENTITY_KIND_"+string(k)]))
	}
	resp, err := g.c.SearchEntities(ctx, req)
	if err != nil {
		return nil, err
	}
	out := make([]graph.SearchResult, 0, len(resp.GetResults()))
	for _, r := range resp.GetResults() {
		out = append(out, graph.SearchResult{Entity: entityOf(r.GetEntity()), Matched: r.GetMatched(), Score: r.GetScore(), Summary: r.GetSummary()})
	}
	return out, nil
}

func (g remoteGraph) GetEntities(ctx context.Context, names []graph.EntityName) (map[graph.EntityName]graph.Entity, error) {
	out := map[graph.EntityName]graph.Entity{}
	for start := 0; start < len(names); start += graph.MaxBatchGet {
		var chunk []string
		for _, n := range names[start:min(start+graph.MaxBatchGet, len(names))] {
			chunk = append(chunk, string(n))
		}
		resp, err := g.c.BatchGetEntities(ctx, &pb.BatchGetEntitiesRequest{Names: chunk})
		if err != nil {
			return nil, err
		}
		for _, e := range resp.GetEntities() {
			out[graph.EntityName(e.GetName())] = entityOf(e)
		}
	}
	return out, nil
}

// entityOf is an entity as the API shows it, back in the domain's terms.
func entityOf(e *pb.Entity) graph.Entity {
	out := graph.Entity{Name: graph.EntityName(e.GetName()), Kind: graph.Kind(strings.TrimPrefix(e.GetKind().String(), "ENTITY_KIND_")),
		DisplayName: e.GetDisplayName(), Aliases: e.GetAliases(), Description: e.GetDescription(),
		MergedInto: graph.EntityName(e.GetMergedInto())}
	for _, id := range e.GetAllIdentifiers() {
		out.Identifiers.Add(id.GetScheme(), id.GetValue())
	}
	for k, v := range e.GetIdentifiers() { // from a server that lists no all_identifiers
		if len(e.GetAllIdentifiers()) == 0 {
			out.Identifiers.Add(k, v)
		}
	}
	out.ValidFrom, _ = graph.ParseFuzzyDate(e.GetValidFrom())
	out.ValidTo, _ = graph.ParseFuzzyDate(e.GetValidTo())
	a := &out.Attributes
	a.BirthDate, _ = graph.ParseFuzzyDate(e.GetBirthDate())
	a.DeathDate, _ = graph.ParseFuzzyDate(e.GetDeathDate())
	a.Gender = e.GetGender()
	a.DatesFrom = e.GetDatesFrom()
	for _, l := range e.GetLinks() {
		a.Links = append(a.Links, graph.WebLink{URL: l.GetUrl(), Note: l.GetNote()})
	}
	for _, l := range e.GetImages() {
		a.Images = append(a.Images, graph.WebLink{URL: l.GetUrl(), Note: l.GetNote()})
	}
	for _, c := range e.GetContactDetails() {
		a.ContactDetails = append(a.ContactDetails, graph.ContactDetail{Type: c.GetType(), Value: c.GetValue(), Note: c.GetNote()})
	}
	for _, o := range e.GetOtherNames() {
		a.OtherNames = append(a.OtherNames, graph.Alias{Name: o.GetName(), Lang: o.GetLang(), Note: o.GetNote()})
	}
	if d := e.GetDeleted(); d != nil {
		out.Deleted = graph.Tombstone{Time: d.GetTime().AsTime(), By: d.GetBy(), Reason: d.GetReason()}
	}
	return out
}

var _ popolo.Searcher = remoteGraph{}
