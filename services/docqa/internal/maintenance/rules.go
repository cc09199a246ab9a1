package maintenance

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The rule-based extraction reads two shapes of schedule, in English,
// German and Chinese:
//
//   - an interval expression in a sentence or a list item: "every" (alle,
//     每, 每行驶, 每隔) then one or more quantities joined by "or" (oder,
//     或, "/", ","): "every 15,000 km or 12 months"; the item's title is
//     what the sentence says before it, less its verbs and articles, and a
//     leading condition ("Under severe conditions (...)") goes to
//     conditions;
//   - a table: a header line that names units column by column ("Item
//     Every km Every miles Every months", "Bauteil alle km alle Monate",
//     "项目 每公里 每月") and rows below it whose last cells are numbers
//     or dashes, one per unit.
//
// Anything else is left alone: a distance without "every" ("warranty 3
// years or 100,000 km", "first inspection at 1,000 km") is not an interval.

// everyRE is the word that makes a quantity an interval.
const everyRE = `(?:\bevery|\beach|\balle|\bjede[sn]?|每\s*(?:行驶|隔)?)`

// anyQuantityRE is a quantity in digits or in words ("15,000 km", "8万公里",
// "two years", "zweite Jahr", "两年"); bareTimeRE a unit of time alone,
// which after an "every" word counts one ("every year", "jedes Jahr",
// "每年").
const (
	anyQuantityRE = `(?:` + quantityRE + `|` + wordQuantityRE + `)`
	bareTimeRE    = `(?:(?:year|jahr|month|monat)\b|年|月)`
	quantityOrOne = `(?:` + anyQuantityRE + `|` + bareTimeRE + `|` + adverbRE + `)`
)

// joinRE joins the quantities of one interval: "or", "oder", "或", a
// comma, a slash, a parenthesis, and "spätestens" (at the latest).
const joinRE = `\s*\)?\s*(?:,|/|\(|\bor\b|\boder\b|或者|或|、)\s*(?:(?:spätestens|at the latest)\s+)?(?:(?:every|each|alle|jede[sn]?)\s+|每\s*)?`

// The shapes of an interval expression: "every" and quantities; "at 40,000
// km intervals", "at intervals of 2 years"; "im Abstand von 30.000 km",
// "in Abständen von"; and the adverbs ("annually", "jährlich").
var expressionPattern = regexp.MustCompile(`(?i)` +
	everyRE + `\s*` + quantityOrOne + `(?:` + joinRE + quantityOrOne + `)*` +
	`|\bat\s+` + anyQuantityRE + `\s*intervals?\b` +
	`|\bat\s+intervals\s+of\s+` + anyQuantityRE + `(?:` + joinRE + anyQuantityRE + `)*` +
	`|\b(?:im\s+Abstand|in\s+Abständen)\s+von\s+` + anyQuantityRE + `(?:` + joinRE + quantityOrOne + `)*` +
	`|` + adverbRE)

// bareTimePattern finds "every year" and its kin inside an expression.
var bareTimePattern = regexp.MustCompile(`(?i)` + everyRE + `\s*(` + bareTimeRE + `)`)

// interval is the numbers of one item; zero is none.
type interval struct {
	km, miles, months int
}

func (iv interval) empty() bool { return iv.km == 0 && iv.miles == 0 && iv.months == 0 }

// add records q in iv; the first quantity of each unit wins.
func (iv *interval) add(q quantity) {
	switch q.unit {
	case Km:
		if iv.km == 0 {
			iv.km = q.value
		}
	case Miles:
		if iv.miles == 0 {
			iv.miles = q.value
		}
	case Months:
		if iv.months == 0 {
			iv.months = q.value
		}
	case Years:
		if iv.months == 0 {
			iv.months = 12 * q.value
		}
	}
}

// Extract proposes the items of pages by the rules above, in page order
// and in the order each page prints them, without duplicates.
func Extract(pages []Page) []Item {
	var out []Item
	for _, p := range pages {
		out = append(out, extractPage(p)...)
	}
	return Dedupe(out)
}

