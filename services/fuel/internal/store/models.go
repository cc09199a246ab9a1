package store

import (
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"fmt"
	"time"

	"github.com/shopspring/decimal"

	"github.com/carhub/backend/services/fuel/internal/fuel"
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

// visibleTo is the condition that the vehicle of alias v is visible to the
// user of its two arguments (both the user's id): owned or shared.
func visibleTo(v string) string {
	return "(" + v + ".owner_id = ? OR EXISTS (SELECT 1 FROM vehicle_members m WHERE m.vehicle_id = " + v + ".id AND m.user_id = ?))"
}

// writableBy is the condition that the user of its two arguments may
// write the refuels of the vehicle of alias v: owner or editor.
func writableBy(v string) string {
	return "(" + v + ".owner_id = ? OR EXISTS (SELECT 1 FROM vehicle_members m WHERE m.vehicle_id = " + v +
		".id AND m.user_id = ? AND m.role = 'editor'))"
}

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

// refuelRow is the GORM model of the refuels table.
type refuelRow struct {
	ID             uint64 `gorm:"primaryKey"`
	VehicleID      uint64
	RefuelTime     time.Time
	Odometer       decimal.Decimal
	FuelType       string
	Energy         string
	Liters         decimal.Decimal
	TotalAmount    decimal.Decimal
	PricePerLiter  decimal.Decimal
	StationName    string
	IsFull         bool
	MissedPrevious bool
	Remark         string
	// Currency is NULL for the home currency; HomeAmount goes with it.
	Currency   sql.NullString
	HomeAmount decimal.NullDecimal
	CreatedAt  time.Time `gorm:"autoCreateTime:false"`
	UpdatedAt  time.Time `gorm:"autoUpdateTime:false"`
}

func (refuelRow) TableName() string { return "refuels" }

// refuelColumns lists the columns of the refuels table (alias r) in the
// order scan reads them.
func refuelColumns(d Dialect) string {
	return "r.id, r.vehicle_id, " + timeColumn(d, "r.refuel_time") + ", r.odometer, r.fuel_type, r.energy, r.liters, r.total_amount, " +
		"r.price_per_liter, r.station_name, r.is_full, r.missed_previous, r.remark, r.currency, r.home_amount, " +
		timeColumn(d, "r.created_at") + ", " + timeColumn(d, "r.updated_at")
}

// scan reads one row of refuelColumns, then the columns of extra.
func (r *refuelRow) scan(row interface{ Scan(...any) error }, extra ...any) error {
	return row.Scan(append([]any{&r.ID, &r.VehicleID, (*timestamp)(&r.RefuelTime), &r.Odometer, &r.FuelType, &r.Energy, &r.Liters, &r.TotalAmount,
		&r.PricePerLiter, &r.StationName, &r.IsFull, &r.MissedPrevious, &r.Remark, &r.Currency, &r.HomeAmount, (*timestamp)(&r.CreatedAt), (*timestamp)(&r.UpdatedAt)}, extra...)...)
}

func toRefuelRow(r fuel.Refuel) refuelRow {
	return refuelRow{
		ID:             r.ID,
		VehicleID:      r.VehicleID,
		RefuelTime:     r.RefuelTime,
		Odometer:       r.Odometer,
		FuelType:       r.FuelType,
		Energy:         string(r.Energy),
		Liters:         r.Liters,
		TotalAmount:    r.TotalAmount,
		PricePerLiter:  r.PricePerLiter,
		StationName:    r.StationName,
		IsFull:         r.IsFull,
		MissedPrevious: r.MissedPrevious,
		Remark:         r.Remark,
		Currency:       sql.NullString{String: r.Currency, Valid: r.Currency != ""},
		HomeAmount:     r.HomeAmount,
		CreatedAt:      r.CreatedAt,
		UpdatedAt:      r.UpdatedAt,
	}
}

func (r refuelRow) toRefuel() fuel.Refuel {
	return fuel.Refuel{
		ID:             r.ID,
		VehicleID:      r.VehicleID,
		RefuelTime:     r.RefuelTime.UTC(),
		Odometer:       r.Odometer,
		FuelType:       r.FuelType,
		Energy:         fuel.Energy(r.Energy),
		Liters:         r.Liters,
		TotalAmount:    r.TotalAmount,
		PricePerLiter:  r.PricePerLiter,
		StationName:    r.StationName,
		IsFull:         r.IsFull,
		MissedPrevious: r.MissedPrevious,
		Remark:         r.Remark,
		Currency:       r.Currency.String,
		HomeAmount:     r.HomeAmount,
		CreatedAt:      r.CreatedAt.UTC(),
		UpdatedAt:      r.UpdatedAt.UTC(),
	}
}
