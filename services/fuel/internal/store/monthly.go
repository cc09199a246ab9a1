package store

import (
	"context"

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
		return nil
	}, q.snapshot())
	return out, err
}
