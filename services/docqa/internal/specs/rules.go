package specs

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The rule-based extraction reads, in English, German and Chinese, a
// page's lines (a line wrapped before a lower-case word or a digit is
// joined to the one before) and each line's sentences:
//
//   - a sentence or table row that names a key ("engine oil", "Motoröl",
//     "机油"; "wheel bolts", "Radschrauben", "车轮螺栓"; ...) gives that key
//     the first quantity of the key's unit after the name (or, for the
//     fuel, the battery and the wheel bolts, anywhere in it); the engine
//     oil's grade is an SAE grade ("SAE 0W-30") anywhere in it, the
//     coolant's the specification words after its name ("G13 (TL 774 J)"),
//     a diesel's its name and standard ("Diesel nach DIN EN 590");
//   - a tyre pressure table: a header line without digits that names two
//     loads ("Normal load Full load", "标准负载 满载") or two axles ("vorn
//     hinten"), and rows below it, each named by the other dimension, with
//     one pressure per column;
//   - tyre pressures in prose: each pressure's axle is the axle named
//     before it (after the previous pressure), or right after it; its load
//     is full when a full load is named before it, else normal; a sentence
//     about the tyres with one pressure and no axle gives both axles.
//
// A pressure printed in a second unit, in parentheses or after a slash
// ("2.3 bar (230 kPa)", "2.3 bar / 33 psi"), is left out: the first one
// printed is the item. Sentences about the spare wheel or a maximum
// pressure, and quantities per distance (consumption), are not read.

// Labels of the keys (case-insensitive). Go's \b is ASCII-only, so
// "kühlmittel\b" does not match "Kühlmittelstand".
var (
	oilLabel     = regexp.MustCompile(`(?i)engine[\s-]oil|motor[\s-]oil|\boil\b|motoröl|\böl|机油`)
	fuelLabel    = regexp.MustCompile(`(?i)\bfuel\b|petrol|gasoline|kraftstoff|benzin|\bsuper\b|燃油|汽油|燃料`)
	coolantLabel = regexp.MustCompile(`(?i)\bcoolant\b|\bantifreeze\b|kühlmittel\b|kühlflüssigkeit\b|frostschutz\w*|冷却液|防冻液`)
	adblueLabel  = regexp.MustCompile(`(?i)adblue|\bDEF\b|diesel exhaust fluid|尿素`)
	wheelLabel   = regexp.MustCompile(`(?i)wheel[\s-](?:bolts?|nuts?)|lug[\s-]nuts?|radschraube\w*|radmutter\w*|radbolzen|车轮螺栓|轮毂螺栓|车轮螺母|轮胎螺栓|轮胎螺母`)
	batteryLabel = regexp.MustCompile(`(?i)\bbattery\b|batterie|蓄电池|电瓶`)
	tyreLabel    = regexp.MustCompile(`(?i)\btyres?\b|\btires?\b|inflation|reifen\w*|luftdruck|轮胎|胎压`)
)

