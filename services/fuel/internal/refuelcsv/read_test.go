package refuelcsv

import (
	"bytes"
	"io"
	"os"
	"strings"
	"testing"
	"testing/iotest"
	"time"
	_ "time/tzdata" // the zones of the tests, whatever the machine has

	"github.com/shopspring/decimal"

	"github.com/carhub/backend/pkg/apperr"
	"github.com/carhub/backend/services/fuel/internal/csvfile"
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
		r.FuelType, string(r.Energy), r.StationName, map[bool]string{true: "full", false: "partial"}[r.IsFull],
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
		"2024-01-05T00:00:00Z 16093.44 37.854 35 gasoline gasoline Shell full - first",
		"2024-01-15T17:30:00Z 16584.29 37.854 34.59 gasoline gasoline  partial - note, with comma",
		"2024-02-01T17:05:00Z 17059.046 35.961 34.2 gasoline gasoline Chevron full missed ",
	})
}

// fuellyMetric is a Fuelly export of a metric account: km, litres, price
// per litre, year-first dates.
func fuellyMetric(tb testing.TB) string {
	tb.Helper()
	b, err := os.ReadFile("testdata/fuelly-metric.csv")
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

func TestReadFuellyMetric(t *testing.T) {
	file := fuellyMetric(t)
	// 45.20 × 1.789 = 80.8628; 42.25 × 1.819 = 76.85275; 20.5 × 1.75 = 35.875.
	want := []string{
		"2024-09-02T00:00:00Z 12000 45.2 80.863 gasoline gasoline Aral full - first fill-up",
		"2024-09-16T00:00:00Z 12650 42.25 76.853 gasoline gasoline Shell full - tyres checked, 2.4 bar",
		"2024-09-30T00:00:00Z 13010 20.5 35.875 gasoline gasoline  partial missed ",
	}
	res := mustRead(t, file, Options{})
	if res.Format != FormatFuelly {
		t.Fatalf("format %s", res.Format)
	}
	checkRefuels(t, res, want)
	// The units the header names may be given too.
	checkRefuels(t, mustRead(t, file, Options{VolumeUnit: "l", DistanceUnit: "km"}), want)
	// km/l in place of l/100km.
	checkRefuels(t, mustRead(t, strings.Replace(file, "l/100km", "km/l", 1), Options{}), want)

	// Written with spaces after the commas, a quoted field after one.
	spaced := "car_name, model, l/100km, odometer, km, litres, price, city_percentage, fuelup_date, date_added, tags, notes, missed_fuelup, partial_fuelup, latitude, longitude, brand\n" +
		"Golf, Volkswagen, , 12000, , 45.20, 1.789, 50, 2024-09-02, 2024-09-02, , \"first, fill-up\", 0, 0, , , Aral\n"
	checkRefuels(t, mustRead(t, spaced, Options{}), []string{
		"2024-09-02T00:00:00Z 12000 45.2 80.863 gasoline gasoline Aral full - first, fill-up",
	})

	// Dates are the owner's: midnight in Berlin (CEST) is 22:00 UTC.
	berlin := mustLocation(t, "Europe/Berlin")
	res = mustRead(t, file, Options{Location: berlin})
	if got := res.Refuels[0].RefuelTime.Format(time.RFC3339); got != "2024-09-01T22:00:00Z" {
		t.Errorf("Berlin midnight of 2024-09-02 = %s", got)
	}

	// A caller's unit that contradicts the header is refused, naming it.
	for _, tc := range []struct {
		opts  Options
		field string
	}{
		{Options{VolumeUnit: "gal_us"}, "volume_unit"},
		{Options{VolumeUnit: "gal_uk", DistanceUnit: "km"}, "volume_unit"},
		{Options{DistanceUnit: "mi"}, "distance_unit"},
	} {
		tc.opts.VehicleID = 1
		_, err := Read(strings.NewReader(file), tc.opts)
		if e := apperr.From(err); err == nil || e.Code != apperr.InvalidArgument || e.Field != tc.field {
			t.Errorf("%+v: err = %v, want INVALID_ARGUMENT naming %s", tc.opts, err, tc.field)
		}
	}

	// Litres and miles (a British account): the header names the volume
	// only; the odometer is in the caller's unit.
	uk := strings.Replace(file, ",km,", ",miles,", 1)
	res = mustRead(t, uk, Options{DistanceUnit: "mi"})
	// 12000 mi = 19312.128 km.
	if got := refuelLine(res.Refuels[0]); got != "2024-09-02T00:00:00Z 19312.128 45.2 80.863 gasoline gasoline Aral full - first fill-up" {
		t.Errorf("litres and miles: %s", got)
	}
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
		"2024-01-05T00:00:00Z 1000 40 60 diesel diesel  full - ",
		"2024-01-13T00:00:00Z 1500 35.5 56.8 diesel diesel  partial - a note",
		"2024-01-20T00:00:00Z 2000 40 64 diesel diesel  full missed ",
	})
}

