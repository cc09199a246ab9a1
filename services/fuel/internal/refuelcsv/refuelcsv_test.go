package refuelcsv

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"

	"golang.org/x/text/language"

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
	for i, s := range awkward {
		station := awkward[len(awkward)-1-i]
		in = append(in, fuel.Refuel{
			ID: 9, VehicleID: 7, RefuelTime: at, Odometer: dec("100.5"), FuelType: "E10", Energy: fuel.Electricity,
			Liters: dec("40"), TotalAmount: dec("60"), PricePerLiter: dec("1.5"), StationName: station,
			IsFull: true, Remark: s, CreatedAt: at, UpdatedAt: at,
		})
		want = append(want, []string{
			"9", "7", "2026-03-01T08:00:00.123456Z", "100.5", "E10", "electricity", "kWh", "40", "60", "1.5",
			station, "true", "false", s, "2026-03-01T08:00:00.123456Z", "2026-03-01T08:00:00.123456Z",
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

// TestExportGoRoundTrip reads the same export with our own import: it
// returns a CRLF inside a field as LF (encoding/csv's reader does) and
// trims the texts' leading and trailing white space.
func TestExportGoRoundTrip(t *testing.T) {
	at := time.Date(2026, 3, 1, 8, 0, 0, 0, time.UTC)
	var in []fuel.Refuel
	for i, s := range awkward {
		in = append(in, fuel.Refuel{
			ID: uint64(i + 1), VehicleID: 7, RefuelTime: at.Add(time.Duration(i) * time.Hour), Odometer: dec("100"),
			FuelType: "E10", Energy: fuel.Gasoline, Liters: dec("40"), TotalAmount: dec("60"), StationName: s, Remark: s,
			CreatedAt: at, UpdatedAt: at,
		})
	}
	res := mustRead(t, export(t, in), Options{})
	if len(res.Refuels) != len(in) || res.BadRows != 0 {
		t.Fatalf("%d refuels, %d bad rows: %+v", len(res.Refuels), res.BadRows, res.Errors)
	}
	for i, r := range res.Refuels {
		want := strings.TrimSpace(strings.ReplaceAll(awkward[i], "\r\n", "\n"))
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
// reader that changes nothing), and the file must stay one record a row.
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
			if rec[6] != "kg" || rec[10] != strings.ReplaceAll(station, "\r\n", "\n") || rec[13] != strings.ReplaceAll(remark, "\r\n", "\n") {
				t.Fatalf("read back %q, want station %q remark %q", rec, station, remark)
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
	// Texts a spreadsheet would run as formulas keep an apostrophe first;
	// the same characters later in a text, and the plain export, do not.
	formulas := map[string]string{
		"=HYPERLINK(\"http://x\")": "'=HYPERLINK(\"http://x\")", "+1": "'+1", "-2": "'-2", "@SUM(A1)": "'@SUM(A1)",
		"\tx": "'\tx", "\rx": "'\rx", "a=b": "a=b", "": "", "'=already": "'=already",
	}
	for text, want := range formulas {
		if got := NewSpreadsheetWriter(io.Discard, false).text(text); got != want {
			t.Errorf("spreadsheet text(%q) = %q, want %q", text, got, want)
		}
		if got := NewWriter(io.Discard).text(text); got != text {
			t.Errorf("plain text(%q) = %q, want it unchanged", text, got)
		}
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
		if got := DecimalComma(language.MustParse(tag)); got != want {
			t.Errorf("DecimalComma(%s) = %t, want %t", tag, got, want)
		}
	}
}