// extractPage reads one page's text.
func extractPage(p Page) []Item {
	var items []Item
	lines := strings.Split(normalizeSpaces(p.Text), "\n")
	var header []column
	var grid *gridHeader
	var prose []string // the lines of the paragraph being read
	flush := func() {
		if len(prose) > 0 {
			items = append(items, sentenceItems(p, strings.Join(prose, "\n"))...)
			prose = prose[:0]
		}
	}
	for i, line := range lines {
		line = strings.TrimSpace(line)
		if line == "" {
			flush()
			continue
		}
		if units := headerUnits(line); len(units) > 0 {
			flush()
			header = units
			continue
		}
		if g, ok := gridColumns(lines[max(0, i-3):i], line); ok {
			flush()
			grid = &g
			continue
		}
		if grid != nil {
			if it, ok := grid.row(p, line); ok {
				flush()
				if !it.empty() {
					items = append(items, it.item)
				}
				continue
			}
			grid = nil
		}
		if header != nil {
			if it, ok := tableRow(p, line, header); ok {
				flush()
				items = append(items, it)
				continue
			}
			header = nil // the table ended: its rows follow each other
		}
		if isHeading(lines, i) {
			flush()
			continue
		}
		prose = append(prose, line)
	}
	flush()
	return items
}

// normalizeSpaces makes no-break and thin spaces plain ones, as number
// grouping and joining lines expect.
func normalizeSpaces(s string) string {
	return strings.NewReplacer("\u00a0", " ", "\u202f", " ", "\u2009", " ", "\r", "").Replace(s)
}

// isHeading reports whether lines[i] is a heading rather than the start or
// middle of a paragraph: short, without digits or a sentence's end, not
// continued by a line that starts in lower case or with a digit, and
// first on the page or after a line that ended a sentence.
func isHeading(lines []string, i int) bool {
	line := strings.TrimSpace(lines[i])
	if utf8.RuneCountInString(line) > 40 || strings.ContainsAny(line, "0123456789") || endsSentence(line) || tableHeadWord.MatchString(line) {
		return false
	}
	if i+1 < len(lines) {
		if r, _ := utf8.DecodeRuneInString(strings.TrimSpace(lines[i+1])); unicode.IsLower(r) || unicode.IsDigit(r) {
			return false
		}
	}
	return i == 0 || endsSentence(strings.TrimSpace(lines[i-1])) || strings.TrimSpace(lines[i-1]) == ""
}

func endsSentence(line string) bool {
	r, _ := utf8.DecodeLastRuneInString(line)
	return strings.ContainsRune(".!?。！？:：;；", r)
}

// intervalWord in a header line with one unit makes it a schedule's
// header ("Item Interval (km)"); a line of prose that names one unit does
// not start a table.
var intervalWord = regexp.MustCompile(`(?i)every|each|interval|alle|每|间隔|周期|間隔`)

// headerUnits reads a table's header line: the units its columns name, in
// order; nil when line is no such header (it names no unit, or one without
// an interval word, or holds a number: "Interval (x 1,000 km)" is not
// read).
func headerUnits(line string) []column {
	// "km x 1000": the column counts thousands of its unit.
	line = unitThousands.ReplaceAllStringFunc(line, func(m string) string {
		return thousandsMark + unitThousands.FindStringSubmatch(m)[1]
	})
	if strings.ContainsAny(line, "0123456789") || endsSentence(line) || utf8.RuneCountInString(line) > 80 {
		return nil
	}
	var cols []column
	for _, f := range strings.Fields(line) {
		f = strings.Trim(f, "()[]（）:：")
		f = strings.TrimPrefix(f, "每")
		scale := 1
		if rest, ok := strings.CutPrefix(f, thousandsMark); ok {
			f, scale = rest, 1000
		}
		for _, part := range strings.Split(f, "/") {
			if u := unitOf(part); u != NoUnit {
				cols = append(cols, column{u, scale})
			}
		}
	}
	if len(cols) > 4 || len(cols) == 1 && !intervalWord.MatchString(line) {
		return nil
	}
	return cols
}

