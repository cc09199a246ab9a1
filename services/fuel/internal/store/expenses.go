package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/shopspring/decimal"
	"gorm.io/gorm"

	"github.com/carhub/backend/pkg/auth"
	"github.com/carhub/backend/services/fuel/internal/fuel"
)

// expenseRow is the GORM model of the expenses table. Items and Tags are
// the JSON text of their lists (proto-docs/fuel-decisions.md, "Expenses").
type expenseRow struct {
	ID          uint64 `gorm:"primaryKey"`
	VehicleID   uint64
	ExpenseTime time.Time
	Odometer    decimal.NullDecimal
	Category    string
	Title       string
	Amount      decimal.Decimal
	Vendor      string
	Notes       string
	Items       string
	Tags        string
	CreatedAt   time.Time `gorm:"autoCreateTime:false"`
	UpdatedAt   time.Time `gorm:"autoUpdateTime:false"`
}

func (expenseRow) TableName() string { return "expenses" }

// itemJSON is an item as the items column stores it: decimals as strings,
// so that neither database nor JSON reader rounds them.
type itemJSON struct {
	Name       string `json:"name"`
	PartNumber string `json:"part_number"`
	Quantity   string `json:"quantity"`
	UnitPrice  string `json:"unit_price"`
}

func toExpenseRow(e fuel.Expense) (expenseRow, error) {
	items := make([]itemJSON, len(e.Items))
	for i, it := range e.Items {
		items[i] = itemJSON{Name: it.Name, PartNumber: it.PartNumber, Quantity: it.Quantity.String(), UnitPrice: it.UnitPrice.String()}
	}
	ib, err := json.Marshal(items)
	if err != nil {
		return expenseRow{}, err
	}
	tags := e.Tags
	if tags == nil {
		tags = []string{}
	}
	tb, err := json.Marshal(tags)
	if err != nil {
		return expenseRow{}, err
	}
	return expenseRow{
		ID: e.ID, VehicleID: e.VehicleID, ExpenseTime: e.Time, Odometer: e.Odometer, Category: e.Category, Title: e.Title,
		Amount: e.Amount, Vendor: e.Vendor, Notes: e.Notes, Items: string(ib), Tags: string(tb),
		CreatedAt: e.CreatedAt, UpdatedAt: e.UpdatedAt,
	}, nil
}

func (r expenseRow) toExpense() (fuel.Expense, error) {
	e := fuel.Expense{
		ID: r.ID, VehicleID: r.VehicleID, Time: r.ExpenseTime.UTC(), Odometer: r.Odometer, Category: r.Category, Title: r.Title,
		Amount: r.Amount, Vendor: r.Vendor, Notes: r.Notes, Items: []fuel.ExpenseItem{}, Tags: []string{},
		CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(),
	}
	var items []itemJSON
	if err := json.Unmarshal([]byte(r.Items), &items); err != nil {
		return e, fmt.Errorf("expense %d: items: %w", r.ID, err)
	}
	for _, it := range items {
		q, err := decimal.NewFromString(it.Quantity)
		if err != nil {
			return e, fmt.Errorf("expense %d: item quantity: %w", r.ID, err)
		}
		p, err := decimal.NewFromString(it.UnitPrice)
		if err != nil {
			return e, fmt.Errorf("expense %d: item unit price: %w", r.ID, err)
		}
		e.Items = append(e.Items, fuel.ExpenseItem{Name: it.Name, PartNumber: it.PartNumber, Quantity: q, UnitPrice: p})
	}
	if err := json.Unmarshal([]byte(r.Tags), &e.Tags); err != nil {
		return e, fmt.Errorf("expense %d: tags: %w", r.ID, err)
	}
	if e.Tags == nil {
		e.Tags = []string{}
	}
	return e, nil
}

// expenseColumns lists the columns of the expenses table (alias e) in the
// order scan reads them.
func expenseColumns(d Dialect) string {
	return "e.id, e.vehicle_id, " + timeColumn(d, "e.expense_time") + ", e.odometer, e.category, e.title, e.amount, e.vendor, e.notes, " +
		"e.items, e.tags, " + timeColumn(d, "e.created_at") + ", " + timeColumn(d, "e.updated_at")
}

// scan reads one row of expenseColumns, then the columns of extra.
func (r *expenseRow) scan(row interface{ Scan(...any) error }, extra ...any) error {
	return row.Scan(append([]any{&r.ID, &r.VehicleID, (*timestamp)(&r.ExpenseTime), &r.Odometer, &r.Category, &r.Title, &r.Amount,
		&r.Vendor, &r.Notes, &r.Items, &r.Tags, (*timestamp)(&r.CreatedAt), (*timestamp)(&r.UpdatedAt)}, extra...)...)
}

