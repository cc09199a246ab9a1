package fuel

import (
	"fmt"
	"math"
	"math/big"
	"time"

	"github.com/shopspring/decimal"
)

// samplePrecision is the number of decimal places kept for each sample
// before the means are rounded to PriceScale; far more than the 4 places
// answered, so rounding the mean is not disturbed by rounding the samples.
const samplePrecision = 24

// Statistics of one vehicle, as decisions.md defines them. The fields
// beyond the contract (TotalDistance, WeightedConsumption, Samples,
// FirstRefuelTime, LastRefuelTime) are what fuel trackers show beside them.
type Statistics struct {
	VehicleID      uint64
	TotalRecords   int64
	TotalLiters    decimal.Decimal
	TotalAmount    decimal.Decimal
	AvgPrice       decimal.Decimal // mean of price_per_liter over all records
	AvgConsumption decimal.Decimal // mean of the L/100km samples
	CostPerKm      decimal.Decimal // mean of the money/km samples
	LastRefuel     *Refuel

	// TotalDistance is the highest odometer reading minus the lowest.
	TotalDistance decimal.Decimal
	// WeightedConsumption is the sampled liters over the sampled distance,
	// times 100: long spans weigh more than short ones.
	WeightedConsumption decimal.Decimal
	// Samples is the number of consumption samples taken.
	Samples         int64
	FirstRefuelTime *time.Time
	LastRefuelTime  *time.Time
}

// StatsRecord is the part of a refuel the statistics read, in fixed point:
// Odometer, Liters and TotalAmount in thousandths (QuantityScale places),
// PricePerLiter in ten-thousandths (PriceScale places). Integers keep the
// one pass over thousands of records free of allocations while staying
// exact.
type StatsRecord struct {
	ID             uint64
	RefuelTime     time.Time
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
	vehicleID uint64
	n         int64

	liters, amount, priceSum sum // thousandths, thousandths, ten-thousandths

	spans sampler

	consSum, costSum big.Int // samples in units of 10^-samplePrecision
	sampledLiters    big.Int
	distance         big.Int
	samples          int64

	minOdo, maxOdo int64
	first, last    time.Time
	lastID         uint64

	tmp, quo, rem, den big.Int // scratch
}

var (
	sampleScale  = new(big.Int).Exp(big.NewInt(10), big.NewInt(samplePrecision), nil)
	sampleScale2 = new(big.Int).Mul(sampleScale, big.NewInt(100)) // liters per 100 km
)

// NewStatsBuilder starts the statistics of a vehicle.
func NewStatsBuilder(vehicleID uint64) *StatsBuilder {
	return &StatsBuilder{vehicleID: vehicleID}
}

// Add takes the next record in (refuel_time, id) order.
func (b *StatsBuilder) Add(r StatsRecord) {
	if b.n == 0 {
		b.first = r.RefuelTime
		b.minOdo, b.maxOdo = r.Odometer, r.Odometer
	}
	b.n++
	b.liters.add(r.Liters)
	b.amount.add(r.TotalAmount)
	b.priceSum.add(r.PricePerLiter)
	b.minOdo, b.maxOdo = min(b.minOdo, r.Odometer), max(b.maxOdo, r.Odometer)
	b.last, b.lastID = r.RefuelTime, r.ID

	if !b.spans.next(r) {
		return
	}
	// Both sides are in thousandths, so the quotient is unscaled.
	b.den.SetInt64(b.spans.dist)
	b.consSum.Add(&b.consSum, b.divRound(&b.spans.liters, sampleScale2))
	b.costSum.Add(&b.costSum, b.divRound(&b.spans.amount, sampleScale))
	b.sampledLiters.Add(&b.sampledLiters, &b.spans.liters)
	b.distance.Add(&b.distance, b.tmp.SetInt64(b.spans.dist))
	b.samples++
}

// sampler finds the samples of decisions.md in records given in
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

// divRound returns x*scale/b.den rounded half-up, in b.quo (non-negative
// operands only).
func (b *StatsBuilder) divRound(x, scale *big.Int) *big.Int {
	b.tmp.Mul(x, scale)
	b.quo.QuoRem(&b.tmp, &b.den, &b.rem)
	b.rem.Lsh(&b.rem, 1)
	if b.rem.Cmp(&b.den) >= 0 {
		b.quo.Add(&b.quo, big.NewInt(1))
	}
	return &b.quo
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
	s := Statistics{VehicleID: b.vehicleID, TotalRecords: b.n}
	if b.n == 0 {
		return s
	}
	s.TotalLiters = decimal.NewFromBigInt(new(big.Int).Set(b.liters.big()), -QuantityScale)
	s.TotalAmount = decimal.NewFromBigInt(new(big.Int).Set(b.amount.big()), -QuantityScale)
	s.AvgPrice = mean(b.priceSum.big(), -PriceScale, b.n)
	s.AvgConsumption = mean(&b.consSum, -samplePrecision, b.samples)
	s.CostPerKm = mean(&b.costSum, -samplePrecision, b.samples)
	s.Samples = b.samples
	s.TotalDistance = decimal.New(b.maxOdo-b.minOdo, -QuantityScale)
	if b.distance.Sign() > 0 {
		liters := decimal.NewFromBigInt(new(big.Int).Set(&b.sampledLiters), 0)
		s.WeightedConsumption = liters.Mul(decimal.NewFromInt(100)).DivRound(decimal.NewFromBigInt(new(big.Int).Set(&b.distance), 0), PriceScale)
	}
	first, last := b.first, b.last
	s.FirstRefuelTime, s.LastRefuelTime = &first, &last
	return s
}

