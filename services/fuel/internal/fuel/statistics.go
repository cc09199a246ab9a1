package fuel

import (
	"cmp"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strings"
	"time"

	"github.com/shopspring/decimal"
)

// samplePrecision is the number of decimal places kept for each sample
// before the means are rounded to PriceScale; far more than the 4 places
// answered, so rounding the mean is not disturbed by rounding the samples.
const samplePrecision = 24

// Statistics of one vehicle, as proto-docs/contract.md, "Statistics", defines them, with every
// energy kept apart (proto-docs/fuel-decisions.md, "Energies"). TotalRecords,
// TotalAmount, LastRefuel, TotalDistance and the first and last times count
// every record; the quantity and consumption fields describe MainEnergy
// only, so that they never add different units. ByEnergy has one entry per
// energy with records.
type Statistics struct {
	VehicleID      uint64
	TotalRecords   int64
	TotalLiters    decimal.Decimal
	TotalAmount    decimal.Decimal
	AvgPrice       decimal.Decimal // mean of price_per_liter over the main energy's records
	AvgConsumption decimal.Decimal // mean of the main energy's quantity/100km samples
	CostPerKm      decimal.Decimal // mean of the main energy's money/km samples
	LastRefuel     *Refuel

	// TotalDistance is the highest odometer reading minus the lowest.
	TotalDistance decimal.Decimal
	// WeightedConsumption is the sampled quantity over the sampled
	// distance, times 100: long spans weigh more than short ones.
	WeightedConsumption decimal.Decimal
	// WeightedCostPerKm is the sampled money over the sampled distance: the
	// cost per km that goes with WeightedConsumption.
	WeightedCostPerKm decimal.Decimal
	// Samples is the number of consumption samples taken.
	Samples int64
	// SampledDistance is the main energy's sampled distance: the distance
	// WeightedConsumption and WeightedCostPerKm are computed over.
	SampledDistance decimal.Decimal
	// CombinedCostPerKm is the money of every energy per km driven: the sum
	// over ByEnergy of each energy's sampled money over its sampled
	// distance (both counting every km, whatever energy drove it), rounded
	// once to PriceScale places. 0 while an energy with records has no
	// sample: its share is unknown, and leaving it out would understate
	// the cost. For a single-energy vehicle it equals WeightedCostPerKm.
	CombinedCostPerKm decimal.Decimal
	FirstRefuelTime   *time.Time
	LastRefuelTime    *time.Time

	// MainEnergy is the energy the quantity fields describe: the vehicle's
	// default energy when it has records, else the energy with the most
	// records ("" without records).
	MainEnergy Energy
	ByEnergy   []EnergyStats

	// The vehicle's other costs (AddExpenses): ExpensesAmount is their
	// sum, ExpensesByCategory each category with expenses, TotalCost
	// TotalAmount plus ExpensesAmount, and TotalCostPerKm that over
	// TotalDistance.
	ExpensesAmount     decimal.Decimal
	ExpensesByCategory []CategoryTotal
	TotalCost          decimal.Decimal
	TotalCostPerKm     decimal.Decimal
}

// EnergyStats are the statistics of one energy of a vehicle: its records
// alone, sampled as their own tank.
type EnergyStats struct {
	Energy              Energy
	TotalRecords        int64
	TotalQuantity       decimal.Decimal
	TotalAmount         decimal.Decimal
	AvgPrice            decimal.Decimal
	AvgConsumption      decimal.Decimal
	WeightedConsumption decimal.Decimal
	CostPerKm           decimal.Decimal
	WeightedCostPerKm   decimal.Decimal
	Samples             int64
	// SampledDistance is the sum of the samples' distances: the odometer
	// distance between this energy's full records, so it counts every km
	// driven, on any energy. The weighted figures are over this distance.
	SampledDistance decimal.Decimal
}

// StatsRecord is the part of a refuel the statistics read, in fixed point:
// Odometer, Liters and TotalAmount in thousandths (QuantityScale places),
// PricePerLiter in ten-thousandths (PriceScale places). Integers keep the
// one pass over thousands of records free of allocations while staying
// exact. The money is in the home currency: for a record paid in another
// currency, TotalAmount is its home amount and PricePerLiter that over
// Liters (the store fills them in).
type StatsRecord struct {
	ID             uint64
	RefuelTime     time.Time
	Energy         Energy
	Odometer       int64
	Liters         int64
	TotalAmount    int64
	PricePerLiter  int64
	IsFull         bool
	MissedPrevious bool
}

