package relevance

import (
	"math"
	"slices"
	"testing"

	"github.com/carhub/backend/services/docqa/internal/docqa"
)

func TestCoverage(t *testing.T) {
	for _, tc := range []struct {
		name, question, text string
		want                 float64
	}{
		// The cases: a car manual without the answer.
		{"service indicator vs wheel bolts", "How do I reset the service indicator?",
			"Important: the torque for wheel bolts in section 7 is 120 newton metres (service code QZX07ALPHA).", 1.0 / 3},
		{"engine oil vs cruise control", "How often should I change the engine oil?",
			"Adaptive cruise control keeps a set distance to the vehicle ahead.", 0},
		{"engine oil answered", "How often should I change the engine oil?",
			"Change the engine oil and the oil filter every 15 000 km or every 12 months.", 1},
		{"inflected words meet", "How do I reset the service indicators?",
			"Resetting the service indicator: hold the trip button.", 1},
		// German function words are not content; the nouns are.
		{"German", "Wie oft muss das Motoröl gewechselt werden?", "Das Motoröl alle 15 000 km wechseln.", 0.5},
		// Chinese: characters covered by the pairs the passage holds.
		{"Chinese held", "机油多久更换一次？", "每行驶一万公里更换机油一次。", 1},
		{"Chinese partly held", "机油多久更换一次？", "更换轮胎。", 2.0 / 6},
		{"Chinese not held", "如何更换轮胎？", "调整座椅高度。", 0},
		{"no content", "How do I?", "anything", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Analyze(tc.question).Coverage(tc.text)
			if math.Abs(got-tc.want) > 1e-9 {
				t.Errorf("Coverage(%q, %q) = %.3f, want %.3f", tc.question, tc.text, got, tc.want)
			}
		})
	}
}

func TestAnalyzeLeavesFunctionWords(t *testing.T) {
	for _, tc := range []struct {
		question string
		units    int
	}{
		{"How often should I change the engine oil?", 3}, // chang, engin, oil
		{"Wie setze ich die Serviceanzeige zurück?", 3},  // setz, serviceanzeig, zuruck
		{"¿Qué presión deben tener los neumáticos?", 4},  // presion, deben, tener, neumat
		{"如何重置保养提示灯？", 7},                                // 重置保养提示灯 (如何 asks)
	} {
		if got := Analyze(tc.question).Units(); got != tc.units {
			t.Errorf("Analyze(%q).Units() = %d, want %d (%+v)", tc.question, got, tc.units, Analyze(tc.question))
		}
	}
}

func TestMatchesAndHolds(t *testing.T) {
	q := Analyze("How do I reset the service indicator?")
	if q.Matches("Important: service code QZX07ALPHA.") {
		t.Error("a passage holding one of three content words matches")
	}
	if !q.Matches("To reset the service indicator, hold the trip button for ten seconds.") {
		t.Error("the answering passage does not match")
	}
	if q.Holds("Tighten the wheel bolts crosswise.") {
		t.Error("a sentence holding none of the question's words holds it")
	}
	if !q.Holds("The indicator lights when a service is due.") {
		t.Error("a sentence with the question's words does not hold it")
	}
}

func TestBest(t *testing.T) {
	hit := func(title, heading, text string) docqa.ScoredChunk {
		return docqa.ScoredChunk{Document: docqa.Document{Title: title}, Chunk: docqa.Chunk{Heading: heading, Text: text}}
	}
	q := Analyze("What is the wheel bolt torque?")
	if at, ok := q.Best(nil); at != -1 || ok {
		t.Errorf("Best(nil) = %d, %v", at, ok)
	}
	hits := []docqa.ScoredChunk{
		hit("Golf manual", "Tyres", "Check the tyre pressure monthly."),
		// The heading names what the text does not repeat.
		hit("Golf manual", "Wheel bolts", "Tighten to 120 Nm (torque)."),
		hit("Golf manual", "Wheel bolts", "Tighten to 120 Nm."),
	}
	if at, ok := q.Best(hits); at != 1 || !ok {
		t.Errorf("Best = %d, %v, want 1, true", at, ok)
	}
	if at, ok := q.Best(hits[:1]); at != 0 || ok {
		t.Errorf("Best of the tyre passage alone = %d, %v, want 0, false", at, ok)
	}
}

