package refuelcsv

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/carhub/backend/pkg/apperr"
	"github.com/carhub/backend/services/fuel/internal/fuel"
)

func mustRead(t *testing.T, file string, opts Options) Result {
	t.Helper()
	if opts.VehicleID == 0 {
		opts.VehicleID = 7
	}
	if opts.FuelType == "" {
		opts.FuelType = "gasoline"
	}
	res, err := Read(strings.NewReader(file), opts)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	return res
}

// refuelLine renders the fields a test compares.
func refuelLine(r fuel.Refuel) string {
	return strings.Join([]string{
		r.RefuelTime.UTC().Format(time.RFC3339), r.Odometer.String(), r.Liters.String(), r.TotalAmount.String(),
		r.FuelType, r.StationName, map[bool]string{true: "full", false: "partial"}[r.IsFull],
		map[bool]string{true: "missed", false: "-"}[r.MissedPrevious], r.Remark,
	}, " ")
}

func checkRefuels(t *testing.T, res Result, want []string) {
	t.Helper()
	if len(res.Errors) != 0 {
		t.Fatalf("errors: %+v", res.Errors)
	}
	if len(res.Refuels) != len(want) || res.Rows != len(want) {
		t.Fatalf("%d refuels of %d rows, want %d", len(res.Refuels), res.Rows, len(want))
	}
	for i, r := range res.Refuels {
		if got := refuelLine(r); got != want[i] {
			t.Errorf("row %d:\n got  %s\n want %s", i+2, got, want[i])
		}
		if r.VehicleID != 7 {
			t.Errorf("row %d: vehicle %d", i+2, r.VehicleID)
		}
	}
}

func TestReadFuelly(t *testing.T) {
	// Fuelly's export: gallons and miles; price per gallon; partial and
	// missed as 0/1; dates month first (en-US); no fuel type column.
	file := "car_name,model,mpg,odometer,miles,gallons,price,city_percentage,fuelup_date,date_added,tags,notes,missed_fuelup,partial_fuelup,latitude,longitude,brand\n" +
		"Civic,Honda,,10000,,10,3.50,50,01/05/2024,01/05/2024,,first,0,0,,,Shell\n" +
		"Civic,Honda,30.5,10305,305,10.000,3.459,50,01/15/2024 17:30,01/15/2024,,\"note, with comma\",0,1,,,\n" +
		"Civic,Honda,31,10600,295,9.5,$3.60,50,2/1/2024 5:05 PM,,,,1,0,,,Chevron\n"
	res := mustRead(t, file, Options{VolumeUnit: "gal_us", DistanceUnit: "mi"})
	if res.Format != FormatFuelly {
		t.Fatalf("format %s", res.Format)
	}
	// 10000 mi = 16093.44 km; 10 gal = 37.85411784 L -> 37.854; 10 × 3.50 = 35.
	// 10305 mi = 16584.4899... -> 16584.29; 10 × 3.459 = 34.59.
	// 10600 mi = 17059.0464 -> 17059.046; 9.5 gal = 35.961411948 -> 35.961;
	// 9.5 × 3.60 = 34.2.
	checkRefuels(t, res, []string{
		"2024-01-05T00:00:00Z 16093.44 37.854 35 gasoline Shell full - first",
		"2024-01-15T17:30:00Z 16584.29 37.854 34.59 gasoline  partial - note, with comma",
		"2024-02-01T17:05:00Z 17059.046 35.961 34.2 gasoline Chevron full missed ",
	})
}

func TestReadLubeLogger(t *testing.T) {
	// LubeLogger's gas record export; day first here (a 13 in the first
	// part), decided over the whole column: 05/01/2024 is 5 January.
	file := "\ufeffDate,Odometer,FuelConsumed,Cost,FuelEconomy,IsFillToFull,MissedFuelUp,Notes,Tags\n" +
		"05/01/2024,1000,40,60,0,True,False,,\n" +
		"13/01/2024,1500,\"35,5\",\"56,80\",7.1,False,False,a note,t1\n" +
		"20/01/2024,\"2,000\",40,64,8,True,True,,\n"
	res := mustRead(t, file, Options{FuelType: "diesel"})
	if res.Format != FormatLubeLogger {
		t.Fatalf("format %s", res.Format)
	}
	checkRefuels(t, res, []string{
		"2024-01-05T00:00:00Z 1000 40 60 diesel  full - ",
		"2024-01-13T00:00:00Z 1500 35.5 56.8 diesel  partial - a note",
		"2024-01-20T00:00:00Z 2000 40 64 diesel  full missed ",
	})
}

