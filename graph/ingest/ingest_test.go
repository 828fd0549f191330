package ingest_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/ingest"
	"github.com/polgraph/polgraph/graph/memstore"
	"github.com/polgraph/polgraph/graph/review"
)

func read(t *testing.T, r *ingest.Reader, in ingest.Input) review.Reading {
	t.Helper()
	rd, err := r.Read(in)
	if err != nil {
		t.Fatalf("Read(%s): %v", in.Path, err)
	}
	return rd
}

func seed(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("../../data/annotations/texts/seeds/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// reading is a proposal as the tests compare it.
type reading struct {
	Type     graph.RelationType
	From, To graph.EntityName
	Status   graph.ClaimStatus
}

func readings(rd review.Reading) []reading {
	var out []reading
	for _, p := range rd.Proposals {
		out = append(out, reading{p.Type, p.From, p.To, p.Status})
	}
	return out
}

func TestWording(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		text string
		want []reading
	}{
		{"denial", "She said that Mayor Lutfur Rahman did not support Ajmal Masroor in Thursday's vote.",
			[]reading{{graph.Endorses, "actors/lutfur-rahman", "actors/ajmal-masroor", graph.StatusDenied}}},
		{"hearsay", "Supporters say Lutfur Rahman backs Rabina Khan.",
			[]reading{{graph.Endorses, "actors/lutfur-rahman", "actors/rabina-khan", graph.StatusAlleged}}},
		{"hearsay accusation", "Supporters say Apsana Begum accused John Biggs of neglect.",
			[]reading{{graph.Accused, "actors/apsana-begum", "actors/john-biggs", graph.StatusAlleged}}},
		{"hypothetical", "Lutfur Rahman could endorse Rabina Khan if she asked him.", nil},
		{"denied claims", "Rabina Khan rejected claims that Lutfur Rahman backed her rival.", nil},
		{"dismissed reports", "Lutfur Rahman dismissed reports he supports Rabina Khan.",
			[]reading{{graph.Endorses, "actors/lutfur-rahman", "actors/rabina-khan", graph.StatusDenied}}},
		{"double negative", "Lutfur Rahman did not deny backing Rabina Khan.", nil},
		{"intention", "Rabina Khan plans to join the Labour Party next year.", nil},
		{"refusal to say", "Keir Starmer refused to confirm he would back Rabina Khan.", nil},
		{"question", "Did Keir Starmer criticise Lutfur Rahman over Gaza?", nil},
		{"passive", "Ajmal Masroor has been accused by Rabina Khan of using the picture.",
			[]reading{{graph.Accused, "actors/rabina-khan", "actors/ajmal-masroor", graph.StatusReported}}},
		{"reversed", "Labour suspended Andy McDonald after the rally.",
			[]reading{{graph.SuspendedFrom, "actors/andy-mcdonald", "parties/labour", graph.StatusReported}}},
		{"party role", "Tory MP Jonathan Sayeed is to stand down on the grounds of ill health.",
			[]reading{{graph.MemberOf, "actors/jonathan-sayeed", "parties/conservatives", graph.StatusReported}}},
		{"leader", "UKIP leader Roger Knapman said nothing.",
			[]reading{{graph.Leads, "actors/roger-knapman", "parties/ukip", graph.StatusReported}}},
		{"an office opening a sentence before a name", "Chancellor Gordon Brown's closest ally spoke.",
			[]reading{{graph.HoldsOffice, "actors/gordon-brown", "seats/chancellor-of-the-exchequer", graph.StatusReported}}},
		{"a shadow post of a department is no membership of it", "Shadow Treasury chief secretary George Osborne said the finances were poor.",
			[]reading{{graph.HoldsOffice, "actors/george-osborne", "seats/shadow-chief-secretary-to-the-treasury", graph.StatusReported}}},
		{"a director general leads", "Sir Digby Jones, CBI director general, spoke to Mr Brown.",
			[]reading{{graph.Leads, "actors/digby-jones", "organisations/cbi", graph.StatusReported}}},
		{"a possessive role after a name", "The campaign is on, Alan Milburn, Labour's election strategist told the BBC.",
			[]reading{{graph.MemberOf, "actors/alan-milburn", "parties/labour", graph.StatusReported}}},
		{"criticism with its speaker last", "Public trust is breaking down because Labour and Tories are not being straight with people, Lib Dem leader Charles Kennedy has said.",
			[]reading{{graph.Leads, "actors/charles-kennedy", "parties/liberal-democrats", graph.StatusReported},
				{graph.Criticised, "actors/charles-kennedy", "parties/conservatives", graph.StatusReported},
				{graph.Criticised, "actors/charles-kennedy", "parties/labour", graph.StatusReported}}},
		{"praise with its speaker last is no criticism", "Labour has done a great job for the country, Tony Blair said.", nil},
		{"a party's leader speaking is not the party", "The Tory leader argued people feel let down by Tony Blair.", nil},
		{"a former aide, before the name", "Gordon Brown spoke. Mr Brown's former adviser Ed Balls agreed.",
			[]reading{{graph.FormerlyWorkedWith, "actors/ed-balls", "actors/gordon-brown", graph.StatusReported}}},
		{"a former aide, after the name", "Sir Bernard Ingham, Margaret Thatcher's former press secretary, took a less charitable view.",
			[]reading{{graph.FormerlyWorkedWith, "actors/bernard-ingham", "actors/margaret-thatcher", graph.StatusReported}}},
		{"from a group described", "John Ison, from the campaign group Liberty, spoke.",
			[]reading{{graph.MemberOf, "actors/john-ison", "organisations/liberty", graph.StatusReported}}},
		{"his wife, named alone", "Stephen Pound spoke. Mr Pound said his wife Maggie had been fully supportive.",
			[]reading{{graph.Family, "actors/maggie", "actors/stephen-pound", graph.StatusReported}}},
		{"his former adviser", "Gordon Brown spoke. Later his former adviser Ed Balls agreed.",
			[]reading{{graph.FormerlyWorkedWith, "actors/ed-balls", "actors/gordon-brown", graph.StatusReported}}},
		{"her, an object, is no possessive", "Gordon Brown told her Maggie was right.", nil},
		{"money given to a party", "Lord Sainsbury gave £2m to Labour in 2004.",
			[]reading{{graph.Endorses, "actors/lord-sainsbury", "parties/labour", graph.StatusReported}}},
		{"a donation from someone", "The largest donation to the Conservatives was a bequest from Ruth Beardmore.",
			[]reading{{graph.Endorses, "actors/ruth-beardmore", "parties/conservatives", graph.StatusReported}}},
		{"a party's donor", "UKIP lost its main donor Paul Sykes in the row.",
			[]reading{{graph.Endorses, "actors/paul-sykes", "parties/ukip", graph.StatusReported}}},
		{"money from a party is no donation to it", "Labour gave £2m to its candidates.", nil},
		{"the leader of a party's group leads the group, not the party", "Graham Lane, leader of the Labour group on Newham Council, spoke.",
			[]reading{{graph.PartOf, "organisations/labour-group-on-newham-council", "parties/labour", graph.StatusReported},
				{graph.PartOf, "organisations/labour-group-on-newham-council", "organisations/newham-council", graph.StatusReported},
				{graph.Leads, "actors/graham-lane", "organisations/labour-group-on-newham-council", graph.StatusReported}}},
		{"not an apposition", "Ominously for the Labour leader, Lutfur Rahman is flexing his muscles.", nil},
		{"office of the next name", "Its politicians, including Scottish Labour leader Anas Sarwar, London Mayor Sadiq Khan and others, joined in.",
			[]reading{{graph.PartOf, "parties/scottish-labour", "parties/labour", graph.StatusReported},
				{graph.Leads, "actors/anas-sarwar", "parties/scottish-labour", graph.StatusReported},
				{graph.MemberOf, "actors/anas-sarwar", "parties/labour", graph.StatusReported},
				{graph.HoldsOffice, "actors/sadiq-khan", "seats/mayor-of-london", graph.StatusReported}}},
		{"office", "Home Secretary Charles Clarke has said detainees will not be freed.",
			[]reading{{graph.HoldsOffice, "actors/charles-clarke", "seats/home-secretary", graph.StatusReported}}},
		{"seat", "Mr Sayeed has been MP for Mid-Bedfordshire since 1997.",
			[]reading{{graph.HoldsOffice, "actors/sayeed", "seats/mid-bedfordshire", graph.StatusReported}}},
		{"family", "Apsana Begum's ex-husband, Ehtashamul Haque, is an independent candidate.",
			[]reading{{graph.Family, "actors/apsana-begum", "actors/ehtashamul-haque", graph.StatusReported}}},
		{"coordinated subjects", "Ajmal Masroor and Rabina Khan were both previously working with Lutfur Rahman.",
			[]reading{{graph.FormerlyWorkedWith, "actors/lutfur-rahman", "actors/rabina-khan", graph.StatusReported},
				{graph.FormerlyWorkedWith, "actors/ajmal-masroor", "actors/lutfur-rahman", graph.StatusReported}}},
		{"office holder", "Prime Minister Tony Blair spoke first. Michael Howard attacked the prime minister over tax.",
			[]reading{{graph.HoldsOffice, "actors/tony-blair", "seats/prime-minister", graph.StatusReported},
				{graph.Criticised, "actors/michael-howard", "actors/tony-blair", graph.StatusReported}}},
		{"party, seat and name", "Labour MP for Bolton South East Yasmin Qureshi criticised the leadership.",
			[]reading{{graph.MemberOf, "actors/yasmin-qureshi", "parties/labour", graph.StatusReported},
				{graph.HoldsOffice, "actors/yasmin-qureshi", "seats/bolton-south-east", graph.StatusReported}}},
		{"defection", "Robert Jackson defected from the Conservative Party to Labour on Saturday.",
			[]reading{{graph.ResignedFrom, "actors/robert-jackson", "parties/conservatives", graph.StatusReported},
				{graph.MemberOf, "actors/robert-jackson", "parties/labour", graph.StatusReported}}},
		// A deselected candidate was the candidate until then: both are read.
		{"deselected", "Lutfur Rahman was deselected as the party's candidate for Mayor of Tower Hamlets in 2010.",
			[]reading{{graph.Deselected, "actors/lutfur-rahman", "seats/mayor-of-tower-hamlets", graph.StatusReported},
				{graph.CandidateFor, "actors/lutfur-rahman", "seats/mayor-of-tower-hamlets", graph.StatusReported}}},
		{"dissolution", "The Electoral Commission deregistered Tower Hamlets First in 2015.",
			[]reading{{graph.Dissolved, "organisations/electoral-commission", "parties/tower-hamlets-first", graph.StatusReported}}},
		{"decision", "Jonathan Sayeed's decision to quit the Conservative Party surprised nobody.",
			[]reading{{graph.ResignedFrom, "actors/jonathan-sayeed", "parties/conservatives", graph.StatusReported}}},
		{"his wife", "Michael Howard campaigned in Folkestone with his wife Sandra Howard.",
			[]reading{{graph.Family, "actors/michael-howard", "actors/sandra-howard", graph.StatusReported}}},
		{"urged", "The Muslim Council urged voters to back George Galloway.",
			[]reading{{graph.Endorses, "organisations/muslim-council", "actors/george-galloway", graph.StatusReported}}},
		{"a party's members", "Labour MPs have angrily criticised Tony Blair and Gordon Brown.", nil},
		{"a party as an adjective", "The Liberal Democrats backed Tory demands that the plans be put on hold.", nil},
		{"another clause", "Charles Clarke said he had supported the plans when David Blunkett argued for them.", nil},
		{"a promise", "Tony Blair has pledged never to attack Tory leader Michael Howard.",
			[]reading{{graph.Leads, "actors/michael-howard", "parties/conservatives", graph.StatusReported}}},
		{"a noun phrase object", "Frank Field criticised the reported rivalry between the pair on GMTV's Sunday Programme.", nil},
		{"a pronoun's thing", "Robert Kilroy-Silk quit his BBC One show in January.", nil},
		{"a role's holder", "Tony Blair attacked Tory leader Michael Howard over tax.",
			[]reading{{graph.Leads, "actors/michael-howard", "parties/conservatives", graph.StatusReported},
				{graph.Criticised, "actors/tony-blair", "actors/michael-howard", graph.StatusReported}}},
		{"a call to resign", "Michael Howard called on David Blunkett to resign over the visa row.",
			[]reading{{graph.Criticised, "actors/michael-howard", "actors/david-blunkett", graph.StatusReported}}},
		{"a call to resign, denied", "Michael Howard did not call for David Blunkett's resignation.",
			[]reading{{graph.Criticised, "actors/michael-howard", "actors/david-blunkett", graph.StatusDenied}}},
		{"support for", "Gordon Brown's support for Tony Blair was never in doubt.",
			[]reading{{graph.Endorses, "actors/gordon-brown", "actors/tony-blair", graph.StatusReported}}},
		{"an office with an adjective", "British Prime Minister Tony Blair arrived in Washington.",
			[]reading{{graph.HoldsOffice, "actors/tony-blair", "seats/prime-minister", graph.StatusReported}}},
		{"candidate in a seat", "Oona King, the Labour candidate in Bethnal Green and Bow, spoke first.",
			[]reading{{graph.MemberOf, "actors/oona-king", "parties/labour", graph.StatusReported},
				{graph.CandidateFor, "actors/oona-king", "seats/bethnal-green-and-bow", graph.StatusReported}}},
		{"a plural possessive", "Diane Abbott, who backs Trevor Phillips' proposal of shortlists, spoke.", nil},
		{"a sentence opening a role", "And Liberal Democrat leader Charles Kennedy said so.",
			[]reading{{graph.Leads, "actors/charles-kennedy", "parties/liberal-democrats", graph.StatusReported}}},
		{"a role of several words", "It came from Liberal Democrat constitutional affairs spokesman David Heath.",
			[]reading{{graph.MemberOf, "actors/david-heath", "parties/liberal-democrats", graph.StatusReported}}},
		{"Green", "Green MEP Caroline Lucas welcomed it.",
			[]reading{{graph.MemberOf, "actors/caroline-lucas", "parties/green-party", graph.StatusReported}}},
		{"a campaign, not campaigning", "Gordon Brown discussed the election campaign with Tony Blair on Saturday.", nil},
		{"criticism denied in the words", "Neil Kinnock said Tony Blair would not allow a row to become a shambles.", nil},
		{"a party's thing, then a role", "Liam Fox opened with an attack on Labour's record and party leader Michael Howard spoke later.", nil},
		{"a relative clause", "Oona King, who is the Labour MP for Bethnal Green and Bow, spoke first.",
			[]reading{{graph.MemberOf, "actors/oona-king", "parties/labour", graph.StatusReported},
				{graph.HoldsOffice, "actors/oona-king", "seats/bethnal-green-and-bow", graph.StatusReported}}},
		{"brackets", "The motion was signed by Oona King (Labour, Bethnal Green and Bow) and Alan Beith (Liberal Democrats).",
			[]reading{{graph.MemberOf, "actors/oona-king", "parties/labour", graph.StatusReported},
				{graph.HoldsOffice, "actors/oona-king", "seats/bethnal-green-and-bow", graph.StatusReported},
				{graph.MemberOf, "actors/alan-beith", "parties/liberal-democrats", graph.StatusReported}}},
		{"a former leader", "Ex-Labour leader Neil Kinnock said so.",
			[]reading{{graph.Leads, "actors/neil-kinnock", "parties/labour", graph.StatusReported}}},
		{"a party's promises", "Labour criticised extravagant Tory promises on policing.",
			[]reading{{graph.Criticised, "parties/labour", "parties/conservatives", graph.StatusReported}}},
		{"father of", "Azmat Begg, father of Moazzam Begg, thanked his lawyers.",
			[]reading{{graph.Family, "actors/azmat-begg", "actors/moazzam-begg", graph.StatusReported}}},
		{"sits on", "Lord Harris, who sits on the executive of the Association of Police Authorities, spoke.",
			[]reading{{graph.MemberOf, "actors/lord-harris", "organisations/association-of-police-authorities", graph.StatusReported}}},
		{"a clause between", "Peter Mandelson warned the BBC that attacking Alastair Campbell had brought it trouble before.", nil},
		{"a body's committee is part of it, and makes no member of the body", "Michael Mates, who is a member of the Commons intelligence and security committee, spoke.",
			[]reading{{graph.PartOf, "organisations/intelligence-and-security-committee", "organisations/house-of-commons", graph.StatusReported}}},
		{"a body warning a committee", "The Scottish Environment Protection Agency is warning a committee of MSPs.", nil},
		{"the chair of the committee named before", "The Commons education select committee met. Committee chairman Barry Sheerman said it was a waste.",
			[]reading{{graph.PartOf, "organisations/education-select-committee", "organisations/house-of-commons", graph.StatusReported},
				{graph.Leads, "actors/barry-sheerman", "organisations/education-select-committee", graph.StatusReported}}},
		{"a name is no modal: Theresa May", "Theresa May, shadow secretary for the family, told the BBC the plans were inadequate.",
			[]reading{{graph.HoldsOffice, "actors/theresa-may", "seats/shadow-secretary-for-the-family", graph.StatusReported}}},
		{"the head of the one body named before", "The TUC said the plans were costly. General secretary Brendan Barber warned of the costs.",
			[]reading{{graph.Leads, "actors/brendan-barber", "organisations/tuc", graph.StatusReported}}},
		{"two bodies named before: whose head is not said", "The TUC and the CBI disagreed. General secretary Brendan Barber warned of the costs.", nil},
		{"an adviser to a body", "Ed Balls, ex-chief economic adviser to the Treasury, said there would be no spree.",
			[]reading{{graph.MemberOf, "actors/ed-balls", "organisations/treasury", graph.StatusReported}}},
		{"speaking to a body is no membership", "Tony Blair, speaking to the CBI, said the economy was strong.", nil},
		{"a description holds whatever the sentence does", "The plans prompted a complaint to UKIP's disciplinary committee.",
			[]reading{{graph.PartOf, "organisations/disciplinary-committee", "parties/ukip", graph.StatusReported}}},
		{"a modal sentence keeps its descriptions", "Tory MP Jonathan Sayeed could stand down next year.",
			[]reading{{graph.MemberOf, "actors/jonathan-sayeed", "parties/conservatives", graph.StatusReported}}},
		{"two accused, the second with a title", "Gordon Brown spoke. Michael Howard accused Tony Blair and Mr Brown of squabbling.",
			[]reading{{graph.Accused, "actors/michael-howard", "actors/tony-blair", graph.StatusReported},
				{graph.Accused, "actors/michael-howard", "actors/gordon-brown", graph.StatusReported}}},
		{"a party's spokesman speaks for it; criticising a record criticises its holder", "A Labour Party spokesman criticised Michael Howard's record on policing.",
			[]reading{{graph.Criticised, "parties/labour", "actors/michael-howard", graph.StatusReported}}},
		{"backing a stance is no backing of its holder", "Tony Blair backed Michael Howard's stance on policing.", nil},
		{"a party's committee", "UKIP's disciplinary committee met.",
			[]reading{{graph.PartOf, "organisations/disciplinary-committee", "parties/ukip", graph.StatusReported}}},
		{"infinitive: a call, not a resignation", "A spokesman for UKIP called on Damian Hockney to quit the London Assembly.",
			[]reading{{graph.Criticised, "parties/ukip", "actors/damian-hockney", graph.StatusReported}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rd := read(t, ingest.NewReader(nil), ingest.Input{Path: tt.name, Content: []byte(tt.text)})
			if diff := cmp.Diff(tt.want, readings(rd)); diff != "" {
				t.Errorf("proposals (-want +got):\n%s", diff)
			}
		})
	}
}

// The Bengali article spells Rushanara Ali three ways and Ajmal Masroor two, and calls Labour "Labor":
// each is one entity.
func TestSpellingsResolve(t *testing.T) {
	t.Parallel()
	rd := read(t, ingest.NewReader(nil), ingest.Input{Path: "000", Content: seed(t, "000_8d3e5745271318e0.txt")})
	aliases := map[graph.EntityName][]string{}
	for _, e := range rd.Entities {
		aliases[e.Name] = append([]string{e.DisplayName}, e.Aliases...)
	}
	for name, spellings := range map[graph.EntityName][]string{
		"actors/rushanara-ali": {"Rushanara Ali", "Rushnara Ali", "Rusnara", "Rushanara"},
		"actors/ajmal-masroor": {"Ajmal Masroor", "Ajmal Mashroor", "Ajmal"},
		"parties/labour":       {"Labour", "Labor", "Labor Party"},
	} {
		for _, s := range spellings {
			if !slices.Contains(aliases[name], s) {
				t.Errorf("%s: %q is not among its names %q", name, s, aliases[name])
			}
		}
	}
	for name := range aliases {
		if strings.Contains(string(name), "rushnara") || strings.Contains(string(name), "rusnara") || strings.Contains(string(name), "mashroor") {
			t.Errorf("a spelling became an entity of its own: %s", name)
		}
	}
	var denied bool
	for _, p := range rd.Proposals {
		if p.Type == graph.Endorses && p.From == "actors/lutfur-rahman" && p.To == "actors/ajmal-masroor" {
			if p.Status != graph.StatusDenied {
				t.Errorf("Lutfur Rahman's support for Ajmal Masroor proposed as %s: %q", p.Status, p.Excerpt)
			}
			denied = true
		}
	}
	if !denied {
		t.Error("the denial of Lutfur Rahman's support for Ajmal Masroor was not proposed")
	}
}

// A peer named by title and surname is not someone else of that surname the graph holds.
func TestPeers(t *testing.T) {
	t.Parallel()
	known := []graph.Entity{{Name: "actors/charles-kennedy", Kind: graph.KindActor, DisplayName: "Charles Kennedy"}}
	rd := read(t, ingest.NewReader(known), ingest.Input{Path: "t", Content: []byte("Labour peer Baroness Kennedy said people already thought so.")})
	want := []reading{{graph.MemberOf, "actors/baroness-kennedy", "parties/labour", graph.StatusReported}}
	if diff := cmp.Diff(want, readings(rd)); diff != "" {
		t.Errorf("proposals (-want +got):\n%s", diff)
	}
}

// Names the graph holds are linked to, not proposed again; what it lacks is proposed.
func TestLinksToTheGraph(t *testing.T) {
	t.Parallel()
	known := []graph.Entity{
		{Name: "actors/rushanara-ali", Kind: graph.KindActor, DisplayName: "Rushanara Ali"},
		{Name: "parties/labour", Kind: graph.KindParty, DisplayName: "Labour", Aliases: []string{"Labour Party"}},
		{Name: "actors/gone", Kind: graph.KindActor, DisplayName: "Ajmal Masroor", Deleted: graph.Tombstone{Time: time.Unix(1, 0), Reason: "test"}},
	}
	rd := read(t, ingest.NewReader(known), ingest.Input{Path: "t", Content: []byte(
		"Labor Party candidate Rushnara Ali was attacked by Ajmal Mashroor.")})
	for _, e := range rd.Entities {
		if e.Name == "actors/rushanara-ali" || e.Name == "parties/labour" {
			t.Errorf("%s is in the graph but was proposed", e.Name)
		}
	}
	want := []reading{
		{graph.MemberOf, "actors/rushanara-ali", "parties/labour", graph.StatusReported},
		{graph.Criticised, "actors/ajmal-mashroor", "actors/rushanara-ali", graph.StatusReported},
	}
	if diff := cmp.Diff(want, readings(rd)); diff != "" {
		t.Errorf("proposals (-want +got):\n%s", diff)
	}
}

// A given name's other form links to the graph's person of that family name (graph/resolve's name forms);
// another family name does not.
func TestGivenNameFormsLinkToTheGraph(t *testing.T) {
	t.Parallel()
	known := []graph.Entity{
		{Name: "actors/kenneth-clarke", Kind: graph.KindActor, DisplayName: "Kenneth Clarke"},
		{Name: "actors/nicholas-soames", Kind: graph.KindActor, DisplayName: "Nicholas Soames"},
		{Name: "parties/conservatives", Kind: graph.KindParty, DisplayName: "Conservatives"},
	}
	rd := read(t, ingest.NewReader(known), ingest.Input{Path: "t", Content: []byte(
		"Ken Clarke criticised Nick Brown over the budget.")})
	want := []reading{{graph.Criticised, "actors/kenneth-clarke", "actors/nick-brown", graph.StatusReported}}
	if diff := cmp.Diff(want, readings(rd)); diff != "" {
		t.Errorf("proposals (-want +got):\n%s", diff)
	}
}

func TestSentences(t *testing.T) {
	t.Parallel()
	text := "Mr. Galloway met Dr. Smith at St. Paul's. Lt. Col. Tim Collins agreed. " +
		"Mr Sayeed has been MP for Mid-Bedfordshire since 1997. He represented Bristol East from 1983 to 1992."
	rd := read(t, ingest.NewReader(nil), ingest.Input{Path: "t", Content: []byte(text)})
	var got []string
	for _, p := range rd.Proposals {
		got = append(got, p.Excerpt)
		if rd.Document.Text[p.Span.Start:p.Span.End] != p.Excerpt {
			t.Errorf("span %v is %q, not the excerpt %q", p.Span, rd.Document.Text[p.Span.Start:p.Span.End], p.Excerpt)
		}
	}
	if want := []string{"Mr Sayeed has been MP for Mid-Bedfordshire since 1997.", "He represented Bristol East from 1983 to 1992."}; !cmp.Equal(want, got) {
		t.Errorf("excerpts (-want +got):\n%s", cmp.Diff(want, got))
	}
	if p := rd.Proposals[0]; p.ValidFrom != (graph.FuzzyDate{Year: 1997}) {
		t.Errorf("valid_from = %v, want 1997", p.ValidFrom)
	}
}

func TestFormats(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, content         string
		format, title, outlet string
		kind                  graph.SourceKind
		has, hasNot           []string
		author                string
		published             graph.FuzzyDate
	}{
		{name: "escaped html", content: seedText(t, "002_e9277a8f75aafeb6.txt"), format: "html", outlet: "Daily Mail", kind: graph.SourceArticle,
			has: []string{"They are words to chill Keir Starmer’s heart."}, hasNot: []string{"<", `\u2019`, "dailymail.co.uk", "![]"}},
		{name: "page", format: "html", title: "Galloway wins", outlet: "The Paper", kind: graph.SourceArticle, content: `<html><head>
<meta property="og:title" content="Galloway wins"><meta property="og:site_name" content="The Paper">
<meta property="article:published_time" content="2005-05-06T01:00:00Z"><script>var x = "Tony Blair";</script></head>
<body><nav><a href="/">Home</a> <a href="/politics">Politics</a></nav><article><h1>Galloway wins</h1>
<p>George Galloway defeated Oona King in Bethnal Green and Bow.</p></article>
<div class="comments"><p>Reader: Oona King backs Respect, obviously.</p></div><footer>© The Paper</footer></body></html>`,
			has: []string{"George Galloway defeated Oona King"}, hasNot: []string{"Reader:", "var x", "Politics", "©"}},
		{name: "posts", content: seedText(t, "001_5967e97322e17a8a.txt"), format: "posts", kind: graph.SourceSocialPost,
			title: "City Mayor Election Campaign organised by Stepney Green Ward Labour Party.",
			has:   []string{"#GoodluckSadiqKhan", "#LabourDoorstep"}},
		{name: "plain", content: "Sayeed to stand down\n\nTory MP Jonathan Sayeed is to stand down.", format: "text", kind: graph.SourceArticle,
			title: "Sayeed to stand down", has: []string{"Tory MP Jonathan Sayeed"}},
		{name: "byline", content: "Mayor removed\n\nBy Jane Smith, Political Correspondent\n\nPublished 3 November 2023\n\nLutfur Rahman was removed from office.",
			format: "text", kind: graph.SourceArticle, title: "Mayor removed", author: "Jane Smith", published: graph.FuzzyDate{Year: 2023, Month: 11, Day: 3},
			has: []string{"Lutfur Rahman was removed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rd := read(t, ingest.NewReader(nil), ingest.Input{Path: tt.name, Content: []byte(tt.content)})
			d := rd.Document
			if d.Format != tt.format || d.Source.Kind != tt.kind || tt.outlet != "" && d.Source.Outlet != tt.outlet || tt.title != "" && d.Source.Title != tt.title {
				t.Errorf("format %q kind %q title %q outlet %q; want %q %q %q %q", d.Format, d.Source.Kind, d.Source.Title, d.Source.Outlet, tt.format, tt.kind, tt.title, tt.outlet)
			}
			if tt.author != "" && d.Source.Author != tt.author || !tt.published.IsZero() && d.Source.Published != tt.published {
				t.Errorf("author %q published %v; want %q %v", d.Source.Author, d.Source.Published, tt.author, tt.published)
			}
			for _, s := range tt.has {
				if !strings.Contains(d.Text, s) {
					t.Errorf("text lacks %q", s)
				}
			}
			for _, s := range tt.hasNot {
				if strings.Contains(d.Text, s) {
					t.Errorf("text still has %q", s)
				}
			}
			if d.Hash != review.HashText(d.Text) || d.Source.Name != review.SourceNameFor(d.Hash) {
				t.Errorf("hash %s / source %s do not follow from the text", d.Hash, d.Source.Name)
			}
		})
	}
	page := read(t, ingest.NewReader(nil), ingest.Input{Path: "p", Content: []byte(tests[1].content)})
	if page.Document.Source.Published != (graph.FuzzyDate{Year: 2005, Month: 5, Day: 6}) {
		t.Errorf("published = %v, want 2005-05-06", page.Document.Source.Published)
	}
	for _, p := range page.Proposals {
		if strings.Contains(p.Excerpt, "Reader") {
			t.Errorf("a reader's comment was read: %q", p.Excerpt)
		}
	}
}

