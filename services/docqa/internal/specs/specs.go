// Package specs reads a car's specifications from its owner's manual: the
// engine oil's grade and capacity, the tyre pressures (front and rear, at
// normal and at full load), the fuel grade, the coolant, the AdBlue tank,
// the wheel bolts' torque and the battery. It finds the pages that print
// them (retrieval within the document, then the pages' quantities in bar,
// kPa, psi, l, Nm, RON and Ah) and reads them by rules when no chat model
// is configured and by a chat model's structured output otherwise. Every
// item names the page it came from, and every number of an item is
// printed on that page; a key whose reading is not sure is left out.
//
// The choices and their measurements are in
// proto-docs/docqa-specifications-decisions.md.
package specs

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/carhub/backend/services/docqa/internal/docpages"
	"github.com/carhub/backend/services/docqa/internal/docqa"
)

// The keys of the items, in the order a card shows them.
const (
	EngineOilGrade            = "engine_oil_grade"
	EngineOilCapacity         = "engine_oil_capacity"
	TyrePressureFront         = "tyre_pressure_front"
	TyrePressureRear          = "tyre_pressure_rear"
	TyrePressureFrontFullLoad = "tyre_pressure_front_full_load"
	TyrePressureRearFullLoad  = "tyre_pressure_rear_full_load"
	FuelGrade                 = "fuel_grade"
	Coolant                   = "coolant"
	AdBlue                    = "adblue"
	WheelBoltTorque           = "wheel_bolt_torque"
	Battery                   = "battery"
)

// Keys are every key, in the card's order.
var Keys = []string{
	EngineOilGrade, EngineOilCapacity, TyrePressureFront, TyrePressureRear,
	TyrePressureFrontFullLoad, TyrePressureRearFullLoad, FuelGrade, Coolant, AdBlue, WheelBoltTorque, Battery,
}

// units are the units each key's quantity may have; a key without units
// is text only (its quantity is always null).
var units = map[string][]string{
	EngineOilGrade:            nil,
	EngineOilCapacity:         {UnitLitre, UnitQuart},
	TyrePressureFront:         {UnitBar, UnitKPa, UnitPSI},
	TyrePressureRear:          {UnitBar, UnitKPa, UnitPSI},
	TyrePressureFrontFullLoad: {UnitBar, UnitKPa, UnitPSI},
	TyrePressureRearFullLoad:  {UnitBar, UnitKPa, UnitPSI},
	FuelGrade:                 {UnitRON},
	Coolant:                   nil,
	AdBlue:                    {UnitLitre},
	WheelBoltTorque:           {UnitNm, UnitLbFt},
	Battery:                   {UnitAh},
}

// Item is one specification: its value as the manual prints it, and when
// the value is a number with a unit, that number (a decimal with a point,
// "4.3") and its unit (l, qt, bar, kPa, psi, Nm, lb-ft, RON, Ah).
type Item struct {
	Key   string `json:"key"`
	Value string `json:"value"`
	// Quantity is nil when the value is no quantity ("SAE 0W-30", "G13").
	Quantity *string `json:"quantity"`
	Unit     string  `json:"unit"`
	Page     int     `json:"page"`
	// PageLabel is the page's printed label, absent when the PDF has none.
	PageLabel string `json:"pageLabel,omitempty"`
	// Quote is the sentence or table row of the page the item was read
	// from.
	Quote string `json:"quote"`
}

// Page is one page of a manual as the extraction reads it.
type Page = docpages.Page

// Modes of a Proposal.
const (
	ModeModel = "model" // a chat model read the pages (structured output)
	ModeRules = "rules" // no chat model: the rules of rules.go read them
)

// Proposal is the answer of POST /api/documents/:md5/specifications.
type Proposal struct {
	// Items are at most one per key, in the order of Keys.
	Items []Item `json:"items"`
	Mode  string `json:"mode"`
	// Pages are the page numbers considered, ascending.
	Pages []int `json:"pages"`
}

// Bounds of a proposal.
const (
	// MaxPages is how many pages are read: a manual prints its
	// specifications on one to four pages (technical data, capacities,
	// tyres, the fuel's page), as maintenance.MaxPages is counted.
	MaxPages = 6
	// QueryTopK is how many chunks each query retrieves.
	QueryTopK = 10
	// minQuantities is how many specification quantities (a number with
	// bar, kPa, psi, l, Nm, RON or Ah) make a page worth a model's
	// reading when the rules read nothing on it.
	minQuantities = 2
	// maxValueRunes bounds a value: a longer one is a sentence.
	maxValueRunes = 80
	// maxQuoteRunes bounds a quote, as the maintenance items'.
	maxQuoteRunes = 200
)

// Queries find the specifications' pages, in English, German, Chinese,
// French and Spanish (the rules read the first three; a model reads any).
var Queries = []string{
	"technical data specifications", "capacities engine oil viscosity", "tyre pressure front rear full load",
	"fuel octane RON", "wheel bolt tightening torque", "battery AdBlue tank",
	"Technische Daten Füllmengen", "Reifendruck vorn hinten", "Motoröl Viskosität Füllmenge", "Anzugsmoment Radschrauben",
	"技术参数", "轮胎气压", "机油 加注量", "燃油 标号", "车轮螺栓 拧紧力矩",
	"caractéristiques techniques pression des pneus", "datos técnicos presión de los neumáticos",
}

// Retriever finds a question's chunks (retrieval.Retriever).
type Retriever = docpages.Retriever

// Proposer proposes specifications. Model nil proposes by the rules.
type Proposer struct {
	Retriever Retriever
	Model     docqa.StructuredModel
	// Log, when set, gets how many of the model's items were dropped.
	Log *slog.Logger
}

