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
)

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

// refuelVehicle reads, on h, the vehicle a record is written to:
// ErrUnknownVehicle when the caller may not see it, ErrForbidden when the
// caller may not write its refuels.
func (q *queries) refuelVehicle(ctx context.Context, h *gorm.DB, vehicleID uint64) (vehicleRow, error) {
	v, err := q.vehicle(ctx, h, vehicleID, false)
	if errors.Is(err, fuel.ErrVehicleNotFound) {
		return v, fuel.ErrUnknownVehicle(vehicleID)
	}
	if err != nil {
		return v, err
	}
	if !v.Role.CanWriteRefuels() {
		return v, fuel.ErrForbidden
	}
	return v, nil
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
		if !role.CanWriteRefuels() {
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