// TestWeighted: weighed by the store's counts, a question is matched by
// what it asks about. "change" and "engine" are on many pages of a manual
// of computers, "oil" on none: a passage holding the first two holds
// little of the question.
func TestWeighted(t *testing.T) {
	q := Analyze("How often should I change the engine oil?")
	if got := q.Terms(); !slices.Equal(got, []string{"chang", "engin", "oil"}) {
		t.Fatalf("Terms = %q", got)
	}
	const passage = "Change the search engine in the settings."
	if c := q.Coverage(passage); math.Abs(c-2.0/3) > 1e-9 || !q.Matches(passage) {
		t.Fatalf("unweighted: coverage %.3f, matches %v; want 2/3, true", c, q.Matches(passage))
	}
	w := q.Weighted([]int{400, 300, 0}, 1000)
	c, held := w.Match(passage)
	if c > 0.3 || held > 0.3 || w.Matches(passage) {
		t.Errorf("weighted: coverage %.3f, held %.3f, matches %v; want little of the question", c, held, w.Matches(passage))
	}
	// A long question answered in other words: a third of its weight, but
	// two rare words of it.
	long := Analyze("Why does the gearbox whine and the clutch judder when I pull away on a steep hill with a trailer?")
	terms := long.Terms()
	df := make([]int, len(terms))
	for i, term := range terms {
		switch term {
		case "gearbox", "clutch":
			df[i] = 3
		default:
			df[i] = 0
		}
	}
	long = long.Weighted(df, 1000)
	text := "If the gearbox or the clutch makes noises, have them checked."
	if c, held := long.Match(text); c >= MinCoverage || held < MinHeld || !long.Matches(text) {
		t.Errorf("long question: coverage %.3f, held %.3f, matches %v; want below MinCoverage, above MinHeld, a match", c, held, long.Matches(text))
	}
	// Pairs across two words of a Chinese question are in no text: they
	// do not weigh; characters none of whose pairs is in any text do.
	zh := Analyze("如何配置网络接口？") // 配置 网络 接口, and the pairs 置网 络接 between them
	zt := zh.Terms()
	zdf := make([]int, len(zt))
	for i, term := range zt {
		if term == "配置" || term == "网络" || term == "接口" {
			zdf[i] = 10
		}
	}
	zh = zh.Weighted(zdf, 1000)
	if c := zh.Coverage("网络接口的配置文件"); math.Abs(c-1) > 1e-9 {
		t.Errorf("Chinese, every word held: coverage %.3f, want 1", c)
	}
	tyres := Analyze("如何更换轮胎？") // 更换 known, 轮胎 in no text
	tdf := make([]int, len(tyres.Terms()))
	for i, term := range tyres.Terms() {
		if term == "更换" {
			tdf[i] = 50
		}
	}
	tyres = tyres.Weighted(tdf, 1000)
	if tyres.Matches("更换软件包的版本") {
		t.Errorf("a passage with 更换 alone matches 如何更换轮胎: coverage %.3f", tyres.Coverage("更换软件包的版本"))
	}
}

func TestQuotedOtherScriptLeftOut(t *testing.T) {
	q := Analyze("Which item do I check at every inspection (每次检查)?")
	if slices.ContainsFunc(q.Terms(), func(s string) bool { return s == "检查" }) {
		t.Errorf("a Latin question keeps the Chinese it quotes: %q", q.Terms())
	}
	zh := Analyze("apt-cache policy 输出里的“Package pin:”一行是什么意思？")
	if !slices.Contains(zh.Terms(), "polici") || !slices.Contains(zh.Terms(), "输出") {
		t.Errorf("a Chinese question drops its Latin names or its own words: %q", zh.Terms())
	}
}
