package store

import (
	"context"
	"errors"
	"github.com/carhub/backend/services/fuel/internal/fuel"
	"gorm.io/gorm"
)

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
	if !v.Role.CanWriteRecords() {
		return v, fuel.ErrForbidden
	}
	return v, nil
}