// Words that change what a sentence's quantities are.
var (
	// capacityWord: an AdBlue quantity is the tank's only in a sentence
	// about its size.
	capacityWord = regexp.MustCompile(`(?i)\btank|capacity|volume|fasst|inhalt|behälter|füllmenge|容量|容积|罐|箱`)
	// notCapacity: a consumption, or the least to add, is no capacity.
	notCapacity = regexp.MustCompile(`(?i)consum|\buses?\b|verbrauch|at least|minimum|mindestens|至少|消耗`)
	// perWord after a quantity makes it a rate ("0.5 l per 1,000 km").
	perWord = regexp.MustCompile(`^\s*(?:per|pro|je|every|alle|每)\b`)
	// notPressure: the spare wheel's and the tyre's maximum pressures.
	notPressure = regexp.MustCompile(`(?i)spare|temporary|notrad|reserverad|ersatzrad|备胎|maximum|\bmax\b|höchst|最大|最高`)
	// withFilter and withoutFilter say which of two oil capacities is
	// the service's (with the filter changed).
	withFilter    = regexp.MustCompile(`(?i)with(?:\s+oil)?\s+filter|incl(?:uding|\.)?\s+(?:oil\s+)?filter|mit\s+(?:öl)?filter|含机油滤清器|含滤清器|含机滤`)
	withoutFilter = regexp.MustCompile(`(?i)without(?:\s+oil)?\s+filter|excl(?:uding|\.)?\s+(?:oil\s+)?filter|ohne\s+(?:öl)?filter|不含`)
	oilGrade      = regexp.MustCompile(`(?:SAE\s?)?\b\d{1,2}W-?\d{2}\b`)
	diesel        = regexp.MustCompile(`(?i)\bdiesel(?:kraftstoff|fuel|\s+fuel)?(?:\s+(?:nach|gemäß|to|per|according to|conforming to|meeting)\s+(?:DIN\s+)?EN\s?590)?\b|(?:\d+号)?柴油`)
)

// Axles and loads of a tyre pressure, as tables and sentences name them.
var (
	frontWord = regexp.MustCompile(`(?i)\bfront\b|\bvorne?\b|vorderachse|vorderr[äa]d\w*|前轮|前桥`)
	rearWord  = regexp.MustCompile(`(?i)\brear\b|\bhinten\b|hinterachse|hinterr[äa]d\w*|后轮|后桥`)
	bothWord  = regexp.MustCompile(`(?i)front\s+and\s+rear|front\s*/\s*rear|vorne?\s+und\s+hinten|前后轮|前轮和后轮|all\s+(?:four\s+)?(?:tyres|tires)|alle\s+(?:vier\s+)?reifen|所有轮胎`)
	fullWord  = regexp.MustCompile(`(?i)full(?:y)?[\s-]*(?:load(?:ed)?|laden)|max(?:imum)?\.?\s+load|voll(?:e|er|en)?\s*(?:beladen|beladung|last)|volllast|满载`)
	normWord  = regexp.MustCompile(`(?i)normal|partial(?:ly)?[\s-]*load|teilbelad\w*|标准负载|标准|半载|正常|一般`)
)

// Axles and loads.
const (
	front = "front"
	rear  = "rear"
	both  = "both"
	norm  = "normal"
	full  = "full"
)

// pressureKey is the key of a pressure on axle (front or rear) at load.
func pressureKey(axle, load string) string {
	switch {
	case axle == front && load == full:
		return TyrePressureFrontFullLoad
	case axle == rear && load == full:
		return TyrePressureRearFullLoad
	case axle == front:
		return TyrePressureFront
	default:
		return TyrePressureRear
	}
}

// Extract reads the specifications of pages by the rules above, one item
// per key (Resolve).
func Extract(pages []Page) []Item {
	var out []Item
	for _, p := range pages {
		out = append(out, extractPage(p)...)
	}
	return Resolve(out)
}

// extractPage reads one page, in the order it prints its items.
func extractPage(p Page) []Item {
	var items []Item
	var columns []string // a pressure table's header: two loads or two axles
	for _, line := range lines(p.Text) {
		if cols := pressureHeader(line); cols != nil {
			columns = cols
			continue
		}
		if columns != nil {
			if its, ok := pressureRow(p, line, columns); ok {
				items = append(items, its...)
				continue
			}
			columns = nil // the table ended: its rows follow each other
		}
		for _, s := range sentences(line) {
			items = append(items, sentenceItems(p, s)...)
		}
	}
	return items
}

