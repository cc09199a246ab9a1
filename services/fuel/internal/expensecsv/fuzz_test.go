package expensecsv

import (
	"bytes"
	"os"
	"testing"
)

// FuzzRead: any file is read without a panic, and every expense it yields
// is valid (the store would take it).
func FuzzRead(f *testing.F) {
	for _, name := range []string{"lubelogger-service.csv", "lubelogger-tax.csv", "fuelio-backup.csv"} {
		b, err := os.ReadFile("testdata/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, "service")
	}
	f.Add([]byte("time,category,title,amount,items,tags\r\n2024-01-01T00:00:00Z,service,Oil,10,\"[{\"\"name\"\":\"\"x\"\",\"\"quantity\"\":1,\"\"unit_price\"\":2}]\",\"[\"\"a\"\"]\"\r\n"), "")
	f.Fuzz(func(t *testing.T, file []byte, recordType string) {
		res, err := Read(bytes.NewReader(file), Options{VehicleID: 1, RecordType: recordType})
		if err != nil {
			return
		}
		for i, e := range res.Expenses {
			if err := e.Validate(); err != nil {
				t.Fatalf("expense %d is invalid: %v", i, err)
			}
		}
		if res.BadRows+len(res.Expenses) != res.Rows {
			t.Fatalf("%d bad + %d good != %d rows", res.BadRows, len(res.Expenses), res.Rows)
		}
	})
}