// ErrModel wraps the errors of the chat model: it failed, or answered
// something other than the schema's document.
var ErrModel = errors.New("specs: the chat model")

// Propose reads the specifications of the document md5, which the caller
// has checked Reader(ctx) may read. Errors are the retriever's, and the
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
	if err != nil {
		return Proposal{}, fmt.Errorf("%w: its answer is %w: %w", ErrModel, err, docqa.ErrUnavailable)
	}
	if p.Log != nil {
		p.Log.InfoContext(ctx, "specifications proposed by the chat model", "kept", len(items), "dropped", dropped, "pages", out.Pages)
	}
	out.Items = items
	return out, nil
}

// Candidate is a page retrieval found, with its retrieval score.
type Candidate = docpages.Candidate

// candidates retrieves the chunks of md5 that the Queries find, and
// returns their pages: each page's text is its found chunks in document
// order, and its score the reciprocal rank fusion of the queries' ranks of
// its best chunk (as maintenance reads its pages).
func (p Proposer) candidates(ctx context.Context, md5 string) ([]Candidate, error) {
	return docpages.Find(ctx, p.Retriever, md5, Queries, QueryTopK)
}

// SelectPages keeps the candidates that print specifications: at least
// one item the rules read, or minQuantities specification quantities (for
// a model to read what the rules cannot). It ranks them by items read,
// then by retrieval score, then by quantities, keeps MaxPages, and returns
// them in page order.
func SelectPages(candidates []Candidate) []Page {
	type scored struct {
		Candidate
		items, quantities int
	}
	var keep []scored
	for _, c := range candidates {
		s := scored{Candidate: c, items: len(extractPage(c.Page)), quantities: len(quantities(normalizeSpaces(c.Text)))}
		if s.items > 0 || s.quantities >= minQuantities {
			keep = append(keep, s)
		}
	}
	slices.SortFunc(keep, func(a, b scored) int {
		return cmp.Or(cmp.Compare(b.items, a.items), cmp.Compare(b.Score, a.Score),
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

// Resolve keeps one item per key, in the order of Keys: the first of the
// key's items when they all agree (the same quantity and unit, or the same
// value when there is no quantity), none when they do not: two readings
// of one key are a guess, and a wrong number is worse than none.
func Resolve(items []Item) []Item {
	byKey := map[string][]Item{}
	for _, it := range items {
		byKey[it.Key] = append(byKey[it.Key], it)
	}
	out := []Item{}
	for _, k := range Keys {
		its := byKey[k]
		if len(its) == 0 {
			continue
		}
		first := its[0]
		if slices.ContainsFunc(its[1:], func(it Item) bool { return !agree(first, it) }) {
			continue
		}
		out = append(out, first)
	}
	return out
}

// agree reports whether a and b say the same.
func agree(a, b Item) bool {
	if a.Quantity != nil || b.Quantity != nil {
		return a.Quantity != nil && b.Quantity != nil && sameNumber(*a.Quantity, *b.Quantity) && a.Unit == b.Unit
	}
	return strings.EqualFold(collapseSpaces(a.Value), collapseSpaces(b.Value))
}

// Verified reports whether it holds up against page: a known key, a value
// of at most maxValueRunes, a unit the key allows (none for a text key),
// a quantity that is one of the value's numbers, and every number of the
// value printed on page (in either decimal separator; "1,200" also as
// 1200).
func Verified(it Item, page Page) bool {
	allowed, known := units[it.Key]
	value := collapseSpaces(it.Value)
	if !known || value == "" || len([]rune(value)) > maxValueRunes {
		return false
	}
	nums := valueNumbers(value)
	if it.Quantity == nil {
		if it.Unit != "" {
			return false
		}
	} else {
		if !slices.Contains(allowed, it.Unit) || !slices.ContainsFunc(nums, func(n string) bool { return sameNumber(n, *it.Quantity) }) {
			return false
		}
		// The value's own unit word, when it has one, is the unit.
		if qs := quantities(value); len(qs) > 0 && !slices.ContainsFunc(qs, func(q quantity) bool {
			return sameNumber(q.number, *it.Quantity) && q.unit == it.Unit
		}) {
			return false
		}
	}
	printed := pageNumbers(normalizeSpaces(page.Text))
	for _, n := range nums {
		if !printed[n] {
			return false
		}
	}
	return true
}

// newItem makes an item of page p.
func newItem(p Page, key, value string, q *quantity, quote string) Item {
	it := Item{Key: key, Value: collapseSpaces(value), Page: p.Number, PageLabel: p.Label, Quote: cutRunes(collapseSpaces(quote), maxQuoteRunes)}
	if q != nil {
		n := q.number
		it.Quantity, it.Unit = &n, q.unit
	}
	return it
}

// collapseSpaces makes every run of white space one space.
func collapseSpaces(s string) string { return strings.Join(strings.Fields(s), " ") }

// normalizeSpaces makes no-break and thin spaces plain ones.
func normalizeSpaces(s string) string {
	return strings.NewReplacer("\u00a0", " ", "\u202f", " ", "\u2009", " ", "\r", "").Replace(s)
}

// cutRunes returns s when it has at most n runes, else its first n−1 up to
// the last space among them (all of them when there is none, as in
// Chinese) and "…".
func cutRunes(s string, n int) string {
	rs := []rune(s)
	if len(rs) <= n {
		return s
	}
	head := rs[:n-1]
	for i := len(head) - 1; i > 0; i-- {
		if head[i] == ' ' {
			head = head[:i]
			break
		}
	}
	return strings.TrimRight(string(head), " ,;") + "…"
}
