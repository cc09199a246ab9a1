package store

import "fmt"

// parseFixed reads a plain non-negative or negative decimal ("40", "40.5",
// "-1.250") as an integer in units of 10^-scale. More fraction digits than
// scale are an error unless they are zeros.
func parseFixed(b []byte, scale int) (int64, error) {
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
