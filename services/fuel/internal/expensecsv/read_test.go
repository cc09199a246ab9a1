package expensecsv

import (
	"bytes"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/carhub/backend/pkg/apperr"
	"github.com/carhub/backend/services/fuel/internal/fuel"
)

// row is an expense as the tests compare it.
type row struct {
	time, odometer, category, title, amount, notes string
	tags                                           []string
}

func rowOf(e fuel.Expense) row {
	odo := ""
	if e.Odometer.Valid {
		odo = e.Odometer.Decimal.String()
	}
	return row{e.Time.UTC().Format(time.RFC3339), odo, e.Category, e.Title, e.Amount.String(), e.Notes, e.Tags}
}

func mustRead(t *testing.T, file string, opts Options) Result {
	t.Helper()
	b, err := os.ReadFile("testdata/" + file)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Read(bytes.NewReader(b), opts)
	if err != nil {
		t.Fatalf("read %s: %v", file, err)
	}
	return res
}

func checkRows(t *testing.T, res Result, want []row) {
	t.Helper()
	if res.BadRows != 0 {
		t.Fatalf("bad rows: %+v", res.Errors)
	}
	if len(res.Expenses) != len(want) {
		t.Fatalf("%d expenses, want %d: %+v", len(res.Expenses), len(want), res.Expenses)
	}
	for i, w := range want {
		if got := rowOf(res.Expenses[i]); !reflect.DeepEqual(got, w) {
			t.Errorf("expense %d:\n got %+v\nwant %+v", i, got, w)
		}
		if res.Expenses[i].VehicleID != 7 {
			t.Errorf("expense %d of vehicle %d, want 7", i, res.Expenses[i].VehicleID)
		}
	}
}

func TestReadLubeLoggerRecords(t *testing.T) {
	berlin, _ := time.LoadLocation("Europe/Berlin")
	res := mustRead(t, "lubelogger-service.csv", Options{VehicleID: 7, RecordType: "service", Location: berlin})
	if res.Format != FormatLubeLogger || res.Rows != 2 {
		t.Errorf("format %s, %d rows", res.Format, res.Rows)
	}
	// M/D/Y (15 > 12), midnight in Berlin; the extra field goes to the notes.
	checkRows(t, res, []row{
		{"2024-01-14T23:00:00Z", "45210", "service", "Oil Change", "89.9", "5W-30 synthetic\nShop: Joe's Garage", []string{"oil", "filter"}},
		{"2024-03-01T23:00:00Z", "47800", "service", "Brake pads", "245", "front axle, both sides", []string{"brakes"}},
	})

	res = mustRead(t, "lubelogger-tax.csv", Options{VehicleID: 7, RecordType: "tax"})
	checkRows(t, res, []row{{"2024-01-31T00:00:00Z", "", "tax", "Vehicle registration", "120", "", []string{}}})

	res = mustRead(t, "lubelogger-service.csv", Options{VehicleID: 7, RecordType: "upgrade", DistanceUnit: "mi"})
	if got := rowOf(res.Expenses[0]); got.category != "accessory" || got.odometer != "72758.442" {
		t.Errorf("upgrade in miles: %+v (45210 mi = 72758.44224 km, 3 places)", got)
	}

	b, _ := os.ReadFile("testdata/lubelogger-tax.csv")
	_, err := Read(bytes.NewReader(b), Options{VehicleID: 7})
	var ae *apperr.Error
	if !errorsAs(err, &ae) || ae.Field != "record_type" {
		t.Errorf("without record_type: %v", err)
	}
}

func TestReadFuelioCosts(t *testing.T) {
	berlin, _ := time.LoadLocation("Europe/Berlin")
	res := mustRead(t, "fuelio-backup.csv", Options{VehicleID: 7, Location: berlin})
	if res.Format != FormatFuelio || res.Rows != 3 || res.Ignored != 2 {
		t.Errorf("format %s, %d rows, %d ignored; want fuelio, 3, 2 (an income, a template)", res.Format, res.Rows, res.Ignored)
	}
	checkRows(t, res, []row{
		// 14:57 CET is 13:57Z; MOT is an inspection and keeps its name.
		{"2024-02-08T13:57:00Z", "45000", "inspection", "Inspection", "55.5", "passed", []string{"MOT"}},
		// No title: the category's name; Odo 0 is no reading.
		{"2024-03-01T08:00:00Z", "", "toll", "Tolls", "12.4", "A2 Hannover", []string{"Tolls"}},
		// A category of the user's own is other; 23:30 CEST is 21:30Z.
		{"2024-03-31T21:30:00Z", "", "other", "Rent", "80", "", []string{"Garage rent"}},
	})
}