// lines are the page's lines, with three joins: a pressure table's header
// whose cells were extracted on up to three lines is one line; a line that
// goes on in lower case or with a digit is joined to the one before (a
// sentence wrapped by the layout); and a line that prints a number, names
// no key and ends no sentence is joined to a label line before it that
// names one (a table's cells extracted one per line: "Engine oil" then
// "SAE 0W-30, ACEA C2 4.3 l"; a table's header "Item Specification
// Capacity" and a heading before a paragraph stay apart).
func lines(text string) []string {
	var raw []string
	for _, l := range strings.Split(normalizeSpaces(text), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			raw = append(raw, l)
		}
	}
	var out []string
	afterHeader := false
	for i := 0; i < len(raw); i++ {
		if k := headerLines(raw[i:]); k > 0 {
			out = append(out, strings.Join(raw[i:i+k], " "))
			i += k - 1
			afterHeader = true
			continue
		}
		l := raw[i]
		r, _ := utf8.DecodeRuneInString(l)
		if len(out) > 0 && !afterHeader && (unicode.IsLower(r) || unicode.IsDigit(r) ||
			isLabel(out[len(out)-1]) && namesKey(out[len(out)-1]) && !namesKey(l) && strings.ContainsFunc(l, unicode.IsDigit) && !endsSentence(l)) {
			out[len(out)-1] += " " + l
			continue
		}
		out = append(out, l)
		afterHeader = false
	}
	return out
}

// headerLines is how many of the lines, one to three labels, make a
// pressure table's header; 0 when they make none.
func headerLines(lines []string) int {
	if len(lines) > 0 && pressureHeader(lines[0]) != nil {
		return 1
	}
	for k := 2; k <= min(3, len(lines)) && isLabel(lines[0]) && isLabel(lines[k-1]); k++ {
		if pressureHeader(strings.Join(lines[:k], " ")) != nil {
			return k
		}
	}
	return 0
}

// namesKey reports whether text names what a key is about.
func namesKey(text string) bool {
	for _, re := range []*regexp.Regexp{oilLabel, fuelLabel, coolantLabel, adblueLabel, wheelLabel, batteryLabel, tyreLabel, frontWord, rearWord, fullWord, normWord} {
		if re.MatchString(text) {
			return true
		}
	}
	return false
}

// endsSentence reports whether line ends with a sentence's end.
func endsSentence(line string) bool {
	last, _ := utf8.DecodeLastRuneInString(line)
	return strings.ContainsRune(".!?。！？", last)
}

// isLabel reports whether line is a short name without a number that no
// sentence's end closes: a table's cell or a heading.
func isLabel(line string) bool {
	return utf8.RuneCountInString(line) <= 40 && !strings.ContainsFunc(line, unicode.IsDigit) && !endsSentence(line)
}

// sentenceEnd ends a sentence: Latin punctuation before a space or the
// end (not the point of "4.3"), or a CJK full stop.
var sentenceEnd = regexp.MustCompile(`[.!?;](?:\s|$)|[。！？；]`)

// sentences splits line at its sentences' ends.
func sentences(line string) []string {
	var out []string
	start := 0
	for _, e := range sentenceEnd.FindAllStringIndex(line, -1) {
		out = append(out, strings.TrimSpace(line[start:e[1]]))
		start = e[1]
	}
	if s := strings.TrimSpace(line[start:]); s != "" {
		out = append(out, s)
	}
	return out
}