func seedText(t *testing.T, name string) string { return string(seed(t, name)) }

// The same text read twice, by two readers, gives the same document and proposals.
func TestDeterministic(t *testing.T) {
	t.Parallel()
	content := seed(t, "002_e9277a8f75aafeb6.txt")
	a := read(t, ingest.NewReader(nil), ingest.Input{Path: "a", Content: content})
	b := read(t, ingest.NewReader(nil), ingest.Input{Path: "b", Content: content})
	if a.Document.Hash != b.Document.Hash || len(a.Proposals) == 0 {
		t.Fatalf("hashes %s %s, %d proposals", a.Document.Hash, b.Document.Hash, len(a.Proposals))
	}
	for i := range a.Proposals {
		if a.Proposals[i].ID != b.Proposals[i].ID || a.Proposals[i].ID != review.ProposalID(a.Proposals[i].Signature()) {
			t.Errorf("proposal %d: ids %s and %s", i, a.Proposals[i].ID, b.Proposals[i].ID)
		}
	}
}

func TestBadInput(t *testing.T) {
	t.Parallel()
	for name, content := range map[string][]byte{
		"binary": {'a', 0, 'b'},
		"latin1": {'c', 'a', 'f', 0xe9},
		"empty":  []byte("  \n\n "),
	} {
		_, err := ingest.NewReader(nil).Read(ingest.Input{Path: name + ".txt", Content: content})
		if graph.KindOf(err) != graph.Invalid || !strings.Contains(err.Error(), name+".txt") {
			t.Errorf("%s: err = %v, want an Invalid error naming the file", name, err)
		}
	}
}