func TestReadSemicolons(t *testing.T) {
	// A spreadsheet in a decimal-comma locale separates with semicolons.
	file := "Date;Odometer;FuelConsumed;Cost;IsFillToFull\n" +
		"2024-01-05;1000;40,5;60,75;True\n" +
		"2024-01-13;1.500;35.25;56;False\n" +
		"2024-01-20;1.234.567,5;35;56;True\n"
	res := mustRead(t, file, Options{FuelType: "diesel"})
	// There '.' groups thousands and ',' is the decimal point; a lone '.'
	// not followed by three digits is still read as a decimal point.
	checkRefuels(t, res, []string{
		"2024-01-05T00:00:00Z 1000 40.5 60.75 diesel  full - ",
		"2024-01-13T00:00:00Z 1500 35.25 56 diesel  partial - ",
		"2024-01-20T00:00:00Z 1234567.5 35 56 diesel  full - ",
	})
}

func TestReadDateOrder(t *testing.T) {
	file := func(dates ...string) string {
		var b strings.Builder
		b.WriteString("Date,Odometer,FuelConsumed,Cost\n")
		for i, d := range dates {
			b.WriteString(d + "," + string(rune('1'+i)) + "000,40,60\n")
		}
		return b.String()
	}
	day := func(res Result, i int) string { return res.Refuels[i].RefuelTime.Format("2006-01-02") }
	// Ambiguous throughout: month first.
	res := mustRead(t, file("03/04/2024", "05/06/2024"), Options{})
	if day(res, 0) != "2024-03-04" || day(res, 1) != "2024-05-06" {
		t.Errorf("ambiguous column read as %s %s, want month first", day(res, 0), day(res, 1))
	}
	// One row says month first (second part 25).
	res = mustRead(t, file("03/04/2024", "05/25/2024"), Options{})
	if day(res, 0) != "2024-03-04" || day(res, 1) != "2024-05-25" {
		t.Errorf("got %s %s", day(res, 0), day(res, 1))
	}
	// One row says day first (first part 25): the whole column is.
	res = mustRead(t, file("03/04/2024", "25.05.2024"), Options{})
	if day(res, 0) != "2024-04-03" || day(res, 1) != "2024-05-25" {
		t.Errorf("got %s %s", day(res, 0), day(res, 1))
	}
	// date_format overrides detection.
	res = mustRead(t, file("03/04/2024", "05/06/2024"), Options{DateFormat: "dmy"})
	if day(res, 0) != "2024-04-03" || day(res, 1) != "2024-06-05" {
		t.Errorf("dmy override: got %s %s", day(res, 0), day(res, 1))
	}
	// Year first is never ambiguous.
	res = mustRead(t, file("2024-03-04", "2024/12/31 23:59:59"), Options{})
	if got := res.Refuels[1].RefuelTime.Format(time.RFC3339); day(res, 0) != "2024-03-04" || got != "2024-12-31T23:59:59Z" {
		t.Errorf("got %s %s", day(res, 0), got)
	}
	// Both orders seen: the column is read month first and the rows that
	// do not fit are bad, named by row.
	res = mustRead(t, file("13/01/2024", "01/13/2024"), Options{})
	if res.BadRows != 1 || len(res.Errors) != 1 || res.Errors[0].Row != 2 || !strings.HasPrefix(res.Errors[0].Reason, "Date:") {
		t.Errorf("conflicting orders: %+v", res.Errors)
	}
}

