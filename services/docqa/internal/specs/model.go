package specs

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/carhub/backend/services/docqa/internal/docqa"
)

// Schema is the structured output asked of a chat model: the items, each
// with the page it cites. Strict mode wants every property required and
// no others.
var Schema = docqa.Schema{
	Name:        "specifications",
	Description: "The specifications of a car's owner's manual, each with the page that prints it.",
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
					"required":             []any{"key", "value", "quantity", "unit", "page", "quote"},
					"properties": map[string]any{
						"key":      map[string]any{"type": "string", "enum": anySlice(Keys)},
						"value":    map[string]any{"type": "string", "description": "As printed, e.g. \"SAE 0W-30\", \"4.3 l\", \"2,3 bar\"."},
						"quantity": map[string]any{"type": []any{"string", "null"}, "description": "The value's number as a decimal with a point (\"2.3\"); null when the value is no number with a unit."},
						"unit":     map[string]any{"type": "string", "enum": []any{"", UnitLitre, UnitQuart, UnitBar, UnitKPa, UnitPSI, UnitNm, UnitLbFt, UnitRON, UnitAh}},
						"page":     map[string]any{"type": "integer", "description": "The number of the page that prints the item."},
						"quote":    map[string]any{"type": "string", "description": "The sentence or table row of that page, copied."},
					},
				},
			},
		},
	},
}

func anySlice(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// systemPrompt tells the model what to read and what not to invent.
const systemPrompt = `You read pages of a car's owner's manual and list its specifications, each at most once:
- engine_oil_grade: the SAE viscosity grade ("SAE 0W-30"); engine_oil_capacity: the engine oil's capacity with the filter changed (l or qt);
- tyre_pressure_front, tyre_pressure_rear: the cold tyre pressures at normal load; tyre_pressure_front_full_load, tyre_pressure_rear_full_load: at full load (bar, kPa or psi). Not the spare wheel's, not a maximum printed on the tyre;
- fuel_grade: the octane rating (RON; "95 ROZ" and "95号" are RON), or for a diesel the fuel's name and standard; coolant: the coolant's specification ("G13"), not its capacity;
- adblue: the AdBlue tank's capacity (l); wheel_bolt_torque: the wheel bolts' tightening torque (Nm or lb-ft), not the engine's torque; battery: its capacity (Ah).
Rules:
- value: as printed, copied. When a quantity is printed in two units ("2.3 bar (33 psi)"), the first one printed.
- quantity: the value's number as a decimal with a point ("2,3 bar" is "2.3"), unit its unit; quantity null and unit "" for a value that is no number with a unit.
- page: the number of the page it is printed on, from its "Page N" header. quote: the sentence or table row, copied.
- Leave a key out when the pages do not print it or you are not sure: a wrong number is worse than none.`

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

// modelItem is an item as the schema has the model write it.
type modelItem struct {
	Key      string  `json:"key"`
	Value    string  `json:"value"`
	Quantity *string `json:"quantity"`
	Unit     string  `json:"unit"`
	Page     int     `json:"page"`
	Quote    string  `json:"quote"`
}

// errNoItems: the answer is JSON but not the schema's object.
var errNoItems = errors.New(`not an object with an "items" list`)

// FromModel reads a model's answer to Messages(pages) and keeps the items
// that hold up: a page among pages and Verified against it (a known key,
// a unit the key allows, the quantity one of the value's numbers, every
// number printed on that page). A quantity with a decimal comma is read
// with a point. The others are dropped, never shown. A quote the page does
// not hold is replaced by the page's line that prints the value, or its
// first number. Resolve then keeps one item per key, none where the kept
// items disagree. dropped counts the items left out by the check (not
// those Resolve leaves out). The error says why raw is not the schema's
// document.
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
		if !ok {
			dropped++
			continue
		}
		it := Item{Key: m.Key, Value: collapseSpaces(m.Value), Unit: m.Unit, Page: page.Number, PageLabel: page.Label, Quote: collapseSpaces(m.Quote)}
		if m.Quantity != nil {
			q := strings.Replace(strings.TrimSpace(*m.Quantity), ",", ".", 1)
			if n, ok := parseDecimal(q); !ok || strings.ContainsAny(q, " ") || n == "" {
				dropped++
				continue
			}
			it.Quantity = &q
		}
		if !Verified(it, page) {
			dropped++
			continue
		}
		text := collapseSpaces(normalizeSpaces(page.Text))
		if it.Quote == "" || !strings.Contains(text, it.Quote) {
			it.Quote = lineWith(page.Text, it.Value)
		}
		it.Quote = cutRunes(it.Quote, maxQuoteRunes)
		out = append(out, it)
	}
	return Resolve(out), dropped, nil
}

// lineWith returns the first of the page's lines that holds value, else
// the first that prints value's first number, "" when none does.
func lineWith(text, value string) string {
	ls := lines(text)
	for _, l := range ls {
		if strings.Contains(collapseSpaces(l), value) {
			return collapseSpaces(l)
		}
	}
	nums := valueNumbers(value)
	if len(nums) == 0 {
		return ""
	}
	for _, l := range ls {
		if pageNumbers(l)[nums[0]] {
			return collapseSpaces(l)
		}
	}
	return ""
}
