package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"gorm.io/gorm"

	"github.com/carhub/backend/pkg/auth"
	"github.com/carhub/backend/services/fuel/internal/fuel"
	"time"
)

// currencyLockKey is the PostgreSQL advisory lock (with the user as its
// second key) that makes two changes of one user's currency wait for each
// other, also before the user has a preferences row to lock.
const currencyLockKey = 0x63757272 // "curr"

// ChangeCurrency implements fuel.Store. Everything runs in one write
// transaction: the user's lock, the check of From, the records of the
// vehicles the caller owns (locked with their vehicles on PostgreSQL, so no
// record is added to or moved between them meanwhile), each changed
// record, then the preference. An error anywhere rolls it all back.
func (q *queries) ChangeCurrency(ctx context.Context, c fuel.CurrencyChange) (fuel.CurrencyChangeResult, error) {
	var out fuel.CurrencyChangeResult
	uid := auth.UserID(ctx)
	err := q.write.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if q.dialect == Postgres {
			if err := tx.Exec("SELECT pg_advisory_xact_lock(?::int, (?::bigint % 2147483647)::int)", currencyLockKey, uid).Error; err != nil {
				return fmt.Errorf("lock currency: %w", err)
			}
		}
		before, err := scanPreferences(tx.Raw("SELECT "+preferenceSelect(q.dialect)+" FROM user_preferences WHERE user_id = ?", uid).Row())
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("read currency: %w", err)
		}
		if before.Currency != "" && before.Currency != c.From {
			return fuel.ErrCurrencyChanged(before.Currency, c.From)
		}

		vehicles, err := tx.Raw("SELECT id FROM vehicles WHERE owner_id = ? ORDER BY id"+q.lockClause(true), uid).Rows()
		if err != nil {
			return fmt.Errorf("lock vehicles: %w", err)
		}
		for vehicles.Next() {
			out.Vehicles++
		}
		if err := errors.Join(vehicles.Err(), vehicles.Close()); err != nil {
			return fmt.Errorf("lock vehicles: %w", err)
		}

		records, err := q.ownedRefuels(tx, uid)
		if err != nil {
			return err
		}
		now := q.now()
		for _, row := range records {
			r := row.toRefuel()
			changed, err := c.ConvertRefuel(&r)
			if err != nil {
				return err
			}
			if !changed {
				continue
			}
			row = toRefuelRow(r)
			err = tx.Exec("UPDATE refuels SET total_amount = ?, price_per_liter = ?, currency = ?, home_amount = ?, updated_at = ? WHERE id = ?",
				row.TotalAmount, row.PricePerLiter, row.Currency, row.HomeAmount, now, row.ID).Error
			if err != nil {
				return fmt.Errorf("convert refuel %d: %w", row.ID, err)
			}
			out.Refuels++
			if q.afterConvert != nil {
				if err := q.afterConvert(out.Refuels); err != nil {
					return err
				}
			}
		}

		if out.Expenses, err = q.convertExpenses(tx, uid, c, now); err != nil {
			return err
		}

		// The conversion is kept for its undo on any device; a relabel or
		// the undo itself leaves nothing to undo.
		var last [5]any // NULL
		if r := c.Recorded(before.LastCurrencyChange, now); r != nil {
			last = [5]any{r.From, r.To, r.Rate.String(), r.Inverse, r.At}
		}
		p, err := scanPreferences(tx.Raw("INSERT INTO user_preferences (user_id, currency, updated_at, "+strings.Join(lastChangeColumns, ", ")+
			") VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (user_id) DO UPDATE SET currency = excluded.currency, updated_at = excluded.updated_at, "+
			"last_change_from = excluded.last_change_from, last_change_to = excluded.last_change_to, last_change_rate = excluded.last_change_rate, "+
			"last_change_inverse = excluded.last_change_inverse, last_change_at = excluded.last_change_at "+
			"RETURNING "+preferenceSelect(q.dialect), uid, c.To, now, last[0], last[1], last[2], last[3], last[4]).Row())
		if err != nil {
			return fmt.Errorf("set currency: %w", err)
		}
		out.Preferences = p
		return nil
	})
	if err != nil {
		return fuel.CurrencyChangeResult{}, err
	}
	return out, nil
}

// ownedRefuels reads, in tx, every record of the vehicles user uid owns,
// locking them on PostgreSQL. They are all read before any is written:
// an SQLite connection cannot write while it reads a result.
func (q *queries) ownedRefuels(tx *gorm.DB, uid uint64) ([]refuelRow, error) {
	lock := ""
	if q.dialect == Postgres {
		lock = " FOR UPDATE OF r"
	}
	rows, err := tx.Raw("SELECT "+refuelColumns(q.dialect)+" FROM refuels r JOIN vehicles v ON v.id = r.vehicle_id WHERE v.owner_id = ? ORDER BY r.id"+lock, uid).Rows()
	if err != nil {
		return nil, fmt.Errorf("read refuels: %w", err)
	}
	defer rows.Close()
	var out []refuelRow
	for rows.Next() {
		var r refuelRow
		if err := r.scan(rows); err != nil {
			return nil, fmt.Errorf("read refuels: %w", err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read refuels: %w", err)
	}
	return out, nil
}

// convertExpenses applies c, in tx, to every expense of the vehicles user
// uid owns (ChangeCurrency holds their vehicles locked) and returns how
// many it changed. They are all read before any is written, as
// ownedRefuels reads the refuels.
func (q *queries) convertExpenses(tx *gorm.DB, uid uint64, c fuel.CurrencyChange, now time.Time) (int, error) {
	if c.Mode != fuel.CurrencyConvert {
		return 0, nil
	}
	var list []fuel.Expense
	{
		rows, err := tx.Raw("SELECT "+expenseColumns(q.dialect)+" FROM expenses e JOIN vehicles v ON v.id = e.vehicle_id WHERE v.owner_id = ? ORDER BY e.id", uid).Rows()
		if err != nil {
			return 0, fmt.Errorf("read expenses: %w", err)
		}
		for rows.Next() {
			var r expenseRow
			if err := r.scan(rows); err != nil {
				rows.Close()
				return 0, fmt.Errorf("read expenses: %w", err)
			}
			e, err := r.toExpense()
			if err != nil {
				rows.Close()
				return 0, err
			}
			list = append(list, e)
		}
		if err := errors.Join(rows.Err(), rows.Close()); err != nil {
			return 0, fmt.Errorf("read expenses: %w", err)
		}
	}
	n := 0
	for _, e := range list {
		changed, err := c.ConvertExpense(&e)
		if err != nil {
			return 0, err
		}
		if !changed {
			continue
		}
		row, err := toExpenseRow(e)
		if err != nil {
			return 0, err
		}
		if err := tx.Exec("UPDATE expenses SET amount = ?, items = ?, updated_at = ? WHERE id = ?", row.Amount, row.Items, now, row.ID).Error; err != nil {
			return 0, fmt.Errorf("convert expense %d: %w", row.ID, err)
		}
		n++
	}
	return n, nil
}