// column is a table's column of intervals: its unit, and what its numbers
// are multiplied by (1000 under "km x 1000").
type column struct {
	unit  Unit
	scale int
}

// unitThousands is a distance unit counted in thousands in a table's
// header: "km x 1000", "miles × 1,000".
var unitThousands = regexp.MustCompile(`(?i)\b(km|miles|mi)\s*[×x]\s*1[.,  ]?000\b`)

// thousandsMark stands for "x 1000" in a header line once read.
const thousandsMark = "\x00k"

var cellPattern = regexp.MustCompile(`^(?:` + noSpaceNumberRE + `|[-–—])$`)

// tableRow reads line as a row under a header of units: a title, then one
// cell per unit, each a number or a dash. Cells grouped by spaces
// ("60 000") are joined when the count asks for it.
func tableRow(p Page, line string, units []column) (Item, bool) {
	fields := strings.Fields(line)
	k := len(fields)
	for k > 0 && cellPattern.MatchString(fields[k-1]) {
		k--
	}
	cells := fields[k:]
	if len(cells) > len(units) {
		cells = joinSpaceGroups(cells, len(units))
	}
	if len(cells) != len(units) || k == 0 {
		return Item{}, false
	}
	title := strings.Join(fields[:k], " ")
	if !strings.ContainsFunc(title, unicode.IsLetter) {
		return Item{}, false
	}
	var iv interval
	for i, c := range cells {
		if !unicode.IsDigit(rune(c[0])) {
			continue
		}
		n, ok := parseNumber(c)
		if !ok || n == 0 {
			return Item{}, false
		}
		iv.add(quantity{value: n * units[i].scale, unit: units[i].unit})
	}
	if iv.empty() {
		return Item{}, false
	}
	return newItem(p, cleanTitle(title), "", iv, line), true
}

// joinSpaceGroups joins cells "60" "000" into "60000" until want cells
// remain, or returns cells as they are when that cannot be done.
func joinSpaceGroups(cells []string, want int) []string {
	out := append([]string(nil), cells...)
	for i := len(out) - 1; i > 0 && len(out) > want; i-- {
		prev, cur := out[i-1], out[i]
		if len(cur) == 3 && allDigits(cur) && len(prev) <= 3 && allDigits(prev) {
			out[i-1] = prev + cur
			out = append(out[:i], out[i+1:]...)
		}
	}
	return out
}

func allDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

// sentenceEnd ends a sentence: Latin punctuation before a space or the
// end (not the point of "4.2" or "9,999.9"), or a CJK full stop.
var sentenceEnd = regexp.MustCompile(`[.!?;](?:\s|$)|[。！？；]`)

// sentenceItems reads the interval expressions of a paragraph, sentence by
// sentence.
func sentenceItems(p Page, paragraph string) []Item {
	var items []Item
	start := 0
	ends := sentenceEnd.FindAllStringIndex(paragraph, -1)
	ends = append(ends, []int{len(paragraph), len(paragraph)})
	for _, e := range ends {
		sentence := strings.TrimSpace(paragraph[start:e[1]])
		start = e[1]
		if sentence == "" {
			continue
		}
		items = append(items, expressionItems(p, sentence)...)
	}
	return items
}

// maxQuoteRunes bounds an item's quote: its own sentence or row, readable
// on a phone, never the table it stands in.
const maxQuoteRunes = 200