// sentenceItems reads the keys a sentence (or a table row) names.
func sentenceItems(p Page, s string) []Item {
	var items []Item
	qs := quantities(s)
	add := func(key string, q *quantity) {
		if q != nil {
			items = append(items, newItem(p, key, q.text, q, s))
		}
	}
	if oilLabel.MatchString(s) {
		for _, m := range oilGrade.FindAllStringIndex(s, -1) {
			if numberEnds(s, m[1]) { // not "0W-30,5"
				items = append(items, newItem(p, EngineOilGrade, s[m[0]:m[1]], nil, s))
				break
			}
		}
		if !notCapacity.MatchString(s) {
			add(EngineOilCapacity, oilCapacity(s, qs))
		}
	}
	if fuelLabel.MatchString(s) {
		if q := firstOf(s, qs, 0, UnitRON); q != nil && isOctane(q.number) {
			add(FuelGrade, q)
		} else if d := diesel.FindString(s); d != "" {
			items = append(items, newItem(p, FuelGrade, d, nil, s))
		}
	}
	if loc := coolantLabel.FindStringIndex(s); loc != nil {
		if v := coolantSpec(s[loc[1]:], qs, loc[1]); v != "" {
			items = append(items, newItem(p, Coolant, v, nil, s))
		}
	}
	if loc := adblueLabel.FindStringIndex(s); loc != nil && capacityWord.MatchString(s) && !notCapacity.MatchString(s) {
		add(AdBlue, firstOf(s, qs, loc[1], UnitLitre))
	}
	if loc := wheelLabel.FindStringIndex(s); loc != nil {
		q := firstOf(s, qs, loc[1], UnitNm, UnitLbFt)
		if q == nil {
			q = firstOf(s, qs, 0, UnitNm, UnitLbFt)
		}
		add(WheelBoltTorque, q)
	}
	if batteryLabel.MatchString(s) {
		add(Battery, firstOf(s, qs, 0, UnitAh))
	}
	return append(items, prosePressures(p, s, qs)...)
}

// isOctane reports whether n is a petrol's octane rating, not a diesel's
// grade ("0号柴油", "-10号").
func isOctane(n string) bool {
	v, err := strconv.Atoi(n)
	return err == nil && v >= 80 && v <= 110
}

// firstOf is the first quantity of qs at or after from in one of the
// units, that is no rate ("per 1,000 km"); nil when there is none.
func firstOf(s string, qs []quantity, from int, units ...string) *quantity {
	for i, q := range qs {
		if q.start < from || !slices.Contains(units, q.unit) || perWord.MatchString(s[q.end:]) {
			continue
		}
		return &qs[i]
	}
	return nil
}

// oilCapacity is the engine oil's capacity in s: the litres (or quarts)
// after its name, the one with the filter changed when s prints two.
func oilCapacity(s string, qs []quantity) *quantity {
	loc := oilLabel.FindStringIndex(s)
	var found []*quantity
	for i := range qs {
		if q := firstOf(s, qs[i:i+1], loc[1], UnitLitre, UnitQuart); q != nil {
			found = append(found, q)
		}
	}
	if len(found) <= 1 {
		if len(found) == 1 && withoutFilter.MatchString(s[max(0, found[0].start-30):found[0].start]) {
			return nil
		}
		if len(found) == 1 {
			return found[0]
		}
		return nil
	}
	for _, q := range found {
		before := s[max(0, q.start-30):q.start]
		if withFilter.MatchString(before) && !withoutFilter.MatchString(before) {
			return q
		}
	}
	return nil // two capacities, neither said to be with the filter
}

// specToken is one word of a coolant's specification: it holds a digit
// or is in capitals (G13, TL-774, OAT), or is one of the words such
// names are made of.
var specToken = regexp.MustCompile(`^(?:\S*\d\S*|[A-Z][A-Z0-9-]+|(?i:long|life|extended|super|ethylene|glycol|based|organic|acid|technology|coolant|antifreeze|premium|langzeit\S*))$`)

// coolantKind names a kind of coolant in Chinese.
var coolantKind = regexp.MustCompile(`型|长效|乙二醇|冷却液|OAT|LLC|G\d`)

// axleLead is what may stand between a pressure and the axle named after
// it ("2.5 bar for the front").
var axleLead = regexp.MustCompile(`^[\s,(（]*(?:(?:for|on|at)\s+the\s+|für\s+)?`)

