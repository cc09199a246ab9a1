package fuel

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

// erec is one record of a golden case: quantities as decimal text.
type erec struct {
	energy              Energy
	odo, qty, amount    string
	full, missedPrevius bool
}

// build feeds the records, one hour apart, to a StatsBuilder.
func build(t *testing.T, def Energy, recs []erec) Statistics {
	t.Helper()
	b := NewStatsBuilder(7, def)
	for i, r := range recs {
		b.Add(statsRecord(t, uint64(i+1), time.Date(2026, 3, 1, i, 0, 0, 0, time.UTC), r))
	}
	return b.Statistics()
}

func statsRecord(t *testing.T, id uint64, at time.Time, r erec) StatsRecord {
	t.Helper()
	ref := Refuel{Odometer: decimal.RequireFromString(r.odo), Liters: decimal.RequireFromString(r.qty),
		TotalAmount: decimal.RequireFromString(r.amount)}
	ref.Normalize()
	fixed := func(d decimal.Decimal, scale int32) int64 { return d.Shift(scale).IntPart() }
	return StatsRecord{
		ID: id, RefuelTime: at, Energy: r.energy,
		Odometer: fixed(ref.Odometer, QuantityScale), Liters: fixed(ref.Liters, QuantityScale),
		TotalAmount: fixed(ref.TotalAmount, QuantityScale), PricePerLiter: fixed(ref.PricePerLiter, PriceScale),
		IsFull: r.full, MissedPrevious: r.missedPrevius,
	}
}

// render writes the statistics in a fixed text form, so a golden case
// compares every field and the order of ByEnergy at once.
func render(s Statistics) string {
	var b strings.Builder
	fmt.Fprintf(&b, "records=%d amount=%s distance=%s main=%s | liters=%s price=%s cons=%s weighted=%s cost=%s wcost=%s samples=%d sdist=%s combined=%s\n",
		s.TotalRecords, s.TotalAmount, s.TotalDistance, s.MainEnergy,
		s.TotalLiters, s.AvgPrice, s.AvgConsumption, s.WeightedConsumption, s.CostPerKm, s.WeightedCostPerKm, s.Samples,
		s.SampledDistance, s.CombinedCostPerKm)
	for _, e := range s.ByEnergy {
		fmt.Fprintf(&b, "%s: records=%d qty=%s amount=%s price=%s cons=%s weighted=%s cost=%s wcost=%s samples=%d dist=%s\n",
			e.Energy, e.TotalRecords, e.TotalQuantity, e.TotalAmount, e.AvgPrice, e.AvgConsumption,
			e.WeightedConsumption, e.CostPerKm, e.WeightedCostPerKm, e.Samples, e.SampledDistance)
	}
	return b.String()
}