// Slugs are unique across collections: no proposed entity takes the slug of one the graph holds, or of
// another proposed one.
func TestProposedSlugsAreFree(t *testing.T) {
	t.Parallel()
	known := []graph.Entity{
		{Name: "organisations/plaid-cymru", Kind: graph.KindOrganisation, DisplayName: "Plaid Cymru Trust"},
		{Name: "seats/oona-king", Kind: graph.KindSeat, DisplayName: "Oona King Ward"},
	}
	r := ingest.NewReader(known)
	rd := read(t, r, ingest.Input{Path: "t", Content: []byte(
		"Plaid Cymru leader Ieuan Wyn Jones attacked Labour. Labour MP Oona King was defeated by George Galloway.")})
	seen := map[string]graph.EntityName{"plaid-cymru": "organisations/plaid-cymru", "oona-king": "seats/oona-king"}
	for _, e := range rd.Entities {
		slug := graph.Slug(e.Name)
		if other, ok := seen[slug]; ok {
			t.Errorf("%s takes the slug of %s", e.Name, other)
		}
		seen[slug] = e.Name
	}
	if len(rd.Entities) < 3 {
		t.Errorf("only %d proposed entities: %+v", len(rd.Entities), rd.Entities)
	}
}

// TestWrongReadingsStayFixed: each wrong reading a blind evaluation found, read again.
func TestWrongReadingsStayFixed(t *testing.T) {
	t.Parallel()
	known := []graph.Entity{
		{Name: "actors/howard-flight", Kind: graph.KindActor, DisplayName: "Howard Flight"},
		{Name: "parties/conservatives", Kind: graph.KindParty, DisplayName: "Conservatives", Aliases: []string{"Tory", "Tories"}},
	}
	for _, tt := range []struct {
		name, text string
		want       []reading
	}{
		{"the subject of a relative clause is not the main clause's",
			"George Galloway, the Glasgow Kelvin MP, who was expelled from Labour last year, accused Ms King of betraying voters.",
			[]reading{{graph.HoldsOffice, "actors/george-galloway", "seats/glasgow-kelvin", graph.StatusReported},
				{graph.Accused, "actors/george-galloway", "actors/king", graph.StatusReported}}},
		{"a description is the outlet's, a past office is no current one, and a defence is no criticism",
			"Tony Blair said former home secretary David Blunkett had done nothing wrong.",
			[]reading{{graph.HoldsOffice, "actors/david-blunkett", "seats/home-secretary", graph.StatusReported}}},
		{"a leader in the Lords does not lead the party",
			"Lord Strathclyde, the Tory leader in the Lords, criticised the bill.",
			[]reading{{graph.MemberOf, "actors/lord-strathclyde", "parties/conservatives", graph.StatusReported}}},
		{"kin are not the subject",
			"Douglas Hogg said his father and grandfather were Lord Chancellor.", nil},
		{"a title and a surname never link through a given name",
			"Mr Howard attacked Labour over its record.",
			[]reading{{graph.Criticised, "actors/howard", "parties/labour", graph.StatusReported}}},
		{"criticising another party is not criticising one's own",
			"Tory leader Michael Howard criticised Labour over immigration.",
			[]reading{{graph.Leads, "actors/michael-howard", "parties/conservatives", graph.StatusReported},
				{graph.Criticised, "actors/michael-howard", "parties/labour", graph.StatusReported}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rd := read(t, ingest.NewReader(known), ingest.Input{Path: "t", Content: []byte(tt.text), Published: graph.FuzzyDate{Year: 2005, Month: 3, Day: 4}})
			if diff := cmp.Diff(tt.want, readings(rd)); diff != "" {
				t.Errorf("proposals (-want +got):\n%s", diff)
			}
		})
	}
	// A past office ends by the document's date, and says it was a past one.
	rd := read(t, ingest.NewReader(nil), ingest.Input{Path: "t", Content: []byte("Tony Blair said ex-Labour MP Jane Doeton would stand."),
		Published: graph.FuzzyDate{Year: 2005, Month: 3, Day: 4}})
	if len(rd.Proposals) != 1 || rd.Proposals[0].Type != graph.MemberOf || rd.Proposals[0].Role != "former Labour mp" ||
		rd.Proposals[0].ValidTo != (graph.FuzzyDate{Year: 2005, Month: 3, Day: 4}) || rd.Proposals[0].SaidBy != "" {
		t.Errorf("an ex-MP's membership: %+v", rd.Proposals)
	}
}

