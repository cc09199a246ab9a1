package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/shopspring/decimal"
	"gorm.io/gorm"

	"github.com/carhub/backend/pkg/apperr"
	"github.com/carhub/backend/services/fuel/internal/fuel"
)

// MonthlyStatistics implements fuel.Store: one ordered scan of the records
// in range feeds fuel.MonthlyBuilder.
func (s *Store) MonthlyStatistics(ctx context.Context, vehicleID uint64, start, end *time.Time) ([]fuel.MonthStat, error) {
	var out []fuel.MonthStat
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if _, err := s.vehicle(ctx, tx, vehicleID, false); err != nil {
			return err
		}
		var b fuel.MonthlyBuilder
		if err := scanStats(tx, vehicleID, start, end, b.Add); err != nil {
			return err
		}
		out = b.Months()
		return nil
	}, s.snapshot())
	return out, err
}

// snapshot is the transaction of a read that runs several statements: one
// REPEATABLE READ snapshot on PostgreSQL; SQLite's single connection sees
// one state anyway.
func (s *Store) snapshot() *sql.TxOptions {
	if s.dialect == Postgres {
		return &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true}
	}
	return nil
}

// exportPage is how many records ExportRefuels reads per statement. Pages
// keep memory bounded and, on SQLite's single connection, let other
// requests run between pages while a slow client reads the export.
const exportPage = 500

// ExportRefuels implements fuel.Store, reading pages in (refuel_time, id)
// order, each starting after the last record of the previous one.
func (s *Store) ExportRefuels(ctx context.Context, vehicleID uint64, fn func(fuel.Refuel) error) error {
	if _, err := s.vehicle(ctx, nil, vehicleID, false); err != nil {
		return err
	}
	var (
		afterTime time.Time
		afterID   uint64
		first     = true
	)
	for {
		query := "SELECT " + refuelColumns + " FROM refuels WHERE vehicle_id = ?"
		args := []any{vehicleID}
		if !first {
			// A row-value comparison, which both databases serve from
			// the (vehicle_id, refuel_time, id) index as a range.
			query += " AND (refuel_time, id) > (?, ?)"
			args = append(args, afterTime, afterID)
		}
		query += " ORDER BY refuel_time ASC, id ASC LIMIT ?"
		args = append(args, exportPage)
		page, err := s.refuelPage(ctx, query, args)
		if err != nil {
			return fmt.Errorf("export refuels: %w", err)
		}
		for _, r := range page {
			if err := fn(r); err != nil {
				return err
			}
		}
		if len(page) < exportPage {
			return nil
		}
		last := page[len(page)-1]
		afterTime, afterID, first = last.RefuelTime, last.ID, false
	}
}

// refuelPage runs a query of refuelColumns on the pool.
func (s *Store) refuelPage(ctx context.Context, query string, args []any) ([]fuel.Refuel, error) {
	rows, err := s.sqlDB.QueryContext(ctx, s.rebind(query), args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []fuel.Refuel
	for rows.Next() {
		var r refuelRow
		if err := r.scan(rows); err != nil {
			return nil, err
		}
		out = append(out, r.toRefuel())
	}
	return out, rows.Err()
}

// importKey is what makes an imported record equal to a stored one.
func importKey(t time.Time, odo, liters, amount decimal.Decimal) string {
	return fmt.Sprintf("%d|%s|%s|%s", fuel.NormalizeTime(t).UnixMicro(), odo.String(), liters.String(), amount.String())
}

// importBatch is the number of rows per INSERT of an import.
const importBatch = 200

// ImportRefuels implements fuel.Store. The vehicle's row is locked for the
// transaction on PostgreSQL, so two imports into one vehicle cannot both
// miss each other's records when looking for equal ones.
func (s *Store) ImportRefuels(ctx context.Context, vehicleID uint64, rs []fuel.Refuel, dryRun bool) (fuel.ImportResult, error) {
	var res fuel.ImportResult
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if _, err := s.vehicle(ctx, tx, vehicleID, true); err != nil {
			return err
		}
		rows, err := tx.Raw("SELECT refuel_time, odometer, liters, total_amount FROM refuels WHERE vehicle_id = ?", vehicleID).Rows()
		if err != nil {
			return fmt.Errorf("read stored refuels: %w", err)
		}
		stored := make(map[string]bool)
		for rows.Next() {
			var (
				t                   time.Time
				odo, liters, amount decimal.Decimal
			)
			if err := rows.Scan(&t, &odo, &liters, &amount); err != nil {
				rows.Close()
				return fmt.Errorf("read stored refuels: %w", err)
			}
			stored[importKey(t, odo, liters, amount)] = true
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("read stored refuels: %w", err)
		}
		now := s.now()
		var batch []refuelRow
		for _, r := range rs {
			if stored[importKey(r.RefuelTime, r.Odometer, r.Liters, r.TotalAmount)] {
				res.Skipped++
				continue
			}
			res.Imported++
			r.ID, r.VehicleID, r.CreatedAt, r.UpdatedAt = 0, vehicleID, now, now
			batch = append(batch, toRefuelRow(r))
		}
		if dryRun || len(batch) == 0 {
			return nil
		}
		if err := tx.CreateInBatches(&batch, importBatch).Error; err != nil {
			return fmt.Errorf("import refuels: %w", err)
		}
		return nil
	})
	if err != nil {
		return fuel.ImportResult{}, err
	}
	return res, nil
}

