package store

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/carhub/backend/services/fuel/internal/fuel"
)

// rec is one refuel of a golden case; at is minutes after base.
type rec struct {
	at                  int
	odo, liters, amount string
	full                bool
}

// want holds hand-worked expected statistics (see each case's comment).
type want struct {
	records                  int64
	liters, amount, avgPrice string
	consumption, costPerKm   string
	distance, weighted       string
	samples                  int64
	first, last              int // minutes after base
	lastIndex                int // index in recs of last_refuel
}

var base = time.Date(2026, 3, 1, 8, 0, 0, 0, time.UTC)

func TestStatisticsGolden(t *testing.T) {
	tests := []struct {
		name string
		recs []rec
		want want
	}{
		{
			// prices 1.5, 1.6, 1.5 -> mean 4.6/3 = 1.53333 -> 1.5333.
			// R2: 35 L / 500 km = 7 L/100km, 56/500 = 0.112/km.
			// R3: 48 L / 600 km = 8 L/100km, 72/600 = 0.12/km.
			// means 7.5 and 0.116; weighted 83/1100*100 = 7.54545 -> 7.5455.
			name: "only full fills",
			recs: []rec{
				{0, "1000", "40", "60", true},
				{60, "1500", "35", "56", true},
				{120, "2100", "48", "72", true},
			},
			want: want{3, "123", "188", "1.5333", "7.5", "0.116", "1100", "7.5455", 2, 0, 120, 2},
		},
		{
			// One sample at R4 over 500 km with the partials' liters and money
			// included: (10+10+20) L -> 8 L/100km, (16+15+30)/500 = 0.122.
			// prices 1.5, 1.6, 1.5, 1.5 -> 6.1/4 = 1.525.
			name: "partial fills between full fills",
			recs: []rec{
				{0, "1000", "40", "60", true},
				{60, "1200", "10", "16", false},
				{120, "1300", "10", "15", false},
				{180, "1500", "20", "30", true},
			},
			want: want{4, "80", "121", "1.525", "8", "0.122", "500", "8", 1, 0, 180, 3},
		},
		{
			// The leading partial has no earlier full record: no sample uses
			// it. R3: 30 L / 400 km = 7.5, 48/400 = 0.12. Distance 1400-900.
			name: "leading partial",
			recs: []rec{
				{0, "900", "10", "15", false},
				{60, "1000", "40", "60", true},
				{120, "1400", "30", "48", true},
			},
			want: want{3, "80", "123", "1.5333", "7.5", "0.12", "500", "7.5", 1, 0, 120, 2},
		},
		{
			// R2: 40 L / 500 km = 8, 64/500 = 0.128. The trailing partial is
			// not closed by a full record: counted in totals only.
			// prices 1.5, 1.6, 1.6 -> 4.7/3 = 1.56667 -> 1.5667.
			name: "trailing partial",
			recs: []rec{
				{0, "1000", "40", "60", true},
				{60, "1500", "40", "64", true},
				{120, "1700", "15", "24", false},
			},
			want: want{3, "95", "148", "1.5667", "8", "0.128", "700", "8", 1, 0, 120, 2},
		},
		{
			// R2 is 0 km after R1: no sample, but it becomes the reference,
			// so R3's sample is 35 L / 500 km = 7 and 52.5/500 = 0.105.
			name: "zero distance between two full fills",
			recs: []rec{
				{0, "1000", "40", "60", true},
				{60, "1000", "5", "8", true},
				{120, "1500", "35", "52.5", true},
			},
			want: want{3, "80", "120.5", "1.5333", "7", "0.105", "500", "7", 1, 0, 120, 2},
		},
		{
			name: "one record",
			recs: []rec{{0, "1000", "40", "60", true}},
			want: want{1, "40", "60", "1.5", "0", "0", "0", "0", 0, 0, 0, 0},
		},
		{
			// No full record: no sample. prices 1.5 and 1.6 -> 1.55.
			name: "only partial fills",
			recs: []rec{
				{0, "1000", "10", "15", false},
				{60, "1300", "20", "32", false},
			},
			want: want{2, "30", "47", "1.55", "0", "0", "300", "0", 0, 0, 60, 1},
		},
		{
			// The "only full fills" records inserted newest first: the ids
			// run against time, the result must not change; last_refuel is
			// the newest by time, which has the lowest id.
			name: "records inserted out of time order",
			recs: []rec{
				{120, "2100", "48", "72", true},
				{0, "1000", "40", "60", true},
				{60, "1500", "35", "56", true},
			},
			want: want{3, "123", "188", "1.5333", "7.5", "0.116", "1100", "7.5455", 2, 0, 120, 0},
		},
		{
			// R2 (partial) and R3 (full) share refuel_time; R3 has the higher
			// id, so the order is R1, R2, R3 and R3's sample includes R2:
			// (10+20) L / 500 km = 6, (16+30)/500 = 0.092. Ordered the other
			// way the sample would be 4 L/100km. last_refuel is R3.
			name: "equal refuel_time broken by id",
			recs: []rec{
				{0, "1000", "40", "60", true},
				{60, "1200", "10", "16", false},
				{60, "1500", "20", "30", true},
			},
			want: want{3, "70", "106", "1.5333", "6", "0.092", "500", "6", 1, 0, 60, 2},
		},
		{
			// Repeating decimals and half-up rounding: 10 L / 300 km =
			// 3.33333 -> 3.3333; 10/300 = 0.033333 -> 0.0333. R3: 24.69 / 200
			// = 0.12345 per km. Cost samples 0.0333.. and 0.12345 -> mean
			// 0.0783916.. -> 0.0784; consumption samples 3.3333.. and 15
			// (30 L / 200 km) -> 9.16666.. -> 9.1667; weighted 40/500*100 = 8.
			// prices 1, 1, 0.823 -> 2.823/3 = 0.941.
			name: "rounding",
			recs: []rec{
				{0, "0", "10", "10", true},
				{60, "300", "10", "10", true},
				{120, "500", "30", "24.69", true},
			},
			want: want{3, "50", "44.69", "0.941", "9.1667", "0.0784", "500", "8", 2, 0, 120, 2},
		},
	}
	forEachDialect(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				v := fuel.Vehicle{Name: tt.name, FuelType: "gasoline"}
				if err := s.CreateVehicle(ctx, &v); err != nil {
					t.Fatal(err)
				}
				ids := make([]uint64, len(tt.recs))
				for i, r := range tt.recs {
					ref := fuel.Refuel{
						VehicleID: v.ID, RefuelTime: base.Add(time.Duration(r.at) * time.Minute),
						Odometer: dec(r.odo), Liters: dec(r.liters), TotalAmount: dec(r.amount),
						IsFull: r.full, FuelType: "95",
					}
					if err := s.CreateRefuel(ctx, &ref); err != nil {
						t.Fatalf("refuel %d: %v", i, err)
					}
					ids[i] = ref.ID
				}
				got, err := s.Statistics(ctx, v.ID)
				if err != nil {
					t.Fatal(err)
				}
				w := tt.want
				check := func(field, got, want string) {
					t.Helper()
					if got != want {
						t.Errorf("%s = %s, want %s", field, got, want)
					}
				}
				if got.VehicleID != v.ID || got.TotalRecords != w.records || got.Samples != w.samples {
					t.Errorf("vehicle %d records %d samples %d, want %d %d %d",
						got.VehicleID, got.TotalRecords, got.Samples, v.ID, w.records, w.samples)
				}
				check("total_liters", got.TotalLiters.String(), w.liters)
				check("total_amount", got.TotalAmount.String(), w.amount)
				check("avg_price", got.AvgPrice.String(), w.avgPrice)
				check("avg_consumption", got.AvgConsumption.String(), w.consumption)
				check("cost_per_km", got.CostPerKm.String(), w.costPerKm)
				check("total_distance", got.TotalDistance.String(), w.distance)
				check("weighted_consumption", got.WeightedConsumption.String(), w.weighted)
				if got.LastRefuel == nil || got.LastRefuel.ID != ids[w.lastIndex] {
					t.Errorf("last_refuel = %+v, want record id %d", got.LastRefuel, ids[w.lastIndex])
				}
				first, last := base.Add(time.Duration(w.first)*time.Minute), base.Add(time.Duration(w.last)*time.Minute)
				if got.FirstRefuelTime == nil || !got.FirstRefuelTime.Equal(first) || got.LastRefuelTime == nil || !got.LastRefuelTime.Equal(last) {
					t.Errorf("first/last refuel time = %v/%v, want %v/%v", got.FirstRefuelTime, got.LastRefuelTime, first, last)
				}
			})
		}
		t.Run("no records", func(t *testing.T) {
			v := fuel.Vehicle{Name: "empty", FuelType: "diesel"}
			if err := s.CreateVehicle(ctx, &v); err != nil {
				t.Fatal(err)
			}
			got, err := s.Statistics(ctx, v.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got.TotalRecords != 0 || !got.TotalLiters.IsZero() || !got.AvgPrice.IsZero() || got.LastRefuel != nil || got.FirstRefuelTime != nil {
				t.Errorf("statistics of a vehicle without records = %+v, want zeros and no last refuel", got)
			}
		})
		t.Run("unknown vehicle", func(t *testing.T) {
			if _, err := s.Statistics(ctx, 987654); !errors.Is(err, fuel.ErrVehicleNotFound) {
				t.Errorf("err = %v, want ErrVehicleNotFound", err)
			}
		})
	})
}