// CreateExpense implements fuel.ExpenseStore: the caller must own the
// vehicle or edit it (refuelVehicle's rule, which is every record's).
func (q *queries) CreateExpense(ctx context.Context, e *fuel.Expense) error {
	e.Normalize()
	if e.VehicleID != 0 {
		if _, err := q.refuelVehicle(ctx, q.read, e.VehicleID); err != nil {
			return err
		}
	}
	if err := e.Validate(); err != nil {
		return err
	}
	e.ID = 0
	e.CreatedAt = q.now()
	e.UpdatedAt = e.CreatedAt
	row, err := toExpenseRow(*e)
	if err != nil {
		return err
	}
	err = q.write.WithContext(ctx).Create(&row).Error
	if errors.Is(err, gorm.ErrForeignKeyViolated) {
		return fuel.ErrUnknownVehicle(e.VehicleID)
	}
	if err != nil {
		return fmt.Errorf("create expense: %w", err)
	}
	e.ID = row.ID
	return nil
}

// Expense implements fuel.ExpenseStore.
func (q *queries) Expense(ctx context.Context, id uint64) (fuel.Expense, error) {
	row, _, err := q.expense(ctx, q.read, id, false)
	if err != nil {
		return fuel.Expense{}, err
	}
	return row.toExpense()
}

// expense reads an expense of a vehicle the caller may see, and the
// caller's role on that vehicle, as refuel reads a refuel.
func (q *queries) expense(ctx context.Context, h *gorm.DB, id uint64, lock bool) (expenseRow, fuel.Role, error) {
	var (
		row  expenseRow
		role fuel.Role
	)
	if !storable(id) {
		return row, role, fuel.ErrExpenseNotFound
	}
	uid := auth.UserID(ctx)
	lockClause := q.lockClause(lock)
	if lockClause != "" {
		lockClause += " OF e"
	}
	err := row.scan(h.WithContext(ctx).Raw("SELECT "+expenseColumns(q.dialect)+", CASE WHEN v.owner_id = ? THEN 'owner' ELSE m.role END "+
		"FROM expenses e JOIN vehicles v ON v.id = e.vehicle_id LEFT JOIN vehicle_members m ON m.vehicle_id = v.id AND m.user_id = ? "+
		"WHERE e.id = ? AND (v.owner_id = ? OR m.user_id IS NOT NULL)"+lockClause,
		uid, uid, id, uid).Row(), &role)
	if errors.Is(err, sql.ErrNoRows) {
		return row, role, fuel.ErrExpenseNotFound
	}
	if err != nil {
		return row, role, fmt.Errorf("get expense %d: %w", id, err)
	}
	return row, role, nil
}

// UpdateExpense implements fuel.ExpenseStore: the caller must own or edit
// the expense's vehicle, and the vehicle it moves to when it moves.
func (q *queries) UpdateExpense(ctx context.Context, id uint64, u fuel.ExpenseUpdate) (fuel.Expense, error) {
	var out fuel.Expense
	err := q.write.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		row, role, err := q.expense(ctx, tx, id, true)
		if err != nil {
			return err
		}
		if !role.CanWriteRecords() {
			return fuel.ErrForbidden
		}
		e, err := row.toExpense()
		if err != nil {
			return err
		}
		u.Apply(&e)
		e.Normalize()
		if e.VehicleID != row.VehicleID && e.VehicleID != 0 {
			if _, err := q.refuelVehicle(ctx, tx, e.VehicleID); err != nil {
				return err
			}
		}
		if err := e.Validate(); err != nil {
			return err
		}
		e.UpdatedAt = q.now()
		row, err = toExpenseRow(e)
		if err != nil {
			return err
		}
		err = tx.Save(&row).Error
		if errors.Is(err, gorm.ErrForeignKeyViolated) {
			return fuel.ErrUnknownVehicle(e.VehicleID)
		}
		if err != nil {
			return fmt.Errorf("update expense %d: %w", id, err)
		}
		out = e
		return nil
	})
	return out, err
}