// Once implements fuel.Store. The key row is inserted first, inside the
// transaction that creates the record: a concurrent request with the same
// key waits on the primary key until this transaction ends, then finds the
// stored answer (PostgreSQL), or runs after it (SQLite's one connection).
func (s *Store) Once(ctx context.Context, k fuel.IdempotencyKey, create func(tx fuel.Store) (fuel.StoredAnswer, error)) (fuel.StoredAnswer, bool, error) {
	var (
		out      fuel.StoredAnswer
		replayed bool
	)
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		now := s.now()
		// An expired answer counts as absent, whether or not the purge
		// has removed it yet.
		if err := tx.Exec("DELETE FROM idempotency_keys WHERE idem_key = ? AND method = ? AND path = ? AND created_at < ?",
			k.Key, k.Method, k.Path, now.Add(-fuel.IdempotencyTTL)).Error; err != nil {
			return fmt.Errorf("expire idempotency key: %w", err)
		}
		claim := tx.Exec(`INSERT INTO idempotency_keys (idem_key, method, path, request_hash, status, body, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (idem_key, method, path) DO NOTHING`,
			k.Key, k.Method, k.Path, k.RequestHash, 200, []byte{}, now)
		if claim.Error != nil {
			return fmt.Errorf("claim idempotency key: %w", claim.Error)
		}
		if claim.RowsAffected == 0 {
			var hash string
			err := tx.Raw("SELECT request_hash, status, body FROM idempotency_keys WHERE idem_key = ? AND method = ? AND path = ?",
				k.Key, k.Method, k.Path).Row().Scan(&hash, &out.Status, &out.Body)
			if err != nil {
				return fmt.Errorf("read idempotency key: %w", err)
			}
			if hash != k.RequestHash {
				return apperr.Invalid("Idempotency-Key", "was already used with a different request body")
			}
			replayed = true
			return nil
		}
		bound := &Store{db: tx, sqlDB: s.sqlDB, dialect: s.dialect, inTx: true, Now: s.Now}
		a, err := create(bound)
		if err != nil {
			return err
		}
		if a.Status < 200 || a.Status > 299 {
			return fmt.Errorf("idempotent create answered %d: only 2xx answers are stored", a.Status)
		}
		if err := tx.Exec("UPDATE idempotency_keys SET status = ?, body = ? WHERE idem_key = ? AND method = ? AND path = ?",
			a.Status, a.Body, k.Key, k.Method, k.Path).Error; err != nil {
			return fmt.Errorf("store idempotent answer: %w", err)
		}
		out = a
		return nil
	})
	if err != nil {
		return fuel.StoredAnswer{}, false, err
	}
	return out, replayed, nil
}

// purgeBatch bounds the rows one purge statement deletes, so that it holds
// locks (and SQLite's one connection) only briefly.
const purgeBatch = 500

// PurgeIdempotencyKeys deletes the stored answers created before before,
// in small batches, and returns how many it deleted.
func (s *Store) PurgeIdempotencyKeys(ctx context.Context, before time.Time) (int64, error) {
	var total int64
	for {
		res := s.db.WithContext(ctx).Exec(`DELETE FROM idempotency_keys WHERE (idem_key, method, path) IN
			(SELECT idem_key, method, path FROM idempotency_keys WHERE created_at < ? LIMIT ?)`, before, purgeBatch)
		if res.Error != nil {
			return total, fmt.Errorf("purge idempotency keys: %w", res.Error)
		}
		total += res.RowsAffected
		if res.RowsAffected < purgeBatch {
			return total, nil
		}
	}
}

// RunIdempotencyPurge purges expired idempotency keys every interval until
// ctx is done. Run it in its own goroutine: requests never wait for it
// beyond one small batch.
func (s *Store) RunIdempotencyPurge(ctx context.Context, every time.Duration, log *slog.Logger) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		n, err := s.PurgeIdempotencyKeys(ctx, s.now().Add(-fuel.IdempotencyTTL))
		switch {
		case err != nil && !errors.Is(err, context.Canceled):
			log.Error("purge idempotency keys", "err", err)
		case n > 0:
			log.Info("purged idempotency keys", "deleted", n)
		}
	}
}

// CountRows returns the number of rows of table; for tests and tools.
func (s *Store) CountRows(ctx context.Context, table string) (int64, error) {
	switch table {
	case "vehicles", "refuels", "idempotency_keys":
	default:
		return 0, fmt.Errorf("count rows: unknown table %q", table)
	}
	var n int64
	err := s.sqlDB.QueryRowContext(ctx, "SELECT count(*) FROM "+table).Scan(&n)
	return n, err
}