// coolantSpec is the coolant's specification in rest (the sentence after
// the coolant's name; rest starts at byte offset from of the sentence,
// whose quantities are qs): its specification words up to a quantity, a
// comma or the sentence's end. Chinese is read to its first comma or
// stop and kept when it names a kind of coolant.
func coolantSpec(rest string, qs []quantity, from int) string {
	for _, q := range qs {
		if q.start >= from {
			rest = rest[:q.start-from]
			break
		}
	}
	rest = strings.TrimLeft(rest, " :：-–")
	if r, _ := utf8.DecodeRuneInString(rest); r >= 0x2E80 {
		if i := strings.IndexAny(rest, "，,。；;"); i >= 0 {
			rest = rest[:i]
		}
		if utf8.RuneCountInString(rest) <= 30 && coolantKind.MatchString(rest) {
			return strings.TrimSpace(rest)
		}
		return ""
	}
	var words []string
	depth := 0
	for _, f := range strings.Fields(rest) {
		end := strings.ContainsAny(f, ",;.") && !strings.ContainsAny(strings.TrimRight(f, ",;."), ",;.")
		word := strings.TrimRight(f, ",;.")
		open := depth > 0 || strings.HasPrefix(word, "(")
		depth += strings.Count(word, "(") - strings.Count(word, ")")
		if !open && !specToken.MatchString(word) {
			break
		}
		words = append(words, word)
		if end && depth == 0 {
			break
		}
	}
	if depth != 0 || len(words) == 0 {
		return ""
	}
	return strings.Join(words, " ")
}

// primaryPressures are the pressures of qs less each that repeats the one
// before in another unit ("2.3 bar (230 kPa)", "2.3 bar / 33 psi").
func primaryPressures(s string, qs []quantity) []quantity {
	var out []quantity
	var prev *quantity
	for i, q := range qs {
		if q.unit != UnitBar && q.unit != UnitKPa && q.unit != UnitPSI {
			continue
		}
		if prev != nil && prev.unit != q.unit && strings.Trim(s[prev.end:q.start], " ") != "" &&
			strings.Trim(s[prev.end:q.start], " (/（") == "" {
			prev = &qs[i]
			continue
		}
		out = append(out, q)
		prev = &qs[i]
	}
	return out
}

// pressureHeader reads a pressure table's header line: its columns, two
// loads or two axles in order; nil when line is no such header.
func pressureHeader(line string) []string {
	if strings.ContainsAny(line, "0123456789") || utf8.RuneCountInString(line) > 80 {
		return nil
	}
	type col struct {
		at   int
		name string
	}
	find := func(re *regexp.Regexp, name string) []col {
		var out []col
		for _, m := range re.FindAllStringIndex(line, -1) {
			out = append(out, col{m[0], name})
		}
		return out
	}
	loads := append(find(normWord, norm), find(fullWord, full)...)
	axles := append(find(frontWord, front), find(rearWord, rear)...)
	pick := loads
	if len(loads) != 2 || loads[0].name == loads[1].name {
		pick = axles
	}
	if len(pick) != 2 || pick[0].name == pick[1].name || len(loads) == 2 && len(axles) == 2 {
		return nil
	}
	if pick[0].at > pick[1].at {
		pick[0], pick[1] = pick[1], pick[0]
	}
	return []string{pick[0].name, pick[1].name}
}

// pressureRow reads line as a row under a header of columns: one pressure
// per column, the row named by the other dimension. ok is false when line
// prints no pressure (the table ended); a row that cannot be read gives
// no items.
func pressureRow(p Page, line string, columns []string) ([]Item, bool) {
	ps := primaryPressures(line, quantities(line))
	if len(ps) == 0 {
		return nil, false
	}
	label := line[:ps[0].start]
	if len(ps) != len(columns) || notPressure.MatchString(line) {
		return nil, true
	}
	var axles []string
	var load string
	if columns[0] == norm || columns[0] == full {
		axles = axlesOf(label)
	} else {
		load = loadOf(label)
	}
	if load == "" && axles == nil {
		return nil, true // the row does not say what its pressures are
	}
	var items []Item
	for i, q := range ps {
		ax, ld := axles, load
		if ld == "" {
			ld = columns[i]
		} else {
			ax = []string{columns[i]}
		}
		for _, a := range ax {
			items = append(items, newItem(p, pressureKey(a, ld), q.text, &ps[i], line))
		}
	}
	return items, true
}

