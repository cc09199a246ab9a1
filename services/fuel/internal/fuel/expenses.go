package fuel

import (
	"context"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"time"

	"github.com/carhub/backend/pkg/apperr"
	"github.com/shopspring/decimal"
)

// Bounds of an expense's fields (proto-docs/fuel-decisions.md, "Expenses").
const (
	MaxExpenseTitleLen  = 200
	MaxExpenseVendorLen = 128
	MaxExpenseNotesLen  = 2000
	MaxExpenseItems     = 50
	MaxItemNameLen      = 128
	MaxItemPartLen      = 64
	MaxExpenseTags      = 20
	MaxTagLen           = 32
)

// ExpenseCategories are the allowed values of Expense.Category, in the
// order the API lists them.
var ExpenseCategories = []string{
	"service", "repair", "tyres", "inspection", "insurance", "tax",
	"parking", "toll", "wash", "fine", "accessory", "other",
}

// ErrExpenseNotFound is the error for an expense that does not exist or
// that the caller may not see.
var ErrExpenseNotFound = apperr.New(apperr.NotFound, "expense not found")

// ExpenseItem is one line of a service or repair bill: a part or a piece
// of labour. Quantity is at QuantityScale places, UnitPrice at PriceScale.
type ExpenseItem struct {
	Name       string
	PartNumber string
	Quantity   decimal.Decimal
	UnitPrice  decimal.Decimal
}

