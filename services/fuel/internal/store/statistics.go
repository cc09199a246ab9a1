package store

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"strconv"
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
	// the execution time. SQLite reads the lines its triggers keep
	// (migration 0014, refuel_stats_lines), one text a record.
	query := "SELECT id, " + timeColumn(q.dialect, "refuel_time") +
		", energy, odometer, liters, total_amount, price_per_liter, is_full, missed_previous, home_amount" +
		" FROM refuels WHERE vehicle_id = ?"
	if q.dialect == SQLite {
		query = "SELECT line FROM refuel_stats_lines WHERE vehicle_id = ?"
	}
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
	if q.dialect == SQLite {
		return feedPackedStats(rows, add)
	}
	return feedStats(rows, add)
}

// feedPackedStats is feedStats for SQLite, whose statistics read one text
// a record, its ten fields joined by '|' (refuel_stats_lines, migration
// 0014), instead of ten columns: the driver takes SQLite's mutex several
// times for each column of each row it hands over. One column instead of
// ten took the statistics of 10 000 records from 25 to 16-18 ms, concat_ws
// instead of nine || another fifth, and the lines kept by triggers
// instead of joined as the scan runs about a third again
// (proto-docs/fuel-decisions.md, "Hot paths").
func feedPackedStats(rows *sql.Rows, add func(fuel.StatsRecord)) error {
	var packed sql.RawBytes
	for rows.Next() {
		if err := rows.Scan(&packed); err != nil {
			return fmt.Errorf("scan refuel: %w", err)
		}
		if err := feedPackedRecord(packed, add); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("scan refuels: %w", err)
	}
	return nil
}

// feedPackedRecord reads one line of refuel_stats_lines into add.
func feedPackedRecord(line []byte, add func(fuel.StatsRecord)) error {
	var (
		r     fuel.StatsRecord
		field [10][]byte
	)
	rest, n := line, 0
	for ; n < len(field)-1; n++ {
		var ok bool
		if field[n], rest, ok = bytes.Cut(rest, []byte{'|'}); !ok {
			break
		}
	}
	if n != len(field)-1 {
		return fmt.Errorf("scan refuel: %d fields in %q, want %d", n+1, line, len(field))
	}
	field[n] = rest
	id, err := strconv.ParseUint(string(field[0]), 10, 64)
	if err != nil {
		return fmt.Errorf("scan refuel: id %q: %w", field[0], err)
	}
	r.ID = id
	if t, ok := parseStoredUTC(field[1]); ok {
		r.RefuelTime = t // read in place: string(field[1]) is a copy a record
	} else if r.RefuelTime, err = parseSQLiteTime(string(field[1])); err != nil {
		return fmt.Errorf("refuel %d: %w", id, err)
	}
	r.RefuelTime = r.RefuelTime.UTC()
	r.Energy = energyOf(field[2])
	if r.IsFull, err = parseFlag(field[7]); err != nil {
		return fmt.Errorf("refuel %d: is_full: %w", id, err)
	}
	if r.MissedPrevious, err = parseFlag(field[8]); err != nil {
		return fmt.Errorf("refuel %d: missed_previous: %w", id, err)
	}
	home := field[9]
	if len(home) == 0 {
		home = nil
	}
	if err := parseStatsRecord(&r, field[3], field[4], field[5], field[6], home); err != nil {
		return fmt.Errorf("refuel %d: %w", id, err)
	}
	add(r)
	return nil
}

// parseFlag reads SQLite's 0 or 1 of a boolean column.
func parseFlag(b []byte) (bool, error) {
	switch string(b) {
	case "0":
		return false, nil
	case "1":
		return true, nil
	}
	return false, fmt.Errorf("%q is not 0 or 1", b)
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