// BenchmarkStatistics10k measures GET statistics' store work for a
// vehicle with 10 000 refuels and reports the median as p50-ms.
func BenchmarkStatistics10k(b *testing.B) {
	for _, d := range []Dialect{Postgres, SQLite} {
		b.Run(string(d), func(b *testing.B) {
			s, id := benchVehicle(b, d, 10000)
			ctx := context.Background()
			durations := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				t0 := time.Now()
				st, err := s.Statistics(ctx, id)
				durations = append(durations, time.Since(t0))
				if err != nil || st.TotalRecords != 10000 {
					b.Fatalf("statistics: %v (%d records)", err, st.TotalRecords)
				}
			}
			b.StopTimer()
			sort.Slice(durations, func(i, j int) bool { return durations[i] < durations[j] })
			b.ReportMetric(float64(durations[len(durations)/2].Microseconds())/1000, "p50-ms")
		})
	}
}

// TestFeedPackedRecord reads SQLite's packed statistics rows: each field
// in its place (a record in another currency counting its home amount),
// and a malformed row refused with what was wrong rather than misread.
func TestFeedPackedRecord(t *testing.T) {
	var got []fuel.StatsRecord
	add := func(r fuel.StatsRecord) { got = append(got, r) }
	lines := []string{
		"7|2024-03-01 08:30:00+01:00|diesel|12345.5|40.25|60.1|1.4932|1|0|",
		"8|2024-03-09 10:00:00+00:00|gasoline|12800|30|50|1.6667|0|1|45.5",
	}
	for _, l := range lines {
		if err := feedPackedRecord([]byte(l), add); err != nil {
			t.Fatalf("%s: %v", l, err)
		}
	}
	want := []fuel.StatsRecord{
		{ID: 7, RefuelTime: time.Date(2024, 3, 1, 7, 30, 0, 0, time.UTC), Energy: fuel.Diesel, Odometer: 12345500, Liters: 40250,
			TotalAmount: 60100, PricePerLiter: 14932, IsFull: true},
		// home amount 45.5 over 30 litres: 1.5167 per litre
		{ID: 8, RefuelTime: time.Date(2024, 3, 9, 10, 0, 0, 0, time.UTC), Energy: fuel.Gasoline, Odometer: 12800000, Liters: 30000,
			TotalAmount: 45500, PricePerLiter: 15167, MissedPrevious: true},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d records, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("record %d:\n got %+v\nwant %+v", i, got[i], want[i])
		}
	}
	for _, bad := range []string{
		"7|2024-03-01 08:30:00+01:00|diesel|12345.5|40.25|60.1|1.4932|1|0",   // a field short
		"7|2024-03-01 08:30:00+01:00|diesel|12345.5|40.25|60.1|1.4932|1|0||", // a field more
		"7|2024-03-01 08:30:00+01:00|diesel|12345.5|40.25|60.1|1.4932|2|0|",  // not a flag
		"x|2024-03-01 08:30:00+01:00|diesel|12345.5|40.25|60.1|1.4932|1|0|",  // not an id
		"7|yesterday|diesel|12345.5|40.25|60.1|1.4932|1|0|",                  // not a time
		"7|2024-03-01 08:30:00+01:00|diesel|12,5|40.25|60.1|1.4932|1|0|",     // not a quantity
	} {
		n := len(got)
		if err := feedPackedRecord([]byte(bad), add); err == nil {
			t.Errorf("%s: read without an error", bad)
		}
		if len(got) != n {
			t.Errorf("%s: a record was added", bad)
		}
	}
}

