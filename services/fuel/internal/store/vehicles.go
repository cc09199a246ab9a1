package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"gorm.io/gorm"

	"database/sql/driver"
	"encoding/json"
	"github.com/carhub/backend/pkg/auth"
	"github.com/carhub/backend/services/fuel/internal/fuel"
	"github.com/shopspring/decimal"
	"time"
)

// vehicleRow is the GORM model of the vehicles table. Decimals travel as
// their canonical text: numeric on PostgreSQL, TEXT on SQLite.
type vehicleRow struct {
	ID              uint64 `gorm:"primaryKey"`
	Name            string
	Brand           string
	Model           string
	PlateNumber     string
	FuelType        string
	TankCapacity    decimal.Decimal
	CurrentOdometer decimal.Decimal
	DefaultVehicle  bool
	CreatedAt       time.Time `gorm:"autoCreateTime:false"`
	UpdatedAt       time.Time `gorm:"autoUpdateTime:false"`
	OwnerID         uint64
	ManualMD5s      manualList
	// Role is what the reading user may do; not a column.
	Role fuel.Role `gorm:"-"`
	// Currency is the owner's currency preference (NULL when not chosen);
	// not a column.
	Currency sql.NullString `gorm:"-"`
	// TopReading is the highest odometer reading of the vehicle's refuels
	// (not valid without any); not a column. CurrentOdometer is the
	// column, the owner's value, which a Save writes back unchanged.
	TopReading decimal.NullDecimal `gorm:"-"`
}

// topReading is the subquery of the highest odometer reading among the
// refuels of the vehicle of alias v, NULL without any: an index range
// read (refuels_vehicle_odometer). SQLite keeps decimals as text, whose
// order is not the numbers' ("9999.5" > "10000"): its index and ORDER BY
// are on the REAL, which orders every value the column admits (at most
// 14 significant digits).
func topReading(d Dialect) string {
	if d == Postgres {
		return "(SELECT max(r.odometer) FROM refuels r WHERE r.vehicle_id = v.id)"
	}
	return "(SELECT r.odometer FROM refuels r WHERE r.vehicle_id = v.id ORDER BY CAST(r.odometer AS REAL) DESC LIMIT 1)"
}

func (vehicleRow) TableName() string { return "vehicles" }

// vehicleSelect is the SELECT of the vehicles (alias v) that user uid may
// see, with the columns in the order scan reads them, and its arguments.
// A member sees the default flag as false (it is the owner's choice);
// the role column says what uid may do. Callers add "AND ..." conditions
// (and lock with "FOR UPDATE OF v": m is the nullable side of a join).
func vehicleSelect(d Dialect, uid uint64) (string, []any) {
	return "SELECT v.id, v.name, v.brand, v.model, v.plate_number, v.fuel_type, v.tank_capacity, v.current_odometer, " + topReading(d) + ", " +
			"(v.default_vehicle AND v.owner_id = ?), " + timeColumn(d, "v.created_at") + ", " + timeColumn(d, "v.updated_at") +
			", v.owner_id, v.manual_md5s, CASE WHEN v.owner_id = ? THEN 'owner' ELSE m.role END, " + ownerCurrency + " " +
			"FROM vehicles v LEFT JOIN vehicle_members m ON m.vehicle_id = v.id AND m.user_id = ? " +
			"WHERE (v.owner_id = ? OR m.user_id IS NOT NULL)",
		[]any{uid, uid, uid, uid}
}

// ownerCurrency is the subquery of the currency preference of the owner
// of the vehicle of alias v: the currency of its amounts (NULL when not
// chosen). One primary-key read.
const ownerCurrency = "(SELECT p.currency FROM user_preferences p WHERE p.user_id = v.owner_id)"

// scan reads one row of vehicleSelect. Reads scan by hand: GORM's Find
// cannot read SQLite's timestamps as text (see timeColumn).
func (r *vehicleRow) scan(row interface{ Scan(...any) error }) error {
	return row.Scan(&r.ID, &r.Name, &r.Brand, &r.Model, &r.PlateNumber, &r.FuelType, &r.TankCapacity,
		&r.CurrentOdometer, &r.TopReading, &r.DefaultVehicle, (*timestamp)(&r.CreatedAt), (*timestamp)(&r.UpdatedAt), &r.OwnerID, &r.ManualMD5s, &r.Role, &r.Currency)
}

