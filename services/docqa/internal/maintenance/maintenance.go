// Package maintenance proposes a car's maintenance plan from its owner's
// manual: it finds the pages of the manual's maintenance schedule
// (retrieval within the document with queries for service intervals in
// several languages, then the pages' structure: interval expressions and
// tables of km, miles and months), and reads items from them, by rules
// when no chat model is configured and by a chat model's structured output
// otherwise. Every item names the page it came from; a model's item whose
// numbers that page does not print is dropped.
//
// The choices and their measurements are in
// proto-docs/docqa-maintenance-decisions.md.
package maintenance

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/carhub/backend/services/docqa/internal/docpages"
	"github.com/carhub/backend/services/docqa/internal/docqa"
)

// Item is one proposed maintenance task: what to do, how often (each
// interval nil when the manual gives none; the first one reached is due),
// under which conditions ("" for always), and where the manual says so.
type Item struct {
	Title       string `json:"title"`
	EveryKm     *int   `json:"every_km"`
	EveryMiles  *int   `json:"every_miles"`
	EveryMonths *int   `json:"every_months"`
	Conditions  string `json:"conditions"`
	Page        int    `json:"page"`
	// PageLabel is the page's printed label, absent when the PDF has none.
	PageLabel string `json:"pageLabel,omitempty"`
	// Quote is the page's text the item was read from: the sentence, list
	// item or table row.
	Quote string `json:"quote"`
}

// Page is one page of a manual as the extraction reads it.
type Page = docpages.Page

// Modes of a Proposal.
const (
	ModeModel = "model" // a chat model read the pages (structured output)
	ModeRules = "rules" // no chat model: the rules of rules.go read them
)

// Proposal is the answer of POST /api/documents/:md5/maintenance-schedule.
type Proposal struct {
	Items []Item `json:"items"`
	Mode  string `json:"mode"`
	// Pages are the page numbers considered, ascending.
	Pages []int `json:"pages"`
}

// Bounds of a proposal.
const (
	// MaxPages is how many pages are read. A schedule in an owner's
	// manual takes one to four pages (the table, the severe-conditions
	// list, notes on what the table leaves out); six leave room for one
	// more on each side and keep a model's prompt near 4,000 tokens, in
	// the context of a small local model.
	MaxPages = 6
	// QueryTopK is how many chunks each query retrieves.
	QueryTopK = 20
	// maxTitleRunes bounds a title: anything longer is a sentence the
	// rules mistook for one.
	maxTitleRunes = 120
	// minQuantities is how many interval-like quantities (a number with
	// km, miles, months or years) make a page worth a model's reading
	// when the rules found no interval on it.
	minQuantities = 3
)

// Queries find a schedule's pages: what schedules are titled and how they
// word an interval, in English, German, Chinese, French and Spanish (the
// rules read the first three; a model reads any).
var Queries = []string{
	"maintenance schedule", "service interval", "periodic maintenance",
	"replace every km or months whichever comes first", "inspect every miles months",
	"Wartungsplan", "Wartungsintervall", "Inspektion", "alle km oder Monate wechseln",
	"保养", "定期保养", "保养周期", "每公里或个月更换",
	"plan d'entretien tous les km ou mois", "plan de mantenimiento cada km o meses",
}

// Retriever finds a question's chunks (retrieval.Retriever).
type Retriever = docpages.Retriever

// Proposer proposes plans. Model nil proposes by the rules.
type Proposer struct {
	Retriever Retriever
	Model     docqa.StructuredModel
	// Log, when set, gets how many of the model's items were dropped.
	Log *slog.Logger
}

// ErrModel wraps the errors of the chat model: it failed, or answered
// something other than the schema's document.
var ErrModel = errors.New("maintenance: the chat model")

// Propose reads the plan of the document md5, which the caller has
// checked Reader(ctx) may read. Errors are the retriever's, and the
// model's wrapping ErrModel and docqa.ErrUnavailable.
func (p Proposer) Propose(ctx context.Context, md5 string) (Proposal, error) {
	candidates, err := p.candidates(ctx, md5)
	if err != nil {
		return Proposal{}, err
	}
	pages := SelectPages(candidates)
	out := Proposal{Items: []Item{}, Mode: ModeRules, Pages: make([]int, len(pages))}
	for i, pg := range pages {
		out.Pages[i] = pg.Number
	}
	if p.Model == nil {
		out.Items = Extract(pages)
		return out, nil
	}
	out.Mode = ModeModel
	if len(pages) == 0 {
		return out, nil // nothing to ask about
	}
	raw, err := p.Model.Structured(ctx, Messages(pages), Schema)
	if err != nil {
		return Proposal{}, fmt.Errorf("%w: %w", ErrModel, err)
	}
	items, dropped, err := FromModel(raw, pages)
	if err == nil && p.Log != nil {
		p.Log.InfoContext(ctx, "maintenance items proposed by the chat model", "kept", len(items), "dropped", dropped, "pages", out.Pages)
	}
	if err != nil {
		return Proposal{}, fmt.Errorf("%w: its answer is %w: %w", ErrModel, err, docqa.ErrUnavailable)
	}
	out.Items = items
	return out, nil
}

