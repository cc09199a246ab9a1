// Package store implements fuel.Store with GORM on PostgreSQL (numeric
// columns) and on embedded SQLite (pure Go, decimals as exact text). Each
// dialect has its own versioned SQL migrations, embedded in the binary,
// applied at start-up and recorded in schema_migrations.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/glebarez/sqlite"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/carhub/backend/services/fuel/internal/fuel"
)

// Dialect names the database behind a Store.
type Dialect string

// The two dialects.
const (
	Postgres Dialect = "postgres"
	SQLite   Dialect = "sqlite"
)

// defaultLockKey is the PostgreSQL advisory lock that serialises the
// writers that change which vehicle is the default. The partial unique
// index already forbids two defaults; the lock makes concurrent switches
// wait for each other instead of failing on that index.
const defaultLockKey = 0x6675656c // "fuel"

// Store is the GORM implementation of fuel.Store.
type Store struct {
	db      *gorm.DB
	sqlDB   *sql.DB // the pool under db, for the hot single statements
	dialect Dialect
	// inTx is set on the Store that Once hands to its create function: db
	// is then a transaction and every statement must run in it.
	inTx bool

	// Now is the clock for created_at / updated_at; tests replace it.
	Now func() time.Time
}

var _ fuel.Store = (*Store)(nil)

// OpenPostgres connects to the PostgreSQL database at dsn and applies the
// pending migrations.
func OpenPostgres(ctx context.Context, dsn string) (*Store, error) {
	db, err := gorm.Open(postgres.Open(dsn), gormConfig())
	if err != nil {
		return nil, fmt.Errorf("open postgres: %w", err)
	}
	sqlDB, err := db.DB()
	if err != nil {
		return nil, err
	}
	sqlDB.SetMaxOpenConns(32)
	sqlDB.SetMaxIdleConns(32)
	sqlDB.SetConnMaxIdleTime(5 * time.Minute)
	return open(ctx, db, Postgres)
}

// OpenSQLite opens (creating it and its directory when absent) the SQLite
// database file at path and applies the pending migrations. Foreign keys
// are enforced; one connection serialises all access, which is what SQLite
// does for writers anyway and keeps concurrent writers free of SQLITE_BUSY.
func OpenSQLite(ctx context.Context, path string) (*Store, error) {
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("create sqlite directory: %w", err)
		}
	}
	dsn := "file:" + path + "?_pragma=foreign_keys(1)&_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)"
	db, err := gorm.Open(sqlite.Open(dsn), gormConfig())
	if err != nil {
		return nil, fmt.Errorf("open sqlite %s: %w", path, err)
	}
	sqlDB, err := db.DB()
	if err != nil {
		return nil, err
	}
	sqlDB.SetMaxOpenConns(1)
	return open(ctx, db, SQLite)
}

func gormConfig() *gorm.Config {
	return &gorm.Config{
		Logger:                 logger.Discard,
		TranslateError:         true,
		SkipDefaultTransaction: true, // single statements need no BEGIN/COMMIT
	}
}

func open(ctx context.Context, db *gorm.DB, d Dialect) (*Store, error) {
	sqlDB, err := db.DB()
	if err != nil {
		return nil, err
	}
	s := &Store{db: db, sqlDB: sqlDB, dialect: d, Now: time.Now}
	if err := s.migrate(ctx); err != nil {
		_ = sqlDB.Close()
		return nil, err
	}
	return s, nil
}

// Dialect says which database the store uses.
func (s *Store) Dialect() Dialect { return s.dialect }

// Close closes the database connections.
func (s *Store) Close() error { return s.sqlDB.Close() }

// Ping implements fuel.Store.
func (s *Store) Ping(ctx context.Context) error { return s.sqlDB.PingContext(ctx) }

// queryRow runs a one-row query in tx, or, when tx is nil, straight on
// the pool: the reads and the insert that the load run measures skip
// GORM's statement building, which costs them a fifth of their throughput.
func (s *Store) queryRow(ctx context.Context, tx *gorm.DB, query string, args ...any) *sql.Row {
	if tx == nil && s.inTx {
		tx = s.db.WithContext(ctx)
	}
	if tx == nil {
		return s.sqlDB.QueryRowContext(ctx, s.rebind(query), args...)
	}
	return tx.Raw(query, args...).Row()
}

// rebind turns the ? placeholders of query into PostgreSQL's $1, $2, ...
// (SQLite takes ? as written). The queries hold no ? in literals.
func (s *Store) rebind(query string) string {
	if s.dialect != Postgres || !strings.Contains(query, "?") {
		return query
	}
	var b strings.Builder
	b.Grow(len(query) + 8)
	n := 0
	for i := 0; i < len(query); i++ {
		if query[i] == '?' {
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			continue
		}
		b.WriteByte(query[i])
	}
	return b.String()
}

// translate maps a driver error to GORM's portable errors, as GORM does
// for the statements it runs itself.
func (s *Store) translate(err error) error {
	if t, ok := s.db.Dialector.(gorm.ErrorTranslator); ok && err != nil {
		return t.Translate(err)
	}
	return err
}

func (s *Store) now() time.Time { return fuel.NormalizeTime(s.Now()) }

// storable reports whether id can be a row id: ids above MaxInt64 are
// well-formed in the API but no bigint column holds them.
func storable(id uint64) bool { return id >= 1 && id <= math.MaxInt64 }

// lockClause locks the selected row for the rest of the transaction on
// PostgreSQL; SQLite has one connection, so nothing can interleave.
func (s *Store) lockClause(lock bool) string {
	if lock && s.dialect == Postgres {
		return " FOR UPDATE"
	}
	return ""
}

// clearDefault makes no vehicle but keep the default, under the default
// lock held until the transaction ends.
func (s *Store) clearDefault(tx *gorm.DB, keep uint64, now time.Time) error {
	if s.dialect == Postgres {
		if err := tx.Exec("SELECT pg_advisory_xact_lock(?)", defaultLockKey).Error; err != nil {
			return fmt.Errorf("lock default vehicle: %w", err)
		}
	}
	err := tx.Exec("UPDATE vehicles SET default_vehicle = ?, updated_at = ? WHERE default_vehicle = ? AND id <> ?",
		false, now, true, keep).Error
	if err != nil {
		return fmt.Errorf("clear default vehicle: %w", err)
	}
	return nil
}

// ListVehicles implements fuel.Store.
func (s *Store) ListVehicles(ctx context.Context) ([]fuel.Vehicle, error) {
	var rows []vehicleRow
	if err := s.db.WithContext(ctx).Order("default_vehicle DESC, id ASC").Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("list vehicles: %w", err)
	}
	out := make([]fuel.Vehicle, len(rows))
	for i := range rows {
		out[i] = rows[i].toVehicle()
	}
	return out, nil
}

// CreateVehicle implements fuel.Store.
func (s *Store) CreateVehicle(ctx context.Context, v *fuel.Vehicle) error {
	v.Normalize()
	if err := v.Validate(); err != nil {
		return err
	}
	v.ID = 0
	v.CreatedAt = s.now()
	v.UpdatedAt = v.CreatedAt
	row := toVehicleRow(*v)
	insert := func(tx *gorm.DB) error { return tx.Create(&row).Error }
	var err error
	if v.DefaultVehicle {
		err = s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
			if err := s.clearDefault(tx, 0, v.CreatedAt); err != nil {
				return err
			}
			return insert(tx)
		})
	} else {
		err = insert(s.db.WithContext(ctx))
	}
	if err != nil {
		return fmt.Errorf("create vehicle: %w", err)
	}
	*v = row.toVehicle()
	return nil
}

// Vehicle implements fuel.Store.
func (s *Store) Vehicle(ctx context.Context, id uint64) (fuel.Vehicle, error) {
	row, err := s.vehicle(ctx, nil, id, false)
	if err != nil {
		return fuel.Vehicle{}, err
	}
	return row.toVehicle(), nil
}