// axlesOf are the axles text names: both, front or rear; nil for none or
// for front and rear named apart.
func axlesOf(text string) []string {
	if bothWord.MatchString(text) {
		return []string{front, rear}
	}
	f, r := frontWord.MatchString(text), rearWord.MatchString(text)
	switch {
	case f && !r:
		return []string{front}
	case r && !f:
		return []string{rear}
	}
	return nil
}

// loadOf is the load text names: full, normal, or "" for none.
func loadOf(text string) string {
	switch {
	case fullWord.MatchString(text):
		return full
	case normWord.MatchString(text):
		return norm
	}
	return ""
}

// prosePressures reads the tyre pressures of a sentence.
func prosePressures(p Page, s string, qs []quantity) []Item {
	ps := primaryPressures(s, qs)
	if len(ps) == 0 || notPressure.MatchString(s) {
		return nil
	}
	hasTyre := tyreLabel.MatchString(s)
	var items []Item
	prevEnd := 0 // where the text that may name the next pressure's axle starts
	for i, q := range ps {
		axles := lastAxles(s[prevEnd:q.start])
		prevEnd = q.end
		if axles == nil {
			next := len(s)
			if i+1 < len(ps) {
				next = ps[i+1].start
			}
			after := s[q.end:next]
			lead := len(axleLead.FindString(after))
			var n int
			if axles, n = leadingAxles(after[lead:]); axles != nil {
				prevEnd = q.end + lead + n // "36 psi front and 41 psi rear": front is 36 psi's
			}
		}
		if axles == nil {
			axles = lastAxles(s[:q.start])
		}
		if axles == nil && hasTyre && len(ps) == 1 {
			axles = []string{front, rear}
		}
		if axles == nil || !hasTyre && !frontWord.MatchString(s) && !rearWord.MatchString(s) {
			continue
		}
		load := norm
		if lastLoad(s[:q.start]) == full {
			load = full
		}
		for _, a := range axles {
			items = append(items, newItem(p, pressureKey(a, load), q.text, &ps[i], s))
		}
	}
	return items
}

// lastAxles are the axles named last in text.
func lastAxles(text string) []string {
	type hit struct {
		at    int
		axles []string
	}
	var last *hit
	for _, c := range []struct {
		re    *regexp.Regexp
		axles []string
	}{{bothWord, []string{front, rear}}, {frontWord, []string{front}}, {rearWord, []string{rear}}} {
		for _, m := range c.re.FindAllStringIndex(text, -1) {
			// "front and rear" holds "rear" too: the longer phrase wins
			// where they end together.
			if last == nil || m[1] > last.at {
				last = &hit{m[1], c.axles}
			}
		}
	}
	if last == nil {
		return nil
	}
	return last.axles
}

// leadingAxles are the axles text starts by naming, and the length of
// their name.
func leadingAxles(text string) ([]string, int) {
	for _, c := range []struct {
		re    *regexp.Regexp
		axles []string
	}{{bothWord, []string{front, rear}}, {frontWord, []string{front}}, {rearWord, []string{rear}}} {
		if loc := c.re.FindStringIndex(text); loc != nil && loc[0] == 0 {
			return c.axles, loc[1]
		}
	}
	return nil, 0
}

// lastLoad is the load named last in text, "" for none.
func lastLoad(text string) string {
	at, load := -1, ""
	for _, c := range []struct {
		re   *regexp.Regexp
		load string
	}{{fullWord, full}, {normWord, norm}} {
		for _, m := range c.re.FindAllStringIndex(text, -1) {
			if m[0] > at {
				at, load = m[0], c.load
			}
		}
	}
	return load
}
