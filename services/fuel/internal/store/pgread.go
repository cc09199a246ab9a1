package store

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/stdlib"
	"gorm.io/gorm"
)

// rowScanner is a row of one statement, from GORM (database/sql) or pgx.
type rowScanner interface{ Scan(dest ...any) error }

// scanRow runs a statement of one row on h and hands the row to scan.
// gormQuery has GORM's ? placeholders, pgQuery PostgreSQL's $n ones.
//
// On PostgreSQL, outside a transaction, the statement runs through pgx
// itself on a connection of the pool rather than through GORM and
// database/sql, which build the statement and convert each column of each
// row (a GET vehicle's read: 95 allocations and 6 KB through them, 60 and
// 2.7 KB through pgx; proto-docs/fuel-decisions.md, "Hot paths"). The row
// scans into the same types: pgx calls their sql.Scanner, or pgx's own
// scanner interface where they have one (timestamp). In a transaction,
// and on SQLite, GORM runs it.
func (q *queries) scanRow(ctx context.Context, h *gorm.DB, gormQuery, pgQuery string, args []any, scan func(rowScanner) error) error {
	if q.pg == nil || h != q.read {
		return scan(h.WithContext(ctx).Raw(gormQuery, args...).Row())
	}
	return q.pgRow(ctx, pgQuery, args, scan)
}

// pgRow runs a statement of one row through pgx on a connection of the
// PostgreSQL pool (q.pg must be set) and hands the row to scan, in a span
// when tracing is on. Its errors are translated as GORM translates them
// (TranslateError), so callers test for gorm.ErrForeignKeyViolated and the
// like whichever way the statement ran.
func (q *queries) pgRow(ctx context.Context, query string, args []any, scan func(rowScanner) error) error {
	err := q.spans.trace(ctx, query, func(ctx context.Context) error {
		conn, err := q.pg.Conn(ctx)
		if err != nil {
			return err
		}
		defer conn.Close()
		return conn.Raw(func(driverConn any) error {
			c, ok := driverConn.(*stdlib.Conn)
			if !ok {
				return errors.New("scan row: the pool's connection is not pgx's")
			}
			return scan(c.Conn().QueryRow(ctx, query, append([]any{numericAsText}, args...)...))
		})
	})
	if t, ok := q.read.Dialector.(gorm.ErrorTranslator); ok && err != nil {
		err = t.Translate(err)
	}
	return err
}

// numericAsText asks PostgreSQL for numeric columns in text: the row's
// decimals are sql.Scanners, which pgx feeds through database/sql's
// values, and a binary numeric went through math/big to text before
// decimal parsed it back (a fifth of a GET vehicle's allocations). The
// floor asks the same.
var numericAsText = pgx.QueryResultFormatsByOID{pgtype.NumericOID: pgx.TextFormatCode}

// insertRefuelSQL is the INSERT GORM's Create writes for a refuelRow.
const insertRefuelSQL = `INSERT INTO refuels (vehicle_id, refuel_time, odometer, fuel_type, energy, liters, total_amount, ` +
	`price_per_liter, station_name, is_full, missed_previous, remark, currency, home_amount, created_at, updated_at) ` +
	`VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16) RETURNING id`

// insertRefuel stores row and sets its id. On PostgreSQL's pool it runs
// insertRefuelSQL through pgRow: GORM's Create, which reflects on the row
// and builds the statement for every insert, was a quarter of a POST
// refuel's CPU. In a transaction and on SQLite, GORM's Create.
func (q *queries) insertRefuel(ctx context.Context, row *refuelRow) error {
	if q.pg == nil {
		return q.write.WithContext(ctx).Create(row).Error
	}
	args := []any{row.VehicleID, row.RefuelTime, row.Odometer, row.FuelType, row.Energy, row.Liters, row.TotalAmount,
		row.PricePerLiter, row.StationName, row.IsFull, row.MissedPrevious, row.Remark, row.Currency, row.HomeAmount,
		row.CreatedAt, row.UpdatedAt}
	return q.pgRow(ctx, insertRefuelSQL, args, func(r rowScanner) error { return r.Scan(&row.ID) })
}
