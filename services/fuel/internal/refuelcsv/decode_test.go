package refuelcsv

import (
	"testing"

	"golang.org/x/text/language"

	"github.com/carhub/backend/services/fuel/internal/csvfile"
)

// speaks is the lang of csvfile.Decode: the owner speaks tag.
func speaks(tag string) func() (language.Tag, error) {
	return func() (language.Tag, error) { return language.MustParse(tag), nil }
}

// TestDecodeWindows1252: German Excel's plain "CSV" is semicolon-separated
// Windows-1252; its umlauts, ß and € are read as those characters, and
// the file imports with them rather than a row error for each.
func TestDecodeWindows1252(t *testing.T) {
	file := []byte("Date;Odometer;FuelConsumed;Cost;IsFillToFull;Notes\r\n" +
		"2024-01-05;1000;40,5;60,75;True;Tankstelle M\xfcller, Stra\xdfe 5\r\n" +
		"2024-01-13;1.500;35,25;56;False;\x80 bar bezahlt \x96 Caf\xe9\r\n")
	if res := mustRead(t, string(file), Options{FuelType: "diesel"}); res.BadRows != 2 {
		t.Fatalf("undecoded, the rows are bad (%d bad rows, want 2): the test's file is not UTF-8", res.BadRows)
	}
	for _, lang := range []string{"de-DE", "en", "fr-CA", "und"} {
		text, enc, err := csvfile.Decode(file, nil, speaks(lang))
		if err != nil || enc != "windows-1252" {
			t.Fatalf("%s: Decode: %q, %v; want windows-1252", lang, enc, err)
		}
		checkRefuels(t, mustRead(t, string(text), Options{FuelType: "diesel"}), []string{
			"2024-01-05T00:00:00Z 1000 40.5 60.75 diesel diesel  full - Tankstelle Müller, Straße 5",
			"2024-01-13T00:00:00Z 1500 35.25 56 diesel diesel  partial - € bar bezahlt – Café",
		})
	}
}
