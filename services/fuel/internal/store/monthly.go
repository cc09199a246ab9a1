package store

import (
	"context"
	"time"

	"gorm.io/gorm"

	"github.com/carhub/backend/services/fuel/internal/fuel"
)

// MonthlyStatistics implements fuel.Store: one ordered scan of the records
// in range feeds fuel.MonthlyBuilder.
func (q *queries) MonthlyStatistics(ctx context.Context, vehicleID uint64, mq fuel.MonthlyQuery) (fuel.MonthlySeries, error) {
	var out fuel.MonthlySeries
	err := q.read.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		v, err := q.vehicle(ctx, tx, vehicleID, false)
		if err != nil {
			return err
		}
		b := fuel.NewMonthlyBuilder(mq, fuel.DefaultEnergy(v.FuelType))
		if err := q.scanStats(tx, vehicleID, mq.Start, mq.End, b.Add); err != nil {
			return err
		}
		out = b.Series()
		loc := mq.Location
		if loc == nil {
			loc = time.UTC
		}
		expenses := fuel.NewExpenseTotals(loc)
		if err := q.scanExpenseTotals(tx, vehicleID, mq.Start, mq.End, expenses); err != nil {
			return err
		}
		if out.Energy == "" && expenses.Records() > 0 {
			// No refuel in range: the months of expenses still need an
			// energy to be shown with; the vehicle's own.
			out.Energy = fuel.DefaultEnergy(v.FuelType)
		}
		out.AddExpenseMonths(expenses)
		return nil
	}, q.snapshot())
	return out, err
}