// DeleteExpense implements fuel.ExpenseStore: the caller must own or edit
// the expense's vehicle.
func (q *queries) DeleteExpense(ctx context.Context, id uint64) error {
	if !storable(id) {
		return fuel.ErrExpenseNotFound
	}
	uid := auth.UserID(ctx)
	res := q.write.WithContext(ctx).Exec("DELETE FROM expenses WHERE id = ? AND EXISTS (SELECT 1 FROM vehicles v WHERE v.id = expenses.vehicle_id AND "+
		writableBy("v")+")", id, uid, uid)
	if res.Error != nil {
		return fmt.Errorf("delete expense %d: %w", id, res.Error)
	}
	if res.RowsAffected == 0 {
		// Not found, or a viewer's: say which the caller may know.
		if _, _, err := q.expense(ctx, q.write, id, false); err != nil {
			return err
		}
		return fuel.ErrForbidden
	}
	return nil
}

// ListExpenses implements fuel.ExpenseStore: none for a vehicle the
// caller may not see.
func (q *queries) ListExpenses(ctx context.Context, f fuel.ExpenseFilter) ([]fuel.Expense, error) {
	if !storable(f.VehicleID) {
		return []fuel.Expense{}, nil
	}
	uid := auth.UserID(ctx)
	query := "SELECT " + expenseColumns(q.dialect) + " FROM expenses e WHERE e.vehicle_id = ? AND EXISTS (SELECT 1 FROM vehicles v WHERE v.id = ? AND " +
		visibleTo("v") + ")"
	args := []any{f.VehicleID, f.VehicleID, uid, uid}
	if f.Category != "" {
		query += " AND e.category = ?"
		args = append(args, f.Category)
	}
	if f.Start != nil {
		query += " AND e.expense_time >= ?"
		args = append(args, fuel.NormalizeTime(*f.Start))
	}
	if f.End != nil {
		query += " AND e.expense_time <= ?"
		args = append(args, fuel.NormalizeTime(*f.End))
	}
	query += " ORDER BY e.expense_time DESC, e.id DESC"
	query, args = q.page(query, args, f.Limit, f.Offset)
	out, err := expenseRows(q.read.WithContext(ctx).Raw(query, args...))
	if err != nil {
		return nil, fmt.Errorf("list expenses: %w", err)
	}
	return out, nil
}

// expenseRows runs a query of expenseColumns and reads every row; never
// nil.
func expenseRows(query *gorm.DB) ([]fuel.Expense, error) {
	rows, err := query.Rows()
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []fuel.Expense{}
	for rows.Next() {
		var r expenseRow
		if err := r.scan(rows); err != nil {
			return nil, err
		}
		e, err := r.toExpense()
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// ExportExpenses implements fuel.ExpenseStore in pages, as ExportRefuels.
func (q *queries) ExportExpenses(ctx context.Context, vehicleID uint64, fn func(fuel.Expense) error) error {
	return exportPages(ctx, q, vehicleID, exportTable{
		what: "expenses", columns: expenseColumns(q.dialect), table: "expenses", alias: "e", time: "expense_time",
	}, expenseRows, func(e fuel.Expense) (time.Time, uint64) { return e.Time, e.ID }, fn)
}

// expenseKey is what makes an imported expense equal to a stored one.
func expenseKey(t time.Time, category, title string, amount decimal.Decimal, odo decimal.NullDecimal) string {
	o := "-"
	if odo.Valid {
		o = odo.Decimal.String()
	}
	return fmt.Sprintf("%d|%s|%s|%s|%s", fuel.NormalizeTime(t).UnixMicro(), category, amount.String(), o, title)
}

// ImportExpenses implements fuel.ExpenseStore with importRecords, as
// ImportRefuels.
func (q *queries) ImportExpenses(ctx context.Context, vehicleID uint64, es []fuel.Expense, dryRun bool) (fuel.ImportResult, error) {
	return importRecords(ctx, q, vehicleID, es, dryRun, importKind[fuel.Expense, expenseRow]{
		what:       "expenses",
		storedKeys: "SELECT " + timeColumn(q.dialect, "expense_time") + ", category, title, amount, odometer FROM expenses WHERE vehicle_id = ?",
		storedKey: func(row interface{ Scan(...any) error }) (string, error) {
			var (
				t               time.Time
				category, title string
				amount          decimal.Decimal
				odo             decimal.NullDecimal
			)
			if err := row.Scan((*timestamp)(&t), &category, &title, &amount, &odo); err != nil {
				return "", err
			}
			return expenseKey(t, category, title, amount, odo), nil
		},
		key: func(e fuel.Expense) string { return expenseKey(e.Time, e.Category, e.Title, e.Amount, e.Odometer) },
		stamp: func(e *fuel.Expense, vehicleID uint64, now time.Time) {
			e.ID, e.VehicleID, e.CreatedAt, e.UpdatedAt = 0, vehicleID, now, now
		},
		row: toExpenseRow,
	})
}
