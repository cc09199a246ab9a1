package fuel

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// slowDivRound is x*scale/den rounded half-up with big.Int only: the
// reference for divRound's 128-bit fast path.
func slowDivRound(x, scale, den *big.Int) *big.Int {
	num := new(big.Int).Mul(x, scale)
	q, r := new(big.Int).QuoRem(num, den, new(big.Int))
	if r.Lsh(r, 1).Cmp(den) >= 0 {
		q.Add(q, big.NewInt(1))
	}
	return q
}

func TestDivRoundMatchesBigInt(t *testing.T) {
	max := new(big.Int).SetUint64(math.MaxUint64)
	cases := [][3]*big.Int{
		{big.NewInt(40_000), sampleScale2, big.NewInt(600_000)},
		{big.NewInt(1), big.NewInt(1), big.NewInt(2)}, // exactly half: up
		{big.NewInt(1), big.NewInt(1), big.NewInt(3)}, // below half: down
		{big.NewInt(0), sampleScale, big.NewInt(7)},   // zero
		{max, max, max},                     // quotient 2^64-1 exactly
		{max, big.NewInt(2), big.NewInt(3)}, // quotient past 64 bits: big path
		{new(big.Int).Lsh(max, 3), sampleScale, big.NewInt(1_000)}, // x past 64 bits: big path
	}
	// 31 × 1190112520884487201 = 2^65-1: both factors fit 64 bits, the
	// quotient by 2 is 2^64-1 with a half to round up, past 64 bits.
	cases = append(cases, [3]*big.Int{big.NewInt(31), new(big.Int).SetUint64(1190112520884487201), big.NewInt(2)})

	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		cases = append(cases, [3]*big.Int{
			new(big.Int).SetUint64(rng.Uint64N(1 << 50)),
			sampleScale2,
			new(big.Int).SetUint64(rng.Uint64N(1<<40) + 1),
		})
	}
	for _, c := range cases {
		b := &StatsBuilder{}
		b.den.Set(c[2])
		got := new(big.Int).Set(b.divRound(c[0], c[1]))
		if want := slowDivRound(c[0], c[1], c[2]); got.Cmp(want) != 0 {
			t.Fatalf("divRound(%v*%v/%v) = %v, want %v", c[0], c[1], c[2], got, want)
		}
	}
}