// StatsBuilder computes Statistics in one pass over the records of a
// vehicle given in (refuel_time, id) order. Sums are big.Int updated in
// place, so they cannot overflow and cost no allocation per record. Use
// NewStatsBuilder.
type StatsBuilder struct {
	vehicleID   uint64
	defaultE    Energy
	n           int64
	amount      sum // thousandths, every record
	energies    []*energyAcc
	minOdo      int64
	maxOdo      int64
	first, last time.Time
	lastID      uint64
	div         divider
}

// energyAcc accumulates the records of one energy: its own tank.
type energyAcc struct {
	energy Energy
	n      int64

	liters, amount, priceSum sum // thousandths, thousandths, ten-thousandths

	spans sampler

	consSum, costSum big.Int // samples in units of 10^-samplePrecision
	sampledLiters    big.Int
	sampledAmount    big.Int
	distance         big.Int
	samples          int64
}

var (
	sampleScale  = new(big.Int).Exp(big.NewInt(10), big.NewInt(samplePrecision), nil)
	sampleScale2 = new(big.Int).Mul(sampleScale, big.NewInt(100)) // quantity per 100 km
)

// NewStatsBuilder starts the statistics of a vehicle whose default energy
// (DefaultEnergy of its fuel_type) is defaultEnergy.
func NewStatsBuilder(vehicleID uint64, defaultEnergy Energy) *StatsBuilder {
	return &StatsBuilder{vehicleID: vehicleID, defaultE: defaultEnergy}
}

// accFor returns the accumulator of energy e, adding it on first sight. A
// vehicle has a handful of energies at most: a linear search beats a map.
func accFor(accs *[]*energyAcc, e Energy) *energyAcc {
	for _, a := range *accs {
		if a.energy == e {
			return a
		}
	}
	a := &energyAcc{energy: e}
	*accs = append(*accs, a)
	return a
}

// Add takes the next record in (refuel_time, id) order.
func (b *StatsBuilder) Add(r StatsRecord) {
	if b.n == 0 {
		b.first = r.RefuelTime
		b.minOdo, b.maxOdo = r.Odometer, r.Odometer
	}
	b.n++
	b.amount.add(r.TotalAmount)
	b.minOdo, b.maxOdo = min(b.minOdo, r.Odometer), max(b.maxOdo, r.Odometer)
	b.last, b.lastID = r.RefuelTime, r.ID

	a := accFor(&b.energies, r.Energy)
	a.n++
	a.liters.add(r.Liters)
	a.amount.add(r.TotalAmount)
	a.priceSum.add(r.PricePerLiter)
	if !a.spans.next(r) {
		return
	}
	// Both sides are in thousandths, so the quotient is unscaled.
	b.div.den.SetInt64(a.spans.dist)
	a.consSum.Add(&a.consSum, b.div.round(&a.spans.liters, sampleScale2))
	a.costSum.Add(&a.costSum, b.div.round(&a.spans.amount, sampleScale))
	a.sampledLiters.Add(&a.sampledLiters, &a.spans.liters)
	a.sampledAmount.Add(&a.sampledAmount, &a.spans.amount)
	a.distance.Add(&a.distance, b.div.tmp.SetInt64(a.spans.dist))
	a.samples++
}

// sampler finds the samples of proto-docs/contract.md, "Statistics", in records given in
// (refuel_time, id) order: a full record F closes a span that began at the
// previous full record P; the span's liters and money are those of the
// records after P up to F; a span of positive distance is a sample. A
// record that missed earlier fill-ups discards the open span: it yields no
// sample and, when full, is the next P; when partial, the next full record
// is P without yielding a sample.
type sampler struct {
	havePrev   bool  // a reference P exists
	prevOdo    int64 // P.odometer
	spanLiters sum   // liters of the records after P so far
	spanAmount sum

	// The sample that next reported, valid until the next call.
	dist           int64
	liters, amount big.Int
}