func TestReadNative(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	at := time.Date(2026, 3, 1, 8, 0, 0, 123456000, time.UTC)
	in := []fuel.Refuel{
		{ID: 3, VehicleID: 1, RefuelTime: at, Odometer: dec("12500.5"), FuelType: "E10", Liters: dec("40.5"), TotalAmount: dec("70.47"),
			PricePerLiter: dec("1.74"), StationName: `Aral "Nord", A2`, IsFull: true, Remark: "line\nbreak", CreatedAt: at, UpdatedAt: at},
		{ID: 4, VehicleID: 1, RefuelTime: at.Add(time.Hour), Odometer: dec("13000"), FuelType: "E10", Liters: dec("10"), TotalAmount: dec("0"),
			MissedPrevious: true, CreatedAt: at, UpdatedAt: at},
	}
	if err := w.WriteHeader(); err != nil {
		t.Fatal(err)
	}
	for _, r := range in {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	wantHead := "id,vehicle_id,refuel_time,odometer,fuel_type,liters,total_amount,price_per_liter,station_name,is_full,missed_previous,remark,created_at,updated_at\r\n" +
		"3,1,2026-03-01T08:00:00.123456Z,12500.5,E10,40.5,70.47,1.74,\"Aral \"\"Nord\"\", A2\",true,false,\"line\r\nbreak\",2026-03-01T08:00:00.123456Z,2026-03-01T08:00:00.123456Z\r\n"
	if !strings.HasPrefix(buf.String(), wantHead) {
		t.Errorf("export:\n%s\nwant prefix\n%s", buf.String(), wantHead)
	}
	res := mustRead(t, buf.String(), Options{})
	checkRefuels(t, res, []string{
		"2026-03-01T08:00:00Z 12500.5 40.5 70.47 E10 Aral \"Nord\", A2 full - line\nbreak",
		"2026-03-01T09:00:00Z 13000 10 0 E10  partial missed ",
	})
	if !res.Refuels[0].RefuelTime.Equal(at) {
		t.Errorf("refuel_time %v, want %v", res.Refuels[0].RefuelTime, at)
	}
}

func TestReadBadInput(t *testing.T) {
	for _, tc := range []struct{ name, file, field string }{
		{"empty", "", "file"},
		{"unknown header", "a,b,c\n1,2,3\n", "file"},
		{"fuelly without price", "fuelup_date,odometer,gallons\n1/1/2024,1,1\n", "file"},
		{"broken quote", "Date,Odometer,FuelConsumed,Cost\n\"1/1/2024,1,2,3\n", "file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read(strings.NewReader(tc.file), Options{VehicleID: 1, FuelType: "diesel"})
			if err == nil || !strings.HasPrefix(apperr.From(err).Message, tc.field+":") {
				t.Errorf("err = %v, want one naming %s", err, tc.field)
			}
		})
	}
	for _, o := range []Options{{VolumeUnit: "pints"}, {DistanceUnit: "furlong"}, {DateFormat: "ydm"}} {
		if _, err := Read(strings.NewReader("Date,Odometer,FuelConsumed,Cost\n"), o); err == nil {
			t.Errorf("options %+v accepted", o)
		}
	}
	// Every bad row is reported with its number (the header is row 1).
	file := "Date,Odometer,FuelConsumed,Cost\n" +
		"1/1/2024,1000,40,60\n" + // good
		"1/2/2024,abc,40,60\n" + // 3: odometer
		"1/3/2024,1100,0,60\n" + // 4: liters 0
		"\n" + // 5: blank, skipped, not a row
		"2/30/2024,1200,40,60\n" + // 6: no such day
		"1/5/2024,1300,40,-1\n" + // 7: negative money
		"1/6/2024,1400,40\n" + // 8: too few fields
		"\"1/7/2024\",1500,40,\"6\n0\"\n" // 9: a quoted line break, not a number
	res := mustRead(t, file, Options{})
	wantRows := []int{3, 4, 6, 7, 8, 9}
	if res.Rows != 7 || res.BadRows != len(wantRows) || len(res.Refuels) != 1 {
		t.Fatalf("rows %d bad %d good %d: %+v", res.Rows, res.BadRows, len(res.Refuels), res.Errors)
	}
	for i, e := range res.Errors {
		if e.Row != wantRows[i] || e.Reason == "" {
			t.Errorf("error %d = %+v, want row %d", i, e, wantRows[i])
		}
	}
}

func TestParseNumber(t *testing.T) {
	for in, want := range map[string]string{
		"40": "40", "40.5": "40.5", "$45.67": "45.67", "€ 12,5": "12.5", "1,234": "1234", "1,234.5": "1234.5",
		"1,234,567": "1234567", ".5": "0.5", "1 234,56": "1234.56",
	} {
		d, err := parseNumber("x", in, false)
		if err != nil || d.String() != want {
			t.Errorf("parseNumber(%q) = %s, %v; want %s", in, d, err, want)
		}
	}
	for _, in := range []string{"", "abc", "1e5", "1.2.3", "NaN", "--1", strings.Repeat("9", 41)} {
		if _, err := parseNumber("x", in, false); err == nil {
			t.Errorf("parseNumber(%q) accepted", in)
		}
	}
}

// FuzzRead feeds arbitrary bytes to the reader: it must not panic, and
// every refuel it returns must be valid and belong to the vehicle.
func FuzzRead(f *testing.F) {
	f.Add([]byte("Date,Odometer,FuelConsumed,Cost,IsFillToFull\n05/01/2024,1000,40,60,True\n"))
	f.Add([]byte("car_name,odometer,gallons,price,fuelup_date,partial_fuelup,missed_fuelup\nx,100,10,3.5,2024-01-01 10:00,0,1\n"))
	f.Add([]byte("refuel_time,odometer,fuel_type,liters,total_amount,is_full\n2026-03-01T08:00:00Z,1,E10,1,1,true\n"))
	f.Add([]byte("Date,Odometer,FuelConsumed,Cost\n\"1/1/2024\",\"1,0\",\"x\"\"\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		res, err := Read(bytes.NewReader(b), Options{VehicleID: 3, FuelType: "diesel", DateFormat: ""})
		if err != nil {
			return
		}
		if len(res.Refuels)+res.BadRows != res.Rows {
			t.Fatalf("%d good + %d bad != %d rows", len(res.Refuels), res.BadRows, res.Rows)
		}
		for _, r := range res.Refuels {
			if err := r.Validate(); err != nil || r.VehicleID != 3 {
				t.Fatalf("returned an invalid refuel %+v: %v", r, err)
			}
		}
	})
}

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }
