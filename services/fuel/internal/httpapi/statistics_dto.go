package httpapi

import (
	"encoding/json"
	"time"

	"github.com/carhub/backend/services/fuel/internal/fuel"
)

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

// categoryTotalResponse is one category of expenses_by_category.
type categoryTotalResponse struct {
	Category string      `json:"category"`
	Records  int64       `json:"records"`
	Amount   json.Number `json:"amount"`
}

func toCategoryTotals(cs []fuel.CategoryTotal) []categoryTotalResponse {
	out := make([]categoryTotalResponse, len(cs))
	for i, c := range cs {
		out[i] = categoryTotalResponse{Category: c.Category, Records: c.Records, Amount: number(c.Amount)}
	}
	return out
}

// costFields are the money fields of a vehicle's or a currency's costs.
type costFields struct {
	FuelRecords        int64                   `json:"fuel_records"`
	FuelAmount         json.Number             `json:"fuel_amount"`
	ExpenseRecords     int64                   `json:"expense_records"`
	ExpensesAmount     json.Number             `json:"expenses_amount"`
	ExpensesByCategory []categoryTotalResponse `json:"expenses_by_category"`
	TotalCost          json.Number             `json:"total_cost"`
	Distance           json.Number             `json:"distance"`
	TotalCostPerKm     json.Number             `json:"total_cost_per_km"`
}

// vehicleCostResponse is one vehicle of GET /api/statistics.
type vehicleCostResponse struct {
	VehicleID uint64  `json:"vehicle_id"`
	Name      string  `json:"name"`
	Role      string  `json:"role"`
	Currency  *string `json:"currency"`
	costFields
}

// costTotalsResponse is one currency's totals of GET /api/statistics.
type costTotalsResponse struct {
	Currency *string `json:"currency"`
	Vehicles int     `json:"vehicles"`
	costFields
}

// costStatisticsResponse is the answer of GET /api/statistics.
type costStatisticsResponse struct {
	StartDate *string               `json:"start_date"`
	EndDate   *string               `json:"end_date"`
	Vehicles  []vehicleCostResponse `json:"vehicles"`
	Totals    []costTotalsResponse  `json:"totals"`
}

func optTime(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := formatTime(*t)
	return &s
}