// next takes the next record and reports whether it closes a sample.
func (s *sampler) next(r StatsRecord) bool {
	if r.MissedPrevious {
		s.havePrev = r.IsFull
		s.prevOdo = r.Odometer
		s.spanLiters.reset()
		s.spanAmount.reset()
		return false
	}
	if s.havePrev {
		s.spanLiters.add(r.Liters)
		s.spanAmount.add(r.TotalAmount)
	}
	if !r.IsFull {
		return false
	}
	took := false
	if s.havePrev {
		if dist := r.Odometer - s.prevOdo; dist > 0 {
			s.dist = dist
			s.liters.Set(s.spanLiters.big())
			s.amount.Set(s.spanAmount.big())
			took = true
		}
	}
	s.havePrev = true
	s.prevOdo = r.Odometer
	s.spanLiters.reset()
	s.spanAmount.reset()
	return took
}

// divider divides big integers rounding half-up, with its own scratch
// space so that dividing allocates nothing.
type divider struct {
	tmp, quo, rem, den big.Int
}

// round returns x*scale/d.den rounded half-up, in d.quo (non-negative
// operands only).
func (d *divider) round(x, scale *big.Int) *big.Int {
	d.tmp.Mul(x, scale)
	d.quo.QuoRem(&d.tmp, &d.den, &d.rem)
	d.rem.Lsh(&d.rem, 1)
	if d.rem.Cmp(&d.den) >= 0 {
		d.quo.Add(&d.quo, big.NewInt(1))
	}
	return &d.quo
}

// sum adds non-negative int64 values exactly: in an int64 while it fits,
// spilling into a big.Int before it would overflow.
type sum struct {
	small int64
	large big.Int
	tmp   big.Int
}

func (s *sum) add(v int64) {
	if s.small > math.MaxInt64-v {
		s.large.Add(&s.large, s.tmp.SetInt64(s.small))
		s.small = 0
	}
	s.small += v
}

// big returns the total; valid until the next add or reset.
func (s *sum) big() *big.Int { return s.tmp.Add(&s.large, s.tmp.SetInt64(s.small)) }

func (s *sum) reset() {
	s.small = 0
	s.large.SetInt64(0)
}

// LastID is the id of the last record added (0 when none): the record that
// Statistics.LastRefuel must hold.
func (b *StatsBuilder) LastID() uint64 { return b.lastID }

// Statistics returns the result so far. LastRefuel is left for the caller,
// which loads the record with LastID.
func (b *StatsBuilder) Statistics() Statistics {
	s := Statistics{VehicleID: b.vehicleID, TotalRecords: b.n, ByEnergy: []EnergyStats{}}
	if b.n == 0 {
		return s
	}
	s.TotalAmount = decimal.NewFromBigInt(new(big.Int).Set(b.amount.big()), -QuantityScale)
	s.TotalDistance = decimal.New(b.maxOdo-b.minOdo, -QuantityScale)
	first, last := b.first, b.last
	s.FirstRefuelTime, s.LastRefuelTime = &first, &last

	for _, a := range b.energies {
		s.ByEnergy = append(s.ByEnergy, a.stats())
	}
	sortByEnergy(s.ByEnergy)
	s.MainEnergy = mainEnergy(b.defaultE, s.ByEnergy)
	for _, e := range s.ByEnergy {
		if e.Energy == s.MainEnergy {
			s.TotalLiters = e.TotalQuantity
			s.AvgPrice = e.AvgPrice
			s.AvgConsumption = e.AvgConsumption
			s.CostPerKm = e.CostPerKm
			s.WeightedConsumption = e.WeightedConsumption
			s.WeightedCostPerKm = e.WeightedCostPerKm
			s.Samples = e.Samples
			s.SampledDistance = e.SampledDistance
		}
	}
	s.CombinedCostPerKm = b.combinedCostPerKm()
	return s
}

// combinedCostPerKm is the sum over the energies of their sampled money
// over their sampled distance, exact until rounded once half-up to
// PriceScale places; 0 when an energy has no sample.
func (b *StatsBuilder) combinedCostPerKm() decimal.Decimal {
	total := new(big.Rat)
	for _, a := range b.energies {
		if a.distance.Sign() <= 0 {
			return decimal.Zero
		}
		total.Add(total, new(big.Rat).SetFrac(&a.sampledAmount, &a.distance))
	}
	// total = n/d, both non-negative: round n×10^PriceScale/d half-up.
	num := decimal.NewFromBigInt(new(big.Int).Set(total.Num()), 0)
	den := decimal.NewFromBigInt(new(big.Int).Set(total.Denom()), 0)
	return num.DivRound(den, PriceScale)
}