// expressionItems makes an item of each interval expression of sentence,
// titled by the words before it (after the previous expression, if any,
// and without a table's header line above them: "项目 保养周期", "Item
// Interval"). The quote is the sentence when it holds this one expression
// and fits maxQuoteRunes; else (a table read as lines, whose rows end in no
// full stop) the item's own row: from its title to the end of the line
// the expression ends on, cut to maxQuoteRunes.
func expressionItems(p Page, sentence string) []Item {
	var items []Item
	qs := quantities(sentence)
	from, quoteFrom := 0, 0    // after the previous interval; after the previous item
	lastItem, lastEnd := -1, 0 // the item of the previous interval, and where that interval ends
	severe := ""
	matches := expressionPattern.FindAllStringIndex(sentence, -1)
	if len(matches) > 0 {
		severe = severeColumn(sentence[:matches[0][0]])
	}
	for _, m := range matches {
		var iv interval
		for _, q := range qs {
			if q.start >= m[0] && q.end <= m[1] {
				iv.add(q)
			}
		}
		for _, b := range bareTimePattern.FindAllStringSubmatchIndex(sentence[m[0]:m[1]], -1) {
			iv.add(quantity{value: 1, unit: unitOf(sentence[m[0]+b[2] : m[0]+b[3]])})
		}
		if from > m[0] { // the words after the previous interval were its title
			continue
		}
		start := from + headerLines(sentence[from:m[0]])
		prefix := sentence[start:m[0]]
		if quoteFrom < from {
			start = quoteFrom + headerLines(sentence[quoteFrom:m[0]])
		}
		from = m[1]
		if iv.empty() {
			continue
		}
		conditions, rest := splitConditions(leadingJoin.ReplaceAllString(strings.ReplaceAll(prefix, "\n", " "), ""))
		title := cleanTitle(rest)
		end := len(sentence)
		if i := strings.IndexByte(sentence[m[1]:], '\n'); i >= 0 {
			end = m[1] + i
		}
		if title == "" && strings.TrimSpace(rest) == "" {
			// The interval comes first: "Every 40,000 km: replace the
			// spark plugs", "Alle 90.000 km: Zahnriemen ersetzen",
			// "每隔6万公里：更换火花塞".
			next := len(sentence)
			if i := slices.IndexFunc(matches, func(n []int) bool { return n[0] > m[0] }); i >= 0 {
				next = matches[i][0]
			}
			var tail int
			title, tail = suffixTitle(sentence[m[1]:next])
			end, from = m[1]+tail, m[1]+tail
		}
		if title == "" {
			// A table's severe-service column: the interval after a row's
			// normal one, under a header that names it, goes into that
			// row's conditions ("Severe service: every 3,750 miles").
			if severe != "" && lastItem >= 0 && lastItem == len(items)-1 && items[lastItem].Conditions == "" &&
				strings.Trim(sentence[lastEnd:m[0]], " \n)）") == "" {
				cond := closeParen(sentence[m[0]:m[1]], sentence[m[1]:])
				items[lastItem].Conditions = severe + ": " + lowerFirst(collapseSpaces(cond))
				quoteFrom = m[0] + len(cond) // the next row's title and quote start after this cell
				from = quoteFrom
			}
			lastItem = -1
			continue
		}
		quote := sentence
		if len(matches) > 1 || start > 0 || utf8.RuneCountInString(collapseSpaces(sentence)) > maxQuoteRunes {
			quote = cutRunes(collapseSpaces(sentence[start:end]), maxQuoteRunes)
		}
		items = append(items, newItem(p, title, conditions, iv, quote))
		quoteFrom = from
		lastItem, lastEnd = len(items)-1, m[1]
	}
	return items
}

// severeLabel names a table's column of intervals under severe conditions,
// as its header prints it.
var severeLabel = regexp.MustCompile(`(?i)severe(?:\s+(?:service|conditions|driving|use))?|erschwerte[n]?\s+(?:Betriebsbedingungen|Bedingungen)|(?:恶劣|严酷)(?:工况|条件|使用条件)?`)

// severeColumn is the label of a severe-service column in the header
// lines at the start of text ("" when there is none).
func severeColumn(text string) string {
	return severeLabel.FindString(text[:headerLines(text)])
}

// closeParen adds the ")" that follows expr in rest when expr opened one
// ("every 3,750 miles (6,000 km").
func closeParen(expr, rest string) string {
	if strings.Count(expr, "(") > strings.Count(expr, ")") && strings.HasPrefix(strings.TrimSpace(rest), ")") {
		return expr + ")"
	}
	return expr
}

// lowerFirst lowers the first letter of a Latin s: "Every" after a label.
func lowerFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if r < 0x80 {
		return string(unicode.ToLower(r)) + s[n:]
	}
	return s
}

