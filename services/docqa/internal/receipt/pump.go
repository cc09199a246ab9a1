package receipt

import (
	"fmt"
	"math"
	"regexp"
	"slices"

	"github.com/shopspring/decimal"
)

// units of each kind of receipt's quantity.
func unitFits(kind Kind, unit string) bool {
	if kind == Charge {
		return unit == "kWh"
	}
	return unit == "l" || unit == "gal" || unit == "kg"
}

// candidate is a number offered as quantity, unit price or amount.
type candidate struct {
	num
	strong bool // its role is printed, not supposed
}

// value is the number with the printed decimals kept (45,30 l reads
// "45.30"); a price in minor units moves to major ones (152.9p -> 1.529).
func (c candidate) value() decimal.Decimal {
	if c.variant {
		return c.val
	}
	return c.major()
}

func (c candidate) digits() int {
	f := c.frac
	if c.minor && !c.variant {
		f += 2
	}
	return f
}

func (c candidate) String() string { return c.value().StringFixed(int32(c.digits())) }

// variants of a number whose decimal separator OCR lost (4012 l, 6134):
// the same digits with the separator put back, tried only where the
// quantity x unit price = amount rule confirms them.
func variants(n num, shifts ...int) []candidate {
	if n.frac != 0 || n.grouped || len(n.text) < 3 {
		return nil
	}
	var out []candidate
	for _, s := range shifts {
		v := n
		v.val, v.frac, v.variant = n.major().Shift(int32(-s)), s, true
		if n.minor {
			v.val, v.frac = n.val.Shift(int32(-s-2)), s+2
		}
		out = append(out, candidate{num: v, strong: n.role != anyRole})
	}
	return out
}