// stats turns one energy's sums into its answer.
func (a *energyAcc) stats() EnergyStats {
	e := EnergyStats{
		Energy:         a.energy,
		TotalRecords:   a.n,
		TotalQuantity:  decimal.NewFromBigInt(new(big.Int).Set(a.liters.big()), -QuantityScale),
		TotalAmount:    decimal.NewFromBigInt(new(big.Int).Set(a.amount.big()), -QuantityScale),
		AvgPrice:       mean(a.priceSum.big(), -PriceScale, a.n),
		AvgConsumption: mean(&a.consSum, -samplePrecision, a.samples),
		CostPerKm:      mean(&a.costSum, -samplePrecision, a.samples),
		Samples:        a.samples,
	}
	e.WeightedConsumption = per100(&a.sampledLiters, &a.distance)
	e.WeightedCostPerKm = perKm(&a.sampledAmount, &a.distance)
	e.SampledDistance = decimal.NewFromBigInt(new(big.Int).Set(&a.distance), -QuantityScale)
	return e
}

// per100 is quantity over distance times 100 (both in thousandths), at
// PriceScale places; 0 without distance.
func per100(quantity, distance *big.Int) decimal.Decimal {
	return ratio(quantity, 100, distance)
}

// perKm is money over distance (both in thousandths), at PriceScale
// places; 0 without distance.
func perKm(amount, distance *big.Int) decimal.Decimal {
	return ratio(amount, 1, distance)
}

// ratio is x times factor over distance, rounded half-up to PriceScale
// places; 0 without distance.
func ratio(x *big.Int, factor int64, distance *big.Int) decimal.Decimal {
	if distance.Sign() <= 0 {
		return decimal.Zero
	}
	q := decimal.NewFromBigInt(new(big.Int).Set(x), 0)
	return q.Mul(decimal.NewFromInt(factor)).DivRound(decimal.NewFromBigInt(new(big.Int).Set(distance), 0), PriceScale)
}

// sortByEnergy orders the entries by record count, most first, then by
// energy name.
func sortByEnergy(es []EnergyStats) {
	slices.SortFunc(es, func(x, y EnergyStats) int {
		if c := cmp.Compare(y.TotalRecords, x.TotalRecords); c != 0 {
			return c
		}
		return strings.Compare(string(x.Energy), string(y.Energy))
	})
}

// mainEnergy is the vehicle's default energy when it has records, else the
// first of byEnergy (sorted by sortByEnergy): the one with most records.
// A vehicle whose records are all of one energy thus has that energy as
// its main one, and the contract's fields keep their meaning for it.
func mainEnergy(def Energy, byEnergy []EnergyStats) Energy {
	for _, e := range byEnergy {
		if e.Energy == def {
			return def
		}
	}
	if len(byEnergy) == 0 {
		return ""
	}
	return byEnergy[0].Energy
}

// mean is sum×10^exp / n rounded half-up to PriceScale places; 0 when n is 0.
func mean(sum *big.Int, exp int32, n int64) decimal.Decimal {
	if n == 0 {
		return decimal.Zero
	}
	return decimal.NewFromBigInt(new(big.Int).Set(sum), exp).DivRound(decimal.NewFromInt(n), PriceScale)
}

// MonthlyQuery selects a monthly series: the records of one energy with
// refuel_time in [Start, End] (nil: unbounded), bucketed by the calendar
// months of Location (nil: UTC). Energy "" is the vehicle's main energy, as
// Statistics chooses it over the records in range.
type MonthlyQuery struct {
	Start, End *time.Time
	Energy     Energy
	Location   *time.Location
}

// MonthlySeries is the answer of a MonthlyQuery: the energy it describes
// ("" when no record is in range and none was asked for) and its months,
// oldest first.
type MonthlySeries struct {
	Energy Energy
	Months []MonthStat
}

