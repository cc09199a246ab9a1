package httpapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/carhub/backend/pkg/apperr"
	"github.com/carhub/backend/services/fuel/internal/fuel"
)

// expenseRequest is the body of POST and PUT /api/expenses[/:id]; the
// read-only fields are ignored.
type expenseRequest struct {
	VehicleID optNumber `json:"vehicle_id"`
	Time      optString `json:"time"`
	Odometer  optNumber `json:"odometer"`
	Category  optString `json:"category"`
	Title     optString `json:"title"`
	Amount    optNumber `json:"amount"`
	Vendor    optString `json:"vendor"`
	Notes     optString `json:"notes"`
	Items     optItems  `json:"items"`
	Tags      optTags   `json:"tags"`
}

// itemRequest is one member of items.
type itemRequest struct {
	Name       optString `json:"name"`
	PartNumber optString `json:"part_number"`
	Quantity   optNumber `json:"quantity"`
	UnitPrice  optNumber `json:"unit_price"`
}

// optItems is the items member: an array of objects, each decoded with
// the member types, a wrong type named by its index
// ("items[1].quantity: must be a number").
type optItems struct {
	Set, Null bool
	V         []itemRequest
}

func (o *optItems) UnmarshalJSON(b []byte) error {
	*o = optItems{Set: true}
	if isNull(b) {
		o.Null = true
		return nil
	}
	var raw []json.RawMessage
	if b[0] != '[' || json.Unmarshal(b, &raw) != nil {
		return apperr.Invalid("items", "must be an array of objects")
	}
	o.V = make([]itemRequest, len(raw))
	for i, r := range raw {
		field := fmt.Sprintf("items[%d]", i)
		if len(r) == 0 || r[0] != '{' {
			return apperr.Invalid(field, "must be an object")
		}
		if err := json.Unmarshal(r, &o.V[i]); err != nil {
			var typ *json.UnmarshalTypeError
			if errors.As(err, &typ) && typ.Field != "" {
				what := "a string"
				if typ.Type == numberType {
					what = "a number"
				}
				return apperr.Invalid(field+"."+typ.Field, "must be %s", what)
			}
			return apperr.Invalid(field, "must be an object")
		}
	}
	return nil
}

// optTags is the tags member: an array of strings.
type optTags struct {
	Set, Null bool
	V         []string
}

func (o *optTags) UnmarshalJSON(b []byte) error {
	*o = optTags{Set: true}
	if isNull(b) {
		o.Null = true
		return nil
	}
	var raw []json.RawMessage
	if b[0] != '[' || json.Unmarshal(b, &raw) != nil {
		return apperr.Invalid("tags", "must be an array of strings")
	}
	o.V = make([]string, len(raw))
	for i, r := range raw {
		if len(r) == 0 || r[0] != '"' || json.Unmarshal(r, &o.V[i]) != nil {
			return apperr.Invalid(fmt.Sprintf("tags[%d]", i), "must be a string")
		}
	}
	return nil
}

// toExpenseUpdate is toRefuelUpdate for expense bodies: vehicle_id, time,
// category, title and amount are required; odometer null is "unknown";
// vendor, notes, items and tags null reset to empty. Unlike a refuel's,
// the error names every bad member at once: those that could not be read
// and those that break a rule of their own (fuel.Expense.ValidateFields).
func (req expenseRequest) toExpenseUpdate(create bool) (fuel.ExpenseUpdate, error) {
	b := members{create: create}
	u := fuel.ExpenseUpdate{
		VehicleID: b.id("vehicle_id", req.VehicleID),
		Time:      b.time("time", req.Time),
		Odometer:  b.nullDecimal("odometer", req.Odometer),
		Category:  b.str("category", req.Category, true),
		Title:     b.str("title", req.Title, true),
		Amount:    b.decimal("amount", req.Amount, true),
		Vendor:    b.str("vendor", req.Vendor, false),
		Notes:     b.str("notes", req.Notes, false),
		Items:     b.items("items", req.Items),
		Tags:      b.tags("tags", req.Tags),
	}
	// The rules of the members read are checked here as well, so that one
	// answer names a blank title beside an amount that could not be read;
	// the store checks the whole record again.
	var e fuel.Expense
	u.Apply(&e)
	e.Items, e.Tags = slices.Clone(e.Items), slices.Clone(e.Tags) // Normalize works in place
	e.Normalize()
	b.errs = append(b.errs, e.ValidateFields(b.known(u.Sets))...)
	inMemberOrder[expenseRequest](b.errs)
	return u, b.err()
}

func (m *members) items(field string, o optItems) *[]fuel.ExpenseItem {
	if !o.Set {
		return nil
	}
	out := []fuel.ExpenseItem{}
	for i, it := range o.V {
		p := fmt.Sprintf("%s[%d].", field, i)
		// Items are whole values, not patches: their members are read as
		// on a create.
		im := members{create: true}
		name := im.str(p+"name", it.Name, true)
		part := im.str(p+"part_number", it.PartNumber, false)
		qty := im.decimal(p+"quantity", it.Quantity, true)
		price := im.decimal(p+"unit_price", it.UnitPrice, true)
		m.errs = append(m.errs, im.errs...)
		// An item keeps its index when a member could not be read (that
		// member zero, and the patch refused): the rules of its other
		// members then name the right item.
		out = append(out, fuel.ExpenseItem{Name: valueOf(name), PartNumber: valueOf(part), Quantity: valueOf(qty), UnitPrice: valueOf(price)})
	}
	return &out
}

// valueOf is *p, or the zero value for nil.
func valueOf[T any](p *T) T {
	if p == nil {
		var zero T
		return zero
	}
	return *p
}

func (m *members) tags(_ string, o optTags) *[]string {
	if !o.Set {
		return nil
	}
	out := append([]string{}, o.V...)
	return &out
}

// expenseResponse is an expense as the API answers it.
type expenseResponse struct {
	ID        uint64         `json:"id"`
	VehicleID uint64         `json:"vehicle_id"`
	Time      string         `json:"time"`
	Odometer  *json.Number   `json:"odometer"`
	Category  string         `json:"category"`
	Title     string         `json:"title"`
	Amount    json.Number    `json:"amount"`
	Vendor    string         `json:"vendor"`
	Notes     string         `json:"notes"`
	Items     []itemResponse `json:"items"`
	Tags      []string       `json:"tags"`
	CreatedAt string         `json:"created_at"`
	UpdatedAt string         `json:"updated_at"`
}

type itemResponse struct {
	Name       string      `json:"name"`
	PartNumber string      `json:"part_number"`
	Quantity   json.Number `json:"quantity"`
	UnitPrice  json.Number `json:"unit_price"`
}

func toExpenseResponse(e fuel.Expense) expenseResponse {
	out := expenseResponse{
		ID:        e.ID,
		VehicleID: e.VehicleID,
		Time:      formatTime(e.Time),
		Odometer:  nullNumber(e.Odometer),
		Category:  e.Category,
		Title:     e.Title,
		Amount:    number(e.Amount),
		Vendor:    e.Vendor,
		Notes:     e.Notes,
		Items:     make([]itemResponse, len(e.Items)),
		Tags:      e.Tags,
		CreatedAt: formatTime(e.CreatedAt),
		UpdatedAt: formatTime(e.UpdatedAt),
	}
	if out.Tags == nil {
		out.Tags = []string{}
	}
	for i, it := range e.Items {
		out.Items[i] = itemResponse{Name: it.Name, PartNumber: it.PartNumber, Quantity: number(it.Quantity), UnitPrice: number(it.UnitPrice)}
	}
	return out
}
