package graph

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// ViewName is a saved view's resource name, `views/<id>`, e.g. `views/labour-in-2015`.
type ViewName string

// SavedView is a view of the graph as the explorer drew it, saved to be opened again: the explorer's
// address query that rebuilds it, notes on its entities and relations, and the story it belongs to. Views
// are not part of the graph: no read of the graph sees them.
type SavedView struct {
	Name        ViewName
	Title       string
	Description string
	Query       string // the explorer's address query, without the leading "?"
	Notes       []ViewNote
	// Story is the story the view belongs to, in lower case, or "" for none; views of a story are stepped
	// through by StoryOrder, then by Title.
	Story      string
	StoryOrder int32
	// Who saved it and who last changed it (ViewAuthor), and when, to the millisecond.
	CreatedBy, UpdatedBy string
	Created, Updated     time.Time
	// Etag changes with every update (NewViewEtag).
	Etag string
}

// ViewNote is a note on an entity or a relation of a view, by its resource name.
type ViewNote struct {
	Target string
	Text   string
}

// Limits on a saved view, in characters.
const (
	MaxViewTitle       = 200
	MaxViewDescription = 4_000
	MaxViewQuery       = 16_384
	MaxViewNotes       = 200
	MaxViewNoteText    = 2_000
	MaxViewStory       = 100
	MaxViewID          = 63
	// DefaultViewsPageSize and MaxViewsPageSize bound a page of ListViews.
	DefaultViewsPageSize = 50
	MaxViewsPageSize     = 500
)

// The fields of a saved view an update may change, as UpdateViewRequest's mask names them.
const (
	ViewFieldTitle       = "title"
	ViewFieldDescription = "description"
	ViewFieldQuery       = "query"
	ViewFieldNotes       = "notes"
	ViewFieldStory       = "story"
	ViewFieldStoryOrder  = "story_order"
)

// ViewFields lists every field an update may change: an update that names none changes them all.
var ViewFields = []string{ViewFieldTitle, ViewFieldDescription, ViewFieldQuery, ViewFieldNotes, ViewFieldStory, ViewFieldStoryOrder}

// The reasons of saved views' errors.
const (
	ReasonViewNotFound = "VIEW_NOT_FOUND"
	ReasonViewExists   = "VIEW_ALREADY_EXISTS"
	ReasonEtagMismatch = "ETAG_MISMATCH"
)

const (
	viewsCollection = "views/"
	// maxGeneratedIDTries bounds the ids tried for a view made from its title.
	maxGeneratedIDTries = 10_000
)

// ViewQuery asks for one page of saved views: a story's, in their order, or every view, newest first.
type ViewQuery struct {
	Story         string // "" for every view; matched whatever its case
	Offset, Limit int    // Limit 0: DefaultViewsPageSize
}

// Views keep the explorer's saved views. Who saves or changes one is ViewAuthor(ctx). Methods return
// Unavailable, DeadlineExceeded or Internal errors unless they say more.
type Views interface {
	// CreateView saves v (its title, description, query, notes, story and story order; the rest is
	// ignored) under views/<id>, or, when id is "", under an id made from its title (ViewIDFromTitle), with
	// "-2", "-3", … added when that is taken. Invalid, with a violation per bad field (view.title,
	// view.notes[3].target, view_id), for a view that PrepareView refuses; AlreadyExists
	// (ReasonViewExists) when id is given and taken.
	CreateView(ctx context.Context, v SavedView, id string) (SavedView, error)
	// GetView returns the view named name. NotFound (ReasonViewNotFound) when there is none, Invalid
	// when name is not a view's name.
	GetView(ctx context.Context, name ViewName) (SavedView, error)
	// ListViews returns a page of views and the offset of the next page (0 after the last): with
	// q.Story, that story's views by story order, then title, then name; else every view, the newest
	// first (then by name). Invalid for a bad story or page size.
	ListViews(ctx context.Context, q ViewQuery) ([]SavedView, int, error)
	// UpdateView sets the fields of the view named v.Name that fields names (ViewFields; none: all of
	// them) to v's, and gives it a new etag. NotFound as GetView; Aborted (ReasonEtagMismatch) when etag
	// is not "" and is not the view's; Invalid for a bad field name or a view PrepareView refuses.
	UpdateView(ctx context.Context, v SavedView, fields []string, etag string) (SavedView, error)
	// DeleteView deletes the view named name. NotFound and Aborted as UpdateView.
	DeleteView(ctx context.Context, name ViewName, etag string) error
}

// ViewAuthor is who a view saved or changed with ctx is credited to: the credential's own name (an API
// key's name, a client certificate's common name), which is the first of the context's WriteMeta
// aliases; else its principal; "local" without one.
func ViewAuthor(ctx context.Context) string {
	m, ok := WriteMetaFrom(ctx)
	switch {
	case !ok:
		return "local"
	case len(m.Aliases) > 0 && m.Aliases[0] != "":
		return m.Aliases[0]
	case m.Principal != "":
		return m.Principal
	}
	return "local"
}

