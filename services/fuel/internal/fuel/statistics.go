package fuel

import (
	"time"

	"github.com/shopspring/decimal"
)

// samplePrecision is the number of decimal places kept for each sample
// before the means are rounded to PriceScale; far more than the 4 places
// answered, so rounding the mean is not disturbed by rounding the samples.
const samplePrecision = 24

var hundred = decimal.NewFromInt(100)

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

// StatsRecord is the part of a refuel the statistics read.
type StatsRecord struct {
	ID            uint64
	RefuelTime    time.Time
	Odometer      decimal.Decimal
	Liters        decimal.Decimal
	TotalAmount   decimal.Decimal
	PricePerLiter decimal.Decimal
	IsFull        bool
}

// StatsBuilder computes Statistics in one pass over the records of a
// vehicle given in (refuel_time, id) order. The zero value is not ready:
// use NewStatsBuilder.
type StatsBuilder struct {
	s        Statistics
	priceSum decimal.Decimal

	havePrev   bool            // an earlier full record P exists
	prevOdo    decimal.Decimal // P.odometer
	spanLiters decimal.Decimal // liters of the records after P so far
	spanAmount decimal.Decimal

	consSum, costSum        decimal.Decimal
	sampledLiters, distance decimal.Decimal
	minOdo, maxOdo          decimal.Decimal
	first, last             time.Time
	lastID                  uint64
}

// NewStatsBuilder starts the statistics of a vehicle.
func NewStatsBuilder(vehicleID uint64) *StatsBuilder {
	return &StatsBuilder{s: Statistics{VehicleID: vehicleID}}
}

// Add takes the next record in (refuel_time, id) order.
func (b *StatsBuilder) Add(r StatsRecord) {
	if b.s.TotalRecords == 0 {
		b.first = r.RefuelTime
		b.minOdo, b.maxOdo = r.Odometer, r.Odometer
	}
	b.s.TotalRecords++
	b.s.TotalLiters = b.s.TotalLiters.Add(r.Liters)
	b.s.TotalAmount = b.s.TotalAmount.Add(r.TotalAmount)
	b.priceSum = b.priceSum.Add(r.PricePerLiter)
	if r.Odometer.LessThan(b.minOdo) {
		b.minOdo = r.Odometer
	}
	if r.Odometer.GreaterThan(b.maxOdo) {
		b.maxOdo = r.Odometer
	}
	b.last, b.lastID = r.RefuelTime, r.ID

	if b.havePrev {
		b.spanLiters = b.spanLiters.Add(r.Liters)
		b.spanAmount = b.spanAmount.Add(r.TotalAmount)
	}
	if !r.IsFull {
		return
	}
	if b.havePrev {
		if dist := r.Odometer.Sub(b.prevOdo); dist.IsPositive() {
			b.consSum = b.consSum.Add(b.spanLiters.Mul(hundred).DivRound(dist, samplePrecision))
			b.costSum = b.costSum.Add(b.spanAmount.DivRound(dist, samplePrecision))
			b.sampledLiters = b.sampledLiters.Add(b.spanLiters)
			b.distance = b.distance.Add(dist)
			b.s.Samples++
		}
	}
	b.havePrev = true
	b.prevOdo = r.Odometer
	b.spanLiters, b.spanAmount = decimal.Zero, decimal.Zero
}

// LastID is the id of the last record added (0 when none): the record that
// Statistics.LastRefuel must hold.
func (b *StatsBuilder) LastID() uint64 { return b.lastID }

// Statistics returns the result so far. LastRefuel is left for the caller,
// which loads the record with LastID.
func (b *StatsBuilder) Statistics() Statistics {
	s := b.s
	if s.TotalRecords == 0 {
		return s
	}
	s.AvgPrice = mean(b.priceSum, s.TotalRecords)
	s.AvgConsumption = mean(b.consSum, s.Samples)
	s.CostPerKm = mean(b.costSum, s.Samples)
	s.TotalDistance = b.maxOdo.Sub(b.minOdo)
	if b.distance.IsPositive() {
		s.WeightedConsumption = b.sampledLiters.Mul(hundred).DivRound(b.distance, PriceScale)
	}
	first, last := b.first, b.last
	s.FirstRefuelTime, s.LastRefuelTime = &first, &last
	return s
}

// mean is sum/n rounded half-up to PriceScale places; 0 when n is 0.
func mean(sum decimal.Decimal, n int64) decimal.Decimal {
	if n == 0 {
		return decimal.Zero
	}
	return sum.DivRound(decimal.NewFromInt(n), PriceScale)
}
