package main

import (
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/carhub/backend/services/docqa/internal/docqa"
	"github.com/carhub/backend/services/docqa/internal/language"
	"github.com/carhub/backend/services/docqa/internal/relevance"
	"github.com/carhub/backend/services/docqa/internal/retrieval"
)

// unanswerable is a question that no manual of the set answers.
type unanswerable struct {
	ID       string `json:"id"`
	Lang     string `json:"lang"`
	Kind     string `json:"kind"` // "off": another topic (a car's); "near": the manuals' topic, a thing they do not do
	Split    string `json:"split"`
	Question string `json:"question"`
}

// chatTopK is how many passages the chat retrieves by default, the ones the
// no_match rule looks at.
const chatTopK = 10

// match is how much of a question one retrieved passage holds.
type match struct{ coverage, held float64 }

// rule is a pair of thresholds of relevance.Question.Matches.
type rule struct{ coverage, held float64 }

// answers reports whether one of a question's passages matches it by r.
func (r rule) answers(ms []match) bool {
	return slices.ContainsFunc(ms, func(m match) bool { return m.coverage >= r.coverage || m.held >= r.held })
}

// measureNoMatch reports how the no_match rule (relevance.Question.Matches
// over the first chatTopK passages, words weighed by the store's counts)
// treats the answerable questions and the unanswerable ones of split: the
// share of answerable questions it would turn away (the goal: at most 2 %),
// and the share of unanswerable ones it catches, by the rule's thresholds
// and by their neighbours.
func measureNoMatch(ctx context.Context, out io.Writer, cfg retrieval.Config, store docqa.TermCounter, questions []question, path, split string, verbose bool) error {
	var none []unanswerable
	if err := readJSON(path, &none); err != nil {
		return err
	}
	if split != "all" {
		none = slices.DeleteFunc(none, func(q unanswerable) bool { return q.Split != split })
	}
	r, err := retrieval.New(cfg)
	if err != nil {
		return err
	}
	var lines []string
	otherLanguage := map[bool]int{} // answerable or not -> questions language.Other turns away
	matches := func(question string, answerable bool) ([]match, error) {
		hits, err := r.Retrieve(ctx, question, docqa.Query{TopK: chatTopK})
		if err != nil {
			return nil, err
		}
		texts := make([]string, len(hits))
		for i, h := range hits {
			texts[i] = h.Chunk.Text
		}
		if other, langs := language.Other(question, texts); other {
			otherLanguage[answerable]++
			lines = append(lines, fmt.Sprintf("  other_language %v (answerable %v): %s", langs, answerable, question))
		}
		q := relevance.Analyze(question)
		df, n, err := store.DocFreq(ctx, q.Terms())
		if err != nil {
			return nil, err
		}
		q = q.Weighted(df, n)
		ms := make([]match, len(hits))
		for i, h := range hits {
			ms[i].coverage, ms[i].held = q.Match(relevance.Text(h))
		}
		return ms, nil
	}
	the := rule{relevance.MinCoverage, relevance.MinHeld}
	answerable := make([][]match, len(questions))
	for i, q := range questions {
		if answerable[i], err = matches(q.Question, true); err != nil {
			return err
		}
		if !the.answers(answerable[i]) {
			lines = append(lines, fmt.Sprintf("  answerable turned away: %s: %s", q.ID, q.Question))
		}
	}
	unanswered := make([][]match, len(none))
	kinds := map[string][]int{}
	for i, q := range none {
		if unanswered[i], err = matches(q.Question, false); err != nil {
			return err
		}
		kinds[q.Kind] = append(kinds[q.Kind], i)
		if the.answers(unanswered[i]) {
			lines = append(lines, fmt.Sprintf("  unanswerable quoted: %s: %s", q.ID, q.Question))
		}
	}
	all := func(n int) []int {
		idx := make([]int, n)
		for i := range idx {
			idx[i] = i
		}
		return idx
	}
	// turnedAway counts the questions at idx that r finds no passage for.
	turnedAway := func(ms [][]match, idx []int, r rule) string {
		if len(idx) == 0 {
			return "-"
		}
		n := 0
		for _, i := range idx {
			if !r.answers(ms[i]) {
				n++
			}
		}
		return fmt.Sprintf("%d/%d (%.0f %%)", n, len(idx), 100*float64(n)/float64(len(idx)))
	}
	fmt.Fprintf(out, "\nno_match rule (%s mode: none of the first %d passages holds MinCoverage of the question's weight nor MinHeld; split %s):\n\n",
		cfg.Mode, chatTopK, split)
	fmt.Fprintf(out, "| MinCoverage / MinHeld | answerable turned away | unanswerable caught | of them another topic | of them the manuals' topic |\n|---|---|---|---|---|\n")
	for _, r := range []rule{the, {0.5, 1}, {0.5, 1.5}, {0.4, the.held}, {0.6, the.held}, {the.coverage, 99}} {
		name := fmt.Sprintf("%.2f / %.2f", r.coverage, r.held)
		switch {
		case r == the:
			name += " (the rule)"
		case r.held == 99:
			name = fmt.Sprintf("%.2f alone", r.coverage)
		}
		fmt.Fprintf(out, "| %s | %s | %s | %s | %s |\n", name, turnedAway(answerable, all(len(questions)), r),
			turnedAway(unanswered, all(len(none)), r), turnedAway(unanswered, kinds["off"], r), turnedAway(unanswered, kinds["near"], r))
	}
	fmt.Fprintf(out, "\nother_language (the question's language sure, and no sure passage of the first %d in it): %d of %d answerable questions, %d of %d unanswerable\n",
		chatTopK, otherLanguage[true], len(questions), otherLanguage[false], len(none))
	if verbose {
		for _, l := range lines {
			fmt.Fprintln(out, l)
		}
	}
	return nil
}
