package httpapi

import (
	"encoding/json"

	"github.com/carhub/backend/services/fuel/internal/fuel"
)

// refuelRequest is the body of POST and PUT /api/refuels[/:id];
// price_per_liter, unit and the read-only fields are ignored.
type refuelRequest struct {
	VehicleID      optNumber `json:"vehicle_id"`
	RefuelTime     optString `json:"refuel_time"`
	Odometer       optNumber `json:"odometer"`
	FuelType       optString `json:"fuel_type"`
	Energy         optString `json:"energy"`
	Liters         optNumber `json:"liters"`
	TotalAmount    optNumber `json:"total_amount"`
	StationName    optString `json:"station_name"`
	IsFull         optBool   `json:"is_full"`
	MissedPrevious optBool   `json:"missed_previous"`
	Remark         optString `json:"remark"`
	// Currency (ISO 4217) and HomeAmount: a record paid in another
	// currency than the home one; null resets to the home currency.
	Currency   optString `json:"currency"`
	HomeAmount optNumber `json:"home_amount"`
}

// refuelResponse carries every field of the RefuelRecord table plus id, the
// timestamps, the energy and its unit (that of liters and price_per_liter).
type refuelResponse struct {
	ID             uint64      `json:"id"`
	VehicleID      uint64      `json:"vehicle_id"`
	RefuelTime     string      `json:"refuel_time"`
	Odometer       json.Number `json:"odometer"`
	FuelType       string      `json:"fuel_type"`
	Energy         string      `json:"energy"`
	Unit           string      `json:"unit"`
	Liters         json.Number `json:"liters"`
	TotalAmount    json.Number `json:"total_amount"`
	PricePerLiter  json.Number `json:"price_per_liter"`
	StationName    string      `json:"station_name"`
	IsFull         bool        `json:"is_full"`
	MissedPrevious bool        `json:"missed_previous"`
	Remark         string      `json:"remark"`
	// Currency is null for the home currency; HomeAmount goes with it.
	Currency   *string      `json:"currency"`
	HomeAmount *json.Number `json:"home_amount"`
	CreatedAt  string       `json:"created_at"`
	UpdatedAt  string       `json:"updated_at"`
}

func toRefuelResponse(r fuel.Refuel) refuelResponse {
	return refuelResponse{
		ID:             r.ID,
		VehicleID:      r.VehicleID,
		RefuelTime:     formatTime(r.RefuelTime),
		Odometer:       number(r.Odometer),
		FuelType:       r.FuelType,
		Energy:         string(r.Energy),
		Unit:           r.Energy.Unit(),
		Liters:         number(r.Liters),
		TotalAmount:    number(r.TotalAmount),
		PricePerLiter:  number(r.PricePerLiter),
		StationName:    r.StationName,
		IsFull:         r.IsFull,
		MissedPrevious: r.MissedPrevious,
		Remark:         r.Remark,
		Currency:       nullIfEmpty(r.Currency),
		HomeAmount:     nullNumber(r.HomeAmount),
		CreatedAt:      formatTime(r.CreatedAt),
		UpdatedAt:      formatTime(r.UpdatedAt),
	}
}

// toRefuelUpdate is toVehicleUpdate for refuel bodies: a blank fuel_type
// is named beside a negative liters. The rules that read more than the
// body (the currency's home amount, the odometer against the other
// readings) are the store's, after these pass.
func (req refuelRequest) toRefuelUpdate(create bool) (fuel.RefuelUpdate, error) {
	b := members{create: create}
	u := fuel.RefuelUpdate{
		VehicleID:      b.id("vehicle_id", req.VehicleID),
		RefuelTime:     b.time("refuel_time", req.RefuelTime),
		Odometer:       b.decimal("odometer", req.Odometer, true),
		FuelType:       b.str("fuel_type", req.FuelType, true),
		Energy:         b.energy("energy", req.Energy),
		Liters:         b.decimal("liters", req.Liters, true),
		TotalAmount:    b.decimal("total_amount", req.TotalAmount, true),
		StationName:    b.str("station_name", req.StationName, false),
		IsFull:         b.boolean("is_full", req.IsFull, false),
		MissedPrevious: b.boolean("missed_previous", req.MissedPrevious, false),
		Remark:         b.str("remark", req.Remark, false),
		Currency:       b.currency("currency", req.Currency),
		HomeAmount:     b.nullDecimal("home_amount", req.HomeAmount),
	}
	var r fuel.Refuel
	u.Apply(&r)
	r.Normalize()
	b.errs = append(b.errs, r.ValidateFields(b.known(u.Sets))...)
	inMemberOrder[refuelRequest](b.errs)
	return u, b.err()
}