// A file is read the same whichever line end it uses: LF, CR LF, or the
// lone CR of classic Mac OS (Excel's "CSV (Macintosh)"), also when every
// read returns one byte, so that a CR is the last byte of a read and the
// LF that may follow it comes with the next. A bad row keeps its number,
// and a CR inside a quoted remark stays in it.
func TestReadLineEnds(t *testing.T) {
	lines := []string{
		"Date,Odometer,FuelConsumed,Cost,Notes",
		"1/5/2024,1000,40,60,",
		"1/13/2024,1500,abc,56.80,bad odometer row",
		`1/20/2024,2000,40,64,"two` + "\r" + `lines"`,
	}
	want := []string{
		"2024-01-05T00:00:00Z 1000 40 60 diesel diesel  full - ",
		"2024-01-20T00:00:00Z 2000 40 64 diesel diesel  full - two\rlines",
	}
	for _, end := range []string{"\n", "\r\n", "\r"} {
		file := strings.Join(lines, end) + end
		for _, oneByte := range []bool{false, true} {
			var r io.Reader = strings.NewReader(file)
			if oneByte {
				r = iotest.OneByteReader(r)
			}
			res, err := Read(r, Options{VehicleID: 7, FuelType: "diesel"})
			if err != nil {
				t.Fatalf("end %q, one byte %v: %v", end, oneByte, err)
			}
			if res.Rows != 3 || res.BadRows != 1 || len(res.Errors) != 1 || res.Errors[0].Row != 3 {
				t.Fatalf("end %q, one byte %v: rows %d, bad %d, errors %+v", end, oneByte, res.Rows, res.BadRows, res.Errors)
			}
			res.Errors, res.BadRows, res.Rows = nil, 0, len(res.Refuels)
			checkRefuels(t, res, want)
		}
	}
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
		"2024-01-05T00:00:00Z 1000 40.5 60.75 diesel diesel  full - ",
		"2024-01-13T00:00:00Z 1500 35.25 56 diesel diesel  partial - ",
		"2024-01-20T00:00:00Z 1234567.5 35 56 diesel diesel  full - ",
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
	at := time.Date(2026, 3, 1, 8, 0, 0, 123456000, time.UTC)
	in := []fuel.Refuel{
		{ID: 3, VehicleID: 1, RefuelTime: at, Odometer: dec("12500.5"), FuelType: "E10", Energy: fuel.Gasoline, Liters: dec("40.5"), TotalAmount: dec("70.47"),
			PricePerLiter: dec("1.74"), StationName: `Aral "Nord", A2`, IsFull: true, Remark: "line\nbreak", CreatedAt: at, UpdatedAt: at,
			Currency: "CHF", HomeAmount: decimal.NullDecimal{Decimal: dec("73.125"), Valid: true}},
		{ID: 4, VehicleID: 1, RefuelTime: at.Add(time.Hour), Odometer: dec("13000"), FuelType: "Type 2", Energy: fuel.Electricity, Liters: dec("10"), TotalAmount: dec("0"),
			MissedPrevious: true, Remark: "crlf\r\nremark", CreatedAt: at, UpdatedAt: at},
	}
	file := export(t, in)
	// The remark's LF is written as it is; only the records end with CRLF.
	want := "id,vehicle_id,refuel_time,odometer_km,fuel_type,energy,unit,liters,total_amount,price_per_liter,station_name,is_full,missed_previous,remark,created_at,updated_at,currency,home_amount\r\n" +
		"3,1,2026-03-01T08:00:00.123456Z,12500.5,E10,gasoline,l,40.5,70.47,1.74,\"Aral \"\"Nord\"\", A2\",true,false,\"line\nbreak\",2026-03-01T08:00:00.123456Z,2026-03-01T08:00:00.123456Z,CHF,73.125\r\n" +
		"4,1,2026-03-01T09:00:00.123456Z,13000,Type 2,electricity,kWh,10,0,0,,false,true,\"crlf\r\nremark\",2026-03-01T08:00:00.123456Z,2026-03-01T08:00:00.123456Z,,\r\n"
	if file != want {
		t.Errorf("export:\n%q\nwant\n%q", file, want)
	}
	// Our own reader, like encoding/csv's, returns a CRLF inside a quoted
	// field as LF: the one difference of the Go round trip.
	res := mustRead(t, file, Options{})
	checkRefuels(t, res, []string{
		"2026-03-01T08:00:00Z 12500.5 40.5 70.47 E10 gasoline Aral \"Nord\", A2 full - line\nbreak",
		"2026-03-01T09:00:00Z 13000 10 0 Type 2 electricity  partial missed crlf\nremark",
	})
	if !res.Refuels[0].RefuelTime.Equal(at) {
		t.Errorf("refuel_time %v, want %v", res.Refuels[0].RefuelTime, at)
	}
	// The currency paid abroad and the home amount come back; none is none.
	if r := res.Refuels[0]; r.Currency != "CHF" || !r.HomeAmount.Valid || r.HomeAmount.Decimal.String() != "73.125" {
		t.Errorf("record paid abroad read as %q %v", r.Currency, r.HomeAmount)
	}
	if r := res.Refuels[1]; r.Currency != "" || r.HomeAmount.Valid {
		t.Errorf("home record read as %q %v", r.Currency, r.HomeAmount)
	}
}

