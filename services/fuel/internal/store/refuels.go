package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"gorm.io/gorm"

	"github.com/carhub/backend/pkg/apperr"
	"github.com/carhub/backend/pkg/auth"
	"github.com/carhub/backend/services/fuel/internal/fuel"
	"github.com/shopspring/decimal"
	"time"
)

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

// CreateRefuel implements fuel.Store: the caller must own the vehicle or
// edit it. One read of the vehicle (access and default energy) precedes
// the insert, whose foreign key still catches a vehicle deleted in between.
func (q *queries) CreateRefuel(ctx context.Context, r *fuel.Refuel) error {
	r.Normalize()
	var home string
	if r.VehicleID != 0 {
		v, err := q.refuelVehicle(ctx, q.read, r.VehicleID)
		if err != nil {
			return err
		}
		if r.Energy == "" {
			r.Energy = fuel.DefaultEnergy(v.FuelType)
		}
		home = v.Currency.String
	}
	if err := apperr.Join(r.Validate(), r.SettleCurrency(home)); err != nil {
		return err
	}
	r.ID = 0
	r.CreatedAt = q.now()
	r.UpdatedAt = r.CreatedAt
	row := toRefuelRow(*r)
	err := q.insertRefuel(ctx, &row)
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
func (q *queries) Refuel(ctx context.Context, id uint64) (fuel.Refuel, error) {
	row, _, err := q.refuel(ctx, q.read, id, false)
	if err != nil {
		return fuel.Refuel{}, err
	}
	return row.toRefuel(), nil
}

// refuel reads a refuel of a vehicle the caller may see, and the caller's
// role on that vehicle, as vehicle reads a vehicle (the lock is on the
// refuel's row only).
func (q *queries) refuel(ctx context.Context, h *gorm.DB, id uint64, lock bool) (refuelRow, fuel.Role, error) {
	var (
		row  refuelRow
		role fuel.Role
	)
	if !storable(id) {
		return row, role, fuel.ErrRefuelNotFound
	}
	uid := auth.UserID(ctx)
	lockClause := q.lockClause(lock)
	if lockClause != "" {
		lockClause += " OF r"
	}
	err := row.scan(h.WithContext(ctx).Raw("SELECT "+refuelColumns(q.dialect)+", CASE WHEN v.owner_id = ? THEN 'owner' ELSE m.role END "+
		"FROM refuels r JOIN vehicles v ON v.id = r.vehicle_id LEFT JOIN vehicle_members m ON m.vehicle_id = v.id AND m.user_id = ? "+
		"WHERE r.id = ? AND (v.owner_id = ? OR m.user_id IS NOT NULL)"+lockClause,
		uid, uid, id, uid).Row(), &role)
	if errors.Is(err, sql.ErrNoRows) {
		return row, role, fuel.ErrRefuelNotFound
	}
	if err != nil {
		return row, role, fmt.Errorf("get refuel %d: %w", id, err)
	}
	return row, role, nil
}

// UpdateRefuel implements fuel.Store: the caller must own or edit the
// record's vehicle, and the vehicle it moves to when it moves.
func (q *queries) UpdateRefuel(ctx context.Context, id uint64, u fuel.RefuelUpdate) (fuel.Refuel, error) {
	var out fuel.Refuel
	err := q.write.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		row, role, err := q.refuel(ctx, tx, id, true)
		if err != nil {
			return err
		}
		if !role.CanWriteRecords() {
			return fuel.ErrForbidden
		}
		r := row.toRefuel()
		u.Apply(&r)
		r.Normalize()
		// The home currency is that of the owner of the record's (possibly
		// new) vehicle; a record in the home currency needs none.
		var home string
		if r.VehicleID != row.VehicleID || r.Energy == "" || r.Currency != "" || r.HomeAmount.Valid {
			if r.VehicleID == 0 {
				return apperr.Join(r.Validate(), r.SettleCurrency(home))
			}
			v, err := q.refuelVehicle(ctx, tx, r.VehicleID)
			if err != nil {
				return err
			}
			if r.Energy == "" {
				r.Energy = fuel.DefaultEnergy(v.FuelType)
			}
			home = v.Currency.String
		}
		if err := apperr.Join(r.Validate(), r.SettleCurrency(home)); err != nil {
			return err
		}
		r.UpdatedAt = q.now()
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

// DeleteRefuel implements fuel.Store: the caller must own or edit the
// record's vehicle.
func (q *queries) DeleteRefuel(ctx context.Context, id uint64) error {
	if !storable(id) {
		return fuel.ErrRefuelNotFound
	}
	uid := auth.UserID(ctx)
	res := q.write.WithContext(ctx).Exec("DELETE FROM refuels WHERE id = ? AND EXISTS (SELECT 1 FROM vehicles v WHERE v.id = refuels.vehicle_id AND "+
		writableBy("v")+")", id, uid, uid)
	if res.Error != nil {
		return fmt.Errorf("delete refuel %d: %w", id, res.Error)
	}
	if res.RowsAffected == 0 {
		// Not found, or a viewer's: say which the caller may know.
		if _, _, err := q.refuel(ctx, q.write, id, false); err != nil {
			return err
		}
		return fuel.ErrForbidden
	}
	return nil
}

// ListRefuels implements fuel.Store: none for a vehicle the caller may
// not see.
func (q *queries) ListRefuels(ctx context.Context, f fuel.RefuelFilter) ([]fuel.Refuel, error) {
	if !storable(f.VehicleID) {
		return []fuel.Refuel{}, nil
	}
	uid := auth.UserID(ctx)
	query := "SELECT " + refuelColumns(q.dialect) + " FROM refuels r WHERE r.vehicle_id = ? AND EXISTS (SELECT 1 FROM vehicles v WHERE v.id = ? AND " +
		visibleTo("v") + ")"
	args := []any{f.VehicleID, f.VehicleID, uid, uid}
	if f.Start != nil {
		query += " AND r.refuel_time >= ?"
		args = append(args, fuel.NormalizeTime(*f.Start))
	}
	if f.End != nil {
		query += " AND r.refuel_time <= ?"
		args = append(args, fuel.NormalizeTime(*f.End))
	}
	query += " ORDER BY r.refuel_time DESC, r.id DESC"
	query, args = q.page(query, args, f.Limit, f.Offset)
	pgQuery := ""
	if q.pg != nil {
		pgQuery = numbered(query)
	}
	// Never nil: an empty list is an empty JSON array.
	out := []fuel.Refuel{}
	if err := q.scanRows(ctx, q.read, query, pgQuery, args, appendRefuel(&out)); err != nil {
		return nil, fmt.Errorf("list refuels: %w", err)
	}
	return out, nil
}

// refuelRows runs a query of refuelColumns and reads every row. It never
// returns nil: an empty list is an empty JSON array.
func refuelRows(query *gorm.DB) ([]fuel.Refuel, error) {
	rows, err := query.Rows()
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []fuel.Refuel{}
	if err := eachRow(rows, appendRefuel(&out)); err != nil {
		return nil, err
	}
	return out, nil
}

// appendRefuel returns the scan that appends each row of refuelColumns to
// out, for eachRow and scanRows.
func appendRefuel(out *[]fuel.Refuel) func(rowScanner) error {
	return func(row rowScanner) error {
		var r refuelRow
		if err := r.scan(row); err != nil {
			return err
		}
		*out = append(*out, r.toRefuel())
		return nil
	}
}

// ExportRefuels implements fuel.Store, reading pages in (refuel_time, id)
// order, each starting after the last record of the previous one.
func (q *queries) ExportRefuels(ctx context.Context, vehicleID uint64, fn func(fuel.Refuel) error) error {
	return exportPages(ctx, q, vehicleID, exportTable{
		what: "refuels", columns: refuelColumns(q.dialect), table: "refuels", alias: "r", time: "refuel_time",
	}, refuelRows, func(r fuel.Refuel) (time.Time, uint64) { return r.RefuelTime, r.ID }, fn)
}

// importKey is what makes an imported record equal to a stored one.
func importKey(t time.Time, energy string, odo, liters, amount decimal.Decimal) string {
	return fmt.Sprintf("%d|%s|%s|%s|%s", fuel.NormalizeTime(t).UnixMicro(), energy, odo.String(), liters.String(), amount.String())
}

// ImportRefuels implements fuel.Store with importRecords. Records paid
// abroad are checked against the owner's currency first.
func (q *queries) ImportRefuels(ctx context.Context, vehicleID uint64, rs []fuel.Refuel, dryRun bool) (fuel.ImportResult, error) {
	return importRecords(ctx, q, vehicleID, rs, dryRun, importKind[fuel.Refuel, refuelRow]{
		what: "refuels",
		check: func(v vehicleRow, r *fuel.Refuel) error {
			if err := r.SettleCurrency(v.Currency.String); err != nil {
				e := apperr.From(err)
				return &apperr.Error{Code: e.Code, Field: e.Field, Message: "record of " + r.RefuelTime.Format(time.RFC3339) + ": " + e.Message}
			}
			return nil
		},
		storedKeys: "SELECT " + timeColumn(q.dialect, "refuel_time") + ", energy, odometer, liters, total_amount FROM refuels WHERE vehicle_id = ?",
		storedKey: func(row interface{ Scan(...any) error }) (string, error) {
			var (
				t                   time.Time
				energy              string
				odo, liters, amount decimal.Decimal
			)
			if err := row.Scan((*timestamp)(&t), &energy, &odo, &liters, &amount); err != nil {
				return "", err
			}
			return importKey(t, energy, odo, liters, amount), nil
		},
		key: func(r fuel.Refuel) string {
			return importKey(r.RefuelTime, string(r.Energy), r.Odometer, r.Liters, r.TotalAmount)
		},
		stamp: func(r *fuel.Refuel, vehicleID uint64, now time.Time) {
			r.ID, r.VehicleID, r.CreatedAt, r.UpdatedAt = 0, vehicleID, now, now
		},
		row: func(r fuel.Refuel) (refuelRow, error) { return toRefuelRow(r), nil },
	})
}
