package receipt

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Date forms, each with where its year, month and day are. The numeric
// day/month forms are ordered by the receipt's country (see dayFirst).
var (
	cjkDate   = regexp.MustCompile(`(\d{4})\s?年\s?(\d{1,2})\s?月\s?(\d{1,2})\s?日?`)
	isoDate   = regexp.MustCompile(`\b(\d{4})[-./](\d{1,2})[-./](\d{1,2})\b`)
	dotDate   = regexp.MustCompile(`\b(\d{1,2})\.\s?(\d{1,2})\.\s?(\d{4}|\d{2})\b`)
	slashDate = regexp.MustCompile(`\b(\d{1,2})[/-](\d{1,2})[/-](\d{4}|\d{2})\b`)
	// "Nov 22, 2026", "November 22 2026", "22 Nov 2026", "22. November
	// 2026", "22 novembre 2026", "22-NOV-26".
	nameDateMD = regexp.MustCompile(`(?i)\b([a-zéèûä]{3,9})\.?\s(\d{1,2}),?\s(\d{4})\b`)
	nameDateDM = regexp.MustCompile(`(?i)\b(\d{1,2})(?:\.|er)?[\s-]([a-zéèûä]{3,9})\.?[\s-](\d{4}|\d{2})\b`)
	timeRE     = regexp.MustCompile(`(?i)\b([01]?\d|2[0-3])[:h]([0-5]\d)(?::[0-5]\d)?(?:\s?(am|pm)\b)?`)
	cjkTime    = regexp.MustCompile(`([01]?\d|2[0-3])\s?[时點点]\s?([0-5]\d)\s?分`)
)

var months = map[string]int{}

func init() {
	for i, names := range [][]string{
		{"jan", "january", "januar", "janvier", "jänner", "janv"},
		{"feb", "february", "februar", "février", "fevrier", "févr", "fevr"},
		{"mar", "march", "märz", "maerz", "mars", "mrz"},
		{"apr", "april", "avril", "avr"},
		{"may", "mai"},
		{"jun", "june", "juni", "juin"},
		{"jul", "july", "juli", "juillet", "juil"},
		{"aug", "august", "août", "aout"},
		{"sep", "sept", "september", "septembre"},
		{"oct", "october", "oktober", "octobre", "okt"},
		{"nov", "november", "novembre"},
		{"dec", "december", "dezember", "décembre", "decembre", "dez", "déc"},
	} {
		for _, n := range names {
			months[n] = i + 1
		}
	}
}

// dateHit is a date found on a line.
type dateHit struct {
	line       int
	date       time.Time
	start, end int
	sure       bool // the form tells day from month by itself
}

// findDates returns the dates printed on a line; order tells how to read
// d/m/y vs m/d/y (0: cannot tell). A date past opts.Now (plus a day) or
// before 2000 is not one: a card's expiry, a number that looks like one.
func findDates(i int, text string, order dateOrder, now time.Time) []dateHit {
	var out []dateHit
	add := func(loc []int, y, m, d int, sure bool) {
		if y < 100 {
			y += now.Year() / 100 * 100
			if y > now.Year()+1 {
				y -= 100
			}
		}
		t := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
		if t.Year() != y || int(t.Month()) != m || t.Day() != d || y < 2000 || t.After(now.AddDate(0, 0, 1)) {
			return
		}
		for _, h := range out {
			if loc[0] < h.end && h.start < loc[1] {
				return // overlapping a form tried before
			}
		}
		out = append(out, dateHit{line: i, date: t, start: loc[0], end: loc[1], sure: sure})
	}
	atoi := func(s string) int { n, _ := strconv.Atoi(s); return n }
	for _, m := range cjkDate.FindAllStringSubmatchIndex(text, -1) {
		add(m, atoi(text[m[2]:m[3]]), atoi(text[m[4]:m[5]]), atoi(text[m[6]:m[7]]), true)
	}
	for _, m := range isoDate.FindAllStringSubmatchIndex(text, -1) {
		add(m, atoi(text[m[2]:m[3]]), atoi(text[m[4]:m[5]]), atoi(text[m[6]:m[7]]), true)
	}
	for _, m := range nameDateMD.FindAllStringSubmatchIndex(text, -1) {
		if mo, ok := months[strings.ToLower(text[m[2]:m[3]])]; ok {
			add(m, atoi(text[m[6]:m[7]]), mo, atoi(text[m[4]:m[5]]), true)
		}
	}
	for _, m := range nameDateDM.FindAllStringSubmatchIndex(text, -1) {
		if mo, ok := months[strings.ToLower(text[m[4]:m[5]])]; ok {
			add(m, atoi(text[m[6]:m[7]]), mo, atoi(text[m[2]:m[3]]), true)
		}
	}
	// 30.11.2026 is day first in every country that writes dots.
	for _, m := range dotDate.FindAllStringSubmatchIndex(text, -1) {
		add(m, atoi(text[m[6]:m[7]]), atoi(text[m[4]:m[5]]), atoi(text[m[2]:m[3]]), true)
	}
	for _, m := range slashDate.FindAllStringSubmatchIndex(text, -1) {
		a, b, y := atoi(text[m[2]:m[3]]), atoi(text[m[4]:m[5]]), atoi(text[m[6]:m[7]])
		switch {
		case a > 12 && b <= 12:
			add(m, y, b, a, true)
		case b > 12 && a <= 12:
			add(m, y, a, b, true)
		case a == b:
			add(m, y, a, b, true)
		case order == dayFirst:
			add(m, y, b, a, false)
		case order == monthFirst:
			add(m, y, a, b, false)
		}
	}
	return out
}

// findTime returns the first time of day on a line as HH:MM.
func findTime(text string) (string, []int, bool) {
	if m := cjkTime.FindStringSubmatchIndex(text); m != nil {
		h, _ := strconv.Atoi(text[m[2]:m[3]])
		mi, _ := strconv.Atoi(text[m[4]:m[5]])
		return fmt.Sprintf("%02d:%02d", h, mi), m[:2], true
	}
	for _, m := range timeRE.FindAllStringSubmatchIndex(text, -1) {
		// 12:30 inside 1:12:30.5 or a ratio 1:2 is not a time: minutes
		// take two digits, and a digit or a separator may not touch it.
		if m[0] > 0 && (isDigit(text[m[0]-1]) || isSep(text[m[0]-1])) {
			continue
		}
		if m[1] < len(text) && (isDigit(text[m[1]]) || text[m[1]] == ',' || text[m[1]] == '.' && m[1]+1 < len(text) && isDigit(text[m[1]+1])) {
			continue
		}
		h, _ := strconv.Atoi(text[m[2]:m[3]])
		mi, _ := strconv.Atoi(text[m[4]:m[5]])
		if m[6] >= 0 {
			switch strings.ToLower(text[m[6]:m[7]]) {
			case "pm":
				if h < 12 {
					h += 12
				}
			case "am":
				if h == 12 {
					h = 0
				}
			}
		}
		return fmt.Sprintf("%02d:%02d", h, mi), m[:2], true
	}
	return "", nil, false
}

// dateOrder is how a receipt writes a numeric date with slashes.
type dateOrder int

const (
	orderUnknown dateOrder = iota
	dayFirst               // 30/11/2026: the UK, France, Germany, China's d/m forms
	monthFirst             // 11/30/2026: the United States
)

// regionOrder is the date order of a country's receipts.
func regionOrder(region string) dateOrder {
	switch strings.ToUpper(region) {
	case "":
		return orderUnknown
	case "US", "PH", "FM", "MH", "PW":
		return monthFirst
	}
	return dayFirst
}