// MonthStat is one calendar month of the monthly series.
type MonthStat struct {
	Month    string // "2024-03"
	Records  int64
	Liters   decimal.Decimal // quantity in the energy's unit
	Amount   decimal.Decimal
	AvgPrice decimal.Decimal // mean price_per_liter of the month's records
	// Distance is the sum of the distances of the samples whose closing
	// record falls in the month; Consumption is their quantity over it,
	// times 100 (0 without samples).
	Distance    decimal.Decimal
	Consumption decimal.Decimal
	// ExpensesAmount is the sum of the vehicle's expenses in the month,
	// whatever the energy (MonthlySeries.AddExpenseMonths).
	ExpensesAmount decimal.Decimal
}

// MonthlyBuilder computes the monthly series in one pass over records in
// (refuel_time, id) order, keeping each energy apart and sampling it
// exactly as StatsBuilder does. Use NewMonthlyBuilder.
type MonthlyBuilder struct {
	q        MonthlyQuery
	defaultE Energy
	loc      *time.Location
	series   []*monthlyAcc
}

// monthlyAcc is the series of one energy.
type monthlyAcc struct {
	energy Energy
	n      int64
	spans  sampler
	months []monthAcc
}

type monthAcc struct {
	year  int
	month time.Month
	n     int64

	liters, amount, priceSum sum
	sampledLiters, distance  big.Int
}

// NewMonthlyBuilder starts the series q of a vehicle whose default energy
// is defaultEnergy.
func NewMonthlyBuilder(q MonthlyQuery, defaultEnergy Energy) *MonthlyBuilder {
	loc := q.Location
	if loc == nil {
		loc = time.UTC
	}
	return &MonthlyBuilder{q: q, defaultE: defaultEnergy, loc: loc}
}

// Add takes the next record in (refuel_time, id) order.
func (b *MonthlyBuilder) Add(r StatsRecord) {
	if b.q.Energy != "" && r.Energy != b.q.Energy {
		return
	}
	var acc *monthlyAcc
	for _, a := range b.series {
		if a.energy == r.Energy {
			acc = a
			break
		}
	}
	if acc == nil {
		acc = &monthlyAcc{energy: r.Energy}
		b.series = append(b.series, acc)
	}
	acc.n++
	t := r.RefuelTime.In(b.loc)
	if k := len(acc.months); k == 0 || acc.months[k-1].year != t.Year() || acc.months[k-1].month != t.Month() {
		acc.months = append(acc.months, monthAcc{year: t.Year(), month: t.Month()})
	}
	m := &acc.months[len(acc.months)-1]
	m.n++
	m.liters.add(r.Liters)
	m.amount.add(r.TotalAmount)
	m.priceSum.add(r.PricePerLiter)
	if acc.spans.next(r) {
		m.sampledLiters.Add(&m.sampledLiters, &acc.spans.liters)
		m.distance.Add(&m.distance, big.NewInt(acc.spans.dist))
	}
}

// Series returns the series of the energy asked for, or of the main
// energy; Months is never nil.
func (b *MonthlyBuilder) Series() MonthlySeries {
	out := MonthlySeries{Energy: b.q.Energy, Months: []MonthStat{}}
	if out.Energy == "" {
		counts := make([]EnergyStats, len(b.series))
		for i, a := range b.series {
			counts[i] = EnergyStats{Energy: a.energy, TotalRecords: a.n}
		}
		sortByEnergy(counts)
		out.Energy = mainEnergy(b.defaultE, counts)
	}
	for _, a := range b.series {
		if a.energy != out.Energy {
			continue
		}
		for i := range a.months {
			out.Months = append(out.Months, a.months[i].stat())
		}
	}
	return out
}

func (m *monthAcc) stat() MonthStat {
	return MonthStat{
		Month:       fmt.Sprintf("%04d-%02d", m.year, int(m.month)),
		Records:     m.n,
		Liters:      decimal.NewFromBigInt(new(big.Int).Set(m.liters.big()), -QuantityScale),
		Amount:      decimal.NewFromBigInt(new(big.Int).Set(m.amount.big()), -QuantityScale),
		AvgPrice:    mean(m.priceSum.big(), -PriceScale, m.n),
		Distance:    decimal.NewFromBigInt(new(big.Int).Set(&m.distance), -QuantityScale),
		Consumption: per100(&m.sampledLiters, &m.distance),
	}
}