func toVehicleRow(v fuel.Vehicle) vehicleRow {
	return vehicleRow{
		ID:              v.ID,
		Name:            v.Name,
		Brand:           v.Brand,
		Model:           v.Model,
		PlateNumber:     v.PlateNumber,
		FuelType:        v.FuelType,
		TankCapacity:    v.TankCapacity,
		CurrentOdometer: v.CurrentOdometer,
		DefaultVehicle:  v.DefaultVehicle,
		CreatedAt:       v.CreatedAt,
		UpdatedAt:       v.UpdatedAt,
		OwnerID:         v.OwnerID,
		ManualMD5s:      v.ManualMD5s,
		Role:            v.Role,
		Currency:        sql.NullString{String: v.Currency, Valid: v.Currency != ""},
	}
}

// currentOdometer is what a vehicle answers as its current_odometer: the
// owner's value, or the highest refuel reading when that is higher
// (proto-docs/fuel-decisions.md, "Current odometer").
func (r vehicleRow) currentOdometer() decimal.Decimal {
	if r.TopReading.Valid && r.TopReading.Decimal.GreaterThan(r.CurrentOdometer) {
		return r.TopReading.Decimal
	}
	return r.CurrentOdometer
}

func (r vehicleRow) toVehicle() fuel.Vehicle {
	return fuel.Vehicle{
		ID:              r.ID,
		Name:            r.Name,
		Brand:           r.Brand,
		Model:           r.Model,
		PlateNumber:     r.PlateNumber,
		FuelType:        r.FuelType,
		TankCapacity:    r.TankCapacity,
		CurrentOdometer: r.currentOdometer(),
		DefaultVehicle:  r.DefaultVehicle,
		CreatedAt:       r.CreatedAt.UTC(),
		UpdatedAt:       r.UpdatedAt.UTC(),
		OwnerID:         r.OwnerID,
		Role:            r.Role,
		Currency:        r.Currency.String,
		ManualMD5s:      r.ManualMD5s.strings(),
	}
}

// manualList is the manual_md5s column: the vehicle's manuals as a JSON
// array of strings, in text on both databases.
type manualList []string

// Value implements driver.Valuer: nil is stored as the empty array.
func (l manualList) Value() (driver.Value, error) {
	if l == nil {
		return "[]", nil
	}
	b, err := json.Marshal([]string(l))
	return string(b), err
}

// Scan implements sql.Scanner.
func (l *manualList) Scan(src any) error {
	var b []byte
	switch v := src.(type) {
	case string:
		b = []byte(v)
	case []byte:
		b = v
	default:
		return fmt.Errorf("manual_md5s: cannot scan %T", src)
	}
	var out []string
	if err := json.Unmarshal(b, &out); err != nil {
		return fmt.Errorf("manual_md5s: %w", err)
	}
	*l = out
	return nil
}

// strings is the list, never nil.
func (l manualList) strings() []string {
	if l == nil {
		return []string{}
	}
	return []string(l)
}

// ListVehicles implements fuel.Store: the vehicles the caller owns or is a
// member of, the caller's default first, then by id.
func (q *queries) ListVehicles(ctx context.Context) ([]fuel.Vehicle, error) {
	uid := auth.UserID(ctx)
	query, args := vehicleSelect(q.dialect, uid)
	rows, err := q.read.WithContext(ctx).Raw(query+" ORDER BY (v.default_vehicle AND v.owner_id = ?) DESC, v.id ASC", append(args, uid)...).Rows()
	if err != nil {
		return nil, fmt.Errorf("list vehicles: %w", err)
	}
	defer rows.Close()
	out := []fuel.Vehicle{}
	for rows.Next() {
		var v vehicleRow
		if err := v.scan(rows); err != nil {
			return nil, fmt.Errorf("list vehicles: %w", err)
		}
		out = append(out, v.toVehicle())
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list vehicles: %w", err)
	}
	return out, nil
}

