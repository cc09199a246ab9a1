package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/carhub/backend/services/fuel/internal/fuel"
)

// statsQueryPostgres is scanStats's query on PostgreSQL. The quantities are
// asked for as text: numeric in binary would have to be converted through
// math/big before the fixed-point parser sees it.
const statsQueryPostgres = `SELECT id, refuel_time, odometer::text, liters::text, total_amount::text,
	price_per_liter::text, is_full, missed_previous
	FROM refuels WHERE vehicle_id = $1 ORDER BY refuel_time ASC, id ASC`

// statisticsPostgres is Statistics on PostgreSQL. It runs the same three
// reads in one read-only repeatable-read transaction, but through pgx's own
// interface on a connection of the pool instead of database/sql: at 10 000
// records, database/sql's per-column conversions (a string allocated for
// every value, then copied again) were most of the request's time.
func (s *Store) statisticsPostgres(ctx context.Context, vehicleID uint64) (fuel.Statistics, error) {
	if !storable(vehicleID) {
		return fuel.Statistics{}, fuel.ErrVehicleNotFound
	}
	conn, err := s.sqlDB.Conn(ctx)
	if err != nil {
		return fuel.Statistics{}, fmt.Errorf("statistics: %w", err)
	}
	defer conn.Close()

	var out fuel.Statistics
	err = conn.Raw(func(driverConn any) error {
		dc, ok := driverConn.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("statistics: driver connection is %T, not pgx", driverConn)
		}
		tx, err := dc.Conn().BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
		if err != nil {
			return fmt.Errorf("statistics: begin: %w", err)
		}
		defer tx.Rollback(ctx) //nolint:errcheck // read-only: nothing to undo

		var one int
		switch err := tx.QueryRow(ctx, "SELECT 1 FROM vehicles WHERE id = $1", vehicleID).Scan(&one); {
		case errors.Is(err, pgx.ErrNoRows):
			return fuel.ErrVehicleNotFound
		case err != nil:
			return fmt.Errorf("get vehicle %d: %w", vehicleID, err)
		}

		b := fuel.NewStatsBuilder(vehicleID)
		rows, err := tx.Query(ctx, statsQueryPostgres, vehicleID)
		if err != nil {
			return fmt.Errorf("scan refuels: %w", err)
		}
		err = feedStats[[]byte](rows, b.Add)
		rows.Close()
		if err != nil {
			return err
		}
		out = b.Statistics()

		if id := b.LastID(); id != 0 {
			var last refuelRow
			if err := last.scan(tx.QueryRow(ctx, "SELECT "+refuelColumns+" FROM refuels WHERE id = $1", id)); err != nil {
				return fmt.Errorf("get refuel %d: %w", id, err)
			}
			lr := last.toRefuel()
			out.LastRefuel = &lr
		}
		return tx.Commit(ctx)
	})
	return out, err
}
