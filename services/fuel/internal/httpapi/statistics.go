package httpapi

import (
	"net/http"

	"github.com/carhub/backend/pkg/ginx"
	"github.com/gin-gonic/gin"
)

func (a *API) statistics(c *gin.Context) {
	id, err := pathID(c)
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	s, err := a.store.Statistics(c.Request.Context(), id)
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	c.JSON(http.StatusOK, toStatisticsResponse(s))
}

func (a *API) costStatistics(c *gin.Context) {
	start, end, err := dateRange(c.Request.URL.Query())
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	cs, err := a.store.CostStatistics(c.Request.Context(), start, end)
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	out := costStatisticsResponse{
		StartDate: optTime(start), EndDate: optTime(end),
		Vehicles: make([]vehicleCostResponse, len(cs.Vehicles)), Totals: make([]costTotalsResponse, len(cs.Totals)),
	}
	for i, v := range cs.Vehicles {
		out.Vehicles[i] = vehicleCostResponse{
			VehicleID: v.VehicleID, Name: v.Name, Role: string(v.Role), Currency: nullIfEmpty(v.Currency),
			costFields: costFields{
				FuelRecords: v.FuelRecords, FuelAmount: number(v.FuelAmount), ExpenseRecords: v.ExpenseRecords,
				ExpensesAmount: number(v.ExpensesAmount), ExpensesByCategory: toCategoryTotals(v.ExpensesByCategory),
				TotalCost: number(v.TotalCost), Distance: number(v.Distance), TotalCostPerKm: number(v.TotalCostPerKm),
			},
		}
	}
	for i, t := range cs.Totals {
		out.Totals[i] = costTotalsResponse{
			Currency: nullIfEmpty(t.Currency), Vehicles: t.Vehicles,
			costFields: costFields{
				FuelRecords: t.FuelRecords, FuelAmount: number(t.FuelAmount), ExpenseRecords: t.ExpenseRecords,
				ExpensesAmount: number(t.ExpensesAmount), ExpensesByCategory: toCategoryTotals(t.ExpensesByCategory),
				TotalCost: number(t.TotalCost), Distance: number(t.Distance), TotalCostPerKm: number(t.TotalCostPerKm),
			},
		}
	}
	c.JSON(http.StatusOK, out)
}