// TestDescriptionsResolveThroughTheDocument: "the chancellor" in a document that names "Chancellor Gordon
// Brown" is Gordon Brown, with no graph and no date; a post the document gives two people is not guessed:
// each is proposed at half the confidence, for review to choose.
func TestDescriptionsResolveThroughTheDocument(t *testing.T) {
	t.Parallel()
	rd := read(t, ingest.NewReader(nil), ingest.Input{Path: "t", Content: []byte(
		"Chancellor Gordon Brown spoke in Leeds.\n\nThe chancellor attacked the Conservatives over tax.")})
	want := []reading{
		{graph.HoldsOffice, "actors/gordon-brown", "seats/chancellor-of-the-exchequer", graph.StatusReported},
		{graph.Criticised, "actors/gordon-brown", "parties/conservatives", graph.StatusReported},
	}
	if diff := cmp.Diff(want, readings(rd)); diff != "" {
		t.Errorf("proposals (-want +got):\n%s", diff)
	}
	rd = read(t, ingest.NewReader(nil), ingest.Input{Path: "t", Content: []byte(
		"Chancellor Gordon Brown met Chancellor Gerhard Schroeder.\n\nThe chancellor attacked the Conservatives over tax.")})
	var critics []graph.EntityName
	for _, p := range rd.Proposals {
		if p.Type == graph.Criticised {
			critics = append(critics, p.From)
			if p.Confidence > 0.4 || len(p.Resolved) == 0 || !strings.HasSuffix(p.Resolved[0], "for review to choose") {
				t.Errorf("a post the document gives two people, not left to review: %+v", p)
			}
		}
	}
	if !slices.Equal(critics, []graph.EntityName{"actors/gordon-brown", "actors/gerhard-schroeder"}) {
		t.Errorf("the candidates: %v", critics)
	}
}

