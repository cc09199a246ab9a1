package csvfile

import (
	"bytes"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/htmlindex"
	"golang.org/x/text/language"

	"github.com/carhub/backend/pkg/apperr"
)

// EncodingUTF8 is the encoding name of a file read as it is.
const EncodingUTF8 = "utf-8"

// ParseEncoding reads the encoding parameter of an import: any label of
// the WHATWG Encoding Standard (golang.org/x/text/encoding/htmlindex), such
// as utf-8, windows-1252, latin1, gbk or shift_jis; "" is nil (Decode
// decides). An unknown label is an error naming the parameter.
func ParseEncoding(label string) (encoding.Encoding, error) {
	if label == "" {
		return nil, nil
	}
	e, err := htmlindex.Get(label)
	if err != nil {
		return nil, apperr.Invalid("encoding", "%q is not an encoding label such as utf-8, windows-1252, gbk or shift_jis", label)
	}
	return e, nil
}

// Decode returns an import file's text as UTF-8 and the name of the
// encoding it was read in (a WHATWG name: utf-8, windows-1252, gb18030,
// shift_jis, ...).
//
// enc, when not nil, is the file's encoding (ParseEncoding). Without it,
// valid UTF-8 (with or without a byte order mark) is taken as it is, and
// any other file is read in the code page that Excel's plain "CSV" writes
// for the owner's language (LegacyEncoding of lang()): the semicolon files
// of a decimal-comma locale come in Windows-1252 on Western European
// Windows, in GB18030 on Chinese; where that is Windows-1252, a file whose
// lines end with a lone CR is Mac OS Roman, as Excel's "CSV (Macintosh)"
// writes it.
//
// Nothing is guessed or altered silently; refused, on "file" and naming
// the line: a file that is not UTF-8 although enc says so; a byte the
// encoding does not define (its decoder would write U+FFFD in its place),
// which also catches most files in another code page than the guessed
// one; a guessed Windows-1252 or Mac OS Roman for a file that also holds
// UTF-8 characters (edited in two encodings); and UTF-16 (a UTF-16 byte order
// mark), which a spreadsheet writes only as its tab-separated "Unicode
// text".
func Decode(b []byte, enc encoding.Encoding, lang func() (language.Tag, error)) ([]byte, string, error) {
	if bytes.HasPrefix(b, []byte{0xff, 0xfe}) || bytes.HasPrefix(b, []byte{0xfe, 0xff}) {
		return nil, "", apperr.Invalid("file", "is UTF-16 text; save it as CSV UTF-8 (or the spreadsheet's plain CSV)")
	}
	valid := utf8.Valid(b)
	if enc == nil && valid {
		return b, EncodingUTF8, nil
	}
	if enc == nil {
		tag, err := lang()
		if err != nil {
			return nil, "", err
		}
		enc = LegacyEncoding(tag)
		if enc == charmap.Windows1252 && macLineEnds(b) {
			// Excel's "CSV (Macintosh)": lines ended by a lone CR, and
			// the text in Mac OS Roman, where ü is 0x9F (Ÿ in 1252).
			enc = charmap.Macintosh
		}
		// Only these two code pages' text is ASCII but for a few letters,
		// so only there a valid UTF-8 sequence is no accident; Cyrillic,
		// Greek or Thai letters (the high half) and double-byte characters
		// form them by chance.
		if enc == charmap.Windows1252 || enc == charmap.Macintosh {
			if utf8At, badAt := scanUTF8(b); utf8At >= 0 && badAt >= 0 {
				return nil, "", apperr.Invalid("file", "line %d is UTF-8 text but line %d is not: save the whole file in one encoding (CSV UTF-8)",
					lineAt(b, utf8At), lineAt(b, badAt))
			}
		}
	}
	name, err := htmlindex.Name(enc)
	if err != nil { // every encoding above is one of htmlindex's
		return nil, "", err
	}
	if name == EncodingUTF8 {
		if !valid {
			_, badAt := scanUTF8(b)
			return nil, "", apperr.Invalid("file", "line %d is not UTF-8 text; name the file's encoding with encoding (such as windows-1252)", lineAt(b, badAt))
		}
		return b, name, nil
	}
	text, err := enc.NewDecoder().Bytes(b)
	if err != nil {
		return nil, "", apperr.Invalid("file", "is not %s text: %v", name, err)
	}
	if i := bytes.IndexRune(text, utf8.RuneError); i >= 0 {
		return nil, "", apperr.Invalid("file", "line %d is not %s text; name the file's encoding with encoding, or save it as CSV UTF-8", lineAt(text, i), name)
	}
	return text, name, nil
}