// mean is sum×10^exp / n rounded half-up to PriceScale places; 0 when n is 0.
func mean(sum *big.Int, exp int32, n int64) decimal.Decimal {
	if n == 0 {
		return decimal.Zero
	}
	return decimal.NewFromBigInt(new(big.Int).Set(sum), exp).DivRound(decimal.NewFromInt(n), PriceScale)
}

// ParseFixed reads a plain non-negative or negative decimal ("40", "40.5",
// "-1.250") as an integer in units of 10^-scale. More fraction digits than
// scale are an error unless they are zeros.
func ParseFixed(b []byte, scale int) (int64, error) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	if len(b) == 0 {
		return 0, fmt.Errorf("parse fixed: empty number")
	}
	var v int64
	frac := -1 // fraction digits seen; -1 before the point
	for _, c := range b {
		switch {
		case c == '.' && frac < 0:
			frac = 0
		case c >= '0' && c <= '9':
			if frac >= scale {
				if c != '0' {
					return 0, fmt.Errorf("parse fixed %q: more than %d decimal places", b, scale)
				}
				continue
			}
			if v > (1<<63-1-9)/10 {
				return 0, fmt.Errorf("parse fixed %q: out of range", b)
			}
			v = v*10 + int64(c-'0')
			if frac >= 0 {
				frac++
			}
		default:
			return 0, fmt.Errorf("parse fixed %q: not a plain decimal", b)
		}
	}
	for frac = max(frac, 0); frac < scale; frac++ {
		if v > (1<<63-1)/10 {
			return 0, fmt.Errorf("parse fixed %q: out of range", b)
		}
		v *= 10
	}
	if neg {
		v = -v
	}
	return v, nil
}

// MonthStat is one calendar month (UTC) of the monthly series.
type MonthStat struct {
	Month    string // "2024-03"
	Records  int64
	Liters   decimal.Decimal
	Amount   decimal.Decimal
	AvgPrice decimal.Decimal // mean price_per_liter of the month's records
	// Distance is the sum of the distances of the samples whose closing
	// record falls in the month; Consumption is their liters over it, times
	// 100 (0 without samples).
	Distance    decimal.Decimal
	Consumption decimal.Decimal
}

// MonthlyBuilder computes the monthly series in one pass over records in
// (refuel_time, id) order, sampling exactly as StatsBuilder does.
type MonthlyBuilder struct {
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

// Add takes the next record in (refuel_time, id) order.
func (b *MonthlyBuilder) Add(r StatsRecord) {
	t := r.RefuelTime.UTC()
	if k := len(b.months); k == 0 || b.months[k-1].year != t.Year() || b.months[k-1].month != t.Month() {
		b.months = append(b.months, monthAcc{year: t.Year(), month: t.Month()})
	}
	m := &b.months[len(b.months)-1]
	m.n++
	m.liters.add(r.Liters)
	m.amount.add(r.TotalAmount)
	m.priceSum.add(r.PricePerLiter)
	if b.spans.next(r) {
		m.sampledLiters.Add(&m.sampledLiters, &b.spans.liters)
		m.distance.Add(&m.distance, big.NewInt(b.spans.dist))
	}
}

// Months returns the series, oldest month first; never nil.
func (b *MonthlyBuilder) Months() []MonthStat {
	out := make([]MonthStat, len(b.months))
	for i := range b.months {
		m := &b.months[i]
		s := MonthStat{
			Month:    fmt.Sprintf("%04d-%02d", m.year, int(m.month)),
			Records:  m.n,
			Liters:   decimal.NewFromBigInt(new(big.Int).Set(m.liters.big()), -QuantityScale),
			Amount:   decimal.NewFromBigInt(new(big.Int).Set(m.amount.big()), -QuantityScale),
			AvgPrice: mean(m.priceSum.big(), -PriceScale, m.n),
			Distance: decimal.NewFromBigInt(new(big.Int).Set(&m.distance), -QuantityScale),
		}
		if m.distance.Sign() > 0 {
			liters := decimal.NewFromBigInt(new(big.Int).Set(&m.sampledLiters), 0)
			s.Consumption = liters.Mul(decimal.NewFromInt(100)).DivRound(decimal.NewFromBigInt(new(big.Int).Set(&m.distance), 0), PriceScale)
		}
		out[i] = s
	}
	return out
}