// TestDescriptionsResolveThroughTheGraph: "the Tory leader" and "the home secretary" in a dated document
// mean whoever the graph says held the post on its date, said with the relation that resolved them; a
// post two people held then is left to review (each proposed, not guessed); an undated document, or a
// description naming its holder, resolves nothing.
func TestDescriptionsResolveThroughTheGraph(t *testing.T) {
	t.Parallel()
	day := func(y, m, d int) graph.FuzzyDate { return graph.FuzzyDate{Year: y, Month: m, Day: d} }
	known := []graph.Entity{
		{Name: "actors/michael-howard", Kind: graph.KindActor, DisplayName: "Michael Howard"},
		{Name: "actors/iain-duncan-smith", Kind: graph.KindActor, DisplayName: "Iain Duncan Smith"},
		{Name: "actors/charles-clarke", Kind: graph.KindActor, DisplayName: "Charles Clarke"},
		{Name: "actors/david-blunkett", Kind: graph.KindActor, DisplayName: "David Blunkett"},
		{Name: "parties/conservatives", Kind: graph.KindParty, DisplayName: "Conservatives", Aliases: []string{"Tory", "Tories"}},
		{Name: "seats/home-secretary", Kind: graph.KindSeat, DisplayName: "Home Secretary"},
	}
	period := func(from, to graph.FuzzyDate) graph.Period {
		return graph.Period{Start: from.FirstDay(), End: to.LastDay()}
	}
	holdings := []ingest.Holding{
		{Holder: "actors/iain-duncan-smith", Post: "parties/conservatives", Type: graph.Leads, Period: period(day(2001, 9, 13), day(2003, 11, 6))},
		{Holder: "actors/michael-howard", Post: "parties/conservatives", Type: graph.Leads, Period: period(day(2003, 11, 6), day(2005, 12, 6))},
		{Holder: "actors/david-blunkett", Post: "seats/home-secretary", Type: graph.HoldsOffice, Period: period(day(2001, 6, 8), day(2004, 12, 15))},
		{Holder: "actors/charles-clarke", Post: "seats/home-secretary", Type: graph.HoldsOffice, Period: period(day(2004, 12, 15), day(2006, 5, 5))},
	}
	r := ingest.NewGraphReader(known, holdings)
	read := func(text string, published graph.FuzzyDate) review.Reading {
		t.Helper()
		return read(t, r, ingest.Input{Path: "t", Content: []byte(text), Published: published})
	}
	rd := read("The Tory leader criticised the home secretary over the budget.", day(2005, 3, 4))
	// The text calls them so: the descriptions are claims too, said with how they were resolved.
	want := []reading{
		{graph.Criticised, "actors/michael-howard", "actors/charles-clarke", graph.StatusReported},
		{graph.Leads, "actors/michael-howard", "parties/conservatives", graph.StatusReported},
		{graph.HoldsOffice, "actors/charles-clarke", "seats/home-secretary", graph.StatusReported},
	}
	if diff := cmp.Diff(want, readings(rd)); diff != "" {
		t.Fatalf("proposals (-want +got):\n%s", diff)
	}
	if got := rd.Proposals[0].Resolved; !slices.Equal(got, []string{
		"The Tory leader → Michael Howard, LEADS Conservatives 2003–2005",
		"the home secretary → Charles Clarke, HOLDS_OFFICE Home Secretary 2004–2006"}) {
		t.Errorf("how the descriptions were resolved: %q", got)
	}
	// On another day, another leader.
	if got := readings(read("The Tory leader criticised Labour.", day(2002, 5, 1))); !slices.Equal(got,
		[]reading{{graph.Criticised, "actors/iain-duncan-smith", "parties/labour", graph.StatusReported},
			{graph.Leads, "actors/iain-duncan-smith", "parties/conservatives", graph.StatusReported}}) {
		t.Errorf("the Tory leader in 2002: %v", got)
	}
	for _, tt := range []struct {
		name, text string
		published  graph.FuzzyDate
	}{
		{"two leaders in that year", "The Tory leader criticised Labour.", graph.FuzzyDate{Year: 2003}},
		{"an undated document", "The Tory leader criticised Labour.", graph.FuzzyDate{}},
		{"a leader of part of the party", "The Tory leader in the Lords criticised Labour.", day(2005, 3, 4)},
	} {
		var left []graph.EntityName
		for _, p := range read(tt.text, tt.published).Proposals {
			if len(p.Resolved) == 1 && strings.HasSuffix(p.Resolved[0], "for review to choose") && p.Confidence <= 0.4 {
				left = append(left, p.From)
				continue
			}
			if p.From == "actors/michael-howard" || p.From == "actors/iain-duncan-smith" || len(p.Resolved) > 0 || p.Rule == "description" {
				t.Errorf("%s: resolved to %s (%q)", tt.name, p.From, p.Resolved)
			}
		}
		if want := tt.name == "two leaders in that year"; want != (len(left) == 2) {
			t.Errorf("%s: left to review: %v", tt.name, left)
		}
	}
}

// TestHoldingsReadTheGraph: who led a party and held an office, from a store's links: dated relations that
// count (a leadership only denied is none; an undated one says nothing of a day).
func TestHoldingsReadTheGraph(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	store := memstore.New()
	src := graph.Source{Name: "sources/s", Title: "S", Kind: graph.SourceArticle}
	ents := []graph.Entity{
		{Name: "actors/a", Kind: graph.KindActor, DisplayName: "A"}, {Name: "actors/b", Kind: graph.KindActor, DisplayName: "B"},
		{Name: "actors/c", Kind: graph.KindActor, DisplayName: "C"},
		{Name: "parties/p", Kind: graph.KindParty, DisplayName: "P"}, {Name: "seats/o", Kind: graph.KindSeat, DisplayName: "O"},
	}
	claim := func(rel graph.RelationName, st graph.ClaimStatus) []graph.Claim {
		return []graph.Claim{{Name: string(rel) + "/claims/s", Source: src, Status: st, Confidence: 0.9}}
	}
	rel := func(from graph.EntityName, typ graph.RelationType, to graph.EntityName, start, end int, st graph.ClaimStatus) graph.Relation {
		n := graph.RelationNameFor(from, typ, to, "")
		return graph.Relation{Name: n, Type: typ, From: from, To: to, ValidFrom: graph.FuzzyDate{Year: start}, ValidTo: graph.FuzzyDate{Year: end}, Claims: claim(n, st)}
	}
	rels := []graph.Relation{
		rel("actors/a", graph.Leads, "parties/p", 2001, 2003, graph.StatusReported),
		rel("actors/b", graph.Leads, "parties/p", 2003, 2005, graph.StatusDenied),    // denied: none
		rel("actors/c", graph.Leads, "parties/p", 0, 0, graph.StatusReported),        // undated: none
		rel("actors/c", graph.HoldsOffice, "seats/o", 2004, 0, graph.StatusReported), // from 2004 on
		rel("actors/a", graph.MemberOf, "parties/p", 1990, 0, graph.StatusReported),  // not a post
	}
	if err := store.UpsertSources(ctx, []graph.Source{src}); err != nil {
		t.Fatal(err)
	}
	if err := store.UpsertEntities(ctx, ents); err != nil {
		t.Fatal(err)
	}
	if err := store.UpsertRelations(ctx, rels); err != nil {
		t.Fatal(err)
	}
	hs, err := ingest.Holdings(ctx, store, ents)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, h := range hs {
		got = append(got, fmt.Sprintf("%s %s %s from %s", h.Holder, h.Type, h.Post, graph.DayString(h.Period.Start)))
	}
	slices.Sort(got)
	if want := []string{"actors/a LEADS parties/p from 2001-01-01", "actors/c HOLDS_OFFICE seats/o from 2004-01-01"}; !slices.Equal(got, want) {
		t.Errorf("holdings %q, want %q", got, want)
	}
}

