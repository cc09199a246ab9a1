package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"gorm.io/gorm"

	"github.com/carhub/backend/services/fuel/internal/fuel"
)

// Statistics implements fuel.Store: one ordered scan of the vehicle's
// records feeds fuel.StatsBuilder, then the last record is read by id, the
// three statements in one read transaction (one snapshot).
func (q *queries) Statistics(ctx context.Context, vehicleID uint64) (fuel.Statistics, error) {
	var out fuel.Statistics
	err := q.read.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		v, err := q.vehicle(ctx, tx, vehicleID, false)
		if err != nil {
			return err
		}
		b := fuel.NewStatsBuilder(vehicleID, fuel.DefaultEnergy(v.FuelType))
		if err := q.scanStats(tx, vehicleID, nil, nil, b.Add); err != nil {
			return err
		}
		out = b.Statistics()
		expenses := fuel.NewExpenseTotals(nil)
		if err := q.scanExpenseTotals(tx, vehicleID, nil, nil, expenses); err != nil {
			return err
		}
		out.AddExpenses(expenses)
		if id := b.LastID(); id != 0 {
			last, _, err := q.refuel(ctx, tx, id, false)
			if err != nil {
				return err
			}
			r := last.toRefuel()
			out.LastRefuel = &r
		}
		return nil
	}, q.snapshot())
	return out, err
}

// scanStats feeds the records of a vehicle, those with refuel_time in
// [start, end] where set, to add in (refuel_time, id) order: one ordered
// scan.
func (q *queries) scanStats(tx *gorm.DB, vehicleID uint64, start, end *time.Time, add func(fuel.StatsRecord)) error {
	// The quantities arrive as decimal text (numeric on PostgreSQL, TEXT
	// on SQLite) and are read into fixed point without allocating.
	// Asking PostgreSQL for (x * 1000)::int8 instead costs it five times
	// the execution time.
	query := "SELECT id, " + timeColumn(q.dialect, "refuel_time") +
		", energy, odometer, liters, total_amount, price_per_liter, is_full, missed_previous, home_amount FROM refuels WHERE vehicle_id = ?"
	args := []any{vehicleID}
	if start != nil {
		query += " AND refuel_time >= ?"
		args = append(args, fuel.NormalizeTime(*start))
	}
	if end != nil {
		query += " AND refuel_time <= ?"
		args = append(args, fuel.NormalizeTime(*end))
	}
	rows, err := tx.Raw(query+" ORDER BY refuel_time ASC, id ASC", args...).Rows()
	if err != nil {
		return fmt.Errorf("scan refuels: %w", err)
	}
	defer rows.Close()
	return feedStats(rows, add)
}

// feedStats reads rows of (id, refuel_time, energy, odometer, liters,
// total_amount, price_per_liter, is_full, missed_previous), in order, into
// add. The text columns are scanned as sql.RawBytes, which skips a copy,
// and parsed without allocating. The caller closes rows.
func feedStats(rows *sql.Rows, add func(fuel.StatsRecord)) error {
	var (
		r                                  fuel.StatsRecord
		energy, odo, liters, amount, price sql.RawBytes
		home                               sql.RawBytes // NULL (nil) for a record in the home currency
	)
	for rows.Next() {
		if err := rows.Scan(&r.ID, (*timestamp)(&r.RefuelTime), &energy, &odo, &liters, &amount, &price, &r.IsFull, &r.MissedPrevious, &home); err != nil {
			return fmt.Errorf("scan refuel: %w", err)
		}
		r.Energy = energyOf(energy)
		if err := parseStatsRecord(&r, odo, liters, amount, price, home); err != nil {
			return fmt.Errorf("refuel %d: %w", r.ID, err)
		}
		r.RefuelTime = r.RefuelTime.UTC()
		add(r)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("scan refuels: %w", err)
	}
	return nil
}

// parseStatsRecord fills the fixed-point quantities of r from their
// decimal text. A record paid in another currency (home not nil) counts
// its home amount, and the price per unit that makes (home amount over
// liters, rounded half-up to PriceScale places as Refuel.Normalize
// rounds the stored price).
func parseStatsRecord(r *fuel.StatsRecord, odo, liters, amount, price, home []byte) error {
	if home != nil {
		amount, price = home, nil
	}
	var err error
	if r.Odometer, err = parseFixed(odo, fuel.QuantityScale); err != nil {
		return err
	}
	if r.Liters, err = parseFixed(liters, fuel.QuantityScale); err != nil {
		return err
	}
	if r.TotalAmount, err = parseFixed(amount, fuel.QuantityScale); err != nil {
		return err
	}
	if price == nil {
		r.PricePerLiter = homePrice(r.TotalAmount, r.Liters)
		return nil
	}
	r.PricePerLiter, err = parseFixed(price, fuel.PriceScale)
	return err
}

// homePrice is amount over liters (both in thousandths) in
// ten-thousandths, rounded half-up; 0 without liters. amount × 10^4 stays
// below 2^63: amounts are at most 10^14 thousandths.
func homePrice(amount, liters int64) int64 {
	if liters <= 0 {
		return 0
	}
	n := amount * 10_000
	q, rem := n/liters, n%liters
	if 2*rem >= liters {
		q++
	}
	return q
}

// energyOf reads the energy column without allocating for the known
// energies (the statistics read it for every record).
func energyOf(b []byte) fuel.Energy {
	for _, e := range fuel.Energies {
		if string(b) == string(e) {
			return e
		}
	}
	return fuel.Energy(b)
}