// leadingJoin is an "or" that joins a title to an interval before it that
// named no job ("Every two years, or when towing, replace ...").
var leadingJoin = regexp.MustCompile(`(?i)^[\s,，]*(?:or|oder|and|und|或)\s+`)

// leadIn is what may stand between an interval that comes first and the
// colon before its job: "whichever comes first", "je nachdem, was zuerst
// eintritt", "以先到者为准".
var leadIn = regexp.MustCompile(`(?i)^[\s,，]*(?:(?:whichever|whatever)\s+(?:comes|occurs|is reached)\s+first|je\s+nachdem,?\s+was\s+zuerst\s+eintritt|以先到者为准)?\s*[:：]`)

// A job after its interval without a colon: a German infinitive at the
// end ("In Abständen von 30.000 km den Luftfilter erneuern") or a Chinese
// verb at the start ("每2万公里更换机油"). English needs the colon: "every
// 2 years the vehicle must be inspected" names no job.
var (
	germanJob  = regexp.MustCompile(`^\s*(\p{L}[^.!?:]*?)\s+(?:zu\s+)?(?:ersetzen|erneuern|wechseln|prüfen|kontrollieren|tauschen|austauschen|reinigen|schmieren)\s*[.!]?\s*$`)
	chineseJob = regexp.MustCompile(`^\s*(?:更换|检查|清洁|调整|润滑|添加)\p{Han}`)
)

// suffixTitle reads the job that follows an interval in tail (the text up
// to the next interval): after a colon, to the end of its line or, when
// the next line goes on in lower case, of the sentence. It returns the
// title and how much of tail it read ("" and 0 when there is none).
func suffixTitle(tail string) (string, int) {
	read := func(from int) int {
		end := from
		for {
			i := strings.IndexByte(tail[end:], '\n')
			if i < 0 {
				return len(tail)
			}
			end += i
			next, _ := utf8.DecodeRuneInString(strings.TrimSpace(tail[end+1:]))
			if !unicode.IsLower(next) {
				return end
			}
			end++
		}
	}
	if m := leadIn.FindStringIndex(tail); m != nil {
		end := read(m[1])
		job := strings.TrimSpace(strings.ReplaceAll(tail[m[1]:end], "\n", " "))
		if g := germanJob.FindStringSubmatch(job); g != nil {
			job = g[1]
		}
		return cleanTitle(job), end
	}
	end := read(0)
	job := strings.ReplaceAll(tail[:end], "\n", " ")
	if g := germanJob.FindStringSubmatch(job); g != nil {
		return cleanTitle(g[1]), end
	}
	if chineseJob.MatchString(job) {
		return cleanTitle(job), end
	}
	return "", 0
}

// headerLines returns how many bytes of prefix (the words before an
// interval, line by line) are a table's header lines: lines before the
// last that name an interval ("保养周期", "Interval", "alle") without a
// number, a comma or a sentence's end, followed by a line that does not go
// on in lower case (a sentence wrapped after "Every two years" is no
// header).
func headerLines(prefix string) int {
	n := 0
	for {
		i := strings.IndexByte(prefix[n:], '\n')
		if i < 0 {
			return n
		}
		line := strings.TrimSpace(prefix[n : n+i])
		next, _ := utf8.DecodeRuneInString(strings.TrimSpace(prefix[n+i+1:]))
		runes := utf8.RuneCountInString(line)
		head := intervalWord.MatchString(line) && runes <= 40 || tableHeadWord.MatchString(line) && runes <= 80
		if line != "" && (strings.ContainsAny(line, "0123456789,，") || endsSentence(line) || unicode.IsLower(next) || !head) {
			return n
		}
		n += i + 1
	}
}

// tableHeadWord starts the header of a table whose cells are intervals
// ("Item Normal service Severe service", "Bauteil Normal Erschwert").
var tableHeadWord = regexp.MustCompile(`(?i)^(?:items?|components?|parts?|operations?|bauteile?|wartungsarbeiten|wartungsarbeit|arbeiten|arbeit|position|保养项目|项目)(?:\s|$)`)

