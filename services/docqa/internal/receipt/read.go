package receipt

import (
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/shopspring/decimal"
	"golang.org/x/text/unicode/norm"
)

// reader holds one receipt's lines as the rules see them.
type reader struct {
	opts   Options
	lines  []Line
	text   []string // each line, NFKC, digits repaired, spaces collapsed
	kw     []string // keywordText of each line
	nums   [][]num  // the numbers of each line (dates and times masked)
	dates  []dateHit
	han    bool // the receipt is written in Chinese characters
	out    Reading
	curCnt map[string]int // ISO code -> times printed

	pending    map[int]role // a label's role for the next line's numbers
	dateLine   int          // the line the date was read from
	vendorLine int          // the line the vendor was read from
	fuelAmt    *num         // the amount of the fuel line (quantity x unit price)
	workshop   bool         // the receipt is a workshop's invoice
}

var (
	spaces       = regexp.MustCompile(`[ \t\x{00a0}\x{202f}\x{2009}]+`)
	currencyMark = regexp.MustCompile(`(?i)(€|£|\$|¥|元|\beur\b|\bgbp\b|\busd\b|\bchf\b|\bcny\b|\brmb\b|\bfr\.|\d\s?p\s?/\s?l|人民币)`)
	gallonWords  = regexp.MustCompile(`\bgal|gallons?\b|\d\s?g\b|/g\b|ppg`)
	// Words of receipts that write the day first.
	dayFirstWords = regexp.MustCompile(`mwst|ust\b|tva|vat|summe|montant|litres|\bmerci\b`)
	timeLabel     = regexp.MustCompile(`zeit|time|heure|时间|uhrzeit`)
	countRE       = regexp.MustCompile(`\d{1,3}(?:[.,' ]\d{3})+|\d+`)
	brandREs      = func() []*regexp.Regexp {
		out := make([]*regexp.Regexp, len(brands))
		for i, b := range brands {
			out[i] = regexp.MustCompile(`(^|[^a-z])` + regexp.QuoteMeta(b) + `($|[^a-z])`)
		}
		return out
	}()
)

// MaxLines and MaxLineBytes bound what is read: a receipt a metre long
// has about 150 lines of under 60 characters; the rest of a longer text
// is not a receipt's, and the rules' cost grows with it.
const (
	MaxLines     = 300
	MaxLineBytes = 256
)

func newReader(lines []Line, opts Options) *reader {
	r := &reader{opts: opts, curCnt: map[string]int{},
		out: Reading{Kind: Unknown, Fields: map[string]string{}, Confidence: map[string]float64{}, Boxes: map[string]Box{}}}
	for _, l := range lines {
		if len(r.lines) == MaxLines {
			break
		}
		t := l.Text
		if len(t) > MaxLineBytes {
			t = strings.ToValidUTF8(t[:MaxLineBytes], "")
		}
		t = strings.TrimSpace(spaces.ReplaceAllString(norm.NFKC.String(t), " "))
		if t == "" {
			continue
		}
		r.lines = append(r.lines, l)
		r.text = append(r.text, t)
	}
	for _, t := range r.text {
		for _, c := range t {
			if unicode.Is(unicode.Han, c) {
				r.han = true
			}
		}
	}
	return r
}

