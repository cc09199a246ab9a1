package httpapi

import (
	"errors"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/carhub/backend/pkg/apperr"
	"github.com/carhub/backend/services/fuel/internal/fuel"
)

// maxNumberLiteral bounds the length of a number literal: enough for any
// value the storage holds written out in full, small enough that parsing
// it costs nothing.
const maxNumberLiteral = 64

// members reads the members of a body for a create or a patch, keeping
// the error of each bad one: its methods are the ...Field functions
// below, and err joins what they found. A composite literal calls them
// in its lexical order, which is the field table's.
type members struct {
	create bool
	errs   []error
}

func (m *members) err() error { return apperr.Join(m.errs...) }

// known is what the rules of a record's members (the domain's
// ValidateFields) may be checked on before the store completes the
// record: on create every member (an absent one has its default or was
// reported as required), on update those the patch sets (sets, asked for
// the top member: items of items[1].quantity), and in both cases none
// that could not be read, whose error is reported already.
func (m *members) known(sets func(field string) bool) func(field string) bool {
	return func(field string) bool {
		top := field
		if i := strings.IndexAny(top, ".["); i >= 0 {
			top = top[:i]
		}
		return (m.create || sets(top)) && !m.failed(field)
	}
}

// inMemberOrder sorts errs, found by reading a body of type T and then
// by the rules of its members, stably into the order of T's members
// (members of members too: last_done.time before last_done.odometer; the
// elements of a list by index), so that one answer names the bad members
// in the order of the field table whichever check found them.
func inMemberOrder[T any](errs []error) {
	t := reflect.TypeFor[T]()
	path := func(err error) []int {
		var e *apperr.Error
		if !errors.As(err, &e) {
			return nil
		}
		return fieldPosition(t, e.Field)
	}
	slices.SortStableFunc(errs, func(a, b error) int { return slices.Compare(path(a), path(b)) })
}

// fieldPosition is the position of field (items[1].quantity) in a body of
// type t: the index of each member on the way among its struct's, and
// each list element's index. A list member is a struct whose V is the
// list (optItems). It stops where t has no such member.
func fieldPosition(t reflect.Type, field string) []int {
	var path []int
	for field != "" && t.Kind() == reflect.Struct {
		if rest, ok := strings.CutPrefix(field, "["); ok {
			n, after, _ := strings.Cut(rest, "]")
			i, _ := strconv.Atoi(n)
			v, ok := t.FieldByName("V")
			if !ok || v.Type.Kind() != reflect.Slice {
				break
			}
			path, t, field = append(path, i), v.Type.Elem(), after
			continue
		}
		field = strings.TrimPrefix(field, ".")
		name := field
		if i := strings.IndexAny(name, ".["); i >= 0 {
			name = name[:i]
		}
		i := 0
		for ; i < t.NumField(); i++ {
			if tag, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); tag == name {
				break
			}
		}
		if i == t.NumField() {
			break
		}
		path, t, field = append(path, i), t.Field(i).Type, field[len(name):]
	}
	return path
}

// failed reports whether reading field found an error in it or in one of
// its members: last_done fails with last_done.time, items[1] with
// items[1].quantity, but items with neither (its length was read).
func (m *members) failed(field string) bool {
	for _, err := range m.errs {
		var e *apperr.Error
		if errors.As(err, &e) && (e.Field == field || strings.HasPrefix(e.Field, field+".")) {
			return true
		}
	}
	return false
}

func (m *members) str(field string, o optString, required bool) *string {
	v, err := stringField(field, o, required, m.create)
	m.errs = append(m.errs, err)
	return v
}

func (m *members) energy(field string, o optString) *fuel.Energy {
	v, err := energyField(field, o)
	m.errs = append(m.errs, err)
	return v
}

func (m *members) boolean(field string, o optBool, required bool) *bool {
	v, err := boolField(field, o, required, m.create)
	m.errs = append(m.errs, err)
	return v
}

func (m *members) decimal(field string, o optNumber, required bool) *decimal.Decimal {
	v, err := decimalField(field, o, required, m.create)
	m.errs = append(m.errs, err)
	return v
}

func (m *members) currency(field string, o optString) *string {
	v, err := currencyField(field, o)
	m.errs = append(m.errs, err)
	return v
}

func (m *members) nullDecimal(field string, o optNumber) *decimal.NullDecimal {
	v, err := nullDecimalField(field, o)
	m.errs = append(m.errs, err)
	return v
}

func (m *members) id(field string, o optNumber) *uint64 {
	v, err := idField(field, o, m.create)
	m.errs = append(m.errs, err)
	return v
}

func (m *members) time(field string, o optString) *time.Time {
	v, err := timeField(field, o, m.create)
	m.errs = append(m.errs, err)
	return v
}

func (m *members) strings(field string, o optStrings) *[]string {
	v, err := stringsField(field, o, m.create)
	m.errs = append(m.errs, err)
	return v
}

// presence applies the rules shared by every member: it reports whether
// the member carries a value to parse (false: the patch leaves it alone, or
// resets it when reset is true).
func presence(field string, set, null, required, create bool) (use, reset bool, err error) {
	switch {
	case !set && required && create:
		return false, false, apperr.Invalid(field, "is required")
	case !set:
		return false, false, nil
	case null && required:
		return false, false, apperr.Invalid(field, "must not be null")
	case null:
		return false, true, nil
	}
	return true, false, nil
}

func stringField(field string, o optString, required, create bool) (*string, error) {
	use, reset, err := presence(field, o.Set, o.Null, required, create)
	if err != nil || (!use && !reset) {
		return nil, err
	}
	v := o.V // "" when reset
	return &v, nil
}