func TestReadEnergy(t *testing.T) {
	// Gasoline and electricity rows of a plug-in hybrid: energy and unit
	// read (in any case), an empty energy is the option's, an old export
	// without the columns is all the option's.
	file := "refuel_time,odometer,fuel_type,energy,unit,liters,total_amount,is_full\n" +
		"2024-05-01T08:00:00Z,1000,E10,gasoline,l,40,70,true\n" +
		"2024-05-02T19:30:00+02:00,1050,Type 2,electricity,kWh,30.5,12.2,true\n" +
		"2024-05-03T08:00:00Z,1100,E10,,,35,60,false\n" +
		"2024-05-04T08:00:00Z,1150,CCS,Electricity,KWH,20.25,8.1,true\n" +
		"2024-05-05T08:00:00Z,1200,E10,gasoline,,10,17,true\n"
	res := mustRead(t, file, Options{FuelType: "plug_in_hybrid", Energy: fuel.Gasoline})
	checkRefuels(t, res, []string{
		"2024-05-01T08:00:00Z 1000 40 70 E10 gasoline  full - ",
		"2024-05-02T17:30:00Z 1050 30.5 12.2 Type 2 electricity  full - ",
		"2024-05-03T08:00:00Z 1100 35 60 E10 gasoline  partial - ",
		"2024-05-04T08:00:00Z 1150 20.25 8.1 CCS electricity  full - ",
		"2024-05-05T08:00:00Z 1200 10 17 E10 gasoline  full - ",
	})
	// price_per_liter is per unit, computed from the row.
	if got := res.Refuels[1].PricePerLiter.String(); got != "0.4" {
		t.Errorf("price per kWh %s, want 0.4", got)
	}

	// The option "" is the default of the vehicle's fuel type, and rows
	// without an energy take it.
	res = mustRead(t, file, Options{FuelType: "electric"})
	if got := res.Refuels[2].Energy; got != fuel.Electricity {
		t.Errorf("empty energy of an electric vehicle read as %q", got)
	}

	// volume_unit converts liters only: kWh are kWh in any file.
	res = mustRead(t, file, Options{FuelType: "plug_in_hybrid", VolumeUnit: "gal_us"})
	if got := refuelLine(res.Refuels[0]); got != "2024-05-01T08:00:00Z 1000 151.416 70 E10 gasoline  full - " {
		t.Errorf("gal_us gasoline row: %s", got)
	}
	if got := refuelLine(res.Refuels[1]); got != "2024-05-02T17:30:00Z 1050 30.5 12.2 Type 2 electricity  full - " {
		t.Errorf("gal_us electricity row: %s", got)
	}

	// An export from before energy existed.
	old := "refuel_time,odometer,fuel_type,liters,total_amount,is_full\n2024-05-01T08:00:00Z,1000,Diesel,40,70,true\n"
	res = mustRead(t, old, Options{FuelType: "diesel", Energy: fuel.Diesel})
	checkRefuels(t, res, []string{"2024-05-01T08:00:00Z 1000 40 70 Diesel diesel  full - "})

	// Fuelly and LubeLogger rows take the option, whatever the vehicle.
	lube := "Date,Odometer,FuelConsumed,Cost,unit,energy\n2024-05-01,1000,50,15,l,gasoline\n"
	res = mustRead(t, lube, Options{FuelType: "plug_in_hybrid", Energy: fuel.Electricity, VolumeUnit: "gal_uk"})
	checkRefuels(t, res, []string{"2024-05-01T00:00:00Z 1000 50 15 plug_in_hybrid electricity  full - "})
}