// Candidate is a page retrieval found, with its retrieval score.
type Candidate = docpages.Candidate

// candidates retrieves the chunks of md5 that the Queries find, and
// returns their pages: each page's text is its found chunks in document
// order, and its score the reciprocal rank fusion of the queries' ranks of
// its best chunk.
func (p Proposer) candidates(ctx context.Context, md5 string) ([]Candidate, error) {
	return docpages.Find(ctx, p.Retriever, md5, Queries, QueryTopK)
}

// SelectPages keeps the candidates that look like a schedule: at least
// one interval the rules read, or minQuantities interval-like quantities
// (for a model to read what the rules cannot). It ranks them by intervals
// read, then by retrieval score, then by quantities, keeps MaxPages, and
// returns them in page order.
func SelectPages(candidates []Candidate) []Page {
	type scored struct {
		Candidate
		intervals, quantities int
	}
	var keep []scored
	for _, c := range candidates {
		s := scored{Candidate: c, intervals: len(extractPage(c.Page)), quantities: len(quantities(normalizeSpaces(c.Text)))}
		if s.intervals > 0 || s.quantities >= minQuantities {
			keep = append(keep, s)
		}
	}
	slices.SortFunc(keep, func(a, b scored) int {
		return cmp.Or(cmp.Compare(b.intervals, a.intervals), cmp.Compare(b.Score, a.Score),
			cmp.Compare(b.quantities, a.quantities), cmp.Compare(a.Number, b.Number))
	})
	keep = keep[:min(len(keep), MaxPages)]
	out := make([]Page, len(keep))
	for i, s := range keep {
		out[i] = s.Page
	}
	slices.SortFunc(out, func(a, b Page) int { return cmp.Compare(a.Number, b.Number) })
	return out
}

// newItem makes an item of page p.
func newItem(p Page, title, conditions string, iv interval, quote string) Item {
	return Item{
		Title: title, EveryKm: nonZero(iv.km), EveryMiles: nonZero(iv.miles), EveryMonths: nonZero(iv.months),
		Conditions: conditions, Page: p.Number, PageLabel: p.Label, Quote: collapseSpaces(quote),
	}
}

func nonZero(n int) *int {
	if n == 0 {
		return nil
	}
	return &n
}

// collapseSpaces makes every run of white space one space.
func collapseSpaces(s string) string { return strings.Join(strings.Fields(s), " ") }

// Dedupe keeps the first of items that have the same title (any case),
// intervals and conditions.
func Dedupe(items []Item) []Item {
	type key struct {
		title, conditions string
		km, miles, months int
	}
	seen := map[key]bool{}
	out := []Item{}
	for _, it := range items {
		k := key{strings.ToLower(collapseSpaces(it.Title)), strings.ToLower(collapseSpaces(it.Conditions)),
			deref(it.EveryKm), deref(it.EveryMiles), deref(it.EveryMonths)}
		if !seen[k] {
			seen[k] = true
			out = append(out, it)
		}
	}
	return out
}

func deref(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

// Verified reports whether every interval of it is printed on page: each
// number occurs there, in any grouping ("15.000", "15,000", "15 000",
// "15000"), months also as a number of years.
func Verified(it Item, page Page) bool {
	if it.EveryKm == nil && it.EveryMiles == nil && it.EveryMonths == nil {
		return false
	}
	nums := pageNumbers(normalizeSpaces(page.Text))
	for _, c := range []struct {
		n    *int
		unit Unit
	}{{it.EveryKm, Km}, {it.EveryMiles, Miles}, {it.EveryMonths, Months}} {
		if c.n != nil && !printed(nums, *c.n, c.unit) {
			return false
		}
	}
	return true
}

// lineWith returns the first line of text that prints n, "" when none does.
func lineWith(text string, n int) string {
	for _, line := range strings.Split(normalizeSpaces(text), "\n") {
		if pageNumbers(line)[n] {
			return collapseSpaces(line)
		}
	}
	return ""
}

// truncateRunes cuts s to at most n runes.
func truncateRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}