// CreateVehicle implements fuel.Store: the caller owns the new vehicle.
func (q *queries) CreateVehicle(ctx context.Context, v *fuel.Vehicle) error {
	v.Normalize()
	if err := v.Validate(); err != nil {
		return err
	}
	v.ID = 0
	v.OwnerID, v.Role = auth.UserID(ctx), fuel.RoleOwner
	v.CreatedAt = q.now()
	v.UpdatedAt = v.CreatedAt
	row := toVehicleRow(*v)
	insert := func(tx *gorm.DB) error { return tx.Create(&row).Error }
	var err error
	if v.DefaultVehicle {
		err = q.write.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
			if err := q.clearDefault(tx, v.OwnerID, 0, v.CreatedAt); err != nil {
				return err
			}
			return insert(tx)
		})
	} else {
		err = insert(q.write.WithContext(ctx))
	}
	if err != nil {
		return fmt.Errorf("create vehicle: %w", err)
	}
	*v = row.toVehicle()
	// The vehicle's currency is its owner's: the caller's.
	err = q.write.WithContext(ctx).Raw("SELECT coalesce((SELECT currency FROM user_preferences WHERE user_id = ?), '')", v.OwnerID).Row().Scan(&v.Currency)
	if err != nil {
		return fmt.Errorf("create vehicle: read currency: %w", err)
	}
	return nil
}

// Vehicle implements fuel.Store.
func (q *queries) Vehicle(ctx context.Context, id uint64) (fuel.Vehicle, error) {
	row, err := q.readVehicle(ctx, q.read, id, false, true)
	if err != nil {
		return fuel.Vehicle{}, err
	}
	return row.toVehicle(), nil
}

// vehicle reads a vehicle the caller may see on h, with the caller's role,
// locking its row when lock is set (h is then a transaction). A vehicle
// the caller may not see is ErrVehicleNotFound. It leaves out the top
// refuel reading: a check of access needs none.
func (q *queries) vehicle(ctx context.Context, h *gorm.DB, id uint64, lock bool) (vehicleRow, error) {
	return q.readVehicle(ctx, h, id, lock, false)
}

// readVehicle is vehicle, with the highest refuel reading when reading is
// set (for an answer that shows the vehicle: one more index read).
//
// It reads the row by its key alone, and the caller's membership only when
// the caller does not own it, rather than vehicleSelect's join: the SQLite
// driver parses every statement it runs, and parsing the join took 40 % of
// a GET vehicle's time, which halved its rate under load.
func (q *queries) readVehicle(ctx context.Context, h *gorm.DB, id uint64, lock, reading bool) (vehicleRow, error) {
	var row vehicleRow
	if !storable(id) {
		return row, fuel.ErrVehicleNotFound
	}
	stmt := vehicleByIDQueries[vehicleQuery{q.dialect, lock, reading}]
	err := q.scanRow(ctx, h, stmt[0], stmt[1], []any{id}, func(r rowScanner) error { return row.scan(r) })
	if errors.Is(err, sql.ErrNoRows) {
		return row, fuel.ErrVehicleNotFound
	}
	if err != nil {
		return row, fmt.Errorf("get vehicle %d: %w", id, err)
	}
	uid := auth.UserID(ctx)
	if row.OwnerID == uid {
		row.Role = fuel.RoleOwner
		return row, nil
	}
	// A member sees the default flag as false: it is the owner's choice.
	row.DefaultVehicle = false
	// The GORM session only here: made for every read, it was a twentieth
	// of a GET vehicle's allocations, for the owner's reads that never
	// use it.
	err = h.WithContext(ctx).Raw("SELECT role FROM vehicle_members WHERE vehicle_id = ? AND user_id = ?", id, uid).Row().Scan(&row.Role)
	if errors.Is(err, sql.ErrNoRows) {
		return vehicleRow{}, fuel.ErrVehicleNotFound
	}
	if err != nil {
		return vehicleRow{}, fmt.Errorf("get vehicle %d: %w", id, err)
	}
	return row, nil
}

// vehicleByIDQueries holds readVehicle's statement for each dialect, lock
// and reading, built once rather than on every read of a vehicle: with
// GORM's placeholder, and with PostgreSQL's for scanRow's pgx path.
var vehicleByIDQueries = func() map[vehicleQuery][2]string {
	m := map[vehicleQuery][2]string{}
	for _, d := range []Dialect{Postgres, SQLite} {
		for _, lock := range []bool{false, true} {
			for _, reading := range []bool{false, true} {
				top := "NULL"
				if reading {
					top = topReading(d)
				}
				q := queries{dialect: d}
				sql := "SELECT v.id, v.name, v.brand, v.model, v.plate_number, v.fuel_type, v.tank_capacity, v.current_odometer, " +
					top + ", v.default_vehicle, " + timeColumn(d, "v.created_at") + ", " + timeColumn(d, "v.updated_at") +
					", v.owner_id, v.manual_md5s, '', " + ownerCurrency + " FROM vehicles v WHERE v.id = "
				m[vehicleQuery{d, lock, reading}] = [2]string{sql + "?" + q.lockClause(lock), sql + "$1" + q.lockClause(lock)}
			}
		}
	}
	return m
}()

