package httpapi

import (
	"context"
	"encoding/json"
	"io"

	"github.com/gin-gonic/gin"
	"github.com/shopspring/decimal"

	"github.com/carhub/backend/pkg/apperr"
	"github.com/carhub/backend/pkg/ginx"
	"github.com/carhub/backend/services/fuel/internal/fuel"
)

// currencyChangeRequest is the body of POST /api/preferences/currency.
type currencyChangeRequest struct {
	From        optString `json:"from"`
	Currency    optString `json:"currency"`
	Mode        optString `json:"mode"`
	Rate        optNumber `json:"rate"`
	InverseRate optNumber `json:"inverse_rate"`
}

// currencyChangeResponse says what the change did.
type currencyChangeResponse struct {
	Mode        string              `json:"mode"`
	From        string              `json:"from"`
	Currency    string              `json:"currency"`
	Rate        *json.Number        `json:"rate"`
	InverseRate *json.Number        `json:"inverse_rate"`
	Vehicles    int                 `json:"vehicles"`
	Refuels     int                 `json:"refuels"`
	Preferences preferencesResponse `json:"preferences"`
	// Expenses counts the expenses converted; last, so that the answer
	// begins as it did before expenses existed.
	Expenses int `json:"expenses"`
}

// toCurrencyChange checks the body; the error names every bad member.
func (req currencyChangeRequest) toCurrencyChange() (fuel.CurrencyChange, error) {
	var (
		c    fuel.CurrencyChange
		errs []error
	)
	code := func(field string, o optString) string {
		if !o.Set || o.Null {
			errs = append(errs, apperr.Invalid(field, "is required"))
			return ""
		}
		v, err := fuel.ParseCurrency(field, o.V)
		errs = append(errs, err)
		return v
	}
	c.From = code("from", req.From)
	c.To = code("currency", req.Currency)
	if c.From != "" && c.From == c.To {
		errs = append(errs, apperr.Invalid("currency", "must differ from from (%s)", c.From))
	}
	switch {
	case !req.Mode.Set || req.Mode.Null:
		errs = append(errs, apperr.Invalid("mode", "is required: relabel or convert"))
	case req.Mode.V == string(fuel.CurrencyRelabel) || req.Mode.V == string(fuel.CurrencyConvert):
		c.Mode = fuel.CurrencyMode(req.Mode.V)
	default:
		errs = append(errs, apperr.Invalid("mode", "must be relabel or convert"))
	}
	given := func(o optNumber) bool { return o.Set && !o.Null }
	switch c.Mode {
	case fuel.CurrencyRelabel:
		for _, f := range []struct {
			name string
			o    optNumber
		}{{"rate", req.Rate}, {"inverse_rate", req.InverseRate}} {
			if given(f.o) {
				errs = append(errs, apperr.Invalid(f.name, "is only for mode convert: a relabel changes no amount"))
			}
		}
	case fuel.CurrencyConvert:
		switch {
		case given(req.Rate) && given(req.InverseRate):
			errs = append(errs, apperr.Invalid("inverse_rate", "must not be given with rate: one of the two"))
		case given(req.Rate):
			r, err := parseRate("rate", req.Rate.Raw)
			errs = append(errs, err)
			c.Rate = r
		case given(req.InverseRate):
			r, err := parseRate("inverse_rate", req.InverseRate.Raw)
			errs = append(errs, err)
			c.Rate, c.Inverse = r, true
		default:
			errs = append(errs, apperr.Invalid("rate", "is required for mode convert (or inverse_rate)"))
		}
	}
	if err := apperr.Join(errs...); err != nil {
		return fuel.CurrencyChange{}, err
	}
	return c, nil
}

// parseRate reads a conversion rate: a JSON number greater than 0 with at
// most fuel.MaxRateIntDigits digits before the point and
// fuel.MaxRatePlaces after it (trailing zeros aside).
func parseRate(field, raw string) (decimal.Decimal, error) {
	if len(raw) > maxNumberLiteral {
		return decimal.Zero, apperr.Invalid(field, "has more than %d characters", maxNumberLiteral)
	}
	d, err := decimal.NewFromString(raw)
	if err != nil {
		return decimal.Zero, apperr.Invalid(field, "must be a number")
	}
	d = canonicalDecimal(d)
	switch {
	case !d.IsPositive():
		return decimal.Zero, apperr.Invalid(field, "must be greater than 0")
	case -d.Exponent() > fuel.MaxRatePlaces:
		return decimal.Zero, apperr.Invalid(field, "must have at most %d decimal places", fuel.MaxRatePlaces)
	case d.GreaterThanOrEqual(decimal.New(1, fuel.MaxRateIntDigits)):
		return decimal.Zero, apperr.Invalid(field, "must be less than 10^%d", fuel.MaxRateIntDigits)
	}
	return d, nil
}

// canonicalDecimal drops the trailing zeros of d's fraction (1.100 is 1.1).
func canonicalDecimal(d decimal.Decimal) decimal.Decimal {
	s := d.String() // shortest form, no exponent
	out, err := decimal.NewFromString(s)
	if err != nil {
		return d
	}
	return out
}

func (a *API) changeCurrency(c *gin.Context) {
	a.create(c, func(body io.Reader) (creator, error) {
		var req currencyChangeRequest
		if err := ginx.DecodeJSON(body, &req); err != nil {
			return nil, err
		}
		change, err := req.toCurrencyChange()
		if err != nil {
			return nil, err
		}
		return func(ctx context.Context, st fuel.Store) (any, error) {
			res, err := st.ChangeCurrency(ctx, change)
			if err != nil {
				return nil, err
			}
			out := currencyChangeResponse{
				Mode: string(change.Mode), From: change.From, Currency: change.To,
				Vehicles: res.Vehicles, Refuels: res.Refuels, Preferences: toPreferencesResponse(res.Preferences),
				Expenses: res.Expenses,
			}
			if change.Mode == fuel.CurrencyConvert {
				n := number(change.Rate)
				if change.Inverse {
					out.InverseRate = &n
				} else {
					out.Rate = &n
				}
			}
			return out, nil
		}, nil
	})
}