func (r *reader) read() Reading {
	if len(r.lines) == 0 {
		return r.out
	}
	r.kw = make([]string, len(r.text))
	repaired := make([]bool, len(r.text))
	for i, t := range r.text {
		r.text[i], repaired[i] = repairDigits(t)
		r.text[i] = repairUnits(r.text[i], r.han)
		r.kw[i] = keywordText(t)
	}
	r.readCurrency()
	order := r.dateOrder()
	r.nums = make([][]num, len(r.text))
	for i, t := range r.text {
		ds := findDates(i, t, order, r.opts.Now)
		r.dates = append(r.dates, ds...)
		masked := []byte(t)
		for _, d := range ds {
			for k := d.start; k < d.end; k++ {
				masked[k] = ' '
			}
		}
		if _, loc, ok := findTime(string(masked)); ok {
			for k := loc[0]; k < loc[1]; k++ {
				masked[k] = ' '
			}
		}
		r.nums[i] = numbers(i, string(masked), repaired[i])
		if rl, ok := r.pending[i]; ok {
			giveRole(r.nums[i], rl)
		}
		r.labelRoles(i)
	}

	r.readDate()
	r.readTime()
	r.readVendor()
	kind, energy, energyLine := r.readKind()
	r.out.Kind = kind
	switch kind {
	case Fuel, Charge:
		if energy != "" {
			r.set(Energy, energy, 0.9, energyLine)
		}
		r.readPump(kind)
	}
	r.readTotal(kind)
	r.readOdometer()
	if kind == Expense && !r.workshop && !r.has(Total) {
		kind = Unknown // a bill with no total, or no bill at all
	}
	r.out.Kind = kind
	if kind == Unknown {
		// Nothing to record: a vendor and a date alone are no record.
		r.out.Fields, r.out.Confidence, r.out.Boxes = map[string]string{}, map[string]float64{}, map[string]Box{}
		return r.out
	}
	if c := r.currency(); c != "" && (r.has(Total) || r.has(UnitPrice)) {
		r.set(Currency, c, 0.9)
	}
	return r.out
}

func (r *reader) has(field string) bool { _, ok := r.out.Fields[field]; return ok }

// set records a field read from lines with confidence conf (before the
// lines' own OCR confidence).
func (r *reader) set(field, value string, conf float64, lines ...int) {
	r.out.Fields[field] = value
	var box Box
	for _, i := range lines {
		box = box.union(r.lines[i].Box)
		if c := r.lines[i].Confidence; c > 0 {
			conf *= min(1, c/90)
		}
	}
	r.out.Confidence[field] = float64(int(conf*100+0.5)) / 100
	if !box.IsZero() {
		r.out.Boxes[field] = box
	}
}

// readCurrency counts the currencies printed.
func (r *reader) readCurrency() {
	for _, t := range r.text {
		for _, m := range currencyMark.FindAllString(t, -1) {
			c := strings.ToLower(m)
			switch {
			case strings.HasSuffix(c, "l") && strings.Contains(c, "p"):
				c = "GBP"
			case c == "人民币":
				c = "CNY"
			default:
				c = currencyOf(c)
			}
			if c == "¥" {
				c = "JPY"
				if r.han {
					c = "CNY"
				}
			}
			if c != "" {
				r.curCnt[c]++
			}
		}
	}
}

// currency is the receipt's currency: the one printed most, absent when
// two are printed as often.
func (r *reader) currency() string {
	best, n, tie := "", 0, false
	for c, k := range r.curCnt {
		switch {
		case k > n:
			best, n, tie = c, k, false
		case k == n:
			tie = true
		}
	}
	if tie {
		return ""
	}
	return best
}

// dateOrder is how the receipt writes d/m: dollars with gallons are the
// United States, any other currency or a European or Chinese word is day
// first; else the owner's region.
func (r *reader) dateOrder() dateOrder {
	all := strings.Join(r.kw, "\n")
	if r.curCnt["USD"] > 0 && gallonWords.MatchString(all) {
		return monthFirst
	}
	if r.curCnt["EUR"] > 0 || r.curCnt["GBP"] > 0 || r.curCnt["CHF"] > 0 || r.curCnt["CNY"] > 0 ||
		dayFirstWords.MatchString(all) {
		return dayFirst
	}
	return regionOrder(r.opts.Region)
}

// labelRoles gives a role to the numbers of a labelled line (Menge 45,32;
// Preis/l 1,759) that nothing beside them named; a label alone on its
// line gives it to the numbers of the next line.
func (r *reader) labelRoles(i int) {
	kw := r.kw[i]
	rl := anyRole
	switch {
	case unitPriceLabel.MatchString(kw):
		rl = priceRole
	case qtyLabel.MatchString(kw) && !notTotal.MatchString(kw):
		rl = qtyRole
	default:
		return
	}
	if len(r.nums[i]) > 0 {
		giveRole(r.nums[i], rl)
		return
	}
	// The label's value on the next line: only when that line is numbers
	// (and units) alone, which the next line's own pass then reads.
	if i+1 < len(r.text) && onlyValue(r.text[i+1]) {
		r.pendingRole(i+1, rl)
	}
}