func TestReadEnergyRowErrors(t *testing.T) {
	file := "refuel_time,odometer,fuel_type,energy,unit,liters,total_amount,is_full\n" +
		"2024-05-01T08:00:00Z,1000,E10,gasoline,l,40,70,true\n" +
		"2024-05-02T08:00:00Z,1050,E10,petrol,l,40,70,true\n" + // 3
		"2024-05-03T08:00:00Z,1100,Type 2,electricity,l,30,12,true\n" + // 4
		"2024-05-04T08:00:00Z,1150,Type 2,,kWh,30,12,true\n" + // 5: the default is gasoline
		"2024-05-05T08:00:00Z,1200,H2,hydrogen,kg,5,60,true\n"
	res := mustRead(t, file, Options{Energy: fuel.Gasoline})
	want := []csvfile.RowError{
		{Row: 3, Reason: `energy: "petrol" is not an energy (gasoline, diesel, lpg, cng, electricity, hydrogen)`},
		{Row: 4, Reason: `unit: "l" contradicts energy electricity, counted in kWh`},
		{Row: 5, Reason: `unit: "kWh" contradicts the vehicle's energy gasoline, counted in l`},
	}
	if res.Rows != 5 || res.BadRows != 3 || len(res.Refuels) != 2 {
		t.Fatalf("rows %d bad %d good %d: %+v", res.Rows, res.BadRows, len(res.Refuels), res.Errors)
	}
	for i, e := range res.Errors {
		if e != want[i] {
			t.Errorf("error %d = %+v, want %+v", i, e, want[i])
		}
	}
	if got := refuelLine(res.Refuels[1]); got != "2024-05-05T08:00:00Z 1200 5 60 H2 hydrogen  full - " {
		t.Errorf("hydrogen row: %s", got)
	}

	_, err := Read(strings.NewReader(file), Options{VehicleID: 1, Energy: "petrol"})
	if err == nil || apperr.From(err).Field != "energy" {
		t.Errorf("Options.Energy petrol: err = %v, want one naming energy", err)
	}
}

func TestReadLocation(t *testing.T) {
	shanghai := mustLocation(t, "Asia/Shanghai")
	newYork := mustLocation(t, "America/New_York")
	berlin := mustLocation(t, "Europe/Berlin")
	santiago := mustLocation(t, "America/Santiago")
	for _, tc := range []struct {
		name, date string
		loc        *time.Location
		want       string
	}{
		{"date and time", "2024-03-01 07:00", shanghai, "2024-02-29T23:00:00Z"},
		{"no location is UTC", "2024-03-01 07:00", nil, "2024-03-01T07:00:00Z"},
		{"date alone is midnight", "9/2/2024", newYork, "2024-09-02T04:00:00Z"},
		{"12-hour clock", "9/2/2024 5:05 PM", newYork, "2024-09-02T21:05:00Z"},
		{"T without zone", "2024-09-02T07:30", shanghai, "2024-09-01T23:30:00Z"},
		{"RFC 3339 keeps its offset", "2024-09-02T07:30:00+02:00", shanghai, "2024-09-02T05:30:00Z"},
		{"RFC 3339 Z", "2024-09-02T07:30:00Z", newYork, "2024-09-02T07:30:00Z"},
		{"winter", "2024-01-15 12:00", berlin, "2024-01-15T11:00:00Z"},
		// 02:00 to 03:00 does not exist on 31 March: read with the offset
		// before the change, 02:30 is 03:30 CEST, the same instant as 03:30.
		{"skipped time", "2024-03-31 02:30", berlin, "2024-03-31T01:30:00Z"},
		{"after the gap", "2024-03-31 03:30", berlin, "2024-03-31T01:30:00Z"},
		// 02:00 to 03:00 happens twice on 27 October: the first (CEST).
		{"repeated time", "2024-10-27 02:30", berlin, "2024-10-27T00:30:00Z"},
		{"after the fold", "2024-10-27 03:00", berlin, "2024-10-27T02:00:00Z"},
		// Chile skips midnight of 8 September 2024: the date stays the 8th
		// (01:00 -03), where time.Date gives 23:00 of the 7th.
		{"skipped midnight", "2024-09-08", santiago, "2024-09-08T04:00:00Z"},
		{"midnight after", "2024-09-09", santiago, "2024-09-09T03:00:00Z"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := "Date,Odometer,FuelConsumed,Cost\n" + tc.date + ",1000,40,60\n"
			res := mustRead(t, file, Options{Location: tc.loc})
			if len(res.Refuels) != 1 {
				t.Fatalf("errors %+v", res.Errors)
			}
			if got := res.Refuels[0].RefuelTime; got.Format(time.RFC3339) != tc.want || got.Location() != time.UTC {
				t.Errorf("%s in %v = %s, want %s", tc.date, tc.loc, got, tc.want)
			}
		})
	}

	// Our files with date_format read dates without a zone in the owner's.
	file := "refuel_time,odometer,fuel_type,liters,total_amount,is_full\n2024-03-01 07:00,1000,E10,40,60,true\n"
	res := mustRead(t, file, Options{DateFormat: "ymd", Location: shanghai})
	checkRefuels(t, res, []string{"2024-02-29T23:00:00Z 1000 40 60 E10 gasoline  full - "})
}