// vehicle reads a vehicle in tx (nil: outside a transaction), locking
// its row when lock is set.
func (s *Store) vehicle(ctx context.Context, tx *gorm.DB, id uint64, lock bool) (vehicleRow, error) {
	var row vehicleRow
	if !storable(id) {
		return row, fuel.ErrVehicleNotFound
	}
	err := row.scan(s.queryRow(ctx, tx, "SELECT "+vehicleColumns+" FROM vehicles WHERE id = ?"+s.lockClause(lock), id))
	if errors.Is(err, sql.ErrNoRows) {
		return row, fuel.ErrVehicleNotFound
	}
	if err != nil {
		return row, fmt.Errorf("get vehicle %d: %w", id, err)
	}
	return row, nil
}

// UpdateVehicle implements fuel.Store.
func (s *Store) UpdateVehicle(ctx context.Context, id uint64, u fuel.VehicleUpdate) (fuel.Vehicle, error) {
	var out fuel.Vehicle
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		now := s.now()
		makeDefault := u.DefaultVehicle != nil && *u.DefaultVehicle
		if makeDefault {
			// Take the default lock before the row lock, in the same order
			// as SetDefaultVehicle, so the two cannot deadlock.
			if err := s.clearDefault(tx, id, now); err != nil {
				return err
			}
		}
		row, err := s.vehicle(ctx, tx, id, true)
		if err != nil {
			return err
		}
		v := row.toVehicle()
		u.Apply(&v)
		v.Normalize()
		if err := v.Validate(); err != nil {
			return err
		}
		v.UpdatedAt = now
		row = toVehicleRow(v)
		if err := tx.Save(&row).Error; err != nil {
			return fmt.Errorf("update vehicle %d: %w", id, err)
		}
		out = row.toVehicle()
		return nil
	})
	return out, err
}

// DeleteVehicle implements fuel.Store. The foreign key's ON DELETE CASCADE
// removes the refuels in the same statement.
func (s *Store) DeleteVehicle(ctx context.Context, id uint64) error {
	if !storable(id) {
		return fuel.ErrVehicleNotFound
	}
	res := s.db.WithContext(ctx).Exec("DELETE FROM vehicles WHERE id = ?", id)
	if res.Error != nil {
		return fmt.Errorf("delete vehicle %d: %w", id, res.Error)
	}
	if res.RowsAffected == 0 {
		return fuel.ErrVehicleNotFound
	}
	return nil
}

// SetDefaultVehicle implements fuel.Store.
func (s *Store) SetDefaultVehicle(ctx context.Context, id uint64) (fuel.Vehicle, error) {
	if !storable(id) {
		return fuel.Vehicle{}, fuel.ErrVehicleNotFound
	}
	var out fuel.Vehicle
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		now := s.now()
		if err := s.clearDefault(tx, id, now); err != nil {
			return err
		}
		row, err := s.vehicle(ctx, tx, id, true)
		if err != nil {
			return err
		}
		if !row.DefaultVehicle {
			row.DefaultVehicle = true
			row.UpdatedAt = now
			if err := tx.Save(&row).Error; err != nil {
				return fmt.Errorf("set default vehicle %d: %w", id, err)
			}
		}
		out = row.toVehicle()
		return nil
	})
	return out, err
}

