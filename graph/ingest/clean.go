package ingest

import (
	"bytes"
	"fmt"
	"html"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	xhtml "golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/review"
)

// The input formats.
const (
	FormatText  = "text"
	FormatHTML  = "html"
	FormatPosts = "posts"
)

// cleaned is a document's text after cleaning, with what the text said of itself.
type cleaned struct {
	format string
	text   string
	// paragraphs are byte ranges of text: sentences never cross them. A social post is one paragraph.
	paragraphs []review.Span
	title      string
	outlet     string
	author     string
	published  graph.FuzzyDate
	url        string
}

var (
	escapedHTML   = regexp.MustCompile(`<\\/[a-zA-Z]+>|\\u[0-9a-fA-F]{4}|\\"`)
	htmlTag       = regexp.MustCompile(`(?i)</?(p|div|br|span|a|article|section|h[1-6]|ul|li|body|html|head|meta|img|script|style)\b`)
	markdownImage = regexp.MustCompile(`!\[[^\]]*\]\([^)]*\)`)
	hashtag       = regexp.MustCompile(`#[\p{L}\p{N}_]+`)
	wordChar      = regexp.MustCompile(`[\p{L}]`)
)

// detectFormat tells HTML (also HTML escaped inside a JSON string) from posts and plain text. A text is
// read as posts when it has many short blocks, hashtags or @mentions and no title line ending in prose.
func detectFormat(content string) string {
	if escapedHTML.MatchString(content) && strings.Contains(content, `<\/`) || len(htmlTag.FindAllStringIndex(content, 4)) >= 3 {
		return FormatHTML
	}
	blocks := splitBlocks(content)
	if len(blocks) >= 4 {
		tagged, short := 0, 0
		for _, b := range blocks {
			if hashtag.MatchString(b) || strings.Contains(b, "@") {
				tagged++
			}
			if len(b) < 400 {
				short++
			}
		}
		if tagged*5 >= len(blocks) && short*4 >= len(blocks)*3 {
			return FormatPosts
		}
	}
	return FormatText
}

func splitBlocks(s string) []string {
	var out []string
	for _, b := range blankLine.Split(s, -1) {
		if b = strings.TrimSpace(b); b != "" {
			out = append(out, b)
		}
	}
	return out
}

// clean turns the input into text to read.
func clean(in Input) (cleaned, error) {
	if !utf8.Valid(in.Content) {
		return cleaned{}, graph.E("ingest.Read", graph.Invalid, "%s: not UTF-8 text", in.Path)
	}
	content := strings.ReplaceAll(string(in.Content), "\r\n", "\n")
	if bytes.IndexByte(in.Content, 0) >= 0 {
		return cleaned{}, graph.E("ingest.Read", graph.Invalid, "%s: binary content (a NUL byte)", in.Path)
	}
	format := in.Format
	if format == "" {
		format = detectFormat(content)
	}
	var c cleaned
	var blocks []string
	switch format {
	case FormatHTML:
		c, blocks = fromHTML(unescapeJSON(content))
	case FormatPosts:
		blocks = splitBlocks(content)
		if len(blocks) < 2 { // one post per line
			blocks = nil
			for _, l := range strings.Split(content, "\n") {
				if l = strings.TrimSpace(l); l != "" {
					blocks = append(blocks, l)
				}
			}
		}
	case FormatText:
		blocks = splitBlocks(content)
		// A first line without final punctuation, followed by text, is the title (as in the BBC corpus).
		if len(blocks) > 0 {
			first, rest, _ := strings.Cut(blocks[0], "\n")
			if len(first) < 160 && !strings.ContainsAny(first[len(first)-1:], ".!?\"”") && (rest != "" || len(blocks) > 1) {
				c.title = strings.TrimSpace(first)
			}
		}
	default:
		return cleaned{}, graph.E("ingest.Read", graph.Invalid, "%s: unknown format %q (want text, html or posts)", in.Path, format)
	}
	c.format = format
	var b strings.Builder
	var pathDay graph.FuzzyDate // the day in the path of the page's first picture or link, if any
	for i, blk := range blocks {
		if i < 3 && pathDay.IsZero() && linkLine.MatchString(blk) {
			// A news page's first picture or link carries its day in its path: ".../2023/11/03/...".
			if m := pathDate.FindStringSubmatch(blk); m != nil {
				if d, err := graph.ParseFuzzyDate(m[1] + "-" + m[2] + "-" + m[3]); err == nil {
					pathDay = d
				}
			}
		}
		blk = tidy(blk)
		if blk == "" || isBoilerplate(blk) {
			continue
		}
		if format != FormatPosts && commentsHeading.MatchString(blk) {
			break // reader comments follow
		}
		paras := strings.Split(blk, "\n")
		if format == FormatPosts { // a post is one paragraph
			paras = []string{strings.Join(strings.Fields(blk), " ")}
		}
		for _, para := range paras {
			if para = strings.TrimSpace(para); para == "" || !wordChar.MatchString(para) || isBoilerplate(para) {
				continue
			}
			if b.Len() > 0 {
				b.WriteString("\n\n")
			}
			start := b.Len()
			b.WriteString(para)
			c.paragraphs = append(c.paragraphs, review.Span{Start: start, End: b.Len()})
		}
	}
	c.text = b.String()
	bylines(&c)
	if c.published.IsZero() {
		c.published = pathDay // a dateline, where there is one, says it better
	}
	if c.text == "" {
		return cleaned{}, graph.E("ingest.Read", graph.Invalid, "%s: no text to read", in.Path)
	}
	if c.title == "" {
		c.title = firstWords(c.text[c.paragraphs[0].Start:c.paragraphs[0].End], 16)
	}
	if in.Title != "" {
		c.title = in.Title
	}
	for _, v := range []struct {
		dst *string
		src string
	}{{&c.outlet, in.Outlet}, {&c.author, in.Author}, {&c.url, in.URL}} {
		if v.src != "" {
			*v.dst = v.src
		}
	}
	if !in.Published.IsZero() {
		c.published = in.Published
	}
	return c, nil
}

