package csvfile

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/encoding/htmlindex"
	"golang.org/x/text/language"

	"github.com/carhub/backend/pkg/apperr"
)

// speaks is the lang of Decode: the owner speaks tag.
func speaks(tag string) func() (language.Tag, error) {
	return func() (language.Tag, error) { return language.MustParse(tag), nil }
}

// encoded is text in the encoding named name, by x/text's encoder.
func encoded(t *testing.T, name, text string) []byte {
	t.Helper()
	e, err := htmlindex.Get(name)
	if err != nil {
		t.Fatal(err)
	}
	b, err := e.NewEncoder().Bytes([]byte(text))
	if err != nil {
		t.Fatalf("%s cannot hold %q: %v", name, text, err)
	}
	return b
}

func TestDecodeUTF8AsItIs(t *testing.T) {
	for _, file := range []string{
		"Date,Odometer\n2024-01-05,1000\n",
		"\ufeffDate;Notes\n2024-01-05;Müller € 5 中国石化\n", // Excel's "CSV UTF-8"
		"",
	} {
		text, enc, err := Decode([]byte(file), nil, func() (language.Tag, error) {
			t.Errorf("the owner's language was looked up for a UTF-8 file")
			return language.Und, nil
		})
		if err != nil || enc != EncodingUTF8 || string(text) != file {
			t.Errorf("Decode(%q) = %q, %q, %v; want the file, utf-8", file, text, enc, err)
		}
	}
}

// TestDecodeMacintosh: Excel's "CSV (Macintosh)" ends lines with a lone CR
// and writes Mac OS Roman, where ü is 0x9F and € 0xDB; the same bytes with
// LF line ends are Windows-1252, where 0x9F is Ÿ.
func TestDecodeMacintosh(t *testing.T) {
	for _, tc := range []struct{ lang, eol, want, text string }{
		{"de", "\r", "macintosh", "Date;Notes\r2024-01-05;Müller €\r"},
		{"en-GB", "\r", "macintosh", "Date;Notes\r2024-01-05;Müller €\r"},
		{"de", "\n", "windows-1252", "Date;Notes\n2024-01-05;MŸller Û\n"},
		{"de", "\r\n", "windows-1252", "Date;Notes\r\n2024-01-05;MŸller Û\r\n"},
	} {
		file := []byte("Date;Notes" + tc.eol + "2024-01-05;M\x9fller \xdb" + tc.eol)
		text, enc, err := Decode(file, nil, speaks(tc.lang))
		if err != nil || enc != tc.want || string(text) != tc.text {
			t.Errorf("%s, %q line ends: %q, %q, %v; want %q in %s", tc.lang, tc.eol, text, enc, err, tc.text, tc.want)
		}
	}
	// Not for a language whose code page is another: a Polish file with
	// CR line ends stays Windows-1250.
	if _, enc, err := Decode([]byte("Date;Notes\r2024-01-05;\xb3\r"), nil, speaks("pl")); err != nil || enc != "windows-1250" {
		t.Errorf("Polish, CR line ends: %q, %v", enc, err)
	}
	// A Mac file that also holds UTF-8 is refused as one in two encodings.
	_, _, err := Decode([]byte("Date;Notes\r2024-01-05;Müller\r2024-01-06;M\x9fller\r"), nil, speaks("de"))
	wantFileError(t, err, "line 2 is UTF-8 text but line 3 is not")
}