type vehicleQuery struct {
	dialect       Dialect
	lock, reading bool
}

// ownedVehicle is readVehicle for a change only the owner may make:
// ErrForbidden for a member.
func (q *queries) ownedVehicle(ctx context.Context, h *gorm.DB, id uint64, lock, reading bool) (vehicleRow, error) {
	row, err := q.readVehicle(ctx, h, id, lock, reading)
	if err == nil && row.Role != fuel.RoleOwner {
		err = fuel.ErrForbidden
	}
	return row, err
}

// UpdateVehicle implements fuel.Store; only the owner may.
func (q *queries) UpdateVehicle(ctx context.Context, id uint64, u fuel.VehicleUpdate) (fuel.Vehicle, error) {
	var out fuel.Vehicle
	uid := auth.UserID(ctx)
	err := q.write.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		now := q.now()
		makeDefault := u.DefaultVehicle != nil && *u.DefaultVehicle
		if makeDefault {
			// Take the default lock before the row lock, in the same order
			// as SetDefaultVehicle, so the two cannot deadlock. Should
			// the caller not own the vehicle, the transaction rolls the
			// clearing back.
			if err := q.clearDefault(tx, uid, id, now); err != nil {
				return err
			}
		}
		row, err := q.ownedVehicle(ctx, tx, id, true, true)
		if err != nil {
			return err
		}
		v := row.toVehicle()
		// The owner's value, not a refuel's reading, is what stays stored.
		v.CurrentOdometer = row.CurrentOdometer
		u.Apply(&v)
		v.Normalize()
		if err := v.Validate(); err != nil {
			return err
		}
		v.UpdatedAt = now
		top := row.TopReading
		row = toVehicleRow(v)
		row.TopReading = top
		if err := tx.Save(&row).Error; err != nil {
			return fmt.Errorf("update vehicle %d: %w", id, err)
		}
		out = row.toVehicle()
		return nil
	})
	return out, err
}

// DeleteVehicle implements fuel.Store; only the owner may. The foreign
// keys' ON DELETE CASCADE remove the refuels and members in the same
// statement.
func (q *queries) DeleteVehicle(ctx context.Context, id uint64) error {
	if !storable(id) {
		return fuel.ErrVehicleNotFound
	}
	res := q.write.WithContext(ctx).Exec("DELETE FROM vehicles WHERE id = ? AND owner_id = ?", id, auth.UserID(ctx))
	if res.Error != nil {
		return fmt.Errorf("delete vehicle %d: %w", id, res.Error)
	}
	if res.RowsAffected == 0 {
		// Not found, or a member's: say which the caller may know.
		if _, err := q.vehicle(ctx, q.write, id, false); err != nil {
			return err
		}
		return fuel.ErrForbidden
	}
	return nil
}

// SetDefaultVehicle implements fuel.Store; only the owner may.
func (q *queries) SetDefaultVehicle(ctx context.Context, id uint64) (fuel.Vehicle, error) {
	if !storable(id) {
		return fuel.Vehicle{}, fuel.ErrVehicleNotFound
	}
	var out fuel.Vehicle
	uid := auth.UserID(ctx)
	err := q.write.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		now := q.now()
		if err := q.clearDefault(tx, uid, id, now); err != nil {
			return err
		}
		row, err := q.ownedVehicle(ctx, tx, id, true, true)
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

// clearDefault makes no vehicle of owner but keep the default, under the
// owner's default lock held until the transaction ends.
func (q *queries) clearDefault(tx *gorm.DB, owner, keep uint64, now time.Time) error {
	if q.dialect == Postgres {
		// The two-key form: one lock per owner (owners whose ids agree
		// modulo 2^31-1 share one, which only makes them wait).
		if err := tx.Exec("SELECT pg_advisory_xact_lock(?::int, (?::bigint % 2147483647)::int)", defaultLockKey, owner).Error; err != nil {
			return fmt.Errorf("lock default vehicle: %w", err)
		}
	}
	err := tx.Exec("UPDATE vehicles SET default_vehicle = ?, updated_at = ? WHERE owner_id = ? AND default_vehicle = ? AND id <> ?",
		false, now, owner, true, keep).Error
	if err != nil {
		return fmt.Errorf("clear default vehicle: %w", err)
	}
	return nil
}
