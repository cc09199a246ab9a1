package httpapi

import (
	"context"
	"io"
	"net/http"
	"net/url"

	"github.com/gin-gonic/gin"

	"github.com/carhub/backend/pkg/ginx"
	"github.com/carhub/backend/services/fuel/internal/fuel"
)

func (a *API) createExpense(c *gin.Context) {
	a.create(c, func(body io.Reader) (creator, error) {
		var req expenseRequest
		if err := ginx.DecodeJSON(body, &req); err != nil {
			return nil, err
		}
		u, err := req.toExpenseUpdate(true)
		if err != nil {
			return nil, err
		}
		return func(ctx context.Context, st fuel.Store) (any, error) {
			var e fuel.Expense
			u.Apply(&e)
			if err := st.CreateExpense(ctx, &e); err != nil {
				return nil, err
			}
			return toExpenseResponse(e), nil
		}, nil
	})
}

func (a *API) getExpense(c *gin.Context) {
	id, err := pathID(c)
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	e, err := a.store.Expense(c.Request.Context(), id)
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	c.JSON(http.StatusOK, toExpenseResponse(e))
}

func (a *API) updateExpense(c *gin.Context) {
	id, err := pathID(c)
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	var req expenseRequest
	if err := ginx.BindJSON(c, &req); err != nil {
		ginx.Fail(c, err)
		return
	}
	u, err := req.toExpenseUpdate(false)
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	e, err := a.store.UpdateExpense(c.Request.Context(), id, u)
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	c.JSON(http.StatusOK, toExpenseResponse(e))
}

func (a *API) deleteExpense(c *gin.Context) {
	id, err := pathID(c)
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	if err := a.store.DeleteExpense(c.Request.Context(), id); err != nil {
		ginx.Fail(c, err)
		return
	}
	c.Status(http.StatusNoContent)
}

func (a *API) listExpenses(c *gin.Context) {
	f, err := expenseFilter(c.Request.URL.Query())
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	es, err := a.store.ListExpenses(c.Request.Context(), f)
	if err != nil {
		ginx.Fail(c, err)
		return
	}
	out := make([]expenseResponse, len(es))
	for i, e := range es {
		out[i] = toExpenseResponse(e)
	}
	c.JSON(http.StatusOK, out)
}

// expenseFilter reads the query of GET /api/expenses: the list query of
// refuels plus an optional category.
func expenseFilter(q url.Values) (fuel.ExpenseFilter, error) {
	l, err := readListQuery(q)
	if err != nil {
		return fuel.ExpenseFilter{}, err
	}
	f := fuel.ExpenseFilter{VehicleID: l.vehicleID, Start: l.start, End: l.end, Limit: l.limit, Offset: l.offset}
	raw, ok, err := queryParam(q, "category")
	if err != nil || !ok {
		return f, err
	}
	f.Category, err = fuel.ParseExpenseCategory("category", raw)
	return f, err
}