// NewViewEtag returns a fresh etag: 16 random hex digits.
func NewViewEtag() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// ParseViewName checks a view's resource name, `views/<id>`, and returns its id. Invalid, naming field,
// when it is not one.
func ParseViewName(op, field string, name ViewName) (string, error) {
	id, ok := strings.CutPrefix(string(name), viewsCollection)
	var v Violations
	switch {
	case !ok:
		v.Add(field, "%q is not a view's name: want views/<id>", Truncate(string(name), 80))
	default:
		checkViewID(&v, field, id)
	}
	return id, v.Err(op, "invalid view name")
}

// ViewNameOf is the resource name of the view with id id.
func ViewNameOf(id string) ViewName { return ViewName(viewsCollection + id) }

var viewIDPattern = regexp.MustCompile(`^[a-z0-9-]+$`)

func checkViewID(v *Violations, field, id string) {
	switch {
	case id == "":
		v.Add(field, "the view id is empty")
	case len(id) > MaxViewID:
		v.Add(field, "%d characters; at most %d", len(id), MaxViewID)
	case !viewIDPattern.MatchString(id):
		v.Add(field, "%q: a view id is lower-case letters, digits and \"-\"", Truncate(id, 80))
	}
}

// ViewIDFromTitle is the id a view titled title is saved under when none is given: its slug (Slugify),
// cut to leave room for a "-N" suffix, or "view" when the title has no letter or digit in ASCII.
func ViewIDFromTitle(title string) string {
	if id := TrimSlug(Slugify(title), MaxViewID-len("-9999")); id != "" {
		return id
	}
	return "view"
}

// ViewIDCandidates returns n ids to try, in order, for a view made from base: base itself (when from is
// 1), then base-2, base-3, …; from is the 1-based place of the first.
func ViewIDCandidates(base string, from, n int) []string {
	out := make([]string, 0, n)
	for i := from; i < from+n && i <= maxGeneratedIDTries; i++ {
		if i == 1 {
			out = append(out, base)
		} else {
			out = append(out, base+"-"+strconv.Itoa(i))
		}
	}
	return out
}

// ErrNoFreeViewID is what a store answers when every id ViewIDCandidates gives for a title is taken.
func ErrNoFreeViewID(op, base string) error {
	return &Error{Op: op, Kind: AlreadyExists, Reason: ReasonViewExists,
		Message: "every id made from the title (" + base + ", " + base + "-2, …) is taken: give the view an id"}
}