// Expense is a cost of a vehicle other than fuel: a service record, a
// repair, insurance, a toll. Amount is what was paid, in the home currency
// of the vehicle's owner; it need not equal the sum of the items (a bill
// has discounts, tax and lines the owner did not log).
type Expense struct {
	ID        uint64
	VehicleID uint64
	Time      time.Time
	// Odometer is the reading when the work was done, when known. It is
	// not checked against the refuels' readings: a service is often
	// logged weeks later, and its reading (from the invoice) may lie below
	// a refuel logged since.
	Odometer  decimal.NullDecimal
	Category  string
	Title     string
	Amount    decimal.Decimal
	Vendor    string
	Notes     string
	Items     []ExpenseItem // never nil once normalized
	Tags      []string      // never nil once normalized
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Normalize rounds the quantities to the stored scale, brings Time to UTC
// at microsecond precision, trims the tags and makes nil lists empty, so
// that what a write answers is what a later read returns.
func (e *Expense) Normalize() {
	e.Time = NormalizeTime(e.Time)
	if e.Odometer.Valid {
		e.Odometer.Decimal = RoundQuantity(e.Odometer.Decimal)
	}
	e.Amount = RoundQuantity(e.Amount)
	if e.Items == nil {
		e.Items = []ExpenseItem{}
	}
	for i := range e.Items {
		e.Items[i].Quantity = RoundQuantity(e.Items[i].Quantity)
		e.Items[i].UnitPrice = e.Items[i].UnitPrice.Round(PriceScale)
	}
	if e.Tags == nil {
		e.Tags = []string{}
	}
	for i := range e.Tags {
		e.Tags[i] = strings.TrimSpace(e.Tags[i])
	}
}

// Validate reports every field that breaks a rule, as Refuel.Validate
// does; items and tags are named by their index (items[2].quantity,
// tags[0]).
func (e *Expense) Validate() error { return apperr.Join(e.ValidateFields(everyField)...) }

// ValidateFields is Validate restricted to the members known reports, by
// their JSON names (title, items, and items[2].quantity for a member of
// an item): the check of a body before the store completes its record,
// when some members could not be read or a patch leaves others as they
// are stored. Every rule of an expense reads one member, so each is
// checked on its own. The errors come one per bad member, in the order of
// the field table.
func (e *Expense) ValidateFields(known func(field string) bool) []error {
	var errs []error
	check := func(field string, err error) {
		if known(field) {
			errs = append(errs, err)
		}
	}
	check("vehicle_id", refuelVehicleID(e.VehicleID))
	check("time", expenseTime(e.Time))
	if e.Odometer.Valid {
		check("odometer", quantity("odometer", e.Odometer.Decimal, false))
	}
	check("category", expenseCategory("category", e.Category))
	check("title", requiredString("title", e.Title, MaxExpenseTitleLen))
	check("amount", quantity("amount", e.Amount, false))
	check("vendor", optionalString("vendor", e.Vendor, MaxExpenseVendorLen))
	check("notes", optionalString("notes", e.Notes, MaxExpenseNotesLen))
	if known("items") {
		errs = append(errs, e.validateItems(known)...)
	}
	if known("tags") {
		errs = append(errs, e.validateTags()...)
	}
	return errs
}

// everyField is the known of a whole record: every member.
func everyField(string) bool { return true }

// validateItems checks the list and the members of each item that known
// reports (items[2].quantity).
func (e *Expense) validateItems(known func(string) bool) []error {
	var errs []error
	if len(e.Items) > MaxExpenseItems {
		errs = append(errs, apperr.Invalid("items", "must have at most %d entries (got %d)", MaxExpenseItems, len(e.Items)))
	}
	check := func(field string, err error) {
		if known(field) {
			errs = append(errs, err)
		}
	}
	for i, it := range e.Items {
		p := fmt.Sprintf("items[%d].", i)
		check(p+"name", requiredString(p+"name", it.Name, MaxItemNameLen))
		check(p+"part_number", optionalString(p+"part_number", it.PartNumber, MaxItemPartLen))
		check(p+"quantity", quantity(p+"quantity", it.Quantity, true))
		check(p+"unit_price", quantity(p+"unit_price", it.UnitPrice, false))
	}
	return errs
}

func (e *Expense) validateTags() []error {
	var errs []error
	if len(e.Tags) > MaxExpenseTags {
		errs = append(errs, apperr.Invalid("tags", "must have at most %d entries (got %d)", MaxExpenseTags, len(e.Tags)))
	}
	seen := make(map[string]int, len(e.Tags))
	for i, t := range e.Tags {
		field := fmt.Sprintf("tags[%d]", i)
		if err := requiredString(field, t, MaxTagLen); err != nil {
			errs = append(errs, err)
			continue
		}
		key := strings.ToLower(t)
		if j, dup := seen[key]; dup {
			errs = append(errs, apperr.Invalid(field, "repeats tags[%d] (tags are compared ignoring case)", j))
			continue
		}
		seen[key] = i
	}
	return errs
}

func expenseTime(t time.Time) error {
	switch {
	case t.IsZero():
		return apperr.Invalid("time", "is required")
	case t.Before(MinTime) || t.After(MaxTime):
		return apperr.Invalid("time", "must lie between 1900-01-01T00:00:00Z and 9999-12-31T23:59:59.999999Z")
	}
	return nil
}

// ParseExpenseCategory reads a category, as given in field (for the
// error).
func ParseExpenseCategory(field, s string) (string, error) {
	if err := expenseCategory(field, s); err != nil {
		return "", err
	}
	return s, nil
}

func expenseCategory(field, s string) error {
	for _, c := range ExpenseCategories {
		if s == c {
			return nil
		}
	}
	if strings.TrimSpace(s) == "" {
		return apperr.Invalid(field, "is required")
	}
	return apperr.Invalid(field, "must be one of %s", strings.Join(ExpenseCategories, ", "))
}

// ExpenseUpdate is a patch: nil fields are left unchanged. Items and Tags
// replace the whole list.
type ExpenseUpdate struct {
	VehicleID *uint64
	Time      *time.Time
	Odometer  *decimal.NullDecimal
	Category  *string
	Title     *string
	Amount    *decimal.Decimal
	Vendor    *string
	Notes     *string
	Items     *[]ExpenseItem
	Tags      *[]string
}

// Sets reports whether u changes the member field (a JSON member name).
func (u ExpenseUpdate) Sets(field string) bool {
	switch field {
	case "vehicle_id":
		return u.VehicleID != nil
	case "time":
		return u.Time != nil
	case "odometer":
		return u.Odometer != nil
	case "category":
		return u.Category != nil
	case "title":
		return u.Title != nil
	case "amount":
		return u.Amount != nil
	case "vendor":
		return u.Vendor != nil
	case "notes":
		return u.Notes != nil
	case "items":
		return u.Items != nil
	case "tags":
		return u.Tags != nil
	}
	return false
}

// Apply copies the set fields of u onto e.
func (u ExpenseUpdate) Apply(e *Expense) {
	set(&e.VehicleID, u.VehicleID)
	set(&e.Time, u.Time)
	set(&e.Odometer, u.Odometer)
	set(&e.Category, u.Category)
	set(&e.Title, u.Title)
	set(&e.Amount, u.Amount)
	set(&e.Vendor, u.Vendor)
	set(&e.Notes, u.Notes)
	set(&e.Items, u.Items)
	set(&e.Tags, u.Tags)
}

// ExpenseFilter selects the expenses of GET /api/expenses: one vehicle's,
// of Category when it is set, with Time in [Start, End] (nil: unbounded).
// Limit 0 means all.
type ExpenseFilter struct {
	VehicleID uint64
	Category  string
	Start     *time.Time
	End       *time.Time
	Limit     int
	Offset    int
}

// ExpenseStore keeps the expenses, with the refuels' rules of access (see
// Store): reads need any role on the expense's vehicle, writes owner or
// editor. Methods return ErrExpenseNotFound for an absent id or one the
// caller may not see, ErrUnknownVehicle for an expense naming a vehicle the
// caller may not see, ErrForbidden for a write the caller's role does not
// allow, the error of Validate for an invalid value (nothing is written
// then), and other errors only for failures of the database.
type ExpenseStore interface {
	// CreateExpense normalizes and validates e, stores it and fills in its
	// id and timestamps.
	CreateExpense(ctx context.Context, e *Expense) error
	Expense(ctx context.Context, id uint64) (Expense, error)
	// UpdateExpense applies u in one transaction; the caller must be
	// allowed to write both the old and, when it moves, the new vehicle.
	UpdateExpense(ctx context.Context, id uint64, u ExpenseUpdate) (Expense, error)
	DeleteExpense(ctx context.Context, id uint64) error
	// ListExpenses returns the expenses matching f, newest first (time
	// descending, then id descending). An unknown vehicle has none.
	ListExpenses(ctx context.Context, f ExpenseFilter) ([]Expense, error)
	// CostStatistics returns the cost of every vehicle the caller may
	// read (its refuels and expenses with time in [start, end], nil:
	// unbounded), by vehicle id, and their totals per currency.
	CostStatistics(ctx context.Context, start, end *time.Time) (CostStatistics, error)
	// ExportExpenses calls fn with every expense of the vehicle in (time,
	// id) order, as ExportRefuels does; ErrVehicleNotFound when the
	// caller may not see it.
	ExportExpenses(ctx context.Context, vehicleID uint64, fn func(Expense) error) error
	// ImportExpenses stores es (normalized and valid) for the vehicle in
	// one transaction, skipping each equal to one stored before the import
	// (same time, category, title, amount and odometer); with dryRun
	// nothing is stored. The caller must own or edit the vehicle.
	ImportExpenses(ctx context.Context, vehicleID uint64, es []Expense, dryRun bool) (ImportResult, error)
}

// ConvertExpense applies c to an expense of a vehicle the caller owns and
// reports whether its stored values change: in convert mode its amount
// and its items' unit prices, which are in the home currency; relabelling
// changes nothing. The error names the rate when a converted amount
// leaves the storage's range.
func (c CurrencyChange) ConvertExpense(e *Expense) (bool, error) {
	if c.Mode != CurrencyConvert {
		return false, nil
	}
	e.Amount = c.Convert(e.Amount)
	for i := range e.Items {
		p := e.Items[i].UnitPrice
		if c.Inverse {
			p = p.DivRound(c.Rate, PriceScale)
		} else {
			p = p.Mul(c.Rate).Round(PriceScale)
		}
		e.Items[i].UnitPrice = p
		if p.GreaterThan(MaxQuantity) {
			return false, apperr.Invalid("rate", "converts a unit price of expense %d to more than %s", e.ID, MaxQuantity)
		}
	}
	if e.Amount.GreaterThan(MaxQuantity) {
		return false, apperr.Invalid("rate", "converts the amount of expense %d to more than %s", e.ID, MaxQuantity)
	}
	return true, nil
}

// CategoryTotal is what was spent in one expense category.
type CategoryTotal struct {
	Category string
	Records  int64
	Amount   decimal.Decimal
}

// ExpenseTotals sums expenses exactly, in thousandths (QuantityScale), by
// category and by calendar month of a zone. The zero value counts no
// months; use NewExpenseTotals for them.
type ExpenseTotals struct {
	n      int64
	total  sum
	byCat  [16]categoryAcc // indexed as ExpenseCategories
	loc    *time.Location
	months map[string]*sum // "2024-03"
}

type categoryAcc struct {
	n      int64
	amount sum
}

// NewExpenseTotals returns totals that also bucket by the calendar months
// of loc (nil: no months).
func NewExpenseTotals(loc *time.Location) *ExpenseTotals {
	t := &ExpenseTotals{loc: loc}
	if loc != nil {
		t.months = map[string]*sum{}
	}
	return t
}

// Add counts an expense of category paid at time at, amount in
// thousandths. A category outside ExpenseCategories counts as other (the
// schema allows none).
func (t *ExpenseTotals) Add(at time.Time, category string, amount int64) {
	t.n++
	t.total.add(amount)
	i := len(ExpenseCategories) - 1
	for j, c := range ExpenseCategories {
		if c == category {
			i = j
			break
		}
	}
	t.byCat[i].n++
	t.byCat[i].amount.add(amount)
	if t.months != nil {
		l := at.In(t.loc)
		key := fmt.Sprintf("%04d-%02d", l.Year(), int(l.Month()))
		m := t.months[key]
		if m == nil {
			m = &sum{}
			t.months[key] = m
		}
		m.add(amount)
	}
}

// Records is the number of expenses added.
func (t *ExpenseTotals) Records() int64 { return t.n }

// Amount is the sum of every expense added.
func (t *ExpenseTotals) Amount() decimal.Decimal { return fixedDecimal(t.total.big()) }

// ByCategory lists the categories with expenses, the largest amount
// first, then in the order of ExpenseCategories; never nil.
func (t *ExpenseTotals) ByCategory() []CategoryTotal {
	out := []CategoryTotal{}
	for i, c := range ExpenseCategories {
		if t.byCat[i].n > 0 {
			out = append(out, CategoryTotal{Category: c, Records: t.byCat[i].n, Amount: fixedDecimal(t.byCat[i].amount.big())})
		}
	}
	slices.SortStableFunc(out, func(x, y CategoryTotal) int { return y.Amount.Cmp(x.Amount) })
	return out
}

// Month is the sum of the expenses in month ("2024-03") of the zone.
func (t *ExpenseTotals) Month(month string) decimal.Decimal {
	if m := t.months[month]; m != nil {
		return fixedDecimal(m.big())
	}
	return decimal.Zero
}

// Months lists the months with expenses, oldest first.
func (t *ExpenseTotals) Months() []string {
	out := make([]string, 0, len(t.months))
	for k := range t.months {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func fixedDecimal(x *big.Int) decimal.Decimal {
	return decimal.NewFromBigInt(new(big.Int).Set(x), -QuantityScale)
}

// AddExpenses completes s with the vehicle's expenses: their amount and
// categories, the total cost (fuel in the home currency plus expenses) and
// that over TotalDistance, rounded half-up to PriceScale places (0
// without distance).
func (s *Statistics) AddExpenses(t *ExpenseTotals) {
	s.ExpensesAmount = t.Amount()
	s.ExpensesByCategory = t.ByCategory()
	s.TotalCost = s.TotalAmount.Add(s.ExpensesAmount)
	s.TotalCostPerKm = CostPerKm(s.TotalCost, s.TotalDistance)
}

// CostPerKm is cost over distance rounded half-up to PriceScale places;
// 0 without distance.
func CostPerKm(cost, distance decimal.Decimal) decimal.Decimal {
	if !distance.IsPositive() {
		return decimal.Zero
	}
	return cost.DivRound(distance, PriceScale)
}

// AddExpenseMonths merges the months of t into the series: each month
// gets its ExpensesAmount, and a month with expenses but no refuel of the
// series' energy is added with zero fuel figures, so that the months stay
// in order, oldest first.
func (m *MonthlySeries) AddExpenseMonths(t *ExpenseTotals) {
	for i := range m.Months {
		m.Months[i].ExpensesAmount = t.Month(m.Months[i].Month)
	}
	for _, month := range t.Months() {
		i, found := slices.BinarySearchFunc(m.Months, month, func(s MonthStat, k string) int { return strings.Compare(s.Month, k) })
		if found {
			continue
		}
		m.Months = slices.Insert(m.Months, i, MonthStat{
			Month: month, Liters: decimal.Zero, Amount: decimal.Zero, AvgPrice: decimal.Zero, Distance: decimal.Zero,
			Consumption: decimal.Zero, ExpensesAmount: t.Month(month),
		})
	}
}

// VehicleCost is what one vehicle cost over a period: its refuels' money
// in the home currency, its expenses, and their sum over the distance its
// refuels' readings span in the period (highest minus lowest).
type VehicleCost struct {
	VehicleID          uint64
	Name               string
	Role               Role
	Currency           string // the owner's home currency; "" when not chosen
	FuelRecords        int64
	FuelAmount         decimal.Decimal
	ExpenseRecords     int64
	ExpensesAmount     decimal.Decimal
	ExpensesByCategory []CategoryTotal
	TotalCost          decimal.Decimal
	Distance           decimal.Decimal
	TotalCostPerKm     decimal.Decimal
}

// CostTotals adds up the vehicles of one currency: amounts of different
// currencies are never added. TotalCostPerKm is the total cost over the
// summed distances.
type CostTotals struct {
	Currency           string
	Vehicles           int
	FuelRecords        int64
	FuelAmount         decimal.Decimal
	ExpenseRecords     int64
	ExpensesAmount     decimal.Decimal
	ExpensesByCategory []CategoryTotal
	TotalCost          decimal.Decimal
	Distance           decimal.Decimal
	TotalCostPerKm     decimal.Decimal
}

// CostStatistics is the household's view: every vehicle the caller may
// read, and their totals per currency.
type CostStatistics struct {
	Vehicles []VehicleCost
	Totals   []CostTotals
}

// VehicleCostOf is the cost of a vehicle from its statistics over the
// period, completed with AddExpenses.
func VehicleCostOf(v Vehicle, s Statistics, expenseRecords int64) VehicleCost {
	return VehicleCost{
		VehicleID: v.ID, Name: v.Name, Role: v.Role, Currency: v.Currency,
		FuelRecords: s.TotalRecords, FuelAmount: s.TotalAmount,
		ExpenseRecords: expenseRecords, ExpensesAmount: s.ExpensesAmount, ExpensesByCategory: s.ExpensesByCategory,
		TotalCost: s.TotalCost, Distance: s.TotalDistance, TotalCostPerKm: s.TotalCostPerKm,
	}
}

// SumCosts returns the statistics of vs: the vehicles as given, and one
// CostTotals per currency, ordered by currency ("" first).
func SumCosts(vs []VehicleCost) CostStatistics {
	out := CostStatistics{Vehicles: vs, Totals: []CostTotals{}}
	if out.Vehicles == nil {
		out.Vehicles = []VehicleCost{}
	}
	byCat := map[string]map[string]*CategoryTotal{}
	for _, v := range vs {
		i := slices.IndexFunc(out.Totals, func(t CostTotals) bool { return t.Currency == v.Currency })
		if i < 0 {
			out.Totals = append(out.Totals, CostTotals{Currency: v.Currency})
			byCat[v.Currency] = map[string]*CategoryTotal{}
			i = len(out.Totals) - 1
		}
		t := &out.Totals[i]
		t.Vehicles++
		t.FuelRecords += v.FuelRecords
		t.FuelAmount = t.FuelAmount.Add(v.FuelAmount)
		t.ExpenseRecords += v.ExpenseRecords
		t.ExpensesAmount = t.ExpensesAmount.Add(v.ExpensesAmount)
		t.TotalCost = t.TotalCost.Add(v.TotalCost)
		t.Distance = t.Distance.Add(v.Distance)
		for _, c := range v.ExpensesByCategory {
			acc := byCat[v.Currency][c.Category]
			if acc == nil {
				acc = &CategoryTotal{Category: c.Category}
				byCat[v.Currency][c.Category] = acc
			}
			acc.Records += c.Records
			acc.Amount = acc.Amount.Add(c.Amount)
		}
	}
	for i := range out.Totals {
		t := &out.Totals[i]
		t.TotalCostPerKm = CostPerKm(t.TotalCost, t.Distance)
		t.ExpensesByCategory = []CategoryTotal{}
		for _, c := range ExpenseCategories { // the categories' order, then by amount
			if acc := byCat[t.Currency][c]; acc != nil {
				t.ExpensesByCategory = append(t.ExpensesByCategory, *acc)
			}
		}
		slices.SortStableFunc(t.ExpensesByCategory, func(x, y CategoryTotal) int { return y.Amount.Cmp(x.Amount) })
	}
	slices.SortFunc(out.Totals, func(x, y CostTotals) int { return strings.Compare(x.Currency, y.Currency) })
	return out
}