// TestPronounsStandForTheLastPersonNamed: "he" and "she" are the last person named in the paragraph or
// the one before whose title allows it (news paragraphs are a sentence or two), never one named earlier
// nor inside quotations, and the proposal says so.
func TestPronounsStandForTheLastPersonNamed(t *testing.T) {
	t.Parallel()
	rd := read(t, ingest.NewReader(nil), ingest.Input{Path: "t", Content: []byte(
		"Ms Oona King criticised Mr George Galloway. She said Respect had misled voters.\n\n" +
			"She accused Labour of betraying the East End.\n\n" +
			"Mr Galloway attacked Ms King. \"She has failed,\" he said.")})
	want := []reading{
		{graph.Criticised, "actors/oona-king", "actors/george-galloway", graph.StatusReported},
		{graph.Criticised, "actors/oona-king", "parties/respect", graph.StatusReported},
		{graph.Accused, "actors/oona-king", "parties/labour", graph.StatusReported},
		{graph.Criticised, "actors/george-galloway", "actors/oona-king", graph.StatusReported},
	}
	if far := read(t, ingest.NewReader(nil), ingest.Input{Path: "far", Content: []byte(
		"Ms Oona King spoke on Monday.\n\nThe weather was fine.\n\nShe accused Labour of betraying the East End.")}); len(far.Proposals) > 0 {
		t.Errorf("a pronoun two paragraphs on: %v", readings(far))
	}
	if diff := cmp.Diff(want, readings(rd)); diff != "" {
		t.Errorf("proposals (-want +got):\n%s", diff)
	}
	for _, p := range rd.Proposals {
		if p.To == "parties/respect" && !slices.Equal(p.Resolved, []string{"She → Oona King (the last person named before)"}) {
			t.Errorf("the pronoun's note: %q", p.Resolved)
		}
	}
}

// TestRolesStandForTheLastPersonNamed: "the MP" and "the former minister" are the last person the
// paragraph named, as a pronoun is; "the MP for …" and "the minister, X" describe a post or a person named
// after, and stand for nobody.
func TestRolesStandForTheLastPersonNamed(t *testing.T) {
	t.Parallel()
	rd := read(t, ingest.NewReader(nil), ingest.Input{Path: "t", Content: []byte(
		"Robert Jackson spoke on Saturday. The MP criticised Michael Howard over tax.\n\n" +
			"Frank Field was there. The former minister attacked Gordon Brown.\n\n" +
			"Tony Blair spoke. The MP for Luton South criticised Gordon Brown.")})
	want := []reading{
		{graph.Criticised, "actors/robert-jackson", "actors/michael-howard", graph.StatusReported},
		{graph.Criticised, "actors/frank-field", "actors/gordon-brown", graph.StatusReported},
	}
	if diff := cmp.Diff(want, readings(rd)); diff != "" {
		t.Errorf("proposals (-want +got):\n%s", diff)
	}
	for _, p := range rd.Proposals {
		if p.From == "actors/robert-jackson" && !slices.Equal(p.Resolved, []string{"The MP → Robert Jackson (the last person named before)"}) {
			t.Errorf("the role's note: %q", p.Resolved)
		}
	}
}

// TestOutletsAndPlacesOnlyAsEnds: an outlet, or a body named as a place, is an entity of the document only
// where one of its proposals relates it.
func TestOutletsAndPlacesOnlyAsEnds(t *testing.T) {
	t.Parallel()
	rd := read(t, ingest.NewReader(nil), ingest.Input{Path: "t", Content: []byte(
		"Charles Kennedy told the BBC that Labour had failed, as MPs marched past Parliament.\n\nThe BBC criticised Charles Kennedy.")})
	var names []graph.EntityName
	for _, e := range rd.Entities {
		names = append(names, e.Name)
	}
	if slices.Contains(names, "organisations/uk-parliament") {
		t.Errorf("Parliament, named as a place, is proposed: %v", names)
	}
	if !slices.Contains(names, "organisations/bbc") {
		t.Errorf("the BBC, an end of a criticism, is not proposed: %v", names)
	}
}