// NormalizeStory is a story as views keep it and ListViews matches it: trimmed and in lower case.
func NormalizeStory(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

// PrepareView checks a view for saving, and returns it as kept: the story normalised (NormalizeStory),
// title trimmed, everything the caller may not set (name, who, when, etag) cleared. Violations name the
// fields as the API's requests do: view.title, view.notes[3].target.
func PrepareView(op string, v SavedView) (SavedView, error) {
	out := SavedView{Title: strings.TrimSpace(v.Title), Description: v.Description, Query: v.Query,
		Story: NormalizeStory(v.Story), StoryOrder: v.StoryOrder}
	var vs Violations
	checkText(&vs, "view.title", out.Title, MaxViewTitle, true, false)
	checkText(&vs, "view.description", out.Description, MaxViewDescription, false, true)
	checkText(&vs, "view.query", out.Query, MaxViewQuery, true, false)
	if strings.HasPrefix(out.Query, "?") {
		vs.Add("view.query", "give the query without its leading \"?\"")
	}
	if out.Story != "" {
		switch {
		case utf8.RuneCountInString(out.Story) > MaxViewStory:
			vs.Add("view.story", "%d characters; at most %d", utf8.RuneCountInString(out.Story), MaxViewStory)
		case !viewIDPattern.MatchString(out.Story):
			vs.Add("view.story", "%q: a story is letters, digits and \"-\"", Truncate(out.Story, 80))
		}
	}
	if CheckCount(&vs, "view.notes", len(v.Notes), MaxViewNotes) {
		for i, n := range v.Notes {
			field := "view.notes[" + strconv.Itoa(i) + "]"
			checkNoteTarget(&vs, field+".target", n.Target)
			checkText(&vs, field+".text", n.Text, MaxViewNoteText, true, true)
			out.Notes = append(out.Notes, ViewNote{Target: n.Target, Text: n.Text})
		}
	}
	return out, vs.Err(op, "invalid view")
}

// PrepareNewView is PrepareView for a view to create under id ("" for one made from its title): the view
// comes back named views/<id> when id is given, and a bad id is a violation of view_id.
func PrepareNewView(op string, v SavedView, id string) (SavedView, error) {
	kept, err := PrepareView(op, v)
	var vs Violations
	var ge *Error
	if errors.As(err, &ge) {
		vs = ge.Violations
	} else if err != nil {
		return SavedView{}, err
	}
	if id != "" {
		checkViewID(&vs, "view_id", id)
		kept.Name = ViewNameOf(id)
	}
	return kept, vs.Err(op, "invalid view")
}

// checkText reports a missing (when required), over-long (in characters) or malformed text: not UTF-8,
// or holding a control character (tabs aside, and line breaks too when multiline).
func checkText(v *Violations, field, s string, max int, required, multiline bool) {
	if required && strings.TrimSpace(s) == "" {
		v.Add(field, "required")
		return
	}
	if !utf8.ValidString(s) {
		v.Add(field, "not UTF-8")
		return
	}
	if n := utf8.RuneCountInString(s); n > max {
		v.Add(field, "%d characters; at most %d", n, max)
		return
	}
	check := s
	if multiline {
		check = strings.NewReplacer("\r\n", "  ", "\n", " ").Replace(s)
	}
	if i, r := ControlAt(check, true); i >= 0 {
		what := "a control character"
		if r == '\n' || r == '\r' {
			what = "a line break"
		}
		v.Add(field, "holds %s (U+%04X) at byte %d", what, r, i)
	}
}

// viewNoteCollections are the collections a note's target may be in.
var viewNoteCollections = []string{"actors/", "parties/", "seats/", "organisations/", "relations/"}

var relationSlugPattern = regexp.MustCompile(`^[a-z0-9]+([.-][a-z0-9]+)*$`)

func checkNoteTarget(v *Violations, field, target string) {
	switch {
	case target == "":
		v.Add(field, "required: an entity's or a relation's name")
		return
	case len(target) > MaxName:
		v.Add(field, "%d bytes; at most %d", len(target), MaxName)
		return
	}
	if rest, ok := strings.CutPrefix(target, "relations/"); ok {
		if !relationSlugPattern.MatchString(rest) {
			v.Add(field, "%q is not a relation's name", Truncate(target, 80))
		}
		return
	}
	for _, c := range viewNoteCollections {
		if strings.HasPrefix(target, c) {
			if _, err := ParseEntityName(target); err != nil {
				v.Add(field, "%q is not an entity's name", Truncate(target, 80))
			}
			return
		}
	}
	v.Add(field, "%q: a note is on an entity or a relation (actors/…, parties/…, seats/…, organisations/…, relations/…)", Truncate(target, 80))
}

// CheckViewFields checks an update's field names and returns the fields it changes: every one when
// names is empty.
func CheckViewFields(op string, names []string) ([]string, error) {
	if len(names) == 0 {
		return ViewFields, nil
	}
	var v Violations
	var out []string
	for i, n := range names {
		ok := false
		for _, f := range ViewFields {
			if n == f {
				ok = true
			}
		}
		if !ok {
			v.Add("update_mask.paths["+strconv.Itoa(i)+"]", "%q cannot be changed: the fields are %s", Truncate(n, 80), strings.Join(ViewFields, ", "))
			continue
		}
		out = append(out, n)
	}
	return out, v.Err(op, "invalid update mask")
}

// ApplyViewFields returns old with the fields named (CheckViewFields' answer) set to new's.
func ApplyViewFields(old, new SavedView, fields []string) SavedView {
	for _, f := range fields {
		switch f {
		case ViewFieldTitle:
			old.Title = new.Title
		case ViewFieldDescription:
			old.Description = new.Description
		case ViewFieldQuery:
			old.Query = new.Query
		case ViewFieldNotes:
			old.Notes = new.Notes
		case ViewFieldStory:
			old.Story = new.Story
		case ViewFieldStoryOrder:
			old.StoryOrder = new.StoryOrder
		}
	}
	return old
}

// Validate checks a page of views asked for, and returns it with its page size defaulted and its story
// normalised.
func (q ViewQuery) Validate(op string) (ViewQuery, error) {
	var v Violations
	q.Story = NormalizeStory(q.Story)
	if q.Story != "" && (len(q.Story) > MaxViewStory || !viewIDPattern.MatchString(q.Story)) {
		v.Add("story", "%q is not a story: letters, digits and \"-\", at most %d", Truncate(q.Story, 80), MaxViewStory)
	}
	if q.Offset < 0 {
		v.Add("page_token", "a negative offset")
	}
	q.Limit = checkPageSize(&v, q.Limit, DefaultViewsPageSize, MaxViewsPageSize)
	return q, v.Err(op, "invalid views query")
}

// CheckEtag returns Aborted (ReasonEtagMismatch) when want is given and is not have.
func CheckEtag(op string, name ViewName, want, have string) error {
	if want == "" || want == have {
		return nil
	}
	return &Error{Op: op, Kind: Aborted, Reason: ReasonEtagMismatch,
		Message: string(name) + " was changed since it was read (its etag is no longer " + Truncate(want, 40) + "): read it again"}
}

// ViewNotFound is the error of a view that does not exist.
func ViewNotFound(op string, name ViewName) error {
	return &Error{Op: op, Kind: NotFound, Reason: ReasonViewNotFound, Message: "no view named " + Truncate(string(name), 80)}
}

// ViewExists is the error of a view id taken.
func ViewExists(op string, name ViewName) error {
	return &Error{Op: op, Kind: AlreadyExists, Reason: ReasonViewExists, Message: string(name) + " exists: choose another id, or update it"}
}