// readPump reads the quantity and the unit price of a fuel or charge
// receipt: the triple quantity x unit price = amount that agrees to the
// cent and whose roles are best printed; failing one, a quantity or a
// unit price that is alone of its kind on the receipt.
func (r *reader) readPump(kind Kind) {
	var qs, ps, as []candidate
	for i, ns := range r.nums {
		if adBlue.MatchString(r.kw[i]) || odometerLabel.MatchString(r.kw[i]) {
			continue
		}
		for _, n := range ns {
			switch n.role {
			case qtyRole:
				// A labelled quantity (Gallons 12.345) has no unit beside it.
				if n.unit == "" || unitFits(kind, n.unit) {
					qs = append(qs, candidate{n, true})
					qs = append(qs, variants(n, 2, 3)...)
				}
			case priceRole:
				if n.unit == "" || unitFits(kind, n.unit) {
					ps = append(ps, candidate{n, true})
					ps = append(ps, variants(n, 3, 2)...)
				}
			case moneyRole:
				if n.frac == 2 || n.frac == 0 {
					as = append(as, candidate{n, true})
				}
				as = append(as, variants(n, 2)...)
			case anyRole:
				if n.frac >= 1 {
					qs = append(qs, candidate{n, false})
				}
				if n.frac >= 2 {
					ps = append(ps, candidate{n, false})
				}
				if n.frac == 2 {
					as = append(as, candidate{n, false})
				}
				as = append(as, variants(n, 2)...)
			}
		}
	}

	type triple struct {
		q, p, a candidate
		score   int
	}
	// The best triple, and whether another of its score disagrees.
	var best *triple
	conflict := false
	// Amounts by their cents: a product looks up the few it may be. An
	// amount printed again (the fuel line, the total, the card) is one
	// candidate, the first.
	byCents := map[int64][]int{}
	seen := map[string]bool{}
	for k, a := range as {
		key := fmt.Sprint(a.value(), a.strong, a.variant)
		if seen[key] {
			continue
		}
		seen[key] = true
		c := a.value().Shift(2).Round(0).IntPart()
		byCents[c] = append(byCents[c], k)
	}
	half := decimal.New(5, -1)
	qf, pf := floats(qs), floats(ps)
	for qi, q := range qs {
		qv := q.value()
		if qv.LessThan(half) || qv.GreaterThan(decimal.NewFromInt(400)) {
			continue
		}
		for pi, p := range ps {
			// A first look in floating point (to a cent's margin) skips
			// the pairs whose product is no printed amount; the decimal
			// check below decides.
			prodF, tolF := qf[qi]*pf[pi], pf[pi]*0.5*math.Pow10(-q.digits())+0.0151
			if qf[qi] > 400 || pf[pi] > 300 || pf[pi] <= 0 || tolF > 0.6 {
				continue // no pump sells that; a check this loose checks nothing
			}
			found := false
			for c := int64(math.Floor((prodF - tolF) * 100)); c <= int64(math.Ceil((prodF+tolF)*100)) && !found; c++ {
				_, found = byCents[c]
			}
			if !found {
				continue
			}
			pv := p.value()
			if same(q.num, p.num) || !pv.IsPositive() || pv.Equal(decimal.NewFromInt(1)) || pv.GreaterThan(decimal.NewFromInt(300)) ||
				!(q.strong || p.strong) || q.unit != "" && p.unit != "" && q.unit != p.unit {
				continue
			}
			prod := qv.Mul(pv)
			// q is rounded to its printed decimals: the amount may differ
			// from q x p by half its last digit times the price.
			tol := pv.Mul(half.Shift(int32(-q.digits()))).Add(decimal.New(51, -4))
			if tol.GreaterThan(half) {
				continue // a check this loose checks nothing
			}
			lo, hi := prod.Sub(tol).Shift(2).Ceil().IntPart(), prod.Add(tol).Shift(2).Floor().IntPart()
			for c := lo; c <= hi; c++ {
				for _, k := range byCents[c] {
					a := as[k]
					if same(a.num, q.num) || same(a.num, p.num) || prod.Sub(a.value()).Abs().GreaterThan(tol) {
						continue
					}
					s := 0
					for _, c := range []candidate{q, p, a} {
						if c.strong {
							s += 3
						}
						if c.variant {
							s -= 2
						}
					}
					if q.line == p.line || q.line == a.line || p.line == a.line {
						s++
					}
					switch {
					case best == nil || s > best.score:
						best, conflict = &triple{q, p, a, s}, false
					case s == best.score && !(q.value().Equal(best.q.value()) && p.value().Equal(best.p.value())):
						conflict = true
					}
				}
			}
		}
	}
	if best != nil && !conflict {
		t := *best
		conf := 0.95
		if t.q.variant || t.p.variant || t.q.repaired || t.p.repaired {
			conf = 0.75
		}
		r.set(Quantity, t.q.String(), conf, t.q.line)
		r.set(UnitPrice, t.p.String(), conf, t.p.line)
		if u := firstNonEmpty(t.q.unit, t.p.unit, r.printedUnit(kind)); u != "" {
			r.set(Unit, u, conf, t.q.line)
		}
		a := t.a
		r.fuelAmt = &a.num
		return
	}

	// No triple: a quantity or a price printed with its unit and alone of
	// its value on the receipt.
	if q, ok := only(qs); ok {
		r.set(Quantity, q.String(), 0.7, q.line)
		if u := firstNonEmpty(q.unit, r.printedUnit(kind)); u != "" {
			r.set(Unit, u, 0.7, q.line)
		}
	}
	if p, ok := only(ps); ok {
		r.set(UnitPrice, p.String(), 0.7, p.line)
		if !r.has(Unit) && p.unit != "" {
			r.set(Unit, p.unit, 0.7, p.line)
		}
	}
}

// floats are the candidates' values in floating point, for a first look.
func floats(cs []candidate) []float64 {
	out := make([]float64, len(cs))
	for i, c := range cs {
		out[i] = c.value().InexactFloat64()
	}
	return out
}

func same(a, b num) bool { return a.line == b.line && a.start == b.start }

