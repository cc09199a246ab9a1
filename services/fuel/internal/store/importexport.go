package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"gorm.io/gorm"

	"github.com/carhub/backend/pkg/auth"
	"github.com/carhub/backend/services/fuel/internal/fuel"
)

// exportPage is how many records ExportRefuels reads per statement. Pages
// keep memory bounded, and no read transaction stays open while a slow
// client reads the export (on SQLite an open reader keeps the WAL from
// being checkpointed).
const exportPage = 500

// exportPageRows is exportPage unless SetPageSizes changed it.
func (q *queries) exportPageRows() int {
	if q.exportRows > 0 {
		return q.exportRows
	}
	return exportPage
}

// exportTable names a vehicle's records for exportPages: the table, its
// alias in columns, and its time column.
type exportTable struct {
	what, columns, table, alias, time string
}

// exportPages calls fn with every record of the vehicle in t, in (time, id)
// order, read exportPageRows at a time, each page starting after the last
// record of the previous one; key gives a record's time and id.
func exportPages[T any](ctx context.Context, q *queries, vehicleID uint64, t exportTable, rows func(*gorm.DB) ([]T, error),
	key func(T) (time.Time, uint64), fn func(T) error) error {
	if _, err := q.vehicle(ctx, q.read, vehicleID, false); err != nil {
		return err
	}
	uid := auth.UserID(ctx)
	pageRows := q.exportPageRows()
	var (
		afterTime time.Time
		afterID   uint64
		first     = true
	)
	for {
		// Each page checks again that the caller may still see the
		// vehicle, as no transaction spans the pages.
		query := "SELECT " + t.columns + " FROM " + t.table + " " + t.alias + " WHERE " + t.alias + ".vehicle_id = ? AND EXISTS (SELECT 1 FROM vehicles v WHERE v.id = ? AND " +
			visibleTo("v") + ")"
		args := []any{vehicleID, vehicleID, uid, uid}
		if !first {
			// A row-value comparison, which both databases serve from
			// the (vehicle_id, time, id) index as a range.
			query += " AND (" + t.alias + "." + t.time + ", " + t.alias + ".id) > (?, ?)"
			args = append(args, afterTime, afterID)
		}
		query += " ORDER BY " + t.alias + "." + t.time + " ASC, " + t.alias + ".id ASC LIMIT ?"
		args = append(args, pageRows)
		page, err := rows(q.read.WithContext(ctx).Raw(query, args...))
		if err != nil {
			return fmt.Errorf("export %s: %w", t.what, err)
		}
		for _, r := range page {
			if err := fn(r); err != nil {
				return err
			}
		}
		if len(page) < pageRows {
			return nil
		}
		afterTime, afterID = key(page[len(page)-1])
		first = false
	}
}

// importBatch is the number of rows per INSERT of an import.
const importBatch = 200

// importBatchRows is importBatch unless SetPageSizes changed it.
func (q *queries) importBatchRows() int {
	if q.importRows > 0 {
		return q.importRows
	}
	return importBatch
}

// importKind is what importRecords needs to know of one kind of record.
type importKind[T, R any] struct {
	// what names the records in errors ("refuels").
	what string
	// check, when set, refuses a record the vehicle cannot take, or
	// settles it for the vehicle.
	check func(v vehicleRow, rec *T) error
	// storedKeys is a SELECT of the columns storedKey reads, of the
	// records of one vehicle (its only argument).
	storedKeys string
	// storedKey reads a row of storedKeys into the record's key.
	storedKey func(row interface{ Scan(...any) error }) (string, error)
	// key is the key of a record to import.
	key func(T) string
	// row is the row to insert for rec, already given its vehicle and
	// times.
	row func(rec T) (R, error)
	// stamp gives rec its vehicle and creation time, with no id.
	stamp func(rec *T, vehicleID uint64, now time.Time)
}

// importRecords adds to the vehicle those of recs no stored record equals
// (by k.key), and says how many it added and skipped. The vehicle's row is
// locked for the transaction on PostgreSQL, so two imports into one vehicle
// cannot both miss each other's records when looking for equal ones (on
// SQLite the imports run one after the other on the writer). A dry run
// writes nothing: it is a read transaction on the read handle. The caller
// must own or edit the vehicle, also for a dry run.
func importRecords[T, R any](ctx context.Context, q *queries, vehicleID uint64, recs []T, dryRun bool, k importKind[T, R]) (fuel.ImportResult, error) {
	h, opts := q.write, (*sql.TxOptions)(nil)
	if dryRun {
		h, opts = q.read, q.snapshot()
	}
	var res fuel.ImportResult
	err := h.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		v, err := q.vehicle(ctx, tx, vehicleID, !dryRun)
		if err != nil {
			return err
		}
		if !v.Role.CanWriteRecords() {
			return fuel.ErrForbidden
		}
		if k.check != nil {
			for i := range recs {
				if err := k.check(v, &recs[i]); err != nil {
					return err
				}
			}
		}
		stored, err := storedImportKeys(tx, vehicleID, k)
		if err != nil {
			return err
		}
		now := q.now()
		var batch []R
		for _, r := range recs {
			if stored[k.key(r)] {
				res.Skipped++
				continue
			}
			res.Imported++
			k.stamp(&r, vehicleID, now)
			row, err := k.row(r)
			if err != nil {
				return err
			}
			batch = append(batch, row)
		}
		if dryRun || len(batch) == 0 {
			return nil
		}
		if err := tx.CreateInBatches(&batch, q.importBatchRows()).Error; err != nil {
			return fmt.Errorf("import %s: %w", k.what, err)
		}
		return nil
	}, opts)
	if err != nil {
		return fuel.ImportResult{}, err
	}
	return res, nil
}

// storedImportKeys returns the key of every stored record of the vehicle.
func storedImportKeys[T, R any](tx *gorm.DB, vehicleID uint64, k importKind[T, R]) (map[string]bool, error) {
	rows, err := tx.Raw(k.storedKeys, vehicleID).Rows()
	if err != nil {
		return nil, fmt.Errorf("read stored %s: %w", k.what, err)
	}
	defer rows.Close()
	stored := make(map[string]bool)
	for rows.Next() {
		key, err := k.storedKey(rows)
		if err != nil {
			return nil, fmt.Errorf("read stored %s: %w", k.what, err)
		}
		stored[key] = true
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read stored %s: %w", k.what, err)
	}
	return stored, nil
}