// TestStatisticsByEnergyGolden checks per-energy statistics against values
// worked by hand (the working is in each comment and, for the plug-in
// hybrid, in proto-docs/fuel-decisions.md).
func TestStatisticsByEnergyGolden(t *testing.T) {
	tests := []struct {
		name string
		def  Energy
		recs []erec
		want string
	}{
		{
			// The plug-in hybrid of proto-docs/fuel-decisions.md. Gasoline: one span
			// 10000 -> 10600 with 30 L, 54: 5 L/100km, 0.09/km. Charges
			// close their own spans: 8 kWh / 70 km = 80/7, 12 kWh / 180 km =
			// 20/3, (5 + 9) kWh / 400 km = 3.5; mean 907/126 = 7.19841;
			// weighted 34 / 650 * 100 = 5.23077; cost 2.4/70, 4.2/180,
			// 4.2/400, mean 0.02271, weighted 10.8/650 = 0.01662. Prices
			// 0.3, 0.3, 0.35, 0.3, 0.3: 0.31.
			name: "plug-in hybrid",
			def:  Gasoline,
			recs: []erec{
				{Gasoline, "10000", "40", "68", true, false},
				{Electricity, "10050", "10", "3", true, false},
				{Electricity, "10120", "8", "2.4", true, false},
				{Electricity, "10300", "12", "4.2", true, false},
				{Gasoline, "10600", "30", "54", true, false},
				{Electricity, "10650", "5", "1.5", false, false},
				{Electricity, "10700", "9", "2.7", true, false},
			},
			want: "records=7 amount=135.8 distance=700 main=gasoline | liters=70 price=1.75 cons=5 weighted=5 cost=0.09 wcost=0.09 samples=1 sdist=600 combined=0.1066\n" +
				"electricity: records=5 qty=44 amount=13.8 price=0.31 cons=7.1984 weighted=5.2308 cost=0.0227 wcost=0.0166 samples=3 dist=650\n" +
				"gasoline: records=2 qty=70 amount=122 price=1.75 cons=5 weighted=5 cost=0.09 wcost=0.09 samples=1 dist=600\n",
		},
		{
			// An LPG conversion: the LPG record that missed a fill-up ends
			// only the LPG span (no sample at 2000), gasoline is untouched.
			// LPG samples 42/500 = 8.4 and 36/400 = 9: mean 8.7, weighted
			// 78/900 = 8.6667, cost 0.0672 and 0.072: 0.0696, weighted
			// 62.4/900 = 0.06933. Gasoline: one
			// span 1000 -> 1600 with 3 L: 0.5 L/100km, 5.4/600 = 0.009.
			name: "LPG conversion with a missed fill-up",
			def:  Gasoline,
			recs: []erec{
				{Gasoline, "1000", "5", "9", true, false},
				{LPG, "1000", "40", "32", true, false},
				{LPG, "1500", "42", "33.6", true, false},
				{Gasoline, "1600", "3", "5.4", true, false},
				{LPG, "2000", "30", "24", true, true},
				{LPG, "2400", "36", "28.8", true, false},
			},
			want: "records=6 amount=132.8 distance=1400 main=gasoline | liters=8 price=1.8 cons=0.5 weighted=0.5 cost=0.009 wcost=0.009 samples=1 sdist=600 combined=0.0783\n" +
				"lpg: records=4 qty=148 amount=118.4 price=0.8 cons=8.7 weighted=8.6667 cost=0.0696 wcost=0.0693 samples=2 dist=900\n" +
				"gasoline: records=2 qty=8 amount=14.4 price=1.8 cons=0.5 weighted=0.5 cost=0.009 wcost=0.009 samples=1 dist=600\n",
		},
		{
			// All records of one energy that is not the vehicle's default:
			// that energy is the main one, so the contract's fields keep
			// their single-energy meaning. 45 L / 600 km = 7.5, 67.5/600.
			name: "one energy, not the default",
			def:  Gasoline,
			recs: []erec{
				{Diesel, "500", "40", "60", true, false},
				{Diesel, "1100", "45", "67.5", true, false},
			},
			want: "records=2 amount=127.5 distance=600 main=diesel | liters=85 price=1.5 cons=7.5 weighted=7.5 cost=0.1125 wcost=0.1125 samples=1 sdist=600 combined=0.1125\n" +
				"diesel: records=2 qty=85 amount=127.5 price=1.5 cons=7.5 weighted=7.5 cost=0.1125 wcost=0.1125 samples=1 dist=600\n",
		},
		{
			// Equal counts order by name; without default-energy records the
			// first entry is main. The single records yield no sample.
			name: "tie ordered by name",
			def:  Electricity,
			recs: []erec{
				{Hydrogen, "100", "5", "60", true, false},
				{CNG, "200", "10", "15", true, false},
			},
			want: "records=2 amount=75 distance=100 main=cng | liters=10 price=1.5 cons=0 weighted=0 cost=0 wcost=0 samples=0 sdist=0 combined=0\n" +
				"cng: records=1 qty=10 amount=15 price=1.5 cons=0 weighted=0 cost=0 wcost=0 samples=0 dist=0\n" +
				"hydrogen: records=1 qty=5 amount=60 price=12 cons=0 weighted=0 cost=0 wcost=0 samples=0 dist=0\n",
		},
		{
			// The combined cost per km is rounded once: gasoline 1 / 300 km
			// and electricity 1 / 300 km are 0.00333… each (0.0033 when
			// rounded), together 2/300 = 0.00666…: 0.0067, not 0.0066.
			// Gasoline prices 1.5 and 0.05: 0.775; electricity 0.3 and 0.1: 0.2.
			// Each sample's distance counts every km, whatever energy drove it.
			name: "combined cost rounded once",
			def:  Gasoline,
			recs: []erec{
				{Gasoline, "1000", "40", "60", true, false},
				{Electricity, "1000", "10", "3", true, false},
				{Gasoline, "1300", "20", "1", true, false},
				{Electricity, "1300", "10", "1", true, false},
			},
			want: "records=4 amount=65 distance=300 main=gasoline | liters=60 price=0.775 cons=6.6667 weighted=6.6667 cost=0.0033 wcost=0.0033 samples=1 sdist=300 combined=0.0067\n" +
				"electricity: records=2 qty=20 amount=4 price=0.2 cons=3.3333 weighted=3.3333 cost=0.0033 wcost=0.0033 samples=1 dist=300\n" +
				"gasoline: records=2 qty=60 amount=61 price=0.775 cons=6.6667 weighted=6.6667 cost=0.0033 wcost=0.0033 samples=1 dist=300\n",
		},
		{
			// One charge yields no sample: electricity's money per km is
			// unknown, so no combined cost (0) rather than petrol's alone.
			// Gasoline: 30 L / 500 km = 6, 54 / 500 = 0.108.
			name: "an energy without a sample",
			def:  Gasoline,
			recs: []erec{
				{Gasoline, "1000", "40", "68", true, false},
				{Electricity, "1100", "10", "3", true, false},
				{Gasoline, "1500", "30", "54", true, false},
			},
			want: "records=3 amount=125 distance=500 main=gasoline | liters=70 price=1.75 cons=6 weighted=6 cost=0.108 wcost=0.108 samples=1 sdist=500 combined=0\n" +
				"gasoline: records=2 qty=70 amount=122 price=1.75 cons=6 weighted=6 cost=0.108 wcost=0.108 samples=1 dist=500\n" +
				"electricity: records=1 qty=10 amount=3 price=0.3 cons=0 weighted=0 cost=0 wcost=0 samples=0 dist=0\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := render(build(t, tt.def, tt.recs)); got != tt.want {
				t.Errorf("got\n%swant\n%s", got, tt.want)
			}
		})
	}
}

