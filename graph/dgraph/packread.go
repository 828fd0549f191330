package dgraph

import (
	"encoding/json"

	"github.com/polgraph/polgraph/graph/dgraph/jsonscan"
)

// A fill reads every pack of the graph, and the bulk path's conversion reads back every pack it writes:
// at a million relations encoding/json took most of polgraph's time in both. The readers below read the
// shapes polgraph writes (pack.go) and the rows of Changes' pages without reflection. Each gives up on
// anything else (a key it does not know, a null, malformed text: see jsonscan), and then the value is
// read with encoding/json, so what they give is always what encoding/json gives.

// readPack reads pack s into a new T with read, or with encoding/json where read gives up; ok is false
// when neither can read it.
func readPack[T any](s string, read func(*jsonscan.Scanner, *T)) (p T, ok bool) {
	sc := jsonscan.Of(s)
	if read(&sc, &p); sc.End() {
		return p, true
	}
	var q T
	return q, json.Unmarshal([]byte(s), &q) == nil
}

// readRows reads a page of rows ({"q": [...]}), with read or, where it gives up, encoding/json.
func readRows[T any](page []byte, read func(*jsonscan.Scanner, *T)) ([]T, error) {
	sc := jsonscan.Of(string(page))
	if rows := scanRows(&sc, read); sc.End() {
		return rows, nil
	}
	var res struct{ Q []T }
	err := json.Unmarshal(page, &res)
	return res.Q, err
}

// scanRows reads a page of rows, each with read.
func scanRows[T any](sc *jsonscan.Scanner, read func(*jsonscan.Scanner, *T)) (rows []T) {
	sc.Fields(func(key string) {
		if key != "q" {
			sc.Fail()
			return
		}
		rows = []T{}
		sc.Elems(func() {
			rows = append(rows, *new(T))
			read(sc, &rows[len(rows)-1])
		})
	})
	return rows
}

// scanInt reads an int.
func scanInt(sc *jsonscan.Scanner) int {
	v := sc.Int()
	if int64(int(v)) != v {
		sc.Fail()
	}
	return int(v)
}

// scanDay reads a day number, as a pointer (as encoding/json reads it into one).
func scanDay(sc *jsonscan.Scanner) *int {
	day := scanInt(sc)
	return &day
}

// scanStrings reads an array of strings, never nil (as encoding/json reads an empty one).
func scanStrings(sc *jsonscan.Scanner) []string {
	out := []string{}
	sc.Elems(func() { out = append(out, sc.String()) })
	return out
}

func scanMark(sc *jsonscan.Scanner) *packedMark {
	m := new(packedMark)
	sc.Fields(func(key string) {
		switch key {
		case "at":
			m.At = sc.Int()
		case "by":
			m.By = sc.String()
		case "why":
			m.Reason = sc.String()
		default:
			sc.Fail()
		}
	})
	return m
}

func scanClaimPack(sc *jsonscan.Scanner, c *claimPack) {
	sc.Fields(func(key string) {
		switch key {
		case "n":
			c.Name = sc.String()
		case "s":
			c.Source = sc.String()
		case "x":
			c.Excerpt = sc.String()
		case "rec":
			c.Record = sc.String()
		case "c":
			c.Confidence = sc.Float()
		case "st":
			c.Status = sc.String()
		case "by":
			c.SaidBy = sc.String()
		case "ret":
			c.Retracted = scanMark(sc)
		default:
			sc.Fail()
		}
	})
}

func scanRelationPack(sc *jsonscan.Scanner, p *relationPack) {
	sc.Fields(func(key string) {
		switch key {
		case "p":
			p.Format = scanInt(sc)
		case "v":
			p.Changed = sc.Int()
		case "n":
			p.Name = sc.String()
		case "t":
			p.Type = sc.String()
		case "f":
			p.From = sc.String()
		case "o":
			p.To = sc.String()
		case "r":
			p.Role = sc.String()
		case "df":
			p.DatesFrom = sc.String()
		case "via":
			p.Via = sc.String()
		case "term":
			p.Term = sc.String()
		case "vf":
			p.ValidFrom = sc.String()
		case "vt":
			p.ValidTo = sc.String()
		case "d":
			p.Date = sc.String()
		case "del":
			p.Deleted = scanMark(sc)
		case "m":
			p.MergedInto = sc.String()
		case "c":
			p.Claims = []claimPack{}
			sc.Elems(func() {
				p.Claims = append(p.Claims, claimPack{})
				scanClaimPack(sc, &p.Claims[len(p.Claims)-1])
			})
		default:
			sc.Fail()
		}
	})
}

func scanEntityPack(sc *jsonscan.Scanner, p *entityPack) {
	sc.Fields(func(key string) {
		switch key {
		case "p":
			p.Format = scanInt(sc)
		case "v":
			p.Changed = sc.Int()
		case "n":
			p.Name = sc.String()
		case "k":
			p.Kind = sc.String()
		case "d":
			p.DisplayName = sc.String()
		case "a":
			p.Aliases = scanStrings(sc)
		case "desc":
			p.Description = sc.String()
		case "ids":
			p.Identifiers = sc.String()
		case "attr":
			p.Attributes = sc.String()
		case "vf":
			p.ValidFrom = sc.String()
		case "vt":
			p.ValidTo = sc.String()
		case "del":
			p.Deleted = scanMark(sc)
		case "m":
			p.MergedInto = sc.String()
		case "s":
			p.StartDay = scanDay(sc)
		case "e":
			p.EndDay = scanDay(sc)
		default:
			sc.Fail()
		}
	})
}

func scanSourcePack(sc *jsonscan.Scanner, p *sourcePack) {
	sc.Fields(func(key string) {
		switch key {
		case "p":
			p.Format = scanInt(sc)
		case "v":
			p.Changed = sc.Int()
		case "pg.name":
			p.Name = sc.String()
		case "pg.title":
			p.Title = sc.String()
		case "pg.source_kind":
			p.Kind = sc.String()
		case "pg.outlet":
			p.Outlet = sc.String()
		case "pg.author":
			p.Author = sc.String()
		case "pg.published":
			p.Published = sc.String()
		case "pg.url":
			p.URL = sc.String()
		case "pg.retrieved":
			p.Retrieved = sc.String()
		case "pg.licence":
			p.Licence = sc.String()
		default:
			sc.Fail()
		}
	})
}

// scanEnd reads a relation's end as a catch-up's page gives it (endFields).
func scanEnd(sc *jsonscan.Scanner) *endJSON {
	e := new(endJSON)
	sc.Fields(func(key string) {
		switch key {
		case "uid":
			e.UID = sc.String()
		case "pg.name":
			e.Name = sc.String()
		case "pg.start_day":
			e.StartDay = scanDay(sc)
		case "pg.end_day":
			e.EndDay = scanDay(sc)
		default:
			sc.Fail()
		}
	})
	return e
}

// scanPackedRow reads a row of Changes' pages.
func scanPackedRow(sc *jsonscan.Scanner, r *packedRow) {
	sc.Fields(func(key string) {
		switch key {
		case "uid":
			r.UID = sc.String()
		case "pg.changed":
			v := sc.Int()
			r.Changed = &v
		case "pg.pack":
			r.Pack = sc.String()
		case "pg.from":
			r.From = scanEnd(sc)
		case "pg.to":
			r.To = scanEnd(sc)
		default:
			sc.Fail()
		}
	})
}