// TestReadingAcrossSentences: the rules that read what a sentence says through what the document said
// before it (a quotation's speaker, "the party", "the two men", "the former Labour leader") and through
// how names are put together.
func TestReadingAcrossSentences(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, text string
		want       []reading
	}{
		{"a quotation goes on in the next paragraph", "Liam Fox said: \"We will win.\"\n\n\"The reality is, the Lib Dems lack the courage to tackle waste.\"",
			[]reading{{graph.Criticised, "actors/liam-fox", "parties/liberal-democrats", graph.StatusReported}}},
		{"the outlet speaks again: the quotation is over", "Liam Fox said: \"We will win.\"\n\nThe Lib Dems lack the courage to tackle waste.", nil},
		{"the speaker named after the words", "Tony Blair spoke. Tory proposals would not work, argued Mr Blair.",
			[]reading{{graph.Criticised, "actors/tony-blair", "parties/conservatives", graph.StatusReported}}},
		{"a noun is no speech verb", "Tory plans to process all claims abroad would not work with Tony Blair in charge.", nil},
		{"another subject's clause is not what was said", "The Lib Dems said the plan was good, while Labour called the Tories' promises a waste.", nil},
		{"the party named before", "Labour met on Monday. Lord Sainsbury gave £2m to the party.",
			[]reading{{graph.Endorses, "actors/lord-sainsbury", "parties/labour", graph.StatusReported}}},
		{"the party a clause describes is not the one named before", "Labour met. UKIP's chairman Petrina Holdsworth said Veritas will be a parody of the party the men have left.",
			[]reading{{graph.Leads, "actors/petrina-holdsworth", "parties/ukip", graph.StatusReported},
				{graph.Criticised, "actors/petrina-holdsworth", "parties/veritas", graph.StatusReported}}},
		{"gave the party a sum", "Labour met. Sir Christopher Ondaatje gave the party a sum of £500,000.",
			[]reading{{graph.Endorses, "actors/christopher-ondaatje", "parties/labour", graph.StatusReported}}},
		{"a body without a head word, from a group", "John Ison, from the controversial group Fathers 4 Justice, said it was bad.",
			[]reading{{graph.MemberOf, "actors/john-ison", "organisations/fathers-4-justice", graph.StatusReported}}},
		{"children listed", "Stephen Pound spoke. Mr Pound said his wife Maggie was supportive and their two children Emily, 16, and Pelham, 14 were pleased.",
			[]reading{{graph.Family, "actors/maggie", "actors/stephen-pound", graph.StatusReported},
				{graph.Family, "actors/emily", "actors/maggie", graph.StatusReported},
				{graph.Family, "actors/emily", "actors/stephen-pound", graph.StatusReported},
				{graph.Family, "actors/maggie", "actors/pelham", graph.StatusReported},
				{graph.Family, "actors/pelham", "actors/stephen-pound", graph.StatusReported}}},
		{"a past post without a name", "Neil Kinnock spoke on Sunday. The former Labour leader said he would take a peerage.",
			[]reading{{graph.Leads, "actors/neil-kinnock", "parties/labour", graph.StatusReported}}},
		{"a seat's member, called a member before", "Labour MP Stephen Pound spoke. The MP for Ealing North said he was shocked.",
			[]reading{{graph.MemberOf, "actors/stephen-pound", "parties/labour", graph.StatusReported},
				{graph.HoldsOffice, "actors/stephen-pound", "seats/ealing-north", graph.StatusReported}}},
		{"an acronym in brackets", "The Muslim Association of Britain (MAB) met. MAB spokesman Dr Azzam Tamimi said it was fine.",
			[]reading{{graph.MemberOf, "actors/azzam-tamimi", "organisations/muslim-association-of-britain", graph.StatusReported}}},
		{"a call not to vote for a party", "Last year the Muslim Association of Britain urged Muslims not to vote for Labour.",
			[]reading{{graph.Criticised, "organisations/muslim-association-of-britain", "parties/labour", graph.StatusReported}}},
		{"the seat named before", "Erewash is a marginal seat. Labour's Elizabeth Blackman won the seat in 1997.",
			[]reading{{graph.MemberOf, "actors/elizabeth-blackman", "parties/labour", graph.StatusReported},
				{graph.HoldsOffice, "actors/elizabeth-blackman", "seats/erewash", graph.StatusReported}}},
		{"a relative clause with a role", "Damian Hockney, who is now Veritas' deputy leader, spoke.",
			[]reading{{graph.MemberOf, "actors/damian-hockney", "parties/veritas", graph.StatusReported}}},
		{"his newly-founded party", "George Galloway spoke. He addressed the conference of his newly-founded party, the Respect Coalition.",
			[]reading{{graph.Founded, "actors/george-galloway", "parties/respect", graph.StatusReported},
				{graph.MemberOf, "actors/george-galloway", "parties/respect", graph.StatusReported}}},
		{"a party's people listed", "Labour met. Some of the party's most senior politicians, including Anas Sarwar and Sadiq Khan, have joined in.",
			[]reading{{graph.MemberOf, "actors/anas-sarwar", "parties/labour", graph.StatusReported},
				{graph.MemberOf, "actors/sadiq-khan", "parties/labour", graph.StatusReported}}},
		{"a majority is its holder's", "Rachel Hopkins, whose 8,700 majority in Luton South could be threatened, spoke.",
			[]reading{{graph.HoldsOffice, "actors/rachel-hopkins", "seats/luton-south", graph.StatusReported}}},
		{"a paragraph opening on a pronoun", "Lutfur Rahman was banned.\n\nAfter the ban, he was back in 2018 with his new party Aspire.",
			[]reading{{graph.Founded, "actors/lutfur-rahman", "parties/aspire", graph.StatusReported},
				{graph.MemberOf, "actors/lutfur-rahman", "parties/aspire", graph.StatusReported}}},
		{"the two men named together", "Tony Blair and Gordon Brown met. Liam Fox likened the two men to \"self-obsessed schoolboys\".",
			[]reading{{graph.Criticised, "actors/liam-fox", "actors/tony-blair", graph.StatusReported},
				{graph.Criticised, "actors/liam-fox", "actors/gordon-brown", graph.StatusReported}}},
		{"removed from the one office named", "Mayor of Tower Hamlets Lutfur Rahman spoke.\n\nIn 2015 he was removed from office by an election court.",
			[]reading{{graph.HoldsOffice, "actors/lutfur-rahman", "seats/mayor-of-tower-hamlets", graph.StatusReported},
				{graph.RemovedFromOffice, "actors/lutfur-rahman", "seats/mayor-of-tower-hamlets", graph.StatusReported}}},
		{"the mayoralty named most", "Mayor of Tower Hamlets Lutfur Rahman spoke. The Mayor of Tower Hamlets is elected. Ken Livingstone, the Mayor of London, spoke. Lutfur Rahman first ran for the mayoralty in 2010.",
			[]reading{{graph.HoldsOffice, "actors/lutfur-rahman", "seats/mayor-of-tower-hamlets", graph.StatusReported},
				{graph.HoldsOffice, "actors/ken-livingstone", "seats/mayor-of-london", graph.StatusReported},
				{graph.CandidateFor, "actors/lutfur-rahman", "seats/mayor-of-tower-hamlets", graph.StatusReported}}},
		{"an appointment is its holder's", "Neil Kinnock spoke. He cited his appointment as chairman of the British Council.",
			[]reading{{graph.Leads, "actors/neil-kinnock", "organisations/british-council", graph.StatusReported}}},
		{"kin after a dash", "Dominic Carman - son of late libel lawyer George Carman - spoke.",
			[]reading{{graph.Family, "actors/dominic-carman", "actors/george-carman", graph.StatusReported}}},
		{"a mayor before a name", "Greater Manchester Mayor Andy Burnham spoke.",
			[]reading{{graph.HoldsOffice, "actors/andy-burnham", "seats/mayor-of-greater-manchester", graph.StatusReported}}},
		{"a stray closing mark opens no quotation", "Liam Fox said: \"We will win.\n\n\" And Gordon Brown said the Lib Dem figures were a waste.",
			[]reading{{graph.Criticised, "actors/gordon-brown", "parties/liberal-democrats", graph.StatusReported}}},
		{"a party's leader, by polgraph's record, does not speak against it", "Michael Howard said: \"Today the Tories are making more extravagant promises.\"", nil},
		{"a denial of criticism read before", "Mrs Cherie Blair has been accused of criticising Mr George W Bush's policies.\n\nThe prime minister's wife spoke in Boston. Downing Street said she was not expressing political opinions.",
			[]reading{{graph.Criticised, "actors/cherie-blair", "actors/george-w-bush", graph.StatusAlleged},
				{graph.Criticised, "actors/cherie-blair", "actors/george-w-bush", graph.StatusDenied}}},
		{"a thing is what a passive says of", "Cherie Blair welcomed a decision to throw out a law backed by Mr Bush.", nil},
		{"a party's whip", "Labour whip Kim Leadbeater spoke.",
			[]reading{{graph.MemberOf, "actors/kim-leadbeater", "parties/labour", graph.StatusReported},
				{graph.HoldsOffice, "actors/kim-leadbeater", "seats/labour-whip", graph.StatusReported}}},
		{"a past post the record knows: the one named who held it", "David Blunkett resigned. On Wednesday Tony Blair said he hoped the former home secretary would serve again.",
			[]reading{{graph.HoldsOffice, "actors/david-blunkett", "seats/home-secretary", graph.StatusReported}}},
		{"a past post the record knows, held by no one named", "Tony Blair said he hoped the former home secretary would serve again.", nil},
		{"ill words about someone else in the quotation", "Alan Johnson said: \"We will win.\"\n\n\"They were wrong when they said Milburn was ousting Brown.\"", nil},
		{"a country's party is no branch of ours", "John Howard, of Australia's Liberal Party, won.", nil},
		{"a party as an adjective is no target", "A Tory government would sort out the shambles of immigration, Michael Howard said.", nil},
		{"a saying of its own is no speaker named last", "The Tories dismissed the plan as desperate, while the Liberal Democrats said it was misdirected.", nil},
		{"a branch named with its place", "We canvassed on behalf of Spitalfields & Bangla Town Labour and the forum.",
			[]reading{{graph.PartOf, "organisations/spitalfields-bangla-town-labour", "parties/labour", graph.StatusReported}}},
		{"a party's wing or its seniors are no branch", "Senior Tories met. Like New Labour, he called himself a libertarian. Senior Labour backbencher Martin O'Neill spoke.",
			[]reading{{graph.MemberOf, "actors/martin-oneill", "parties/labour", graph.StatusReported}}},
		{"a place's branch of a party", "Around eight other members of London UKIP were planning to leave.",
			[]reading{{graph.PartOf, "organisations/london-ukip", "parties/ukip", graph.StatusReported}}},
		{"a party before a role is no branch", "Labour MP Stephen Pound spoke in London.",
			[]reading{{graph.MemberOf, "actors/stephen-pound", "parties/labour", graph.StatusReported}}},
		{"his membership", "Robert Kilroy-Silk spoke. It marks the end of his membership of UKIP.",
			[]reading{{graph.MemberOf, "actors/robert-kilroy-silk", "parties/ukip", graph.StatusReported}}},
		{"his constituents", "Stephen Pound spoke. Mr Pound explained his reasons to his Ealing North constituents.",
			[]reading{{graph.HoldsOffice, "actors/stephen-pound", "seats/ealing-north", graph.StatusReported}}},
		{"a founder's words are not against their party", "Robert Kilroy-Silk launched Veritas. He said Veritas would avoid the old parties' lies.",
			[]reading{{graph.Founded, "actors/robert-kilroy-silk", "parties/veritas", graph.StatusReported},
				{graph.MemberOf, "actors/robert-kilroy-silk", "parties/veritas", graph.StatusReported}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rd := read(t, ingest.NewReader(nil), ingest.Input{Path: tt.name, Content: []byte(tt.text)})
			if diff := cmp.Diff(tt.want, readings(rd)); diff != "" {
				t.Errorf("proposals (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCouncilsNamedTogether: "Burnley and Pendle councils" are two bodies.
func TestCouncilsNamedTogether(t *testing.T) {
	t.Parallel()
	rd := read(t, ingest.NewReader(nil), ingest.Input{Path: "t", Content: []byte(
		"The Labour leaders of Burnley and Pendle councils spoke. The latest research from Deltapoll agreed.")})
	var names []graph.EntityName
	for _, e := range rd.Entities {
		names = append(names, e.Name)
	}
	for _, want := range []graph.EntityName{"organisations/burnley-council", "organisations/pendle-council", "organisations/deltapoll"} {
		if !slices.Contains(names, want) {
			t.Errorf("no %s in %v", want, names)
		}
	}
}

// TestShadowPostsThroughTheGraph: a shadow post is the Official Opposition's, the party whose leader the
// graph says was Leader of the Opposition on the document's date; undated, or with no such holding, it
// makes no member.
func TestShadowPostsThroughTheGraph(t *testing.T) {
	t.Parallel()
	day := func(y, m, d int) graph.FuzzyDate { return graph.FuzzyDate{Year: y, Month: m, Day: d} }
	period := func(from, to graph.FuzzyDate) graph.Period {
		return graph.Period{Start: from.FirstDay(), End: to.LastDay()}
	}
	known := []graph.Entity{
		{Name: "actors/michael-howard", Kind: graph.KindActor, DisplayName: "Michael Howard"},
		{Name: "actors/keir-starmer", Kind: graph.KindActor, DisplayName: "Keir Starmer"},
		{Name: "seats/leader-of-the-opposition", Kind: graph.KindSeat, DisplayName: "Leader of the Opposition"},
	}
	holdings := []ingest.Holding{
		{Holder: "actors/michael-howard", Post: "parties/conservatives", Type: graph.Leads, Period: period(day(2003, 11, 6), day(2005, 12, 6))},
		{Holder: "actors/michael-howard", Post: "seats/leader-of-the-opposition", Type: graph.HoldsOffice, Period: period(day(2003, 11, 6), day(2005, 12, 6))},
		{Holder: "actors/keir-starmer", Post: "parties/labour", Type: graph.Leads, Period: period(day(2020, 4, 4), day(2030, 1, 1))},
		{Holder: "actors/keir-starmer", Post: "seats/leader-of-the-opposition", Type: graph.HoldsOffice, Period: period(day(2020, 4, 4), day(2024, 7, 5))},
	}
	r := ingest.NewGraphReader(known, holdings)
	for _, tt := range []struct {
		name      string
		published graph.FuzzyDate
		text      string
		want      []reading
	}{
		{"2004: the Conservatives", day(2004, 3, 1), "Shadow spokesman for sport Hugh Robertson said it would fail.",
			[]reading{{graph.MemberOf, "actors/hugh-robertson", "parties/conservatives", graph.StatusReported}}},
		{"2023: Labour", day(2023, 11, 3), "The shadow chancellor Rachel Reeves spoke.",
			[]reading{{graph.HoldsOffice, "actors/rachel-reeves", "seats/shadow-chancellor", graph.StatusReported},
				{graph.MemberOf, "actors/rachel-reeves", "parties/labour", graph.StatusReported}}},
		{"undated: no one's", graph.FuzzyDate{}, "Shadow spokesman for sport Hugh Robertson said it would fail.", nil},
		{"a shadow post under someone is not theirs", day(2004, 3, 1), "He became shadow chancellor under John Smith's leadership in 1992.", nil},
		{"a shadow post after the name", day(2023, 11, 3), "Naz Shah, a shadow minister who has joined the rebels, spoke.",
			[]reading{{graph.HoldsOffice, "actors/naz-shah", "seats/shadow-minister", graph.StatusReported},
				{graph.MemberOf, "actors/naz-shah", "parties/labour", graph.StatusReported}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rd := read(t, r, ingest.Input{Path: "t", Content: []byte(tt.text), Published: tt.published})
			if diff := cmp.Diff(tt.want, readings(rd)); diff != "" {
				t.Errorf("proposals (-want +got):\n%s", diff)
			}
			for _, p := range rd.Proposals {
				if p.Rule == "shadow-post" && (len(p.Resolved) == 0 || !strings.Contains(p.Resolved[len(p.Resolved)-1], "Leader of the Opposition")) {
					t.Errorf("how the party was found: %q", p.Resolved)
				}
			}
		})
	}
}

// TestShadowPostsThroughWhatPolgraphShips: with no Leader of the Opposition in the graph, the Official
// Opposition polgraph ships (gazetteer/opposition.tsv) gives a dated document's shadow posts their party.
func TestShadowPostsThroughWhatPolgraphShips(t *testing.T) {
	t.Parallel()
	r := ingest.NewReader(nil)
	for _, tt := range []struct {
		published graph.FuzzyDate
		party     graph.EntityName
		why       string
	}{
		{graph.FuzzyDate{Year: 2004, Month: 3, Day: 1}, "parties/conservatives", "shadow chancellor → Conservative Party, the Official Opposition 1997–2010"},
		{graph.FuzzyDate{Year: 2023, Month: 11, Day: 3}, "parties/labour", "shadow chancellor → Labour Party, the Official Opposition 2010–2024"},
	} {
		rd := read(t, r, ingest.Input{Path: "t", Content: []byte("The shadow chancellor Oliver Letwin spoke."), Published: tt.published})
		found := false
		for _, p := range rd.Proposals {
			if p.Type == graph.MemberOf && p.From == "actors/oliver-letwin" {
				found = true
				if p.To != tt.party || !slices.Contains(p.Resolved, tt.why) {
					t.Errorf("%v: member of %s (%q), want %s (%q)", tt.published, p.To, p.Resolved, tt.party, tt.why)
				}
			}
		}
		if !found {
			t.Errorf("%v: no membership read from the shadow post", tt.published)
		}
	}
}

// TestDayFromAPicturesPath: a page whose only date is in the path of its first picture dates from that day.
func TestDayFromAPicturesPath(t *testing.T) {
	t.Parallel()
	rd := read(t, ingest.NewReader(nil), ingest.Input{Path: "t", Content: []byte(
		"![](https://i.example.co.uk/1s/2023/11/03/23/picture.jpg)\n\nLutfur Rahman spoke on Friday.")})
	if got := rd.Document.Source.Published; got != (graph.FuzzyDate{Year: 2023, Month: 11, Day: 3}) {
		t.Errorf("published %v, want 2023-11-03", got)
	}
}

// TestEveryEndIsAnEntity: a reading with no graph proposes every end of its proposals as an entity, on
// each committed text, so that a review queue takes it whole (a party reached through "the party" or a
// shadow post included).
func TestEveryEndIsAnEntity(t *testing.T) {
	t.Parallel()
	paths, err := filepath.Glob("../../data/annotations/texts/*/*.txt")
	if err != nil || len(paths) < 40 {
		t.Fatalf("texts: %d, %v", len(paths), err)
	}
	r := ingest.NewReader(nil)
	within := graph.Period{Start: graph.FuzzyDate{Year: 2004}.FirstDay(), End: graph.FuzzyDate{Year: 2005}.LastDay()}
	inputs := []ingest.Input{{Path: "shadow-post.txt", Content: []byte("Shadow spokesman for sport Hugh Robertson said it would fail."), Within: within}}
	for _, path := range paths {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, ingest.Input{Path: path, Content: b, Within: within})
	}
	for _, in := range inputs {
		path := in.Path
		rd := read(t, r, in)
		ents := map[graph.EntityName]bool{}
		for _, e := range rd.Entities {
			ents[e.Name] = true
		}
		for _, p := range rd.Proposals {
			for _, end := range []graph.EntityName{p.From, p.To} {
				if !ents[end] {
					t.Errorf("%s: %s %s → %s: %s is no entity of the reading", filepath.Base(path), p.Type, p.From, p.To, end)
				}
			}
		}
	}
}

// TestDescriptionsThroughPolgraphsRecord: where the graph says nothing of a post, "the prime minister"
// is read through the record polgraph ships (gazetteer/holders.tsv): the holder on a dated document's day,
// or, undated, the one person the document names who ever held it; two such people, and it is no one.
func TestDescriptionsThroughPolgraphsRecord(t *testing.T) {
	t.Parallel()
	r := ingest.NewReader(nil)
	for _, tt := range []struct {
		name, text string
		published  graph.FuzzyDate
		holder     graph.EntityName
		note       string
	}{
		{"dated", "The prime minister said Labour would win.", graph.FuzzyDate{Year: 2004, Month: 3, Day: 1},
			"actors/tony-blair", "The prime minister → Tony Blair, HOLDS_OFFICE Prime Minister 1997–2007 (polgraph's record)"},
		{"undated, named", "Gordon Brown spoke in Leeds. Later the chancellor said Labour would win.", graph.FuzzyDate{},
			"actors/gordon-brown", "the chancellor → Gordon Brown, HOLDS_OFFICE Chancellor of the Exchequer 1997–2007, named in the document (polgraph's record)"},
		{"undated, two who held it", "Tony Blair and John Major met. The prime minister said Labour would win.", graph.FuzzyDate{}, "", ""},
		{"undated, no one named", "The prime minister said Labour would win.", graph.FuzzyDate{}, "", ""},
		{"dated, two held it", "The home secretary said Labour would win.", graph.FuzzyDate{Year: 2004}, "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rd := read(t, r, ingest.Input{Path: "t", Content: []byte(tt.text), Published: tt.published})
			var got *review.Proposal
			for i, p := range rd.Proposals {
				if p.Type == graph.HoldsOffice && p.Rule == "description" {
					got = &rd.Proposals[i]
				}
			}
			switch {
			case tt.holder == "" && got != nil:
				t.Errorf("resolved to %s (%q)", got.From, got.Resolved)
			case tt.holder != "" && got == nil:
				t.Errorf("not resolved: %v", readings(rd))
			case tt.holder != "" && (got.From != tt.holder || !slices.Contains(got.Resolved, tt.note)):
				t.Errorf("resolved to %s (%q), want %s (%q)", got.From, got.Resolved, tt.holder, tt.note)
			}
		})
	}
}

// TestAmbiguousDescriptionsAreLeftToReview: a description of a post two people may be is not guessed; a
// relation it takes part in is proposed once for each, at half the confidence, saying so.
func TestAmbiguousDescriptionsAreLeftToReview(t *testing.T) {
	t.Parallel()
	rd := read(t, ingest.NewReader(nil), ingest.Input{Path: "t", Content: []byte(
		"David Blunkett and Charles Clarke spoke. Michael Howard accused the home secretary of failing.")})
	var got []reading
	for _, p := range rd.Proposals {
		if p.Type != graph.Accused {
			continue
		}
		got = append(got, reading{p.Type, p.From, p.To, p.Status})
		want := "the home secretary → one of David Blunkett or Charles Clarke (each held Home Secretary): for review to choose"
		if !slices.Contains(p.Resolved, want) || p.Confidence > 0.4 {
			t.Errorf("%s → %s: confidence %.2f, notes %q", p.From, p.To, p.Confidence, p.Resolved)
		}
	}
	want := []reading{{graph.Accused, "actors/michael-howard", "actors/david-blunkett", graph.StatusReported},
		{graph.Accused, "actors/michael-howard", "actors/charles-clarke", graph.StatusReported}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("proposals (-want +got):\n%s", diff)
	}
}
