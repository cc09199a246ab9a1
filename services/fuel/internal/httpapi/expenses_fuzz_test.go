package httpapi_test

import (
	"net/http/httptest"
	"strings"
	"testing"
)

// FuzzCreateExpense: any body gets a JSON answer, never a panic or a 500
// (checkAnswer), items and tags included.
func FuzzCreateExpense(f *testing.F) {
	for _, seed := range []string{
		`{"vehicle_id":1,"time":"2026-03-01T08:00:00Z","category":"service","title":"Oil","amount":89.9}`,
		`{"vehicle_id":1,"time":"2026-03-01T08:00:00Z","odometer":null,"category":"tyres","title":"x","amount":0,"items":[{"name":"a","part_number":"b","quantity":1,"unit_price":2.12345}],"tags":["a","A"]}`,
		`{"items":[1,{"quantity":"1"},null],"tags":[null,2,"x"]}`,
		`{"items":{},"tags":"oil","odometer":-1,"amount":1e999}`,
		`{}`, `[]`, `null`, `{`,
	} {
		f.Add(seed)
	}
	h := fuzzHandler(f)
	f.Fuzz(func(t *testing.T, body string) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("POST", "/api/expenses", strings.NewReader(body)))
		checkAnswer(t, rec, body)
	})
}
