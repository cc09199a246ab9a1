package embedded

import (
	"math"
	"runtime"
	"sync"

	"github.com/viterin/vek/vek32"

	"github.com/carhub/backend/services/docqa/internal/lexical"
)

// parallelMin is the number of rows from which scoring is split across CPUs;
// below it the goroutines cost more than they save.
const parallelMin = 4096

// normalize returns v scaled to unit length, and false (with a zero vector)
// when v has no length.
func normalize(v []float32) ([]float32, bool) {
	var sum float64
	for _, f := range v {
		sum += float64(f) * float64(f)
	}
	out := make([]float32, len(v))
	if sum == 0 {
		return out, false
	}
	inv := 1 / math.Sqrt(sum)
	for i, f := range v {
		out[i] = float32(float64(f) * inv)
	}
	return out, true
}

// dot is the inner product of two vectors of equal length. vek uses AVX2
// where the CPU has it (about ten times the plain loop) and plain Go elsewhere.
func dot(a, b []float32) float32 { return vek32.Dot(a, b) }

// topHits scores every row against query (unit length) and returns the best
// k, best first; equal scores keep index order.
func topHits(query []float32, rows []*row, k int) []lexical.Hit {
	scores := make([]float32, len(rows))
	workers := runtime.GOMAXPROCS(0)
	if len(rows) < parallelMin || workers < 2 {
		for i, r := range rows {
			scores[i] = dot(query, r.vec)
		}
	} else {
		var wg sync.WaitGroup
		per := (len(rows) + workers - 1) / workers
		for lo := 0; lo < len(rows); lo += per {
			hi := min(lo+per, len(rows))
			wg.Go(func() {
				for i := lo; i < hi; i++ {
					scores[i] = dot(query, rows[i].vec)
				}
			})
		}
		wg.Wait()
	}

	return lexical.TopK(scores, k, nil)
}
