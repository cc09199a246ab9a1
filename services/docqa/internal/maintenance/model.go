package maintenance

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/carhub/backend/services/docqa/internal/docqa"
)

// nullableInteger is an interval: a whole number, or null when the manual
// gives none.
var nullableInteger = map[string]any{"type": []any{"integer", "null"}}

// Schema is the structured output asked of a chat model: the items, each
// with the page it cites. Strict mode wants every property required and
// no others.
var Schema = docqa.Schema{
	Name:        "maintenance_schedule",
	Description: "The maintenance items of a car's owner's manual, each with the page that prints it.",
	Schema: map[string]any{
		"type":                 "object",
		"additionalProperties": false,
		"required":             []any{"items"},
		"properties": map[string]any{
			"items": map[string]any{
				"type": "array",
				"items": map[string]any{
					"type":                 "object",
					"additionalProperties": false,
					"required":             []any{"title", "every_km", "every_miles", "every_months", "conditions", "page", "quote"},
					"properties": map[string]any{
						"title":        map[string]any{"type": "string", "description": "The task, in the manual's language, e.g. \"Engine oil and filter\"."},
						"every_km":     nullableInteger,
						"every_miles":  nullableInteger,
						"every_months": nullableInteger,
						"conditions":   map[string]any{"type": "string", "description": "When the interval applies, as printed (e.g. severe conditions); empty when always."},
						"page":         map[string]any{"type": "integer", "description": "The number of the page that prints the item."},
						"quote":        map[string]any{"type": "string", "description": "The sentence or table row of that page, copied."},
					},
				},
			},
		},
	},
}

// systemPrompt tells the model what to read and what not to invent.
const systemPrompt = `You read pages of a car's owner's manual and list its maintenance schedule: each task the manual says to do at a regular interval of distance or time.
Rules:
- Only intervals the page prints ("every 15,000 km or 12 months", a table row with km, miles and months columns). A one-time distance (first inspection at 1,000 km), a warranty, a speed, a capacity or a consumption is not an interval.
- every_km, every_miles and every_months are whole numbers as printed, without separators (15.000 km is 15000); years are months times 12; null when the manual gives none.
- conditions: when the interval applies if not always, as printed ("Under severe conditions (towing, dusty roads)"); "" otherwise.
- page: the number of the page the item is printed on, from its "Page N" header. quote: the sentence or table row it comes from, copied.
- title in the manual's language. List each task once per interval and condition.`

// Messages are the prompt for pages: the instructions, then each page's
// text under a "Page N" header.
func Messages(pages []Page) []docqa.Message {
	var b strings.Builder
	for i, p := range pages {
		if i > 0 {
			b.WriteString("\n\n")
		}
		fmt.Fprintf(&b, "Page %d", p.Number)
		if p.Label != "" {
			fmt.Fprintf(&b, " (printed %q)", p.Label)
		}
		b.WriteString(":\n")
		b.WriteString(strings.TrimSpace(p.Text))
	}
	return []docqa.Message{
		{Role: docqa.RoleSystem, Content: systemPrompt},
		{Role: docqa.RoleUser, Content: b.String()},
	}
}

// modelItem is an item as the schema has the model write it. Numbers are
// read as floats so that "15000.0" is read and "15.5" refused.
type modelItem struct {
	Title       string   `json:"title"`
	EveryKm     *float64 `json:"every_km"`
	EveryMiles  *float64 `json:"every_miles"`
	EveryMonths *float64 `json:"every_months"`
	Conditions  string   `json:"conditions"`
	Page        int      `json:"page"`
	Quote       string   `json:"quote"`
}

// errNoItems: the answer is JSON but not the schema's object.
var errNoItems = errors.New(`not an object with an "items" list`)

// FromModel reads a model's answer to Messages(pages) and keeps the items
// that hold up: a title, at least one interval, every interval a whole
// positive number, a page among pages, and every interval printed on that
// page (Verified). The others are dropped, never shown. A quote the page
// does not hold is replaced by the page's line that prints the item's
// first interval. The kept items are deduplicated, in the model's order.
// dropped counts the items left out (duplicates not included). The error
// says why raw is not the schema's document.
func FromModel(raw []byte, pages []Page) (_ []Item, dropped int, _ error) {
	var doc struct {
		Items *[]modelItem `json:"items"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, 0, fmt.Errorf("not JSON: %w", err)
	}
	if doc.Items == nil {
		return nil, 0, errNoItems
	}
	byNumber := make(map[int]Page, len(pages))
	for _, p := range pages {
		byNumber[p.Number] = p
	}
	var out []Item
	for _, m := range *doc.Items {
		page, ok := byNumber[m.Page]
		title := strings.TrimSpace(m.Title)
		if !ok || title == "" || len([]rune(title)) > maxTitleRunes {
			dropped++
			continue
		}
		km, okKm := whole(m.EveryKm)
		miles, okMiles := whole(m.EveryMiles)
		months, okMonths := whole(m.EveryMonths)
		if !okKm || !okMiles || !okMonths {
			dropped++
			continue
		}
		it := newItem(page, title, strings.TrimSpace(m.Conditions), interval{km: km, miles: miles, months: months}, m.Quote)
		if !Verified(it, page) {
			dropped++
			continue
		}
		if it.Quote == "" || !strings.Contains(collapseSpaces(normalizeSpaces(page.Text)), it.Quote) {
			it.Quote = lineWith(page.Text, firstInterval(it))
		}
		it.Conditions = truncateRunes(it.Conditions, maxTitleRunes)
		out = append(out, it)
	}
	return Dedupe(out), dropped, nil
}

// whole reads an interval: nil is none (0); a positive whole number below
// ten million is itself; anything else is not ok.
func whole(f *float64) (int, bool) {
	if f == nil {
		return 0, true
	}
	if *f <= 0 || *f >= 1e7 || *f != math.Trunc(*f) {
		return 0, false
	}
	return int(*f), true
}

// firstInterval is the item's first interval, km before miles before months.
func firstInterval(it Item) int {
	for _, p := range []*int{it.EveryKm, it.EveryMiles, it.EveryMonths} {
		if p != nil {
			return *p
		}
	}
	return 0
}
