package csvfile

import (
	"bufio"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// loneCRs changes a CR that no LF follows outside quotes, and nothing
// else, wherever the reads of the underlying reader end.
func TestLoneCRs(t *testing.T) {
	for in, want := range map[string]string{
		"":                   "",
		"a\rb\r\nc\r":        "a\nb\r\nc\n",
		"\r\r\n\n\r":         "\n\r\n\n\n",
		"no line end":        "no line end",
		"x\r\r\r\ny\r\nz":    "x\n\n\r\ny\r\nz",
		"\"a\rb\"\rc":        "\"a\rb\"\nc",
		"\"a\"\"\rb\"\r":     "\"a\"\"\rb\"\n",
		"a\"\"b\r\"c\rd\"\r": "a\"\"b\n\"c\rd\"\n",
	} {
		for _, oneByte := range []bool{false, true} {
			var r io.Reader = strings.NewReader(in)
			if oneByte {
				r = iotest.OneByteReader(r)
			}
			got, err := io.ReadAll(&loneCRs{r: bufio.NewReader(r)})
			if err != nil || string(got) != want {
				t.Errorf("%q (one byte %v) = %q, %v; want %q", in, oneByte, got, err, want)
			}
		}
	}
}

func TestParseNumber(t *testing.T) {
	for in, want := range map[string]string{
		"40": "40", "40.5": "40.5", "$45.67": "45.67", "€ 12,5": "12.5", "1,234": "1234", "1,234.5": "1234.5",
		"1,234,567": "1234567", ".5": "0.5", "1 234,56": "1234.56",
	} {
		d, err := ParseNumber("x", in, false)
		if err != nil || d.String() != want {
			t.Errorf("ParseNumber(%q) = %s, %v; want %s", in, d, err, want)
		}
	}
	for _, in := range []string{"", "abc", "1e5", "1.2.3", "NaN", "--1", strings.Repeat("9", 41)} {
		if _, err := ParseNumber("x", in, false); err == nil {
			t.Errorf("ParseNumber(%q) accepted", in)
		}
	}
}