// stringsField reads an optional list: null resets it to the empty list.
func stringsField(field string, o optStrings, create bool) (*[]string, error) {
	use, reset, err := presence(field, o.Set, o.Null, false, create)
	if err != nil || (!use && !reset) {
		return nil, err
	}
	v := o.V
	if reset {
		v = []string{}
	}
	return &v, nil
}

// energyField reads the optional energy: absent leaves it alone (on
// create: the vehicle's default), null resets it to the vehicle's default,
// a string must name an energy.
func energyField(field string, o optString) (*fuel.Energy, error) {
	use, reset, err := presence(field, o.Set, o.Null, false, false)
	if err != nil || (!use && !reset) {
		return nil, err
	}
	var e fuel.Energy // "": the vehicle's default
	if use {
		if e, err = fuel.ParseEnergy(field, o.V); err != nil {
			return nil, err
		}
	}
	return &e, nil
}

func boolField(field string, o optBool, required, create bool) (*bool, error) {
	use, reset, err := presence(field, o.Set, o.Null, required, create)
	if err != nil || (!use && !reset) {
		return nil, err
	}
	v := o.V
	return &v, nil
}

func decimalField(field string, o optNumber, required, create bool) (*decimal.Decimal, error) {
	use, reset, err := presence(field, o.Set, o.Null, required, create)
	if err != nil || (!use && !reset) {
		return nil, err
	}
	if reset {
		zero := decimal.Zero
		return &zero, nil
	}
	d, err := parseDecimal(field, o.Raw)
	if err != nil {
		return nil, err
	}
	return &d, nil
}

// currencyField reads the optional currency of a record: absent leaves
// it alone (on create: the home currency), null resets it to the home
// currency, a string must be an ISO 4217 code (any case).
func currencyField(field string, o optString) (*string, error) {
	use, reset, err := presence(field, o.Set, o.Null, false, false)
	if err != nil || (!use && !reset) {
		return nil, err
	}
	v := ""
	if use {
		if v, err = fuel.ParseCurrency(field, o.V); err != nil {
			return nil, err
		}
	}
	return &v, nil
}

// nullDecimalField reads an optional amount that null clears (absent
// leaves it alone).
func nullDecimalField(field string, o optNumber) (*decimal.NullDecimal, error) {
	use, reset, err := presence(field, o.Set, o.Null, false, false)
	if err != nil || (!use && !reset) {
		return nil, err
	}
	if reset {
		return &decimal.NullDecimal{}, nil
	}
	d, err := parseDecimal(field, o.Raw)
	if err != nil {
		return nil, err
	}
	return &decimal.NullDecimal{Decimal: d, Valid: true}, nil
}

func idField(field string, o optNumber, create bool) (*uint64, error) {
	use, _, err := presence(field, o.Set, o.Null, true, create)
	if err != nil || !use {
		return nil, err
	}
	id, err := parseID(field, o.Raw)
	if err != nil {
		return nil, err
	}
	return &id, nil
}

func timeField(field string, o optString, create bool) (*time.Time, error) {
	use, _, err := presence(field, o.Set, o.Null, true, create)
	if err != nil || !use {
		return nil, err
	}
	t, err := parseTime(field, o.V)
	if err != nil {
		return nil, err
	}
	return &t, nil
}

// parseDecimal reads a JSON number literal exactly. Negative values are
// refused here, before rounding could turn -0.0001 into 0; values far
// outside the storage range are refused before any arithmetic on them.
func parseDecimal(field, raw string) (decimal.Decimal, error) {
	if len(raw) > maxNumberLiteral {
		return decimal.Zero, apperr.Invalid(field, "has more than %d characters", maxNumberLiteral)
	}
	d, err := decimal.NewFromString(raw)
	if err != nil {
		return decimal.Zero, apperr.Invalid(field, "must be a number")
	}
	switch {
	case d.IsZero():
		return decimal.Zero, nil
	case d.IsNegative():
		return decimal.Zero, apperr.Invalid(field, "must be at least 0")
	case int64(d.NumDigits())+int64(d.Exponent()) > 20: // at least 10^20
		return decimal.Zero, apperr.Invalid(field, "must be at most %s", fuel.MaxQuantity)
	case d.Exponent() < -maxNumberLiteral:
		// Below 10^-(64-digits): rounds to 0 at 3 places.
		return decimal.Zero, nil
	}
	return d, nil
}

// parseID reads an id: a decimal integer in 1..18446744073709551615.
func parseID(field, raw string) (uint64, error) {
	if raw == "" || strings.TrimLeft(raw, "0123456789") != "" {
		return 0, apperr.Invalid(field, "must be an integer between 1 and 18446744073709551615")
	}
	id, err := strconv.ParseUint(raw, 10, 64)
	if err != nil || id == 0 {
		return 0, apperr.Invalid(field, "must be an integer between 1 and 18446744073709551615")
	}
	return id, nil
}

// parseTime reads an RFC 3339 timestamp, which must carry a zone (Z or an
// offset). In a query string an unencoded "+" of the offset arrives as a
// space; it is read as the "+" the client meant.
func parseTime(field, s string) (time.Time, error) {
	if n := len(s); n > 6 && s[n-6] == ' ' && s[n-3] == ':' {
		s = s[:n-6] + "+" + s[n-5:]
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, apperr.Invalid(field, "must be an RFC 3339 timestamp with a zone, like 2026-03-01T08:00:00Z or 2026-03-01T10:00:00+02:00")
	}
	return t, nil
}
