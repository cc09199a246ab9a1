package httpapi_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/carhub/backend/services/fuel/internal/store"
)

// fuellyFile is a Fuelly export of n fill-ups.
func fuellyFile(n int) []byte {
	var b bytes.Buffer
	b.WriteString("car_name,model,mpg,odometer,miles,gallons,price,city_percentage,fuelup_date,date_added,tags,notes,missed_fuelup,partial_fuelup,latitude,longitude,brand\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "Civic,Honda,,%d,300,10.5,3.459,50,%d/%d/2020 10:%02d,,,note %d,0,%d,,,Shell\n",
			20000+i*300, 1+i%12, 1+i%28, i%60, i, i%4/3)
	}
	return b.Bytes()
}

// BenchmarkImportCSV posts a 10 000-row Fuelly file (about 0.8 MiB):
// dry-run (read, convert, validate, compare with the stored records) and
// stored (the same plus the inserts), each into a fresh vehicle.
func BenchmarkImportCSV(b *testing.B) {
	file := fuellyFile(10000)
	for _, d := range dialects {
		for _, dry := range []bool{true, false} {
			b.Run(fmt.Sprintf("%s/dry_run=%t", d, dry), func(b *testing.B) {
				s := MustServer(b, store.Dialect(d))
				b.SetBytes(int64(len(file)))
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					b.StopTimer()
					vid := s.mustVehicle(`{"name":"bench","fuel_type":"gasoline"}`)
					b.StartTimer()
					res := s.upload(vid, fmt.Sprintf("volume_unit=gal_us&distance_unit=mi&dry_run=%t", dry), file)
					if res.status != 200 {
						b.Fatalf("import: %d %s", res.status, res.body)
					}
				}
			})
		}
	}
}