// cutRunes returns s when it has at most n runes, else its first n−1 up to
// the last space among them (all of them when there is none, as in
// Chinese) and "…".
func cutRunes(s string, n int) string {
	rs := []rune(s)
	if len(rs) <= n {
		return s
	}
	head := rs[:n-1]
	for i := len(head) - 1; i > 0; i-- {
		if head[i] == ' ' {
			head = head[:i]
			break
		}
	}
	return strings.TrimRight(string(head), " ,;") + "…"
}

// conditionStart opens a clause that says when an interval applies.
var conditionStart = regexp.MustCompile(`(?i)^(?:(?:under|in|when|if|for|during|bei|unter|wenn|im|während)\s|在|如果|若|对于)`)

// splitConditions splits a leading condition clause off prefix: from a
// condition word to the first comma outside parentheses, or to the
// parenthesis that closes at the outer level ("Bei erschwerten
// Bedingungen (Anhängerbetrieb, staubige Straßen) das Motoröl").
func splitConditions(prefix string) (conditions, rest string) {
	prefix = strings.TrimSpace(prefix)
	if !conditionStart.MatchString(prefix) {
		return "", prefix
	}
	depth := 0
	for i, r := range prefix {
		switch r {
		case '(', '（':
			depth++
		case ')', '）':
			depth--
			if depth == 0 {
				end := i + utf8.RuneLen(r)
				if rest := strings.TrimLeft(prefix[end:], " ,，"); rest != "" {
					return strings.TrimSpace(prefix[:end]), rest
				}
			}
		case ',', '，':
			if depth == 0 {
				return strings.TrimSpace(prefix[:i]), strings.TrimSpace(prefix[i+utf8.RuneLen(r):])
			}
		}
	}
	return "", prefix
}

// Words trimmed from a title: verbs and articles before it, modal verbs
// after it (English, German, Chinese). Matched as whole words, any case.
var (
	leadingWords  = regexp.MustCompile(`(?i)^(?:(?:change|replace|renew|check|inspect|rotate|lubricate|clean|have|the|a|an|der|die|das|den|dem|des|ein|eine|ist|sind|wird|werden|更换|检查)\s+|更换|检查)`)
	trailingWords = regexp.MustCompile(`(?i)(?:\s+(?:must|should|shall|needs? to|has to|have to|is to|are to|is|are|be|replaced|changed|checked|inspected|renewed|muss|müssen|sollte|sollten|soll|sollen|ist|sind|wird|werden)|应当|应该|应|需要|需|必须|须|要|一次)$`)
)

// cleanTitle makes the words before an interval a title: the part before
// a colon when there is one ("Wiper blades: replace every"), less leading
// verbs and articles and trailing modal verbs, its first letter capital.
func cleanTitle(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, ":："); i > 0 {
		s = s[:i]
	}
	const trim = " ,;:-–•·*，；：、.。"
	s = strings.TrimLeft(strings.Trim(s, trim), ")）"+trim) // ")" closes the interval before
	for {
		t := strings.Trim(trailingWords.ReplaceAllString(leadingWords.ReplaceAllString(s, ""), ""), trim)
		if t == s {
			break
		}
		s = t
	}
	if !strings.ContainsFunc(s, unicode.IsLetter) || utf8.RuneCountInString(s) > maxTitleRunes {
		return ""
	}
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:]
}

// A grid schedule: columns of distances in thousands ("Item 10 20 30 40",
// under a caption "× 1,000 km", "Laufleistung in 1.000 km", "（×1000 公里）"),
// and a row per job with a mark where it is due ("✓", "●") and a dash
// where it is not.
type gridHeader struct {
	columns []int // the distances, ascending, in unit
	unit    Unit
}

// thousandsPattern is a grid's caption: its columns count thousands.
var thousandsPattern = regexp.MustCompile(`(?i)(?:[×x]\s*|\bin\s+)1[.,  ]?000\s*(` + kmRE + `|` + milesRE + `)`)