// TestStatisticsEmpty: no records, no energies, no main energy.
func TestStatisticsEmpty(t *testing.T) {
	s := NewStatsBuilder(1, Gasoline).Statistics()
	if s.MainEnergy != "" || s.ByEnergy == nil || len(s.ByEnergy) != 0 || s.TotalRecords != 0 {
		t.Errorf("empty statistics: main %q, by energy %v", s.MainEnergy, s.ByEnergy)
	}
}

// TestMonthlyByEnergyAndZone: the series keeps energies apart, picks the
// main energy by default, and buckets by the owner's calendar months.
func TestMonthlyByEnergyAndZone(t *testing.T) {
	shanghai, err := time.LoadLocation("Asia/Shanghai")
	if err != nil {
		t.Fatal(err)
	}
	at := func(s string) time.Time {
		tm, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return tm
	}
	recs := []struct {
		at string
		r  erec
	}{
		{"2024-02-10T08:00:00Z", erec{Gasoline, "1000", "40", "68", true, false}},
		{"2024-02-12T08:00:00Z", erec{Electricity, "1050", "10", "3", true, false}},
		// 07:00 on March 1st in Shanghai: February in UTC, March there.
		{"2024-02-29T23:00:00Z", erec{Electricity, "1100", "8", "2.4", true, false}},
		{"2024-03-20T08:00:00Z", erec{Gasoline, "1600", "30", "54", true, false}},
	}
	series := func(q MonthlyQuery, def Energy) string {
		b := NewMonthlyBuilder(q, def)
		for i, r := range recs {
			b.Add(statsRecord(t, uint64(i+1), at(r.at), r.r))
		}
		s := b.Series()
		out := string(s.Energy) + ":"
		for _, m := range s.Months {
			out += fmt.Sprintf(" %s/%d/%s/%s/%s/%s", m.Month, m.Records, m.Liters, m.Amount, m.Distance, m.Consumption)
		}
		return out
	}
	for _, tc := range []struct {
		name string
		q    MonthlyQuery
		def  Energy
		want string
	}{
		// Gasoline's one span 1000 -> 1600, 30 L: 5 L/100km in March.
		{"main energy in UTC", MonthlyQuery{}, Gasoline, "gasoline: 2024-02/1/40/68/0/0 2024-03/1/30/54/600/5"},
		// The electricity span 1050 -> 1100, 8 kWh / 50 km = 16.
		{"electricity in UTC", MonthlyQuery{Energy: Electricity}, Gasoline, "electricity: 2024-02/2/18/5.4/50/16"},
		{"electricity in Shanghai", MonthlyQuery{Energy: Electricity, Location: shanghai}, Gasoline,
			"electricity: 2024-02/1/10/3/0/0 2024-03/1/8/2.4/50/16"},
		// Electricity has 2 records, gasoline 2: without default-energy
		// records the tie goes to the name.
		{"no default records", MonthlyQuery{}, Diesel, "electricity: 2024-02/2/18/5.4/50/16"},
		{"energy without records", MonthlyQuery{Energy: Hydrogen}, Gasoline, "hydrogen:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := series(tc.q, tc.def); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

func TestEnergyUnitsAndDefaults(t *testing.T) {
	units := map[Energy]string{Gasoline: "l", Diesel: "l", LPG: "l", CNG: "kg", Electricity: "kWh", Hydrogen: "kg"}
	for _, e := range Energies {
		if e.Unit() != units[e] {
			t.Errorf("%s unit %q, want %q", e, e.Unit(), units[e])
		}
	}
	if len(units) != len(Energies) {
		t.Errorf("Energies has %d entries, want %d", len(Energies), len(units))
	}
	defaults := map[string]Energy{"gasoline": Gasoline, "hybrid": Gasoline, "plug_in_hybrid": Gasoline, "diesel": Diesel, "electric": Electricity}
	for _, ft := range VehicleFuelTypes {
		if got := DefaultEnergy(ft); got != defaults[ft] {
			t.Errorf("DefaultEnergy(%s) = %s, want %s", ft, got, defaults[ft])
		}
	}
	for _, bad := range []string{"", "petrol", "Gasoline", "electric"} {
		if _, err := ParseEnergy("energy", bad); err == nil || !strings.HasPrefix(err.Error(), "INVALID_ARGUMENT: energy: must be one of") {
			t.Errorf("ParseEnergy(%q) = %v", bad, err)
		}
	}
}
