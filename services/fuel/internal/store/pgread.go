package store

import (
	"context"
	"errors"
	"strconv"
	"strings"

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

// scanRows is scanRow for a statement of any number of rows: scan is
// handed each row in turn. pgQuery is gormQuery numbered (numbered).
func (q *queries) scanRows(ctx context.Context, h *gorm.DB, gormQuery, pgQuery string, args []any, scan func(rowScanner) error) error {
	if q.pg == nil || h != q.read {
		rows, err := h.WithContext(ctx).Raw(gormQuery, args...).Rows()
		if err != nil {
			return err
		}
		defer rows.Close()
		return eachRow(rows, scan)
	}
	return q.pgQuery(ctx, pgQuery, args, func(c *pgx.Conn, args []any) error {
		rows, err := c.Query(ctx, pgQuery, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		return eachRow(rows, scan)
	})
}

// rowCursor is the rows of a statement, from database/sql or pgx.
type rowCursor interface {
	rowScanner
	Next() bool
	Err() error
}

// eachRow hands scan every row of rows in turn, then rows' error.
func eachRow(rows rowCursor, scan func(rowScanner) error) error {
	for rows.Next() {
		if err := scan(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// numbered returns query with its GORM placeholders (?) numbered as
// PostgreSQL's ($1, $2, ...), for a statement built at run time that
// scanRows runs both ways. The store's statements hold no ? but their
// placeholders (no literal, identifier or operator with one).
func numbered(query string) string {
	var b strings.Builder
	b.Grow(len(query) + 16)
	n := 0
	for i := 0; i < len(query); i++ {
		if query[i] != '?' {
			b.WriteByte(query[i])
			continue
		}
		n++
		b.WriteByte('$')
		b.WriteString(strconv.Itoa(n))
	}
	return b.String()
}

// pgRow runs a statement of one row through pgx on a connection of the
// PostgreSQL pool (pgQuery) and hands the row to scan.
func (q *queries) pgRow(ctx context.Context, query string, args []any, scan func(rowScanner) error) error {
	return q.pgQuery(ctx, query, args, func(c *pgx.Conn, args []any) error {
		return scan(c.QueryRow(ctx, query, args...))
	})
}

// pgQuery hands run a pgx connection of the PostgreSQL pool (q.pg must be
// set) and args with numericAsText before them, in a span named by query
// when tracing is on. Its errors are translated as GORM translates them
// (TranslateError), so callers test for gorm.ErrForeignKeyViolated and the
// like whichever way the statement ran.
func (q *queries) pgQuery(ctx context.Context, query string, args []any, run func(c *pgx.Conn, args []any) error) error {
	err := q.spans.trace(ctx, query, func(ctx context.Context) error {
		conn, err := q.pg.Conn(ctx)
		if err != nil {
			return err
		}
		defer conn.Close()
		return conn.Raw(func(driverConn any) error {
			c, ok := driverConn.(*stdlib.Conn)
			if !ok {
				return errors.New("query: the pool's connection is not pgx's")
			}
			return run(c.Conn(), append([]any{numericAsText}, args...))
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
