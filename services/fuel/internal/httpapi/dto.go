package httpapi

import (
	"encoding/json"
	"time"

	"github.com/shopspring/decimal"
)

// timeLayout is RFC 3339 in UTC with up to 6 fraction digits: the
// precision both databases keep, so a read-back equals the write's answer.
const timeLayout = "2006-01-02T15:04:05.999999Z07:00"

// number writes d as a JSON number literal (never in exponent form).
func number(d decimal.Decimal) json.Number { return json.Number(d.String()) }

func formatTime(t time.Time) string { return t.UTC().Format(timeLayout) }

// nonNil is s, or the empty list for nil: a list member is never null.
func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func nullNumber(d decimal.NullDecimal) *json.Number {
	if !d.Valid {
		return nil
	}
	n := number(d.Decimal)
	return &n
}