// macLineEnds reports whether b's first line ends with a lone CR, as the
// files of classic Mac OS (and Excel's "CSV (Macintosh)") do.
func macLineEnds(b []byte) bool {
	i := bytes.IndexAny(b, "\r\n")
	return i >= 0 && b[i] == '\r' && (i+1 == len(b) || b[i+1] != '\n')
}

// scanUTF8 returns where b holds its first UTF-8 character of two to four
// bytes and its first byte that is not UTF-8, each -1 when there is none.
func scanUTF8(b []byte) (utf8At, badAt int) {
	utf8At, badAt = -1, -1
	for i := 0; i < len(b) && (utf8At < 0 || badAt < 0); {
		if b[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			if badAt < 0 {
				badAt = i
			}
		case utf8At < 0:
			utf8At = i
		}
		i += size
	}
	return utf8At, badAt
}

// lineAt is the line (from 1) of b that holds offset i; a lone CR (classic
// Mac OS) ends a line too.
func lineAt(b []byte, i int) int {
	before := b[:i]
	return 1 + bytes.Count(before, []byte{'\n'}) + bytes.Count(before, []byte{'\r'}) - bytes.Count(before, []byte("\r\n"))
}

// LegacyEncoding is the code page Windows (and with it Excel's plain "CSV")
// uses for text in lang: its "ANSI code page" for the language, as
// Microsoft assigns them, by its WHATWG name. Windows-1252 for the
// languages of Western Europe and the Americas, and for an undetermined
// language.
func LegacyEncoding(lang language.Tag) encoding.Encoding {
	base, _ := lang.Base()
	script, _ := lang.Script()
	name, ok := legacyCodePages[base.String()+"-"+script.String()]
	if !ok {
		name, ok = legacyCodePages[base.String()]
	}
	if !ok {
		name = "windows-1252"
	}
	e, err := htmlindex.Get(name)
	if err != nil { // the names below are all WHATWG's
		return charmap.Windows1252
	}
	return e
}

// legacyCodePages are the ANSI code pages other than Windows-1252, by
// language or by language and script (x/text's likely script when the tag
// names none: zh is Hans, zh-TW Hant, sr Cyrl).
var legacyCodePages = func() map[string]string {
	m := map[string]string{}
	for name, langs := range map[string][]string{
		"gb18030":      {"zh-Hans"}, // GBK's superset, which Simplified Chinese Windows writes
		"big5":         {"zh-Hant"},
		"shift_jis":    {"ja"},
		"euc-kr":       {"ko"},
		"windows-874":  {"th"},
		"windows-1250": {"cs", "pl", "sk", "hu", "sl", "hr", "ro", "bs", "sq", "sr-Latn"},
		"windows-1251": {"ru", "uk", "be", "bg", "mk", "sr", "kk", "ky", "mn", "tt"},
		"windows-1253": {"el"},
		"windows-1254": {"tr", "az"},
		"windows-1255": {"he", "yi"},
		"windows-1256": {"ar", "fa", "ur"},
		"windows-1257": {"et", "lv", "lt"},
		"windows-1258": {"vi"},
	} {
		for _, l := range langs {
			m[l] = name
		}
	}
	return m
}()