// giveRole gives rl to the first number nothing named (Menge 45,32
// Betrag 79,72 is a quantity then an amount).
func giveRole(ns []num, rl role) {
	for k := range ns {
		if ns[k].role == anyRole || ns[k].role == moneyRole && rl == priceRole {
			ns[k].role = rl
			return
		}
	}
}

// pendingRole is labelRoles' look-ahead: the next line's numbers are not
// read yet, so the role is read when they are.
func (r *reader) pendingRole(i int, rl role) {
	if r.pending == nil {
		r.pending = map[int]role{}
	}
	r.pending[i] = rl
}

// onlyValue reports whether a line is a value without a label: digits,
// separators, currency and unit marks.
func onlyValue(s string) bool {
	letters := 0
	for _, c := range strings.ToLower(s) {
		if unicode.IsLetter(c) {
			letters++
		}
	}
	return letters <= 4 && strings.IndexFunc(s, unicode.IsDigit) >= 0
}

// readDate picks the receipt's date: one on a date-labelled line first,
// else the first printed; never one on a due, next-service or expiry line.
func (r *reader) readDate() {
	// standing of each line's dates: -1 never the receipt's (due, next,
	// expiry), 2 labelled, 1 else.
	standing := make([]int, len(r.text))
	for i, kw := range r.kw {
		switch {
		case notTheDate.MatchString(kw):
			standing[i] = -1
		case dateLabel.MatchString(kw):
			standing[i] = 2
		default:
			standing[i] = 1
		}
	}
	var best *dateHit
	score := 0
	for k := range r.dates {
		if s := standing[r.dates[k].line]; s > score {
			best, score = &r.dates[k], s
		}
	}
	if best == nil {
		return
	}
	// A second, different unlabelled date below the header: which is the
	// receipt's is a guess.
	if score == 1 && !r.isHeaderDate(best.line) {
		for _, d := range r.dates {
			if standing[d.line] == 1 && d.line != best.line && !d.date.Equal(best.date) {
				return
			}
		}
	}
	conf := 0.9
	if !best.sure {
		conf = 0.6
	}
	r.set(Date, best.date.Format("2006-01-02"), conf, best.line)
	r.dateLine = best.line
}

// isHeaderDate: a date in the first third of the receipt is the
// transaction's; one further down (a voucher's, a service's) is not.
func (r *reader) isHeaderDate(line int) bool { return line < len(r.text)/3+2 }

// readTime reads the time on the date's line, or the line after it, or
// a time-labelled line.
func (r *reader) readTime() {
	try := func(i int) bool {
		if i < 0 || i >= len(r.text) || notTheDate.MatchString(r.kw[i]) {
			return false
		}
		if t, _, ok := findTime(r.text[i]); ok {
			r.set(Time, t, 0.85, i)
			return true
		}
		return false
	}
	if r.has(Date) {
		if try(r.dateLine) || try(r.dateLine+1) || try(r.dateLine-1) {
			return
		}
	}
	for i, kw := range r.kw {
		if timeLabel.MatchString(kw) && try(i) {
			return
		}
	}
}

