package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/carhub/backend/pkg/apperr"
	"github.com/carhub/backend/pkg/ginx"
	"github.com/carhub/backend/services/fuel/internal/expensecsv"
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

func (a *API) createExpense(c *gin.Context) {
	a.create(c, func(body io.Reader) (creator, error) {
		var req expenseRequest
		if err := ginx.DecodeJSON(body, &req); err != nil {
			return nil, err
		}
		u, err := req.toExpenseUpdate(true)
		if err != nil {
			return nil, err
		}
		return func(ctx context.Context, st fuel.Store) (any, error) {
			var e fuel.Expense
			u.Apply(&e)
			if err := st.CreateExpense(ctx, &e); err != nil {
				return nil, err
			}
			return toExpenseResponse(e), nil
		}, nil
	})
}

func (a *API) getExpense(c *gin.Context) {
	id, err := pathID(c)
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	e, err := a.store.Expense(c.Request.Context(), id)
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	c.JSON(http.StatusOK, toExpenseResponse(e))
}

func (a *API) updateExpense(c *gin.Context) {
	id, err := pathID(c)
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	var req expenseRequest
	if err := ginx.BindJSON(c, &req); err != nil {
		ginx.Fail(c, err)
		return
	}
	u, err := req.toExpenseUpdate(false)
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	e, err := a.store.UpdateExpense(c.Request.Context(), id, u)
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	c.JSON(http.StatusOK, toExpenseResponse(e))
}

func (a *API) deleteExpense(c *gin.Context) {
	id, err := pathID(c)
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	if err := a.store.DeleteExpense(c.Request.Context(), id); err != nil {
		ginx.Fail(c, err)
		return
	}
	c.Status(http.StatusNoContent)
}

func (a *API) listExpenses(c *gin.Context) {
	f, err := expenseFilter(c.Request.URL.Query())
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	es, err := a.store.ListExpenses(c.Request.Context(), f)
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	out := make([]expenseResponse, len(es))
	for i, e := range es {
		out[i] = toExpenseResponse(e)
	}
	c.JSON(http.StatusOK, out)
}

// expenseFilter reads the query of GET /api/expenses: the list query of
// refuels plus an optional category.
func expenseFilter(q url.Values) (fuel.ExpenseFilter, error) {
	l, err := readListQuery(q)
	if err != nil {
		return fuel.ExpenseFilter{}, err
	}
	f := fuel.ExpenseFilter{VehicleID: l.vehicleID, Start: l.start, End: l.end, Limit: l.limit, Offset: l.offset}
	raw, ok, err := queryParam(q, "category")
	if err != nil || !ok {
		return f, err
	}
	f.Category, err = fuel.ParseExpenseCategory("category", raw)
	return f, err
}

// categoryTotalResponse is one category of expenses_by_category.
type categoryTotalResponse struct {
	Category string      `json:"category"`
	Records  int64       `json:"records"`
	Amount   json.Number `json:"amount"`
}

func toCategoryTotals(cs []fuel.CategoryTotal) []categoryTotalResponse {
	out := make([]categoryTotalResponse, len(cs))
	for i, c := range cs {
		out[i] = categoryTotalResponse{Category: c.Category, Records: c.Records, Amount: number(c.Amount)}
	}
	return out
}

// costFields are the money fields of a vehicle's or a currency's costs.
type costFields struct {
	FuelRecords        int64                   `json:"fuel_records"`
	FuelAmount         json.Number             `json:"fuel_amount"`
	ExpenseRecords     int64                   `json:"expense_records"`
	ExpensesAmount     json.Number             `json:"expenses_amount"`
	ExpensesByCategory []categoryTotalResponse `json:"expenses_by_category"`
	TotalCost          json.Number             `json:"total_cost"`
	Distance           json.Number             `json:"distance"`
	TotalCostPerKm     json.Number             `json:"total_cost_per_km"`
}

// vehicleCostResponse is one vehicle of GET /api/statistics.
type vehicleCostResponse struct {
	VehicleID uint64  `json:"vehicle_id"`
	Name      string  `json:"name"`
	Role      string  `json:"role"`
	Currency  *string `json:"currency"`
	costFields
}