// only is the one value the strong, printed (not inferred) candidates
// agree on.
func only(cs []candidate) (candidate, bool) {
	var got []candidate
	for _, c := range cs {
		// No pump sells 400 units at once nor at 300 a unit: such a
		// number is a post code or a receipt number under a label.
		if c.strong && !c.variant && c.value().LessThanOrEqual(decimal.NewFromInt(300)) {
			got = append(got, c)
		}
	}
	if len(got) == 0 {
		return candidate{}, false
	}
	for _, c := range got[1:] {
		if !c.value().Equal(got[0].value()) {
			return candidate{}, false
		}
	}
	return got[0], true
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

var unitWords = []struct {
	unit string
	re   *regexp.Regexp
}{
	{"l", regexp.MustCompile(`\bliters?\b|\blitres?\b|\bltr\b|\(l\)|/l\b|\bl\b|升`)},
	{"gal", regexp.MustCompile(`\bgal\b|\bgallons?\b|/g\b|\bppg\b`)},
	{"kWh", regexp.MustCompile(`kwh|千瓦时`)},
	{"kg", regexp.MustCompile(`\bkg\b|公斤`)},
}

// printedUnit is the one unit of kind's that the receipt's words name
// (Menge (l), Gallons), "" when none or two.
func (r *reader) printedUnit(kind Kind) string {
	found := ""
	for _, u := range unitWords {
		if !unitFits(kind, u.unit) {
			continue
		}
		if slices.ContainsFunc(r.kw, u.re.MatchString) {
			if found != "" {
				return ""
			}
			found = u.unit
		}
	}
	return found
}

// printsCents: an amount of the receipt is printed with two decimals.
func (r *reader) printsCents() bool {
	for _, ns := range r.nums {
		for _, n := range ns {
			if n.role == moneyRole && n.frac == 2 {
				return true
			}
		}
	}
	return r.fuelAmt != nil && r.fuelAmt.frac == 2
}

// totalCand is an amount on a total-labelled line.
type totalCand struct {
	n     num
	level int
	line  int
}

// readTotal reads the total: the amount of the strongest total label
// (what is due before what is called total; never a subtotal, a VAT, a
// net or a change line), confirmed by the fuel line's amount or a card
// payment; failing a label, a card payment, or the fuel line's amount
// when no larger amount is printed.
func (r *reader) readTotal(kind Kind) {
	var cands []totalCand
	var paid []num
	// The strongest total label printed, read or not: when OCR lost the
	// value of a "Gesamt", the "Betrag" below it is not the total.
	printedLevel := len(totalLabels)
	for i, kw := range r.kw {
		if notTotal.MatchString(kw) || r.has(Vendor) && i == r.vendorLine {
			continue
		}
		for level, re := range totalLabels {
			if re.MatchString(kw) {
				printedLevel = min(printedLevel, level)
			}
		}
		money := lastMoney(r.nums[i])
		at := i
		if money == nil && i+1 < len(r.text) && onlyValue(r.text[i+1]) {
			money, at = lastMoney(r.nums[i+1]), i+1
		}
		if money == nil {
			continue
		}
		// A total without cents on a receipt printing cents elsewhere is
		// OCR's loss of the separator ("79,72" read "79112"): its value
		// is unread, not a total a hundred times too large.
		if money.frac == 0 && r.printsCents() {
			continue
		}
		if cardPaid.MatchString(kw) {
			paid = append(paid, *money)
		}
		for level, re := range totalLabels {
			if re.MatchString(kw) {
				cands = append(cands, totalCand{*money, level, at})
				break
			}
		}
	}
	confirmed := func(v decimal.Decimal) bool {
		if r.fuelAmt != nil && r.fuelAmt.val.Equal(v) {
			return true
		}
		return slices.ContainsFunc(paid, func(n num) bool { return n.val.Equal(v) })
	}
	if printedLevel < len(totalLabels) {
		if len(cands) == 0 || slices.MinFunc(cands, func(a, b totalCand) int { return a.level - b.level }).level > printedLevel {
			return // the total's label is printed, its value unread
		}
	}
	if len(cands) > 0 {
		top := slices.MinFunc(cands, func(a, b totalCand) int { return a.level - b.level }).level
		var vals []totalCand
		for _, c := range cands {
			if c.level == top && !slices.ContainsFunc(vals, func(v totalCand) bool { return v.n.val.Equal(c.n.val) }) {
				vals = append(vals, c)
			}
		}
		if len(vals) > 1 {
			// Two totals of equal standing: the one a card paid, else
			// none. (The fuel line's amount confirms none: the other may
			// be the fuel plus the shop.)
			var ok []totalCand
			for _, v := range vals {
				if slices.ContainsFunc(paid, func(n num) bool { return n.val.Equal(v.n.val) }) {
					ok = append(ok, v)
				}
			}
			vals = ok
		}
		if len(vals) == 1 {
			c := vals[0]
			conf := 0.85
			if confirmed(c.n.val) {
				conf = 0.95
			}
			if c.n.repaired {
				conf -= 0.15
			}
			r.set(Total, c.n.val.StringFixed(int32(max(c.n.frac, 2))), conf, c.line)
			r.fill(kind)
			return
		}
		if len(cands) > 0 && len(vals) == 0 {
			return
		}
	}
	if len(paid) > 0 && !slices.ContainsFunc(paid, func(n num) bool { return !n.val.Equal(paid[0].val) }) {
		r.set(Total, paid[0].val.StringFixed(int32(max(paid[0].frac, 2))), 0.75, paid[0].line)
		r.fill(kind)
		return
	}
	if a := r.fuelAmt; a != nil {
		for i, ns := range r.nums {
			if notTotal.MatchString(r.kw[i]) {
				continue
			}
			for _, n := range ns {
				if (n.role == moneyRole || n.role == anyRole && n.frac == 2) && n.val.GreaterThan(a.val) {
					return // something larger is printed: the fuel is not all
				}
			}
		}
		r.set(Total, a.val.StringFixed(2), 0.6, a.line)
	}
}

// lastMoney is the last amount of a line (the column of amounts is at the
// right).
func lastMoney(ns []num) *num {
	for k := len(ns) - 1; k >= 0; k-- {
		n := ns[k]
		if n.role == moneyRole || n.role == anyRole && n.frac == 2 {
			return &ns[k]
		}
	}
	return nil
}

// fill completes quantity or unit price from the total when the receipt
// sells nothing else (the total is the fuel's amount) and the value put
// back makes quantity x unit price = total to the cent.
func (r *reader) fill(kind Kind) {
	if kind != Fuel && kind != Charge || r.has(Quantity) == r.has(UnitPrice) || !r.onlyOneSale() {
		return
	}
	total, _ := decimal.NewFromString(r.out.Fields[Total])
	if r.has(Quantity) {
		q, _ := decimal.NewFromString(r.out.Fields[Quantity])
		if !q.IsPositive() {
			return
		}
		p := total.DivRound(q, 3)
		if q.Mul(p).Round(2).Equal(total) {
			r.set(UnitPrice, p.StringFixed(3), 0.6)
		}
		return
	}
	p, _ := decimal.NewFromString(r.out.Fields[UnitPrice])
	if !p.IsPositive() {
		return
	}
	q := total.DivRound(p, 2)
	if q.Mul(p).Round(2).Equal(total) {
		r.set(Quantity, q.StringFixed(2), 0.6)
	}
}

// onlyOneSale: every amount printed off VAT, net and payment lines is the
// total itself.
func (r *reader) onlyOneSale() bool {
	total, _ := decimal.NewFromString(r.out.Fields[Total])
	for i, ns := range r.nums {
		if notTotal.MatchString(r.kw[i]) || cardPaid.MatchString(r.kw[i]) {
			continue
		}
		for _, n := range ns {
			if (n.role == moneyRole || n.role == anyRole && n.frac == 2) && !n.val.Equal(total) {
				return false
			}
		}
	}
	return true
}