// statsLineOf is the line refuel_stats_lines holds for a refuel row r
// (rows of the refuels table, aliased r), as migration 0014 writes it.
const statsLineOf = "concat_ws('|', r.id, r.refuel_time, r.energy, r.odometer, r.liters, r.total_amount, " +
	"r.price_per_liter, r.is_full, r.missed_previous, ifnull(r.home_amount, ''))"

// checkStatsLines fails t unless the store holds n refuels and SQLite's
// refuel_stats_lines exactly one line for each, under its (vehicle, time,
// id), with the record's fields as they are now: none missing, none left
// over, none stale.
func checkStatsLines(t *testing.T, s *Store, when string, n int) {
	t.Helper()
	read := func(query string) []string {
		t.Helper()
		var out []string
		if err := s.write.Raw(query).Scan(&out).Error; err != nil {
			t.Fatalf("%s: %v", when, err)
		}
		return out
	}
	want := read("SELECT r.vehicle_id || ' ' || r.refuel_time || ' ' || r.id || ' ' || " + statsLineOf +
		" FROM refuels r ORDER BY r.vehicle_id, r.refuel_time, r.id")
	got := read("SELECT vehicle_id || ' ' || refuel_time || ' ' || id || ' ' || line FROM refuel_stats_lines ORDER BY vehicle_id, refuel_time, id")
	if len(want) != n {
		t.Fatalf("%s: %d refuels, want %d", when, len(want), n)
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s: refuel_stats_lines\n%s\nwant (from the refuels)\n%s", when, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestSQLiteStatsLinesFollowTheRefuels: SQLite's statistics read the lines
// its triggers keep (migration 0014); after every kind of write to the
// refuels (a new record, a record paid abroad, an edit of its time, its
// quantities, its currency and its vehicle, a deletion, an import, a
// vehicle's deletion, which cascades) the lines are the refuels' own.
func TestSQLiteStatsLinesFollowTheRefuels(t *testing.T) {
	ctx := context.Background()
	s := MustOpen(t, SQLite)
	setCurrency(t, s, ctx, "EUR")
	var vs [2]fuel.Vehicle
	for i := range vs {
		vs[i] = fuel.Vehicle{Name: fmt.Sprintf("car %d", i), FuelType: "diesel"}
		if err := s.CreateVehicle(ctx, &vs[i]); err != nil {
			t.Fatal(err)
		}
	}
	a := addRefuel(t, s, ctx, vs[0].ID, 0, "1000", "40.5", "60.25", "", "")
	b := addRefuel(t, s, ctx, vs[0].ID, 24, "1500", "35", "5000", "JPY", "33.5")
	addRefuel(t, s, ctx, vs[0].ID, 48, "2000", "30.125", "45", "", "")
	addRefuel(t, s, ctx, vs[1].ID, 1, "80", "20", "30", "", "")
	checkStatsLines(t, s, "after the new records", 4)

	later, odo, liters, no, yes := base.Add(72*time.Hour), dec("2500"), dec("41"), false, true
	if _, err := s.UpdateRefuel(ctx, a.ID, fuel.RefuelUpdate{RefuelTime: &later, Odometer: &odo,
		Liters: &liters, IsFull: &no, MissedPrevious: &yes}); err != nil {
		t.Fatal(err)
	}
	checkStatsLines(t, s, "after an edit of the time and the quantities", 4)
	if _, err := s.UpdateRefuel(ctx, b.ID, fuel.RefuelUpdate{Currency: ptr("")}); err != nil {
		t.Fatal(err)
	}
	checkStatsLines(t, s, "after the home amount was cleared", 4)
	if _, err := s.UpdateRefuel(ctx, b.ID, fuel.RefuelUpdate{VehicleID: &vs[1].ID}); err != nil {
		t.Fatal(err)
	}
	checkStatsLines(t, s, "after a record moved to the other vehicle", 4)
	if err := s.DeleteRefuel(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	checkStatsLines(t, s, "after a deletion", 3)

	imported := []fuel.Refuel{
		{VehicleID: vs[0].ID, RefuelTime: base.Add(100 * time.Hour), Odometer: dec("3000"), FuelType: "B7", Energy: fuel.Diesel, Liters: dec("30"), TotalAmount: dec("50"), IsFull: true},
		{VehicleID: vs[0].ID, RefuelTime: base.Add(200 * time.Hour), Odometer: dec("3500"), FuelType: "B7", Energy: fuel.Diesel, Liters: dec("31.5"), TotalAmount: dec("52"), IsFull: true},
	}
	for i := range imported {
		imported[i].Normalize()
	}
	if res, err := s.ImportRefuels(ctx, vs[0].ID, imported, false); err != nil || res.Imported != 2 {
		t.Fatalf("import: %+v %v", res, err)
	}
	checkStatsLines(t, s, "after an import", 5)
	if st, err := s.Statistics(ctx, vs[0].ID); err != nil || st.TotalRecords != 3 {
		t.Fatalf("statistics of the first vehicle: %d records, %v; want 3", st.TotalRecords, err)
	}

	for _, v := range vs {
		if err := s.DeleteVehicle(ctx, v.ID); err != nil {
			t.Fatal(err)
		}
	}
	checkStatsLines(t, s, "after the vehicles' deletion", 0)
}
