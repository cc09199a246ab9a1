package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"gorm.io/gorm"

	"github.com/carhub/backend/services/fuel/internal/fuel"
)

// CreateRefuel implements fuel.Store. A record without an energy costs one
// read of its vehicle more; the insert's foreign key still catches a
// vehicle deleted in between.
func (q *queries) CreateRefuel(ctx context.Context, r *fuel.Refuel) error {
	r.Normalize()
	if r.Energy == "" {
		e, err := q.defaultEnergy(ctx, q.read, r.VehicleID)
		if err != nil {
			return err
		}
		r.Energy = e
	}
	if err := r.Validate(); err != nil {
		return err
	}
	if !storable(r.VehicleID) {
		return fuel.ErrUnknownVehicle(r.VehicleID)
	}
	r.ID = 0
	r.CreatedAt = q.now()
	r.UpdatedAt = r.CreatedAt
	row := toRefuelRow(*r)
	err := q.write.WithContext(ctx).Create(&row).Error
	if errors.Is(err, gorm.ErrForeignKeyViolated) {
		return fuel.ErrUnknownVehicle(r.VehicleID)
	}
	if err != nil {
		return fmt.Errorf("create refuel: %w", err)
	}
	*r = row.toRefuel()
	return nil
}

// defaultEnergy is, read on h, the energy of a record of vehicle id that
// names none: ErrUnknownVehicle when the vehicle does not exist.
func (q *queries) defaultEnergy(ctx context.Context, h *gorm.DB, vehicleID uint64) (fuel.Energy, error) {
	if !storable(vehicleID) {
		return "", fuel.ErrUnknownVehicle(vehicleID)
	}
	var fuelType string
	err := h.WithContext(ctx).Raw("SELECT fuel_type FROM vehicles WHERE id = ?", vehicleID).Row().Scan(&fuelType)
	if errors.Is(err, sql.ErrNoRows) {
		return "", fuel.ErrUnknownVehicle(vehicleID)
	}
	if err != nil {
		return "", fmt.Errorf("get vehicle %d: %w", vehicleID, err)
	}
	return fuel.DefaultEnergy(fuelType), nil
}

// Refuel implements fuel.Store.
func (q *queries) Refuel(ctx context.Context, id uint64) (fuel.Refuel, error) {
	row, err := q.refuel(ctx, q.read, id, false)
	if err != nil {
		return fuel.Refuel{}, err
	}
	return row.toRefuel(), nil
}

// refuel reads a refuel as vehicle reads a vehicle.
func (q *queries) refuel(ctx context.Context, h *gorm.DB, id uint64, lock bool) (refuelRow, error) {
	var row refuelRow
	if !storable(id) {
		return row, fuel.ErrRefuelNotFound
	}
	err := row.scan(h.WithContext(ctx).Raw("SELECT "+refuelColumns(q.dialect)+" FROM refuels WHERE id = ?"+q.lockClause(lock), id).Row())
	if errors.Is(err, sql.ErrNoRows) {
		return row, fuel.ErrRefuelNotFound
	}
	if err != nil {
		return row, fmt.Errorf("get refuel %d: %w", id, err)
	}
	return row, nil
}

// UpdateRefuel implements fuel.Store.
func (q *queries) UpdateRefuel(ctx context.Context, id uint64, u fuel.RefuelUpdate) (fuel.Refuel, error) {
	var out fuel.Refuel
	err := q.write.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		row, err := q.refuel(ctx, tx, id, true)
		if err != nil {
			return err
		}
		r := row.toRefuel()
		u.Apply(&r)
		r.Normalize()
		if r.Energy == "" {
			e, err := q.defaultEnergy(ctx, tx, r.VehicleID)
			if err != nil {
				return err
			}
			r.Energy = e
		}
		if err := r.Validate(); err != nil {
			return err
		}
		if !storable(r.VehicleID) {
			return fuel.ErrUnknownVehicle(r.VehicleID)
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

// DeleteRefuel implements fuel.Store.
func (q *queries) DeleteRefuel(ctx context.Context, id uint64) error {
	if !storable(id) {
		return fuel.ErrRefuelNotFound
	}
	res := q.write.WithContext(ctx).Exec("DELETE FROM refuels WHERE id = ?", id)
	if res.Error != nil {
		return fmt.Errorf("delete refuel %d: %w", id, res.Error)
	}
	if res.RowsAffected == 0 {
		return fuel.ErrRefuelNotFound
	}
	return nil
}

// ListRefuels implements fuel.Store.
func (q *queries) ListRefuels(ctx context.Context, f fuel.RefuelFilter) ([]fuel.Refuel, error) {
	if !storable(f.VehicleID) {
		return []fuel.Refuel{}, nil
	}
	query := "SELECT " + refuelColumns(q.dialect) + " FROM refuels WHERE vehicle_id = ?"
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
		if q.dialect == SQLite {
			query += " LIMIT -1 OFFSET ?"
		} else {
			query += " LIMIT ALL OFFSET ?"
		}
		args = append(args, f.Offset)
	}
	out, err := refuelRows(q.read.WithContext(ctx).Raw(query, args...))
	if err != nil {
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
	for rows.Next() {
		var r refuelRow
		if err := r.scan(rows); err != nil {
			return nil, err
		}
		out = append(out, r.toRefuel())
	}
	return out, rows.Err()
}