// readVendor takes the first line of the header that names a brand, else
// the first header line that is a name (letters, not an address, a
// greeting or a number).
func (r *reader) readVendor() {
	head := min(len(r.text), 5)
	// A name line has no amount, quantity or date (Total 79,72 names no
	// TotalEnergies).
	named := func(i int) bool {
		return !slices.ContainsFunc(r.nums[i], func(n num) bool { return n.frac > 0 || n.role != anyRole }) &&
			!slices.ContainsFunc(r.dates, func(d dateHit) bool { return d.line == i })
	}
	for i := range head {
		if !named(i) {
			continue
		}
		for _, b := range brandREs {
			if b.MatchString(r.kw[i]) {
				r.set(Vendor, cleanName(r.text[i]), 0.9, i)
				r.vendorLine = i
				return
			}
		}
	}
	for i := range head {
		t, kw := r.text[i], r.kw[i]
		if greeting.MatchString(kw) || !named(i) {
			continue
		}
		letters := 0
		for _, c := range t {
			if unicode.IsLetter(c) {
				letters++
			}
		}
		if letters >= 3 && letters*2 >= len([]rune(t)) {
			r.set(Vendor, cleanName(t), 0.6, i)
			r.vendorLine = i
			return
		}
	}
}

// cleanName trims a header's decoration (*** SHELL ***, == ARAL ==).
func cleanName(s string) string {
	return strings.TrimFunc(s, func(c rune) bool { return !unicode.IsLetter(c) && !unicode.IsDigit(c) && c != ')' && c != '+' })
}

// readKind decides what the receipt records: a charge when it sells kWh,
// fuel when it names a fuel with a quantity or a price per unit, an
// expense when it is a workshop's invoice or any bill with a total.
func (r *reader) readKind() (Kind, string, int) {
	workshopWords, invoice := 0, false
	for _, kw := range r.kw {
		workshopWords += len(workshop.FindAllString(kw, -1))
		invoice = invoice || invoiceWord.MatchString(kw)
	}
	odo := slices.ContainsFunc(r.kw, odometerLabel.MatchString)
	if workshopWords >= 3 || invoice && (workshopWords >= 1 || odo) {
		r.workshop = true
		return Expense, "", -1
	}
	kwh, perUnit := false, false
	for _, ns := range r.nums {
		for _, n := range ns {
			if n.unit == "kWh" {
				kwh = true
			}
			if n.role == priceRole || n.role == qtyRole && n.unit != "" {
				perUnit = true
			}
		}
	}
	for i, kw := range r.kw {
		if adBlue.MatchString(kw) {
			continue
		}
		for _, f := range fuels {
			if f.re.MatchString(kw) && perUnit && !kwh {
				return Fuel, f.energy, i
			}
		}
	}
	if kwh {
		for i, kw := range r.kw {
			if electric.MatchString(kw) {
				return Charge, "electricity", i
			}
		}
	}
	if perUnit && !kwh && r.hasFuelQuantity() {
		return Fuel, "", -1
	}
	return Expense, "", -1
}

// hasFuelQuantity: a quantity in litres, gallons or kilograms off an
// AdBlue line.
func (r *reader) hasFuelQuantity() bool {
	for i, ns := range r.nums {
		if adBlue.MatchString(r.kw[i]) {
			continue
		}
		for _, n := range ns {
			if n.role == qtyRole && (n.unit == "l" || n.unit == "gal" || n.unit == "kg") {
				return true
			}
		}
	}
	return false
}

// readOdometer reads the number after an odometer label, on its line or
// the next.
func (r *reader) readOdometer() {
	for i, kw := range r.kw {
		loc := odometerLabel.FindStringIndex(kw)
		if loc == nil {
			continue
		}
		// keywordText lower-cases; the digits sit at the same places only
		// after the label, so read the label's line from its label on.
		line := r.text[i]
		if idx := strings.Index(asciiLower(line), kw[loc[0]:loc[1]]); idx >= 0 {
			line = line[idx+loc[1]-loc[0]:]
		}
		at := i
		m := countRE.FindString(line)
		if m == "" && i+1 < len(r.text) && onlyValue(r.text[i+1]) {
			m, at = countRE.FindString(r.text[i+1]), i+1
		}
		if m == "" {
			continue
		}
		if v, ok := parseCount(m); ok && v.IsPositive() && v.LessThan(decimal.NewFromInt(3_000_000)) {
			r.set(Odometer, v.String(), 0.85, i, at)
			return
		}
	}
}
