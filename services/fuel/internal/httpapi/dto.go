package httpapi

import (
	"encoding/json"
	"time"

	"github.com/shopspring/decimal"

	"github.com/carhub/backend/services/fuel/internal/fuel"
)

// timeLayout is RFC 3339 in UTC with up to 6 fraction digits: the
// precision both databases keep, so a read-back equals the write's answer.
const timeLayout = "2006-01-02T15:04:05.999999Z07:00"

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

// statisticsResponse is the Statistics table plus the extra fields of
// fuel.Statistics.
type statisticsResponse struct {
	VehicleID           uint64          `json:"vehicle_id"`
	TotalRecords        int64           `json:"total_records"`
	TotalLiters         json.Number     `json:"total_liters"`
	TotalAmount         json.Number     `json:"total_amount"`
	AvgPrice            json.Number     `json:"avg_price"`
	AvgConsumption      json.Number     `json:"avg_consumption"`
	CostPerKm           json.Number     `json:"cost_per_km"`
	LastRefuel          *refuelResponse `json:"last_refuel"`
	TotalDistance       json.Number     `json:"total_distance"`
	WeightedConsumption json.Number     `json:"weighted_consumption"`
	WeightedCostPerKm   json.Number     `json:"weighted_cost_per_km"`
	ConsumptionSamples  int64           `json:"consumption_samples"`
	FirstRefuelTime     *string         `json:"first_refuel_time"`
	LastRefuelTime      *string         `json:"last_refuel_time"`
	// MainEnergy is the energy total_liters and the consumption fields
	// describe (null without records); ByEnergy has every energy apart.
	MainEnergy *string               `json:"main_energy"`
	ByEnergy   []energyStatsResponse `json:"by_energy"`
	// SampledDistance is the distance the weighted figures are over;
	// CombinedCostPerKm the money of every energy per km driven.
	SampledDistance   json.Number `json:"sampled_distance"`
	CombinedCostPerKm json.Number `json:"combined_cost_per_km"`
	// The vehicle's other costs and the total cost of ownership
	// (expenses.go).
	ExpensesAmount     json.Number             `json:"expenses_amount"`
	ExpensesByCategory []categoryTotalResponse `json:"expenses_by_category"`
	TotalCost          json.Number             `json:"total_cost"`
	TotalCostPerKm     json.Number             `json:"total_cost_per_km"`
}

// energyStatsResponse is one energy of a vehicle's statistics.
type energyStatsResponse struct {
	Energy              string      `json:"energy"`
	Unit                string      `json:"unit"`
	TotalRecords        int64       `json:"total_records"`
	TotalQuantity       json.Number `json:"total_quantity"`
	TotalAmount         json.Number `json:"total_amount"`
	AvgPrice            json.Number `json:"avg_price"`
	AvgConsumption      json.Number `json:"avg_consumption"`
	WeightedConsumption json.Number `json:"weighted_consumption"`
	CostPerKm           json.Number `json:"cost_per_km"`
	WeightedCostPerKm   json.Number `json:"weighted_cost_per_km"`
	ConsumptionSamples  int64       `json:"consumption_samples"`
	SampledDistance     json.Number `json:"sampled_distance"`
}

// healthResponse is the body of GET /health; Code and Message are set
// when the database does not answer, as in every error body.
type healthResponse struct {
	Status  string `json:"status"`
	Time    string `json:"time"`
	Code    string `json:"code,omitempty"`
	Message string `json:"message,omitempty"`
}

// number writes d as a JSON number literal (never in exponent form).
func number(d decimal.Decimal) json.Number { return json.Number(d.String()) }

func formatTime(t time.Time) string { return t.UTC().Format(timeLayout) }

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

// nonNil is s, or the empty list for nil: a list member is never null.
func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
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

func nullNumber(d decimal.NullDecimal) *json.Number {
	if !d.Valid {
		return nil
	}
	n := number(d.Decimal)
	return &n
}

func toStatisticsResponse(s fuel.Statistics) statisticsResponse {
	out := statisticsResponse{
		VehicleID:           s.VehicleID,
		TotalRecords:        s.TotalRecords,
		TotalLiters:         number(s.TotalLiters),
		TotalAmount:         number(s.TotalAmount),
		AvgPrice:            number(s.AvgPrice),
		AvgConsumption:      number(s.AvgConsumption),
		CostPerKm:           number(s.CostPerKm),
		TotalDistance:       number(s.TotalDistance),
		WeightedConsumption: number(s.WeightedConsumption),
		WeightedCostPerKm:   number(s.WeightedCostPerKm),
		ConsumptionSamples:  s.Samples,
		ByEnergy:            make([]energyStatsResponse, len(s.ByEnergy)),
		SampledDistance:     number(s.SampledDistance),
		CombinedCostPerKm:   number(s.CombinedCostPerKm),
		ExpensesAmount:      number(s.ExpensesAmount),
		ExpensesByCategory:  toCategoryTotals(s.ExpensesByCategory),
		TotalCost:           number(s.TotalCost),
		TotalCostPerKm:      number(s.TotalCostPerKm),
	}
	if s.MainEnergy != "" {
		main := string(s.MainEnergy)
		out.MainEnergy = &main
	}
	for i, e := range s.ByEnergy {
		out.ByEnergy[i] = energyStatsResponse{
			Energy:              string(e.Energy),
			Unit:                e.Energy.Unit(),
			TotalRecords:        e.TotalRecords,
			TotalQuantity:       number(e.TotalQuantity),
			TotalAmount:         number(e.TotalAmount),
			AvgPrice:            number(e.AvgPrice),
			AvgConsumption:      number(e.AvgConsumption),
			WeightedConsumption: number(e.WeightedConsumption),
			CostPerKm:           number(e.CostPerKm),
			WeightedCostPerKm:   number(e.WeightedCostPerKm),
			ConsumptionSamples:  e.Samples,
			SampledDistance:     number(e.SampledDistance),
		}
	}
	if s.LastRefuel != nil {
		r := toRefuelResponse(*s.LastRefuel)
		out.LastRefuel = &r
	}
	if s.FirstRefuelTime != nil {
		first := formatTime(*s.FirstRefuelTime)
		out.FirstRefuelTime = &first
	}
	if s.LastRefuelTime != nil {
		last := formatTime(*s.LastRefuelTime)
		out.LastRefuelTime = &last
	}
	return out
}

// monthResponse is one item of the monthly series: one month of one
// energy, liters in that energy's unit.
type monthResponse struct {
	Month       string      `json:"month"`
	Energy      string      `json:"energy"`
	Unit        string      `json:"unit"`
	Records     int64       `json:"records"`
	Liters      json.Number `json:"liters"`
	Amount      json.Number `json:"amount"`
	AvgPrice    json.Number `json:"avg_price"`
	Distance    json.Number `json:"distance"`
	Consumption json.Number `json:"consumption"`
	// ExpensesAmount is the vehicle's expenses in the month.
	ExpensesAmount json.Number `json:"expenses_amount"`
}

func toMonthResponse(e fuel.Energy, m fuel.MonthStat) monthResponse {
	return monthResponse{
		Month:       m.Month,
		Energy:      string(e),
		Unit:        e.Unit(),
		Records:     m.Records,
		Liters:      number(m.Liters),
		Amount:      number(m.Amount),
		AvgPrice:    number(m.AvgPrice),
		Distance:    number(m.Distance),
		Consumption: number(m.Consumption),

		ExpensesAmount: number(m.ExpensesAmount),
	}
}