// tidy folds runs of spaces and tabs and drops markdown images.
func tidy(s string) string {
	s = markdownImage.ReplaceAllString(s, "")
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.Join(strings.Fields(l), " ")
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}

var commentsHeading = regexp.MustCompile(`(?i)^(reader )?comments( \(\d+\))?:?$|^(have your say|join the debate|what do you think\?)$`)

var boilerplate = regexp.MustCompile(`(?i)^(share (this|on)|follow us|sign up|subscribe|read more|advertisement|related (articles|topics)|click here|cookie|all rights reserved|©|copyright|skip to|log ?in|menu|home$|back to top)`)

func isBoilerplate(s string) bool {
	return boilerplate.MatchString(s) || len(strings.Fields(s)) <= 3 && strings.Contains(s, "/") && !strings.Contains(s, " ")
}

func firstWords(s string, n int) string {
	f := strings.Fields(s)
	if len(f) > n {
		return strings.Join(f[:n], " ") + "…"
	}
	return strings.Join(f, " ")
}

// unescapeJSON undoes the escapes of HTML that was kept inside a JSON string (\" \/ \n \uXXXX), as
// scraped pages often are.
func unescapeJSON(s string) string {
	if !strings.Contains(s, `\/`) && !strings.Contains(s, `\u`) && !strings.Contains(s, `\"`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 >= len(s) {
			b.WriteByte(s[i])
			continue
		}
		switch s[i+1] {
		case '"', '/', '\\', '\'':
			b.WriteByte(s[i+1])
			i++
		case 'n':
			b.WriteByte('\n')
			i++
		case 't':
			b.WriteByte(' ')
			i++
		case 'u':
			if i+6 <= len(s) {
				if r, err := strconv.ParseUint(s[i+2:i+6], 16, 32); err == nil {
					b.WriteRune(rune(r))
					i += 5
					continue
				}
			}
			b.WriteByte(s[i])
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// skipped are elements whose text is never the document's: scripts, navigation, page furniture, forms.
var skipped = map[atom.Atom]bool{atom.Script: true, atom.Style: true, atom.Nav: true, atom.Header: true,
	atom.Footer: true, atom.Aside: true, atom.Form: true, atom.Noscript: true, atom.Button: true,
	atom.Figcaption: false, atom.Iframe: true, atom.Svg: true, atom.Select: true}

// blockElements end a paragraph.
var blockElements = map[atom.Atom]bool{atom.P: true, atom.Div: true, atom.Br: true, atom.Li: true,
	atom.H1: true, atom.H2: true, atom.H3: true, atom.H4: true, atom.H5: true, atom.H6: true,
	atom.Article: true, atom.Section: true, atom.Blockquote: true, atom.Tr: true, atom.Figcaption: true}

var furniture = regexp.MustCompile(`(?i)(^|[\s_-])(comments?|comment-|reader-?comments|discussion|disqus|share|social|related|newsletter|promo|advert|cookie|breadcrumb|menu|sidebar|footer|nav)([\s_-]|$)`)

// fromHTML reads an HTML page (or fragment): its text in paragraphs, without scripts, navigation, reader
// comments or page furniture, and its title, outlet, author and date from the usual meta tags.
func fromHTML(page string) (cleaned, []string) {
	var c cleaned
	z := xhtml.NewTokenizer(strings.NewReader(page))
	var blocks []string
	var cur strings.Builder
	depthSkip := 0
	var stack []bool // whether each open element is skipped
	inTitle := false
	flush := func() {
		if t := strings.TrimSpace(cur.String()); t != "" {
			blocks = append(blocks, t)
		}
		cur.Reset()
	}
	for {
		tt := z.Next()
		switch tt {
		case xhtml.ErrorToken:
			flush()
			return c, blocks
		case xhtml.StartTagToken, xhtml.SelfClosingTagToken:
			tok := z.Token()
			skip := skipped[tok.DataAtom]
			for _, a := range tok.Attr {
				if (a.Key == "class" || a.Key == "id") && furniture.MatchString(a.Val) {
					skip = true
				}
			}
			switch tok.DataAtom {
			case atom.Meta:
				readMeta(&c, tok.Attr)
			case atom.Title:
				inTitle = true
			case atom.Link:
				for _, a := range tok.Attr {
					if a.Key == "rel" && a.Val == "canonical" {
						c.url = attr(tok.Attr, "href")
					}
				}
			}
			if blockElements[tok.DataAtom] {
				flush()
			}
			if tt == xhtml.StartTagToken && !voidElement(tok.DataAtom) {
				stack = append(stack, skip)
				if skip {
					depthSkip++
				}
			}
		case xhtml.EndTagToken:
			tok := z.Token()
			if tok.DataAtom == atom.Title {
				inTitle = false
			}
			if blockElements[tok.DataAtom] {
				flush()
			}
			if len(stack) > 0 {
				if stack[len(stack)-1] {
					depthSkip--
				}
				stack = stack[:len(stack)-1]
			}
		case xhtml.TextToken:
			text := html.UnescapeString(string(z.Text()))
			if inTitle {
				if c.title == "" {
					c.title = strings.TrimSpace(text)
				}
				continue
			}
			if depthSkip > 0 {
				continue
			}
			// Text outside any element may hold newlines that stand for paragraph breaks.
			for i, part := range strings.Split(text, "\n") {
				if i > 0 {
					flush()
				}
				cur.WriteString(part)
			}
		}
	}
}

func voidElement(a atom.Atom) bool {
	switch a {
	case atom.Br, atom.Img, atom.Meta, atom.Link, atom.Hr, atom.Input, atom.Source, atom.Wbr:
		return true
	}
	return false
}

func attr(attrs []xhtml.Attribute, key string) string {
	for _, a := range attrs {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func readMeta(c *cleaned, attrs []xhtml.Attribute) {
	key := attr(attrs, "property")
	if key == "" {
		key = attr(attrs, "name")
	}
	val := strings.TrimSpace(attr(attrs, "content"))
	switch strings.ToLower(key) {
	case "og:title":
		c.title = val
	case "og:site_name":
		c.outlet = val
	case "author", "article:author":
		if !strings.HasPrefix(val, "http") {
			c.author = val
		}
	case "article:published_time", "date", "pubdate":
		if len(val) >= 10 {
			if d, err := graph.ParseFuzzyDate(val[:10]); err == nil {
				c.published = d
			}
		}
	case "og:url":
		c.url = val
	}
}

// outletHosts names outlets by the hosts their pages and images are served from, for pages whose meta
// tags were lost in scraping.
var outletHosts = map[string]string{
	"dailymail.co.uk": "Daily Mail", "bbc.co.uk": "BBC News", "bbc.com": "BBC News",
	"theguardian.com": "The Guardian", "telegraph.co.uk": "The Telegraph", "thetimes.co.uk": "The Times",
	"independent.co.uk": "The Independent", "mirror.co.uk": "Daily Mirror", "thesun.co.uk": "The Sun",
	"express.co.uk": "Daily Express", "standard.co.uk": "Evening Standard", "ft.com": "Financial Times",
	"eastlondonadvertiser.co.uk": "East London Advertiser", "newstatesman.com": "New Statesman",
	"spectator.co.uk": "The Spectator", "dhakatribune.com": "Dhaka Tribune",
}

var hostPattern = regexp.MustCompile(`https?:/+(?:[a-z0-9-]+\.)*?([a-z0-9-]+\.(?:co\.uk|com|org\.uk|org|net))`)

// outletOf finds the outlet from the hosts a page links or embeds from, when exactly one known outlet
// appears.
func outletOf(raw string) string {
	found := map[string]bool{}
	for _, m := range hostPattern.FindAllStringSubmatch(strings.ReplaceAll(raw, `\/`, "/"), 200) {
		for host, name := range outletHosts {
			if strings.HasSuffix(m[0], host) || m[1] == host {
				found[name] = true
			}
		}
	}
	if len(found) == 1 {
		for name := range found {
			return name
		}
	}
	return ""
}

var (
	byline    = regexp.MustCompile(`^(?:By|by|Written by|Words by)\s+(\p{Lu}[\p{L}'’.-]+(?:\s+\p{Lu}[\p{L}'’.-]+){0,3})(?:\s*(?:,|\||-|–|—|$))`)
	dateLine  = regexp.MustCompile(`(?i)^(?:published|updated|last updated|posted|date)?:?\s*(?:\w+day,?\s+)?(\d{1,2})(?:st|nd|rd|th)?\s+(january|february|march|april|may|june|july|august|september|october|november|december)\s+(\d{4})\b`)
	linkLine  = regexp.MustCompile(`^\s*(?:!?\[[^\]]*\]\(|<img\b|https?:)`)
	pathDate  = regexp.MustCompile(`(?:/|\\/)((?:19|20)\d\d)(?:/|\\/)([01]\d)(?:/|\\/)([0-3]\d)(?:/|\\/)`)
	isoDate   = regexp.MustCompile(`^(?:(?i)published|updated|posted|date)?:?\s*(\d{4})-(\d{2})-(\d{2})\b`)
	monthsIdx = map[string]int{"january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7,
		"august": 8, "september": 9, "october": 10, "november": 11, "december": 12}
)

// bylines reads an author ("By Jane Smith") and a publication date ("Published 3 November 2023",
// "2023-11-03") from the first short paragraphs of a text, where the page's meta tags did not give them.
func bylines(c *cleaned) {
	for i, p := range c.paragraphs {
		if i >= 6 {
			return
		}
		line := c.text[p.Start:p.End]
		if len(line) > 100 {
			continue
		}
		if m := byline.FindStringSubmatch(line); m != nil && c.author == "" {
			c.author = m[1]
		}
		if !c.published.IsZero() {
			continue
		}
		if m := dateLine.FindStringSubmatch(line); m != nil {
			if d, err := graph.ParseFuzzyDate(fmt.Sprintf("%s-%02d-%02s", m[3], monthsIdx[strings.ToLower(m[2])], pad2(m[1]))); err == nil {
				c.published = d
			}
		} else if m := isoDate.FindStringSubmatch(line); m != nil {
			if d, err := graph.ParseFuzzyDate(m[1] + "-" + m[2] + "-" + m[3]); err == nil {
				c.published = d
			}
		}
	}
}

func pad2(s string) string {
	if len(s) == 1 {
		return "0" + s
	}
	return s
}

// Patterns of the wording, compiled once.
var (
	// blankLine separates blocks.
	blankLine = regexp.MustCompile(`\n\s*\n`)
)
