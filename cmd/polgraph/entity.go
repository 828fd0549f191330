package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	pb "github.com/polgraph/polgraph/api/polgraph/v1"
)

// entityCmd is `polgraph entity NAME`: one entity with everything known of it, and its relations counted
// by type.
func entityCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var knownOn string
	c, fs, err := parseClientCommand("entity", "usage: polgraph entity [flags] NAME\n\nNAME is a resource name (actors/nicola-sturgeon), a name, or an id (wikidata:Q467112).",
		1, 1, false, args, stderr, func(fs *flag.FlagSet) {
			fs.StringVar(&knownOn, "known-on", "", "show it as the graph held it then: a day (YYYY-MM-DD, its end) or an RFC 3339 time")
		})
	if err != nil {
		return err
	}
	var filter *pb.RelationFilter
	if knownOn != "" {
		filter = &pb.RelationFilter{KnownOn: knownOn}
	}
	return call(ctx, c, stdout, func(ctx context.Context, client pb.GraphServiceClient) (*pb.GetEntityResponse, error) {
		return client.GetEntity(ctx, &pb.GetEntityRequest{Name: fs.Arg(0), Filter: filter})
	}, func(resp *pb.GetEntityResponse) { writeEntity(stdout, resp) })
}

func writeEntity(w io.Writer, resp *pb.GetEntityResponse) {
	e := resp.GetEntity()
	fmt.Fprintf(w, "%s (%s) %s\n", e.GetDisplayName(), kindWord(e.GetKind()), e.GetName())
	if d := e.GetDescription(); d != "" {
		fmt.Fprintf(w, "  %s\n", oneLine(d, 300))
	}
	line := func(label, v string) {
		if v != "" {
			fmt.Fprintf(w, "  %-14s %s\n", label+":", v)
		}
	}
	span := func(from, to string) string {
		if from == "" && to == "" {
			return ""
		}
		return from + "–" + to
	}
	line("existed", span(e.GetValidFrom(), e.GetValidTo()))
	line("dates from", e.GetDatesFrom())
	line("born", e.GetBirthDate())
	line("died", e.GetDeathDate())
	line("gender", e.GetGender())
	var aliases []string
	langs := map[string]string{}
	for _, o := range e.GetOtherNames() {
		if o.GetLang() != "" {
			langs[o.GetName()] = o.GetLang()
		}
	}
	for _, a := range e.GetAliases() {
		if l, ok := langs[a]; ok {
			a += " (" + l + ")"
		}
		aliases = append(aliases, a)
	}
	line("also called", strings.Join(aliases, "; "))
	var ids []string
	for _, id := range e.GetAllIdentifiers() {
		ids = append(ids, id.GetScheme()+":"+id.GetValue())
	}
	line("ids", strings.Join(ids, " "))
	for _, l := range e.GetLinks() {
		line("link", strings.TrimSpace(l.GetUrl()+" "+l.GetNote()))
	}
	for _, l := range e.GetImages() {
		line("image", l.GetUrl())
	}
	for _, cd := range e.GetContactDetails() {
		line(cd.GetType(), strings.TrimSpace(cd.GetValue()+" "+cd.GetNote()))
	}
	line("merged into", e.GetMergedInto())
	if d := e.GetDeleted(); d != nil {
		line("deleted", d.GetBy()+": "+d.GetReason())
	}
	var counts []string
	for _, rc := range resp.GetRelationCounts() {
		counts = append(counts, countWords(rc))
	}
	line("relations", strings.Join(counts, ", "))
}