func mustLocation(tb testing.TB, name string) *time.Location {
	tb.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		tb.Fatal(err)
	}
	return loc
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

// FuzzRead feeds arbitrary bytes to the reader: it must not panic, and
// every refuel it returns must be valid and belong to the vehicle.
func FuzzRead(f *testing.F) {
	f.Add([]byte("Date,Odometer,FuelConsumed,Cost,IsFillToFull\n05/01/2024,1000,40,60,True\n"))
	f.Add([]byte("car_name,odometer,gallons,price,fuelup_date,partial_fuelup,missed_fuelup\nx,100,10,3.5,2024-01-01 10:00,0,1\n"))
	f.Add([]byte("refuel_time,odometer,fuel_type,liters,total_amount,is_full\n2026-03-01T08:00:00Z,1,E10,1,1,true\n"))
	f.Add([]byte("Date,Odometer,FuelConsumed,Cost\n\"1/1/2024\",\"1,0\",\"x\"\"\n"))
	f.Add([]byte("refuel_time,odometer,fuel_type,energy,unit,liters,total_amount\n2024-03-31 02:30,1,CCS,electricity,kWh,1,1\n"))
	f.Add([]byte("car_name, l/100km, odometer, km, litres, price, fuelup_date, partial_fuelup\nx, 6.5, 100, 10, 45.2, 1.789, 2024-10-27 02:30, 0\n"))
	f.Add([]byte("Date,Odometer,FuelConsumed,Cost,Notes\r05/01/2024,1000,40,60,\"a\rb\"\r\n06/01/2024,1100,40,60,\r"))
	berlin := mustLocation(f, "Europe/Berlin")
	f.Fuzz(func(t *testing.T, b []byte) {
		res, err := Read(bytes.NewReader(b), Options{VehicleID: 3, FuelType: "diesel", DateFormat: "", Location: berlin})
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

// Our export names its odometer's unit (odometer_km): such a file is read
// in kilometres, and a distance_unit that says otherwise is refused; a file
// exported before, with "odometer", is read in the caller's unit as it was.
func TestReadOdometerUnitOfOurExport(t *testing.T) {
	const row = "2024-09-02T08:00:00Z,12000,95,40.5,70.47,true\n"
	km := "refuel_time,odometer_km,fuel_type,liters,total_amount,is_full\n" + row
	checkRefuels(t, mustRead(t, km, Options{}), []string{"2024-09-02T08:00:00Z 12000 40.5 70.47 95 gasoline  full - "})
	_, err := Read(strings.NewReader(km), Options{VehicleID: 7, FuelType: "gasoline", DistanceUnit: "mi"})
	if e := apperr.From(err); err == nil || e.Code != apperr.InvalidArgument || e.Field != "distance_unit" {
		t.Fatalf("odometer_km with distance_unit=mi: %v, want INVALID_ARGUMENT naming distance_unit", err)
	}
	old := strings.Replace(km, "odometer_km", "odometer", 1)
	// 12000 mi = 19312.128 km.
	checkRefuels(t, mustRead(t, old, Options{DistanceUnit: "mi"}), []string{"2024-09-02T08:00:00Z 19312.128 40.5 70.47 95 gasoline  full - "})
}