// gridColumns reads line as the header of a grid: a word, then three or
// more ascending numbers, under (or with) a caption of thousands among
// the lines before it.
func gridColumns(before []string, line string) (gridHeader, bool) {
	// The caption may stand in the header line itself ("Service (x 1000
	// km) 15 30 45 60"): its number is no column.
	fields := strings.Fields(thousandsPattern.ReplaceAllString(line, ""))
	k := len(fields)
	for k > 0 && allDigits(fields[k-1]) {
		k--
	}
	if len(fields)-k < 3 || strings.ContainsAny(strings.Join(fields[:k], " "), "0123456789") {
		return gridHeader{}, false
	}
	var caption []string
	for _, l := range append(before, line) {
		if m := thousandsPattern.FindStringSubmatch(l); m != nil {
			caption = m
		}
	}
	if caption == nil {
		return gridHeader{}, false
	}
	g := gridHeader{unit: unitOf(caption[1])}
	for _, f := range fields[k:] {
		n, _ := strconv.Atoi(f)
		if n == 0 || len(g.columns) > 0 && n <= g.columns[len(g.columns)-1] || n > 1000 {
			return gridHeader{}, false
		}
		g.columns = append(g.columns, n)
	}
	return g, true
}

// gridMarks and gridDashes are what a grid's cells hold.
const (
	gridMarks  = "✓✔●◉■★•"
	gridDashes = "-–—－‐"
)

// gridItem is a row of a grid: an item, or none for a row that marks no
// column or marks them unevenly (an item is proposed only when its
// interval is certain).
type gridItem struct{ item Item }

func (g gridItem) empty() bool { return g.item.Title == "" }

// row reads line as a row of the grid: a title, then one cell per column.
// The interval is the first marked column's distance when every column
// whose distance is a multiple of it, and only those, is marked (15 30
// 45 60 marked at 30 and 60: every 30,000 km).
func (g gridHeader) row(p Page, line string) (gridItem, bool) {
	fields := strings.Fields(line)
	k := len(fields)
	for k > 0 && utf8.RuneCountInString(fields[k-1]) == 1 && strings.ContainsAny(fields[k-1], gridMarks+gridDashes) {
		k--
	}
	cells := fields[k:]
	if k == 0 || len(cells) == 0 || len(cells) > len(g.columns) {
		return gridItem{}, false
	}
	title := cleanTitle(strings.Join(fields[:k], " "))
	if len(cells) < len(g.columns) {
		return g.blankRow(p, title, line, cells), true
	}
	first := 0
	for i, c := range cells {
		marked := strings.ContainsAny(c, gridMarks)
		if marked && first == 0 {
			first = g.columns[i]
		}
		if first == 0 {
			continue
		}
		if marked != (g.columns[i]%first == 0) {
			return gridItem{}, true
		}
	}
	if first == 0 || title == "" {
		return gridItem{}, true
	}
	var iv interval
	iv.add(quantity{value: first * 1000, unit: g.unit})
	return gridItem{newItem(p, title, "", iv, line)}, true
}

// blankRow reads a row whose empty cells print nothing ("Air filter ✓ ✓"
// under 15 30 45 60): which columns its marks stand in cannot be told
// from the text, but on evenly spaced columns a job due every m-th
// column has len(columns)/m marks. The interval is read only when that
// count fits exactly one m (two marks of four: every second column); one
// mark of four (the third or the fourth?) gives no item.
func (g gridHeader) blankRow(p Page, title, line string, cells []string) gridItem {
	n, c := len(cells), len(g.columns)
	for _, cell := range cells {
		if !strings.ContainsAny(cell, gridMarks) {
			return gridItem{}
		}
	}
	for i, v := range g.columns {
		if v != g.columns[0]*(i+1) {
			return gridItem{}
		}
	}
	every := 0
	for m := 1; m <= c; m++ {
		if c/m == n {
			if every != 0 {
				return gridItem{}
			}
			every = m
		}
	}
	if every == 0 || title == "" {
		return gridItem{}
	}
	var iv interval
	iv.add(quantity{value: g.columns[every-1] * 1000, unit: g.unit})
	return gridItem{newItem(p, title, "", iv, line)}
}