// TestDecodeByLanguage: a file that is not UTF-8 is read in the code page
// of the owner's language, whichever it is.
func TestDecodeByLanguage(t *testing.T) {
	for _, tc := range []struct{ lang, want, text string }{
		{"zh-CN", "gb18030", "中国石化 加油站"},
		{"zh", "gb18030", "中国石化"},
		{"zh-TW", "big5", "台灣中油"},
		{"zh-Hant-HK", "big5", "中油"},
		{"ja-JP", "shift_jis", "出光 給油"},
		{"ko", "euc-kr", "주유소"},
		{"pl", "windows-1250", "Łódź, stacja Orlen"},
		{"sr-Latn", "windows-1250", "Niš, pumpa"},
		{"ru", "windows-1251", "Лукойл, Москва"},
		{"sr", "windows-1251", "Ниш, пумпа"},
		{"el", "windows-1253", "Αθήνα"},
		{"tr", "windows-1254", "İstanbul Şişli"},
		{"he", "windows-1255", "תל אביב"},
		{"ar", "windows-1256", "دبي"},
		{"lt", "windows-1257", "Vilnius, Ąžuolynas"},
		{"vi", "windows-1258", "Hà Nam"},
		{"th", "windows-874", "กรุงเทพ"},
		{"de", "windows-1252", "Müller"},
	} {
		file := append([]byte("Date;Notes\n2024-01-05;"), encoded(t, tc.want, tc.text)...)
		text, enc, err := Decode(file, nil, speaks(tc.lang))
		if err != nil || enc != tc.want || string(text) != "Date;Notes\n2024-01-05;"+tc.text {
			t.Errorf("%s: Decode = %q, %q, %v; want %q in %s", tc.lang, text, enc, err, tc.text, tc.want)
		}
	}
}

// TestDecodeNamedEncoding: the encoding parameter wins over the guess, and
// is taken at its word.
func TestDecodeNamedEncoding(t *testing.T) {
	jis, err := ParseEncoding("Shift_JIS")
	if err != nil {
		t.Fatal(err)
	}
	file := encoded(t, "shift_jis", "Date;Notes\n2024-01-05;出光\n")
	text, enc, err := Decode(file, jis, func() (language.Tag, error) {
		t.Error("the owner's language was looked up though the encoding was named")
		return language.German, nil
	})
	if err != nil || enc != "shift_jis" || !strings.Contains(string(text), "出光") {
		t.Errorf("shift_jis: %q, %q, %v", text, enc, err)
	}
	// latin1 is windows-1252 (WHATWG); a UTF-8 ü in the file is then
	// read as asked, as two characters.
	latin1, err := ParseEncoding("latin1")
	if err != nil {
		t.Fatal(err)
	}
	text, enc, err = Decode([]byte("M\xfcller M\xc3\xbcller"), latin1, speaks("de"))
	if err != nil || enc != "windows-1252" || string(text) != "Müller MÃ¼ller" {
		t.Errorf("latin1: %q, %q, %v", text, enc, err)
	}
	// utf-8 named for a file that is not: refused at the line, not read
	// as something else.
	utf, err := ParseEncoding("utf-8")
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = Decode([]byte("Date;Notes\n2024-01-05;ok\n2024-01-06;M\xfcller\n"), utf, speaks("de"))
	wantFileError(t, err, "line 3 is not UTF-8")
	for _, label := range []string{"klingon", "utf-9", "windows-1252; DROP"} {
		if _, err := ParseEncoding(label); err == nil || !strings.HasPrefix(err.Error(), "INVALID_ARGUMENT: encoding: ") {
			t.Errorf("ParseEncoding(%q) error %v; want one naming encoding", label, err)
		}
	}
	if e, err := ParseEncoding(""); e != nil || err != nil {
		t.Errorf(`ParseEncoding("") = %v, %v; want nil, nil`, e, err)
	}
}

func wantFileError(t *testing.T, err error, says ...string) {
	t.Helper()
	var ae *apperr.Error
	if !errors.As(err, &ae) || ae.Code != apperr.InvalidArgument || ae.Field != "file" {
		t.Fatalf("error %v; want an invalid-argument error on file", err)
	}
	for _, s := range says {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not say %q", err, s)
		}
	}
}