func TestReadFuelioInMiles(t *testing.T) {
	b, _ := os.ReadFile("testdata/fuelio-backup.csv")
	b = bytes.Replace(b, []byte(`"Odo (km)"`), []byte(`"Odo (mi)"`), 1)
	res, err := Read(bytes.NewReader(b), Options{VehicleID: 7})
	if err != nil || len(res.Expenses) != 3 {
		t.Fatalf("%+v %v", res, err)
	}
	// 45000 mi = 72420.48 km.
	if got := res.Expenses[0].Odometer.Decimal.String(); got != "72420.48" {
		t.Errorf("odometer %s km, want 72420.48", got)
	}
}

func TestExportReadsBack(t *testing.T) {
	es := []fuel.Expense{
		{ID: 1, VehicleID: 3, Time: time.Date(2024, 1, 2, 3, 4, 5, 600000000, time.UTC), Odometer: decimal.NewNullDecimal(decimal.RequireFromString("1234.5")),
			Category: "service", Title: "=HYPERLINK(\"x\")", Amount: decimal.RequireFromString("89.9"), Vendor: "Aral \"Nord\", A2", Notes: "line\nbreak",
			Items: []fuel.ExpenseItem{{Name: "Oil", PartNumber: "=1", Quantity: decimal.RequireFromString("4.5"), UnitPrice: decimal.RequireFromString("12.9001")}},
			Tags:  []string{"oil", "+a"}},
		{ID: 2, VehicleID: 3, Time: time.Date(2024, 2, 2, 0, 0, 0, 0, time.UTC), Category: "toll", Title: "A2", Amount: decimal.RequireFromString("12.4")},
	}
	for _, tc := range []struct {
		name string
		w    func(*bytes.Buffer) *Writer
	}{
		{"plain", func(b *bytes.Buffer) *Writer { return NewWriter(b) }},
		{"spreadsheet with decimal comma", func(b *bytes.Buffer) *Writer { return NewSpreadsheetWriter(b, true) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			w := tc.w(&buf)
			if err := w.WriteHeader(); err != nil {
				t.Fatal(err)
			}
			for _, e := range es {
				if err := w.Write(e); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(buf.String(), "'=HYPERLINK") {
				t.Errorf("the title is not neutralised: %s", buf.String())
			}
			res, err := Read(bytes.NewReader(buf.Bytes()), Options{VehicleID: 7})
			if err != nil || res.Format != FormatNative {
				t.Fatalf("%v %s", err, res.Format)
			}
			if res.BadRows != 0 || len(res.Expenses) != 2 {
				t.Fatalf("%+v", res)
			}
			got := res.Expenses[0]
			want := es[0]
			want.Normalize()
			if rowOf(got).title != want.Title || got.Vendor != want.Vendor || got.Notes != want.Notes || !got.Time.Equal(want.Time) ||
				got.Odometer.Decimal.String() != "1234.5" || !reflect.DeepEqual(got.Tags, want.Tags) ||
				len(got.Items) != 1 || got.Items[0].PartNumber != "=1" || got.Items[0].UnitPrice.String() != "12.9001" || got.Amount.String() != "89.9" {
				t.Errorf("read back %+v\nwant %+v", got, want)
			}
			if res.Expenses[1].Odometer.Valid || len(res.Expenses[1].Items) != 0 {
				t.Errorf("second read back %+v", res.Expenses[1])
			}
		})
	}
}

func TestBadRowsNamed(t *testing.T) {
	file := "time,category,title,amount\r\n" +
		"2024-01-01T00:00:00Z,service,Oil,10\r\n" +
		"yesterday,fuel,,-3\r\n"
	res, err := Read(strings.NewReader(file), Options{VehicleID: 7})
	if err != nil {
		t.Fatal(err)
	}
	want := `time: "yesterday" is not an RFC 3339 timestamp with a zone; category: must be one of service, repair, tyres, inspection, insurance, tax, parking, toll, wash, fine, accessory, other; ` +
		"title: is required and must not be blank; amount: must be at least 0"
	if res.BadRows != 1 || len(res.Errors) != 1 || res.Errors[0].Row != 3 || res.Errors[0].Reason != want {
		t.Errorf("errors %+v, want row 3: %s", res.Errors, want)
	}
	// A row whose cells parse but break a rule is named by Validate.
	file = "time,category,title,amount\r\n2024-01-01T00:00:00Z,fuel,,10\r\n"
	res, _ = Read(strings.NewReader(file), Options{VehicleID: 7})
	if len(res.Errors) != 1 || !strings.HasPrefix(res.Errors[0].Reason, "category: must be one of") || !strings.Contains(res.Errors[0].Reason, "title: is required") {
		t.Errorf("errors %+v", res.Errors)
	}
	_, err = Read(strings.NewReader("a,b\r\n1,2\r\n"), Options{})
	if err == nil || !strings.HasPrefix(err.Error(), "INVALID_ARGUMENT: file: has no header") {
		t.Errorf("unknown layout: %v", err)
	}
}

func errorsAs(err error, target **apperr.Error) bool { return errors.As(err, target) }
