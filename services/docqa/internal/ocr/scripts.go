package ocr

import (
	"errors"
	"fmt"
	"image"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Auto is the OCR_LANGUAGES setting that reads each page with the
// installed languages of its script, which Tesseract's orientation and
// script detection (OSD, the `osd` data) tells per page.
const Auto = "auto"

// scriptOf names the script of Tesseract's languages the way OSD names
// scripts (`Script: Latin`). OSD tells apart Latin, Fraktur, Cyrillic,
// Greek, Arabic, Hebrew, Han, Japanese, Korean, Devanagari, Bengali, Tamil,
// Telugu, Kannada, Malayalam and Thai (the scripts of osd.traineddata's
// characters, with Japanese and Korean for Han mixed with kana or Hangul);
// the languages of other scripts (Georgian, Armenian, Ethiopic, Khmer, ...)
// are left out of this table, and Plan reads them on every page, as it
// does a language it does not know (a model trained by the operator).
var scriptOf = map[string]string{}

func init() {
	for script, langs := range map[string]string{
		"Latin": "afr aze bos bre cat ceb ces cos cym dan deu eng enm epo est eus fao fil fin fra frm fry gla gle glg " +
			"hat hrv hun ind isl ita ita_old jav kmr lat lav lit ltz mlt mri msa nld nor oci pol por que ron slk slv " +
			"spa spa_old sqi srp_latn sun swa swe tgl ton tur uzb vie yor",
		"Fraktur":    "frk deu_latf",
		"Cyrillic":   "aze_cyrl bel bul kaz kir mkd mon rus srp tat tgk ukr uzb_cyrl",
		"Greek":      "ell grc",
		"Arabic":     "ara fas pus snd uig urd",
		"Hebrew":     "heb yid",
		"Han":        "chi_sim chi_sim_vert chi_tra chi_tra_vert",
		"Japanese":   "jpn jpn_vert",
		"Korean":     "kor kor_vert",
		"Devanagari": "hin mar nep san",
		"Bengali":    "asm ben",
		"Tamil":      "tam",
		"Telugu":     "tel",
		"Kannada":    "kan",
		"Malayalam":  "mal",
		"Thai":       "tha",
	} {
		for _, l := range strings.Fields(langs) {
			scriptOf[l] = script
		}
	}
}

// osdScripts maps the names OSD may print for a script to those of
// scriptOf: Tesseract folds kana into Japanese and Hangul into Korean
// itself, but its script models (script/HanS) spell Han otherwise.
var osdScripts = map[string]string{
	"Katakana": "Japanese", "Hiragana": "Japanese", "Hangul": "Korean", "HanS": "Han", "HanT": "Han",
}

// Recognizable are the languages of installed (`tesseract --list-langs`)
// that read text: all but osd (OSD's own data) and equ (the legacy
// engine's equation model, which the LSTM engine cannot load), sorted.
func Recognizable(installed []string) []string {
	var out []string
	for _, l := range installed {
		if l != "osd" && l != "equ" {
			out = append(out, l)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Plan says which of the languages Auto reads a page with, by the script
// OSD names for it.
type Plan struct {
	// Languages are every language: what a page reads with when OSD cannot
	// tell its script (too few characters), or names one without an
	// installed language.
	Languages []string
	// Scripts maps each script with an installed language to the languages
	// a page of it reads with: its own, and those of Always.
	Scripts map[string][]string
	// Always are the languages of no script OSD names (scriptOf): read on
	// every page, since no page can be told to be theirs.
	Always []string
}

// NewPlan makes the plan for langs.
func NewPlan(langs []string) Plan {
	p := Plan{Languages: slices.Sorted(slices.Values(langs)), Scripts: map[string][]string{}}
	p.Languages = slices.Compact(p.Languages)
	for _, l := range p.Languages {
		if s, ok := scriptOf[l]; ok {
			p.Scripts[s] = append(p.Scripts[s], l)
		} else {
			p.Always = append(p.Always, l)
		}
	}
	for s, ls := range p.Scripts {
		p.Scripts[s] = slices.Sorted(slices.Values(append(ls, p.Always...)))
	}
	return p
}

// For returns the languages a page of script reads with; all of them when
// script is "" (OSD failed) or has no installed language.
func (p Plan) For(script string) []string {
	if s, ok := osdScripts[script]; ok {
		script = s
	}
	if ls, ok := p.Scripts[script]; ok {
		return ls
	}
	return p.Languages
}

// ScriptNames are the scripts of the plan, sorted.
func (p Plan) ScriptNames() []string { return slices.Sorted(maps.Keys(p.Scripts)) }

// OSD is what Tesseract's orientation and script detection (`--psm 0`)
// says of a page.
type OSD struct {
	// Rotate is how far to turn the image clockwise to make it upright
	// (0, 90, 180 or 270); OrientationConfidence is Tesseract's margin for
	// it over the next best orientation.
	Rotate                int
	OrientationConfidence float64
	Script                string
	ScriptConfidence      float64
}

// ParseOSD reads `tesseract ... --psm 0` output:
//
//	Page number: 0
//	Orientation in degrees: 180
//	Rotate: 180
//	Orientation confidence: 10.07
//	Script: Han
//	Script confidence: 0.55
//
// An output without a Rotate and a Script line is an error.
func ParseOSD(out []byte) (OSD, error) {
	var o OSD
	var haveRotate, haveScript bool
	for _, line := range strings.Split(string(out), "\n") {
		key, value, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		value = strings.TrimSpace(value)
		var err error
		switch strings.TrimSpace(key) {
		case "Rotate":
			o.Rotate, err = strconv.Atoi(value)
			if err == nil && !slices.Contains([]int{0, 90, 180, 270}, o.Rotate) {
				err = errors.New("not 0, 90, 180 or 270")
			}
			haveRotate = true
		case "Orientation confidence":
			o.OrientationConfidence, err = strconv.ParseFloat(value, 64)
		case "Script":
			o.Script, haveScript = value, value != ""
		case "Script confidence":
			o.ScriptConfidence, err = strconv.ParseFloat(value, 64)
		}
		if err != nil {
			return OSD{}, fmt.Errorf("OSD's %s %q: %w", strings.TrimSpace(key), value, err)
		}
	}
	if !haveRotate || !haveScript {
		return OSD{}, fmt.Errorf("no orientation and script in %q", firstLine(out))
	}
	return o, nil
}

// Rotate returns img turned clockwise by degrees (0, 90, 180 or 270), in a
// new image with its origin at 0, 0; img itself for 0.
func Rotate(img *image.Gray, degrees int) *image.Gray {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	var out *image.Gray
	switch degrees {
	case 90, 270:
		out = image.NewGray(image.Rect(0, 0, h, w))
	case 180:
		out = image.NewGray(image.Rect(0, 0, w, h))
	default:
		return img
	}
	for y := range h {
		row := img.Pix[img.PixOffset(img.Rect.Min.X, img.Rect.Min.Y+y):]
		for x := range w {
			var nx, ny int
			switch degrees {
			case 90:
				nx, ny = h-1-y, x
			case 180:
				nx, ny = w-1-x, h-1-y
			case 270:
				nx, ny = y, w-1-x
			}
			out.Pix[ny*out.Stride+nx] = row[x]
		}
	}
	return out
}

// unrotate maps the box of a word read on the image turned clockwise by
// degrees back to the image before the turn, of w x h pixels: the boxes an
// OCR page's highlights are drawn from are the page's as rendered.
func unrotate(word Word, degrees, w, h int) Word {
	l, t, bw, bh := word.Left, word.Top, word.Width, word.Height
	switch degrees {
	case 90:
		word.Left, word.Top, word.Width, word.Height = t, h-l-bw, bh, bw
	case 180:
		word.Left, word.Top = w-l-bw, h-t-bh
	case 270:
		word.Left, word.Top, word.Width, word.Height = w-t-bh, l, bh, bw
	}
	return word
}
