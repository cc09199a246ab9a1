package lexical

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestPrepare(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Engine oil", "Engine oil"},
		{"更换机油", " 更换 换机 机油 "},
		{"点", " 点 "},
		{"按下START键", " 按下 START 键 "},
		{"エンジンオイルを交換", " エン ンジ ジン ンオ オイ イル ルを を交 交換 "},
		{"ＡＢＣ１２３", "ABC123"}, // NFKC folds full-width forms
		{"Моторное масло", "Моторное масло"},
		{"엔진 오일", "엔진 오일"}, // Hangul keeps its spaces
		{"", ""},
	} {
		if got := Prepare(tc.in); got != tc.want {
			t.Errorf("Prepare(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestTerms(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"How do I set the dgrid3d option in gnuplot?", []string{"set", "dgrid3d", "option", "gnuplot"}},
		{"Engine, ENGINE and engine", []string{"engine"}},
		{"set_xlabel(3.14)", []string{"set", "xlabel", "3", "14"}},
		{"如何更换机油？", []string{"如何", "何更", "更换", "换机", "机油"}},
		{"Как заменить масло?", []string{"как", "заменить", "масло"}},
		{"the of and", nil},
	} {
		if got := Terms(Prepare(tc.in)); !slices.Equal(got, tc.want) {
			t.Errorf("Terms(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	long := strings.Repeat("word ", 10)
	for i := range 100 {
		long += " w" + string(rune('a'+i%26)) + string(rune('a'+i/26))
	}
	if n := len(Terms(long)); n != MaxQueryTerms {
		t.Errorf("a question of 101 distinct terms gave %d, want the cap %d", n, MaxQueryTerms)
	}
}

func FuzzPrepare(f *testing.F) {
	for _, s := range []string{"Engine oil", "更换机油", "按下START键", "ｴﾝｼﾞﾝ", "\xff\xfe"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p := Prepare(s)
		if utf8.ValidString(s) && !utf8.ValidString(p) {
			t.Fatalf("Prepare(%q) = %q is not valid UTF-8", s, p)
		}
		for _, term := range Terms(p) {
			if term == "" || stopWords[term] {
				t.Fatalf("Terms gave %q", term)
			}
			if strings.ContainsAny(term, " \"") {
				t.Fatalf("term %q holds a space or quote", term)
			}
		}
	})
}
