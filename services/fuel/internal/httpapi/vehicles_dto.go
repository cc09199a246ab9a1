package httpapi

import (
	"encoding/json"

	"github.com/carhub/backend/services/fuel/internal/fuel"
)

// vehicleRequest is the body of POST and PUT /api/vehicles[/:id]. Read-only
// fields (id, created_at, updated_at) are not members: they are ignored.
type vehicleRequest struct {
	Name            optString `json:"name"`
	Brand           optString `json:"brand"`
	Model           optString `json:"model"`
	PlateNumber     optString `json:"plate_number"`
	FuelType        optString `json:"fuel_type"`
	TankCapacity    optNumber `json:"tank_capacity"`
	CurrentOdometer optNumber `json:"current_odometer"`
	DefaultVehicle  optBool   `json:"default_vehicle"`
	// ManualMD5s: the docqa documents that are the vehicle's manuals.
	ManualMD5s optStrings `json:"manual_md5s"`
}

// vehicleResponse carries every field of the Vehicle table.
type vehicleResponse struct {
	ID              uint64      `json:"id"`
	Name            string      `json:"name"`
	Brand           string      `json:"brand"`
	Model           string      `json:"model"`
	PlateNumber     string      `json:"plate_number"`
	FuelType        string      `json:"fuel_type"`
	TankCapacity    json.Number `json:"tank_capacity"`
	CurrentOdometer json.Number `json:"current_odometer"`
	DefaultVehicle  bool        `json:"default_vehicle"`
	CreatedAt       string      `json:"created_at"`
	UpdatedAt       string      `json:"updated_at"`
	// Role is what the caller may do with the vehicle: owner, editor or
	// viewer (always owner with accounts off).
	Role string `json:"role"`
	// Currency is the currency of the vehicle's amounts: its owner's
	// currency preference, null when the owner has chosen none.
	Currency *string `json:"currency"`
	// ManualMD5s are the docqa documents (fileMd5) linked as the
	// vehicle's manuals, in the owner's order; [] when none.
	ManualMD5s []string `json:"manual_md5s"`
}

func toVehicleResponse(v fuel.Vehicle) vehicleResponse {
	return vehicleResponse{
		ID:              v.ID,
		Name:            v.Name,
		Brand:           v.Brand,
		Model:           v.Model,
		PlateNumber:     v.PlateNumber,
		FuelType:        v.FuelType,
		TankCapacity:    number(v.TankCapacity),
		CurrentOdometer: number(v.CurrentOdometer),
		DefaultVehicle:  v.DefaultVehicle,
		CreatedAt:       formatTime(v.CreatedAt),
		UpdatedAt:       formatTime(v.UpdatedAt),
		Role:            string(v.Role),
		Currency:        nullIfEmpty(v.Currency),
		ManualMD5s:      nonNil(v.ManualMD5s),
	}
}

// toVehicleUpdate turns a vehicle body into a patch. On create every
// required field must be present and not null; on update a present null
// is refused for a required field and resets an optional one to its
// default ("", 0, false). Every field is read, and the rules of each one
// read are checked beside (fuel.Vehicle.ValidateFields), so that one
// error names every member that is wrong, in field-table order
// (apperr.Join); the store checks the whole record again.
func (req vehicleRequest) toVehicleUpdate(create bool) (fuel.VehicleUpdate, error) {
	b := members{create: create}
	u := fuel.VehicleUpdate{
		Name:            b.str("name", req.Name, true),
		Brand:           b.str("brand", req.Brand, false),
		Model:           b.str("model", req.Model, false),
		PlateNumber:     b.str("plate_number", req.PlateNumber, false),
		FuelType:        b.str("fuel_type", req.FuelType, true),
		TankCapacity:    b.decimal("tank_capacity", req.TankCapacity, false),
		CurrentOdometer: b.decimal("current_odometer", req.CurrentOdometer, false),
		DefaultVehicle:  b.boolean("default_vehicle", req.DefaultVehicle, false),
		ManualMD5s:      b.strings("manual_md5s", req.ManualMD5s),
	}
	var v fuel.Vehicle
	u.Apply(&v)
	v.Normalize()
	b.errs = append(b.errs, v.ValidateFields(b.known(u.Sets))...)
	inMemberOrder[vehicleRequest](b.errs)
	return u, b.err()
}