func TestDecodeRefuses(t *testing.T) {
	for _, tc := range []struct {
		name, lang, file string
		says             []string
	}{
		{"UTF-16, little-endian", "de", "\xff\xfeD\x00a\x00t\x00e\x00", []string{"UTF-16"}},
		{"UTF-16, big-endian", "de", "\xfe\xff\x00D\x00a", []string{"UTF-16"}},
		// ü in UTF-8 on line 2, in Windows-1252 on line 4: which is meant
		// cannot be told, so neither is guessed.
		{"two encodings", "de", "Date;Notes\n2024-01-05;Müller\n2024-01-06;ok\n2024-01-07;M\xfcller\n", []string{"line 2 is UTF-8", "line 4 is not"}},
		{"two encodings, the other way round", "fr", "Date;Notes\r\n2024-01-05;M\xfcller\r\n2024-01-07;Müller\r\n", []string{"line 3 is UTF-8", "line 2 is not"}},
		{"a byte Windows-1252 leaves undefined", "de", "Date;Notes\n2024-01-05;M\xfcller\n2024-01-07;x\x81y\n", []string{"line 3 is not windows-1252 text"}},
		{"a byte Windows-1250 leaves undefined, lines ended by a lone CR", "pl", "Date;Notes\r2024-01-05;ok\r2024-01-07;\x98\r", []string{"line 3 is not windows-1250 text"}},
		// A GBK lead byte with no second byte: not GB18030 text.
		{"a broken GB18030 character", "zh", "Date;Notes\n2024-01-05;\xd6\xd0\n2024-01-06;\xd6\n", []string{"line 3 is not gb18030 text"}},
		{"a Windows-1252 file for a Japanese owner", "ja", "Date;Notes\n2024-01-05;Caf\xe9\n", []string{"line 2 is not shift_jis text"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text, enc, err := Decode([]byte(tc.file), nil, speaks(tc.lang))
			if err == nil {
				t.Fatalf("Decode = %q, %q; want an error", text, enc)
			}
			wantFileError(t, err, tc.says...)
		})
	}
	// The owner's language cannot be read: that error, nothing guessed.
	lost := errors.New("database gone")
	if _, _, err := Decode([]byte("M\xfcller"), nil, func() (language.Tag, error) { return language.Und, lost }); !errors.Is(err, lost) {
		t.Errorf("error %v; want the lookup's", err)
	}
}

func TestLegacyEncodingNames(t *testing.T) {
	for tag, want := range map[string]string{
		"zh-Hans-SG": "gb18030", "zh-MO": "big5", "az": "windows-1254", "pt-BR": "windows-1252",
		"und": "windows-1252", "sr-Cyrl-RS": "windows-1251", "uk-UA": "windows-1251", "hu": "windows-1250",
	} {
		name, err := htmlindex.Name(LegacyEncoding(language.MustParse(tag)))
		if err != nil || name != want {
			t.Errorf("LegacyEncoding(%s) = %s, %v; want %s", tag, name, err, want)
		}
	}
}

func TestLineAt(t *testing.T) {
	b := []byte("a\nb\r\nc\rd")
	for i, want := range map[int]int{0: 1, 1: 1, 2: 2, 3: 2, 5: 3, 6: 3, 7: 4, 8: 4} {
		if got := lineAt(b, i); got != want {
			t.Errorf("lineAt(%d) = %d, want %d", i, got, want)
		}
	}
}

// FuzzDecode: whatever the bytes and the owner's language, Decode either
// refuses or returns valid UTF-8: the file itself when it named utf-8, and
// otherwise text without a replacement character.
func FuzzDecode(f *testing.F) {
	f.Add([]byte("Date;Notes\r\n2024-01-05;M\xfcller \x80\r\n"), "de")
	f.Add([]byte("Date;Notes\n2024-01-05;\xd6\xd0\xb9\xfa\n"), "zh-CN")
	f.Add([]byte("Date;Notes\n2024-01-05;M\xc3\xbcller\n"), "ja")
	f.Add([]byte("\xff\xfeD\x00"), "")
	f.Fuzz(func(t *testing.T, b []byte, lang string) {
		tag, err := language.Parse(lang)
		if err != nil {
			tag = language.Und
		}
		text, enc, err := Decode(b, nil, func() (language.Tag, error) { return tag, nil })
		if err != nil {
			return
		}
		switch {
		case !utf8.Valid(text):
			t.Fatalf("Decode(%q, %s) = %q (%s): not UTF-8", b, tag, text, enc)
		case enc == EncodingUTF8 && !bytes.Equal(text, b):
			t.Fatalf("Decode(%q) changed UTF-8 text into %q", b, text)
		case enc != EncodingUTF8 && bytes.ContainsRune(text, utf8.RuneError):
			t.Fatalf("Decode(%q, %s) = %q (%s): a replacement character", b, tag, text, enc)
		}
	})
}