// CreateRefuel implements fuel.Store.
func (s *Store) CreateRefuel(ctx context.Context, r *fuel.Refuel) error {
	r.Normalize()
	if err := r.Validate(); err != nil {
		return err
	}
	if !storable(r.VehicleID) {
		return fuel.ErrUnknownVehicle(r.VehicleID)
	}
	r.ID = 0
	r.CreatedAt = s.now()
	r.UpdatedAt = r.CreatedAt
	row := toRefuelRow(*r)
	err := s.queryRow(ctx, nil, `INSERT INTO refuels (vehicle_id, refuel_time, odometer, fuel_type, liters,
		total_amount, price_per_liter, station_name, is_full, missed_previous, remark, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
		row.VehicleID, row.RefuelTime, row.Odometer, row.FuelType, row.Liters, row.TotalAmount, row.PricePerLiter,
		row.StationName, row.IsFull, row.MissedPrevious, row.Remark, row.CreatedAt, row.UpdatedAt).Scan(&row.ID)
	err = s.translate(err)
	if errors.Is(err, gorm.ErrForeignKeyViolated) {
		return fuel.ErrUnknownVehicle(r.VehicleID)
	}
	if err != nil {
		return fmt.Errorf("create refuel: %w", err)
	}
	*r = row.toRefuel()
	return nil
}

// Refuel implements fuel.Store.
func (s *Store) Refuel(ctx context.Context, id uint64) (fuel.Refuel, error) {
	row, err := s.refuel(ctx, nil, id, false)
	if err != nil {
		return fuel.Refuel{}, err
	}
	return row.toRefuel(), nil
}

// refuel reads a refuel as vehicle reads a vehicle.
func (s *Store) refuel(ctx context.Context, tx *gorm.DB, id uint64, lock bool) (refuelRow, error) {
	var row refuelRow
	if !storable(id) {
		return row, fuel.ErrRefuelNotFound
	}
	err := row.scan(s.queryRow(ctx, tx, "SELECT "+refuelColumns+" FROM refuels WHERE id = ?"+s.lockClause(lock), id))
	if errors.Is(err, sql.ErrNoRows) {
		return row, fuel.ErrRefuelNotFound
	}
	if err != nil {
		return row, fmt.Errorf("get refuel %d: %w", id, err)
	}
	return row, nil
}

// UpdateRefuel implements fuel.Store.
func (s *Store) UpdateRefuel(ctx context.Context, id uint64, u fuel.RefuelUpdate) (fuel.Refuel, error) {
	var out fuel.Refuel
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		row, err := s.refuel(ctx, tx, id, true)
		if err != nil {
			return err
		}
		r := row.toRefuel()
		u.Apply(&r)
		r.Normalize()
		if err := r.Validate(); err != nil {
			return err
		}
		if !storable(r.VehicleID) {
			return fuel.ErrUnknownVehicle(r.VehicleID)
		}
		r.UpdatedAt = s.now()
		row = toRefuelRow(r)
		err = tx.Save(&row).Error
		if errors.Is(err, gorm.ErrForeignKeyViolated) {
			return fuel.ErrUnknownVehicle(r.VehicleID)
		}
		if err != nil {
			return fmt.Errorf("update refuel %d: %w", id, err)
		}
		out = row.toRefuel()
		return nil
	})
	return out, err
}

// DeleteRefuel implements fuel.Store.
func (s *Store) DeleteRefuel(ctx context.Context, id uint64) error {
	if !storable(id) {
		return fuel.ErrRefuelNotFound
	}
	res := s.db.WithContext(ctx).Exec("DELETE FROM refuels WHERE id = ?", id)
	if res.Error != nil {
		return fmt.Errorf("delete refuel %d: %w", id, res.Error)
	}
	if res.RowsAffected == 0 {
		return fuel.ErrRefuelNotFound
	}
	return nil
}

// ListRefuels implements fuel.Store.
func (s *Store) ListRefuels(ctx context.Context, f fuel.RefuelFilter) ([]fuel.Refuel, error) {
	if !storable(f.VehicleID) {
		return []fuel.Refuel{}, nil
	}
	// Built and scanned by hand, run on the pool (see queryRow).
	query := "SELECT " + refuelColumns + " FROM refuels WHERE vehicle_id = ?"
	args := []any{f.VehicleID}
	if f.Start != nil {
		query += " AND refuel_time >= ?"
		args = append(args, fuel.NormalizeTime(*f.Start))
	}
	if f.End != nil {
		query += " AND refuel_time <= ?"
		args = append(args, fuel.NormalizeTime(*f.End))
	}
	query += " ORDER BY refuel_time DESC, id DESC"
	switch {
	case f.Limit > 0:
		query += " LIMIT ? OFFSET ?"
		args = append(args, f.Limit, f.Offset)
	case f.Offset > 0:
		// SQLite needs a LIMIT before OFFSET; -1 is none there, and
		// PostgreSQL takes LIMIT ALL.
		if s.dialect == SQLite {
			query += " LIMIT -1 OFFSET ?"
		} else {
			query += " LIMIT ALL OFFSET ?"
		}
		args = append(args, f.Offset)
	}
	rows, err := s.sqlDB.QueryContext(ctx, s.rebind(query), args...)
	if err != nil {
		return nil, fmt.Errorf("list refuels: %w", err)
	}
	defer rows.Close()
	out := []fuel.Refuel{}
	for rows.Next() {
		var r refuelRow
		if err := r.scan(rows); err != nil {
			return nil, fmt.Errorf("list refuels: %w", err)
		}
		out = append(out, r.toRefuel())
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list refuels: %w", err)
	}
	return out, nil
}

// Statistics implements fuel.Store: one ordered scan of the vehicle's
// records feeds fuel.StatsBuilder, then the last record is read by id. On
// PostgreSQL the three statements share one snapshot.
func (s *Store) Statistics(ctx context.Context, vehicleID uint64) (fuel.Statistics, error) {
	if s.dialect == Postgres && !s.inTx {
		return s.statisticsPostgres(ctx, vehicleID)
	}
	var out fuel.Statistics
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if _, err := s.vehicle(ctx, tx, vehicleID, false); err != nil {
			return err
		}
		b := fuel.NewStatsBuilder(vehicleID)
		if err := scanStats(tx, vehicleID, nil, nil, b.Add); err != nil {
			return err
		}
		out = b.Statistics()
		if id := b.LastID(); id != 0 {
			last, err := s.refuel(ctx, tx, id, false)
			if err != nil {
				return err
			}
			r := last.toRefuel()
			out.LastRefuel = &r
		}
		return nil
	})
	return out, err
}

// scanStats feeds the records of a vehicle, those with refuel_time in
// [start, end] where set, to add in (refuel_time, id) order: one ordered
// scan.
func scanStats(tx *gorm.DB, vehicleID uint64, start, end *time.Time, add func(fuel.StatsRecord)) error {
	// The quantities arrive as decimal text (numeric on PostgreSQL, TEXT
	// on SQLite) and are read into fixed point without allocating.
	// Asking PostgreSQL for (x * 1000)::int8 instead costs it five times
	// the execution time.
	query := `SELECT id, refuel_time, odometer, liters, total_amount, price_per_liter, is_full, missed_previous
		FROM refuels WHERE vehicle_id = ?`
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
	return feedStats[sql.RawBytes](rows, add)
}

// statsRows is what feedStats reads: *sql.Rows and pgx.Rows both are.
type statsRows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}

// feedStats reads rows of (id, refuel_time, odometer, liters, total_amount,
// price_per_liter, is_full, missed_previous), in order, into add. B is the
// buffer type of the four quantities: sql.RawBytes for database/sql, which
// then skips a copy, []byte for pgx. The caller closes rows.
func feedStats[B ~[]byte](rows statsRows, add func(fuel.StatsRecord)) error {
	var (
		r                          fuel.StatsRecord
		odo, liters, amount, price B
	)
	for rows.Next() {
		if err := rows.Scan(&r.ID, &r.RefuelTime, &odo, &liters, &amount, &price, &r.IsFull, &r.MissedPrevious); err != nil {
			return fmt.Errorf("scan refuel: %w", err)
		}
		if err := parseStatsRecord(&r, []byte(odo), []byte(liters), []byte(amount), []byte(price)); err != nil {
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
// decimal text.
func parseStatsRecord(r *fuel.StatsRecord, odo, liters, amount, price []byte) error {
	var err error
	if r.Odometer, err = fuel.ParseFixed(odo, fuel.QuantityScale); err != nil {
		return err
	}
	if r.Liters, err = fuel.ParseFixed(liters, fuel.QuantityScale); err != nil {
		return err
	}
	if r.TotalAmount, err = fuel.ParseFixed(amount, fuel.QuantityScale); err != nil {
		return err
	}
	r.PricePerLiter, err = fuel.ParseFixed(price, fuel.PriceScale)
	return err
}
