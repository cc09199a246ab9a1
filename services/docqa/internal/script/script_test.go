package script_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/carhub/backend/services/docqa/internal/script"
)

func TestOf(t *testing.T) {
	tests := []struct {
		text, want string
	}{
		{"How often do I change the engine oil?", "Latin"},
		{"Grüße aus München", "Latin"},
		{"机油多久换一次？", "Han"},
		{"機油多久換一次", "Han"},
		// Codes and abbreviations count for none: no Latin unit, eight Han.
		{"OBD-II 故障码 P0420 是什么意思", "Han"},
		{"OBD-II P0420 5W-30 ABS", ""},
		{"Can I use 5W-30 in winter?", "Latin"},
		{"TPMS 警告灯", "Han"},
		{"ABS warning light 亮了怎么办", "Han"},
		// A Chinese word quoted in an English question: five words, two letters.
		{"What does 机油 mean in the manual?", "Latin"},
		// A tie (one unit each) goes to the script that is not Latin.
		{"oil 灯", "Han"},
		{"Öl 灯", "Han"},
		{"エンジンオイルの交換時期は？", "Japanese"},
		{"オイル", "Japanese"},
		// One katakana word in a long Chinese passage: less than a fifth.
		{"本车出厂时加注的机油适用于大多数行驶条件，更换机油时请使用原厂认可的产品，参见第十二章的说明，ハイブリッド", "Han"},
		{"엔진 오일은 얼마나 자주 교체합니까?", "Hangul"},
		{"엔진 오일 交換", "Hangul"},
		{"Как часто менять масло?", "Cyrillic"},
		{"Πόσο συχνά αλλάζω λάδι;", "Greek"},
		{"كم مرة أغير الزيت؟", "Arabic"},
		{"כל כמה זמן מחליפים שמן?", "Hebrew"},
		{"เปลี่ยนน้ำมันเครื่องบ่อยแค่ไหน", "Thai"},
		{"मुझे तेल कितनी बार बदलना चाहिए?", "Devanagari"},
		{"ზეთი როდის შევცვალო?", "Georgian"},
		// Digits, punctuation, symbols and white space are no letters.
		{"5W-30? 15000 km!", "Latin"},
		{"5W-30? 15000km!", ""},
		{"5-30? 15000 ≥ 4.5 …", ""},
		{"", ""},
	}
	for _, tt := range tests {
		if got := script.Of(tt.text); got != tt.want {
			t.Errorf("Of(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

// TestOfCountsWordsNotLetters: a Latin word is one unit however long, a Han
// letter is one.
func TestOfCountsWordsNotLetters(t *testing.T) {
	// 2 Latin words against 3 Han letters, then 3 words against 2 letters.
	if got := script.Of("Maintenance schedule 保养表"); got != "Han" {
		t.Errorf("two long words and three letters: %q, want Han", got)
	}
	if got := script.Of("the maintenance schedule 保养"); got != "Latin" {
		t.Errorf("three words and two letters: %q, want Latin", got)
	}
	// Combining marks stay in their word: "cafés" written with U+0301 is one word.
	if got := script.Of("cafe\u0301s 茶"); got != "Han" {
		t.Errorf("a word with a combining mark and one Han letter tie: %q, want Han", got)
	}
}

// TestOfJapaneseThreshold: kana make a text Japanese from a fifth of its Han
// and kana letters.
func TestOfJapaneseThreshold(t *testing.T) {
	if got := script.Of("ア交換時期"); got != "Japanese" {
		t.Errorf("one kana in five: %q, want Japanese", got)
	}
	if got := script.Of("ア交換時期表"); got != "Han" {
		t.Errorf("one kana in six: %q, want Han", got)
	}
	if got := script.Of("엔交換時期表交換時期"); got != "Hangul" {
		t.Errorf("one Hangul letter in ten: %q, want Hangul", got)
	}
	if got := script.Of("엔交換時期表交換時期表"); got != "Han" {
		t.Errorf("one Hangul letter in eleven: %q, want Han", got)
	}
}

func TestShares(t *testing.T) {
	tests := []struct {
		question, passage string
		want              bool
	}{
		{"Latin", "Latin", true},
		{"Han", "Latin", false},
		{"Han", "Han", true},
		{"Han", "Japanese", true}, // a kanji-only question may be Japanese
		{"Japanese", "Han", false},
		{"Japanese", "Japanese", true},
		{"Han", "Hangul", false},
		{"Cyrillic", "Latin", false},
	}
	for _, tt := range tests {
		if got := script.Shares(tt.question, tt.passage); got != tt.want {
			t.Errorf("Shares(%q, %q) = %v, want %v", tt.question, tt.passage, got, tt.want)
		}
	}
}

func TestOther(t *testing.T) {
	english := []string{
		"Contents 1 Engine oil ........ 3 2 Tyres ........ 7",
		"Engine oil. Change the engine oil every 15000 km or once a year.",
	}
	chinese := []string{"机油每15000公里或每年更换一次。", "轮胎气压为2.4 bar。"}
	japanese := []string{"エンジンオイルは15000kmごとに交換してください。"}
	tests := []struct {
		name     string
		question string
		passages []string
		other    bool
		systems  []string
	}{
		{"Chinese question, English manual", "机油多久换一次？", english, true, []string{"Latin"}},
		{"English question with a Chinese word, English manual", "What does 机油 mean in the manual?", english, false, nil},
		{"English question, English manual", "How often do I change the oil?", english, false, nil},
		{"Chinese question, Chinese manual", "机油多久换一次？", chinese, false, nil},
		{"Chinese question, one Chinese passage among English ones", "机油多久换一次？", append(slices.Clone(english), chinese[0]), false, nil},
		{"English question, Chinese manual", "How often do I change the oil?", chinese, true, []string{"Han"}},
		{"Japanese question, Chinese manual", "エンジンオイルの交換時期は？", chinese, true, []string{"Han"}},
		{"Japanese question, Japanese manual", "エンジンオイルの交換時期は？", japanese, false, nil},
		{"kanji-only question, Japanese manual", "交換時期", japanese, false, nil},
		{"Chinese question, English and Japanese manuals", "机油多久换一次？", []string{english[1], japanese[0], english[0]}, false, nil},
		{"Russian question, English and Chinese manuals", "Как часто менять масло?", []string{english[1], chinese[0], english[0]}, true, []string{"Latin", "Han"}},
		{"a question without letters", "15000?", english, false, nil},
		{"a code against the Chinese manual", "5W-30?", chinese, false, nil},
		{"an abbreviation against the Chinese manual", "ABS", chinese, false, nil},
		{"a Chinese question with an abbreviation, English manual", "ABS 灯亮了怎么办？", english, true, []string{"Latin"}},
		{"a manual of capitals only counts for none", "机油多久换一次？", []string{"ENGINE OIL ........ 3", english[1]}, true, []string{"Latin"}},
		{"passages without letters are not counted", "机油多久换一次？", []string{"3.5 — 7", english[0]}, true, []string{"Latin"}},
		{"passages without letters only", "机油多久换一次？", []string{"3.5 — 7"}, false, nil},
		{"nothing retrieved", "机油多久换一次？", nil, false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			other, systems := script.Other(tt.question, tt.passages)
			if other != tt.other || !slices.Equal(systems, tt.systems) {
				t.Errorf("Other = %v, %q; want %v, %q", other, systems, tt.other, tt.systems)
			}
		})
	}
}

// BenchmarkOther: a Chinese question against ten English passages of about
// 2000 characters (a topK of 10 chunks of 400 tokens), the case that reads
// every passage.
func BenchmarkOther(b *testing.B) {
	passage := strings.Repeat("Change the engine oil every 15000 km or once a year; use grade 5W-30. ", 28)
	passages := make([]string, 10)
	for i := range passages {
		passages[i] = passage
	}
	b.ReportAllocs()
	for b.Loop() {
		if other, _ := script.Other("机油多久换一次？", passages); !other {
			b.Fatal("not other")
		}
	}
}
