package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/carhub/backend/pkg/auth"
	"github.com/carhub/backend/services/fuel/internal/fuel"
	"gorm.io/gorm"
)

// scanExpenseTotals adds the expenses of a vehicle, those with time in
// [start, end] where set, to t: one range scan of the index, the amounts
// read into fixed point as the refuels' statistics read theirs.
func (q *queries) scanExpenseTotals(tx *gorm.DB, vehicleID uint64, start, end *time.Time, t *fuel.ExpenseTotals) error {
	query := "SELECT " + timeColumn(q.dialect, "expense_time") + ", category, amount FROM expenses WHERE vehicle_id = ?"
	args := []any{vehicleID}
	if start != nil {
		query += " AND expense_time >= ?"
		args = append(args, fuel.NormalizeTime(*start))
	}
	if end != nil {
		query += " AND expense_time <= ?"
		args = append(args, fuel.NormalizeTime(*end))
	}
	rows, err := tx.Raw(query, args...).Rows()
	if err != nil {
		return fmt.Errorf("scan expenses: %w", err)
	}
	defer rows.Close()
	var (
		at       time.Time
		category string
		amount   sql.RawBytes
	)
	for rows.Next() {
		if err := rows.Scan((*timestamp)(&at), &category, &amount); err != nil {
			return fmt.Errorf("scan expense: %w", err)
		}
		n, err := parseFixed(amount, fuel.QuantityScale)
		if err != nil {
			return fmt.Errorf("expense amount %q: %w", amount, err)
		}
		t.Add(at.UTC(), category, n)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("scan expenses: %w", err)
	}
	return nil
}

// CostStatistics implements fuel.ExpenseStore: in one read transaction,
// the vehicles the caller may see, then for each an ordered scan of its
// refuels in the period (fuel.StatsBuilder: the home amounts and the
// readings' span) and a scan of its expenses.
func (q *queries) CostStatistics(ctx context.Context, start, end *time.Time) (fuel.CostStatistics, error) {
	var out fuel.CostStatistics
	uid := auth.UserID(ctx)
	err := q.read.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		query, args := vehicleSelect(q.dialect, uid)
		rows, err := tx.Raw(query+" ORDER BY v.id", args...).Rows()
		if err != nil {
			return fmt.Errorf("list vehicles: %w", err)
		}
		var vehicles []fuel.Vehicle
		for rows.Next() {
			var v vehicleRow
			if err := v.scan(rows); err != nil {
				rows.Close()
				return fmt.Errorf("list vehicles: %w", err)
			}
			vehicles = append(vehicles, v.toVehicle())
		}
		if err := errors.Join(rows.Err(), rows.Close()); err != nil {
			return fmt.Errorf("list vehicles: %w", err)
		}
		costs := make([]fuel.VehicleCost, 0, len(vehicles))
		for _, v := range vehicles {
			b := fuel.NewStatsBuilder(v.ID, fuel.DefaultEnergy(v.FuelType))
			if err := q.scanStats(tx, v.ID, start, end, b.Add); err != nil {
				return err
			}
			s := b.Statistics()
			t := fuel.NewExpenseTotals(nil)
			if err := q.scanExpenseTotals(tx, v.ID, start, end, t); err != nil {
				return err
			}
			s.AddExpenses(t)
			costs = append(costs, fuel.VehicleCostOf(v, s, t.Records()))
		}
		out = fuel.SumCosts(costs)
		return nil
	}, q.snapshot())
	return out, err
}
