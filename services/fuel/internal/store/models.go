package store

import (
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
}

func (vehicleRow) TableName() string { return "vehicles" }

// vehicleColumns lists the columns in the order scan reads them.
func vehicleColumns(d Dialect) string {
	return "id, name, brand, model, plate_number, fuel_type, tank_capacity, current_odometer, default_vehicle, " +
		timeColumn(d, "created_at") + ", " + timeColumn(d, "updated_at")
}

// scan reads one row of vehicleColumns. Reads scan by hand: GORM's Find
// cannot read SQLite's timestamps as text (see timeColumn).
func (r *vehicleRow) scan(row interface{ Scan(...any) error }) error {
	return row.Scan(&r.ID, &r.Name, &r.Brand, &r.Model, &r.PlateNumber, &r.FuelType, &r.TankCapacity,
		&r.CurrentOdometer, &r.DefaultVehicle, (*timestamp)(&r.CreatedAt), (*timestamp)(&r.UpdatedAt))
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
	}
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
		CurrentOdometer: r.CurrentOdometer,
		DefaultVehicle:  r.DefaultVehicle,
		CreatedAt:       r.CreatedAt.UTC(),
		UpdatedAt:       r.UpdatedAt.UTC(),
	}
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
	CreatedAt      time.Time `gorm:"autoCreateTime:false"`
	UpdatedAt      time.Time `gorm:"autoUpdateTime:false"`
}

func (refuelRow) TableName() string { return "refuels" }

// refuelColumns lists the columns in the order scan reads them.
func refuelColumns(d Dialect) string {
	return "id, vehicle_id, " + timeColumn(d, "refuel_time") + ", odometer, fuel_type, energy, liters, total_amount, " +
		"price_per_liter, station_name, is_full, missed_previous, remark, " +
		timeColumn(d, "created_at") + ", " + timeColumn(d, "updated_at")
}

// scan reads one row of refuelColumns.
func (r *refuelRow) scan(row interface{ Scan(...any) error }) error {
	return row.Scan(&r.ID, &r.VehicleID, (*timestamp)(&r.RefuelTime), &r.Odometer, &r.FuelType, &r.Energy, &r.Liters, &r.TotalAmount,
		&r.PricePerLiter, &r.StationName, &r.IsFull, &r.MissedPrevious, &r.Remark, (*timestamp)(&r.CreatedAt), (*timestamp)(&r.UpdatedAt))
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
		CreatedAt:      r.CreatedAt.UTC(),
		UpdatedAt:      r.UpdatedAt.UTC(),
	}
}
