package fuel

import (
	"time"

	"github.com/shopspring/decimal"

	"github.com/carhub/backend/pkg/apperr"
)

// The money of a vehicle is in its owner's home currency: the currency
// preference of the user who owns it (proto-docs/fuel-decisions.md,
// "Currency"). A record paid abroad keeps what was paid there (Currency,
// TotalAmount) and what the owner was charged at home (HomeAmount).

// SettleCurrency checks the currency fields of r against the home
// currency of the vehicle's owner (home, "" when not chosen) and brings
// them to their stored form: a currency equal to the home one is the home
// currency (""), and its home amount, which may only repeat TotalAmount,
// goes. The error names each field that breaks a rule.
func (r *Refuel) SettleCurrency(home string) error {
	if r.Currency != "" {
		c, err := ParseCurrency("currency", r.Currency)
		if err != nil {
			return err
		}
		r.Currency = c
	}
	if r.Currency != "" && r.Currency == home {
		if r.HomeAmount.Valid && !r.HomeAmount.Decimal.Equal(r.TotalAmount) {
			return apperr.Invalid("home_amount", "must equal total_amount, or be left out, when currency is the home currency %s", home)
		}
		r.Currency, r.HomeAmount = "", decimal.NullDecimal{}
	}
	switch {
	case r.Currency != "" && !r.HomeAmount.Valid:
		return apperr.Invalid("home_amount", "is required when currency %s is not the home currency (%s): the amount charged in the home currency",
			r.Currency, homeName(home))
	case r.Currency == "" && r.HomeAmount.Valid:
		return apperr.Invalid("home_amount", "is only allowed with a currency other than the home currency (%s)", homeName(home))
	case r.HomeAmount.Valid:
		return quantity("home_amount", r.HomeAmount.Decimal, false)
	}
	return nil
}

func homeName(home string) string {
	if home == "" {
		return "not chosen yet"
	}
	return home
}

// CurrencyMode is what a change of the home currency does to the stored
// amounts.
type CurrencyMode string

// The modes: relabel says the amounts were in the new currency all along
// (nothing but the label changes); convert multiplies every home amount
// by a rate.
const (
	CurrencyRelabel CurrencyMode = "relabel"
	CurrencyConvert CurrencyMode = "convert"
)

// Bounds of a conversion rate: a positive decimal with at most
// MaxRateIntDigits digits before the point and MaxRatePlaces after it.
const (
	MaxRateIntDigits = 9
	MaxRatePlaces    = 12
)

// CurrencyChange changes the caller's home currency from From to To.
// With CurrencyConvert, every home amount a of the vehicles the caller
// owns becomes a × Rate, or a ÷ Rate when Inverse (Rate is then the price
// of one To in From: the rate of the change back, given as it was), rounded
// half-up to QuantityScale places.
type CurrencyChange struct {
	From, To string
	Mode     CurrencyMode
	Rate     decimal.Decimal
	Inverse  bool
}

// Convert is the home amount a after the change.
func (c CurrencyChange) Convert(a decimal.Decimal) decimal.Decimal {
	if c.Mode != CurrencyConvert {
		return a
	}
	if c.Inverse {
		return a.DivRound(c.Rate, QuantityScale)
	}
	return a.Mul(c.Rate).Round(QuantityScale)
}

// CurrencyConversion is a user's last conversion of the home currency,
// kept with the preferences so that any device can offer its undo: the
// codes, the rate as it was given (Inverse: as inverse_rate, the amounts
// divided by it) and when it was made. A relabel or an undo clears it (nil),
// a new conversion replaces it.
type CurrencyConversion struct {
	From, To string
	Rate     decimal.Decimal
	Inverse  bool
	At       time.Time
}

// Undoes reports whether c is the undo of last: back from last.To to
// last.From at the same rate given the other way round, which divides
// what last multiplied (and the other way).
func (c CurrencyChange) Undoes(last *CurrencyConversion) bool {
	return last != nil && c.Mode == CurrencyConvert && c.From == last.To && c.To == last.From &&
		c.Rate.Equal(last.Rate) && c.Inverse != last.Inverse
}

// Recorded is what c leaves to undo, made at: the conversion itself, or
// nil after a relabel or after the undo of last.
func (c CurrencyChange) Recorded(last *CurrencyConversion, at time.Time) *CurrencyConversion {
	if c.Mode != CurrencyConvert || c.Undoes(last) {
		return nil
	}
	return &CurrencyConversion{From: c.From, To: c.To, Rate: c.Rate, Inverse: c.Inverse, At: at}
}

// CurrencyChangeResult says what a change did: the vehicles it concerned
// (those the caller owns), the records whose stored values it changed,
// and the preferences after it.
type CurrencyChangeResult struct {
	Vehicles    int
	Refuels     int
	Expenses    int
	Preferences Preferences
}

// ErrCurrencyChanged is the answer to a change whose From is not the home
// currency any more: another device changed it, or this change was sent
// twice. Nothing is changed; the client reloads and asks again.
func ErrCurrencyChanged(current, from string) error {
	return apperr.New(apperr.Conflict, "the home currency is %s, not %s: it was changed meanwhile (or this change was already made); nothing was changed",
		homeName(current), from)
}

// ConvertRefuel applies c to one record of a vehicle the caller owns and
// reports whether its stored values change. A record paid in To becomes a
// home record: what was paid is then the home amount, exactly. Otherwise
// relabel changes nothing; convert converts the home record's total (and
// recomputes its price per unit) or the foreign record's home amount.
// The error names the rate when a converted amount leaves the storage's
// range.
func (c CurrencyChange) ConvertRefuel(r *Refuel) (bool, error) {
	switch {
	case r.Currency != "" && r.Currency == c.To:
		r.Currency, r.HomeAmount = "", decimal.NullDecimal{}
		return true, nil
	case c.Mode != CurrencyConvert:
		return false, nil
	case r.Currency != "":
		r.HomeAmount.Decimal = c.Convert(r.HomeAmount.Decimal)
	default:
		r.TotalAmount = c.Convert(r.TotalAmount)
		r.PricePerLiter = decimal.Zero
		if r.Liters.IsPositive() {
			r.PricePerLiter = r.TotalAmount.DivRound(r.Liters, PriceScale)
		}
	}
	if r.HomeTotal().GreaterThan(MaxQuantity) {
		return false, apperr.Invalid("rate", "converts an amount of record %d to more than %s", r.ID, MaxQuantity)
	}
	return true, nil
}