// costTotalsResponse is one currency's totals of GET /api/statistics.
type costTotalsResponse struct {
	Currency *string `json:"currency"`
	Vehicles int     `json:"vehicles"`
	costFields
}

// costStatisticsResponse is the answer of GET /api/statistics.
type costStatisticsResponse struct {
	StartDate *string               `json:"start_date"`
	EndDate   *string               `json:"end_date"`
	Vehicles  []vehicleCostResponse `json:"vehicles"`
	Totals    []costTotalsResponse  `json:"totals"`
}

func (a *API) costStatistics(c *gin.Context) {
	start, end, err := dateRange(c.Request.URL.Query())
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	cs, err := a.store.CostStatistics(c.Request.Context(), start, end)
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	out := costStatisticsResponse{
		StartDate: optTime(start), EndDate: optTime(end),
		Vehicles: make([]vehicleCostResponse, len(cs.Vehicles)), Totals: make([]costTotalsResponse, len(cs.Totals)),
	}
	for i, v := range cs.Vehicles {
		out.Vehicles[i] = vehicleCostResponse{
			VehicleID: v.VehicleID, Name: v.Name, Role: string(v.Role), Currency: nullIfEmpty(v.Currency),
			costFields: costFields{
				FuelRecords: v.FuelRecords, FuelAmount: number(v.FuelAmount), ExpenseRecords: v.ExpenseRecords,
				ExpensesAmount: number(v.ExpensesAmount), ExpensesByCategory: toCategoryTotals(v.ExpensesByCategory),
				TotalCost: number(v.TotalCost), Distance: number(v.Distance), TotalCostPerKm: number(v.TotalCostPerKm),
			},
		}
	}
	for i, t := range cs.Totals {
		out.Totals[i] = costTotalsResponse{
			Currency: nullIfEmpty(t.Currency), Vehicles: t.Vehicles,
			costFields: costFields{
				FuelRecords: t.FuelRecords, FuelAmount: number(t.FuelAmount), ExpenseRecords: t.ExpenseRecords,
				ExpensesAmount: number(t.ExpensesAmount), ExpensesByCategory: toCategoryTotals(t.ExpensesByCategory),
				TotalCost: number(t.TotalCost), Distance: number(t.Distance), TotalCostPerKm: number(t.TotalCostPerKm),
			},
		}
	}
	c.JSON(http.StatusOK, out)
}

func optTime(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := formatTime(*t)
	return &s
}

func (a *API) exportExpenses(c *gin.Context) {
	exportCSV(a, c, "expenses", func(w io.Writer, spreadsheet, decimalComma bool, loc *time.Location) *expensecsv.Writer {
		if spreadsheet {
			return expensecsv.NewSpreadsheetWriter(w, decimalComma).InZone(loc)
		}
		return expensecsv.NewWriter(w).InZone(loc)
	}, a.store.ExportExpenses)
}

// expenseImportResponse is importResponse plus the format read and the
// rows that are no expense (Fuelio's income and reminder templates).
type expenseImportResponse struct {
	importResponse
	Format  string `json:"format"`
	Ignored int    `json:"ignored"`
}

// importExpenses reads a CSV file of expenses (expensecsv.Read: ours,
// LubeLogger's, Fuelio's) with the refuel import's rules: all or nothing,
// dry_run, encoding, tz.
func (a *API) importExpenses(c *gin.Context) {
	id, err := pathID(c)
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	q := c.Request.URL.Query()
	opts := expensecsv.Options{VehicleID: id, RecordType: q.Get("record_type"), DateFormat: q.Get("date_format"), DistanceUnit: q.Get("distance_unit")}
	in, err := a.readImport(c, id, opts.Check(), func(fuel.Vehicle) {})
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	opts.Location = in.location
	res, err := expensecsv.Read(bytes.NewReader(in.text), opts)
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	if res.BadRows > 0 {
		badRows(c, res.Rows, res.BadRows, res.Errors)
		return
	}
	out, err := a.store.ImportExpenses(c.Request.Context(), id, res.Expenses, in.dryRun)
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	c.JSON(http.StatusOK, expenseImportResponse{
		importResponse: importResponse{Imported: out.Imported, Skipped: out.Skipped, Rows: res.Rows, DryRun: in.dryRun, Encoding: in.encoding},
		Format:         res.Format, Ignored: res.Ignored,
	})
}
