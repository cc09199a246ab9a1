package httpapi_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/carhub/backend/services/docqa/internal/maintenance"
	"github.com/carhub/backend/services/docqa/internal/openaifake"
	"github.com/carhub/backend/services/docqa/internal/provider"
)

// truthItem is an item of testdata/maintenance/truth.json.
type truthItem struct {
	Title       string `json:"title"`
	EveryKm     *int   `json:"every_km"`
	EveryMiles  *int   `json:"every_miles"`
	EveryMonths *int   `json:"every_months"`
	Conditions  string `json:"conditions"`
	Page        int    `json:"page"`
}

// manualTruth is a manual's items, written by hand from its .html, and
// its distractors: what a model may mistake for items (a warranty, the
// service indicator). HeldOut marks a manual written after the rules, in
// wordings they were not tuned on; the benchmark totals those apart.
type manualTruth struct {
	Items       []truthItem `json:"items"`
	Distractors []truthItem `json:"distractors"`
	HeldOut     bool        `json:"held_out"`
}

func readTruth(tb testing.TB) map[string]manualTruth {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join(maintenanceDir, "truth.json"))
	if err != nil {
		tb.Fatal(err)
	}
	var truth map[string]manualTruth
	if err := json.Unmarshal(b, &truth); err != nil {
		tb.Fatal(err)
	}
	return truth
}

func intOr0(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

// matches: the same page, the same intervals, the same title in any case.
func matches(it maintenance.Item, tr truthItem) bool {
	return it.Page == tr.Page && strings.EqualFold(it.Title, tr.Title) && intOr0(it.EveryKm) == intOr0(tr.EveryKm) &&
		intOr0(it.EveryMiles) == intOr0(tr.EveryMiles) && intOr0(it.EveryMonths) == intOr0(tr.EveryMonths)
}

// standInAnswer is what the model stand-in answers for a manual: every
// true item (a model that reads every wording), every distractor, and a
// true item with a number off by one (a model's misreading).
func standInAnswer(mt manualTruth) string {
	items := slices.Concat(mt.Items, mt.Distractors)
	wrong := mt.Items[0]
	if wrong.EveryKm != nil {
		v := *wrong.EveryKm + 1
		wrong.EveryKm = &v
	} else {
		v := *wrong.EveryMonths + 1
		wrong.EveryMonths = &v
	}
	items = append(items, wrong)
	type answerItem struct {
		truthItem
		Quote string `json:"quote"`
	}
	out := struct {
		Items []answerItem `json:"items"`
	}{}
	for _, it := range items {
		out.Items = append(out.Items, answerItem{truthItem: it})
	}
	b, _ := json.Marshal(out)
	return string(b)
}

// tally counts one proposal (or the sum of several) against the truth:
// proposed items, those matching a true item (correct), true items matched
// (found), true items, and items in the stand-in's answer.
type tally struct{ proposed, correct, found, truth, answered int }

func (t *tally) add(u tally) {
	t.proposed += u.proposed
	t.correct += u.correct
	t.found += u.found
	t.truth += u.truth
	t.answered += u.answered
}

// BenchmarkMaintenanceSchedule proposes the plans of the generated manuals
// (testdata/maintenance) and reports the precision and recall of the
// items against truth.json, without a model (rules) and with the model
// stand-in (model: the proposals after the check of numbers; the stand-in
// answers every true item, the distractors and one misread number, so
// model-answer-precision is what the answer held before the check). With
// DOCQA_BENCH_CHAT_URL and DOCQA_BENCH_CHAT_MODEL (and DOCQA_BENCH_CHAT_KEY
// when the server wants one) set, model-real asks that OpenAI-compatible
// server instead, with the local embedder.
//
// Each mode has a sub-benchmark "all" (every manual: precision = correct
// of proposed, recall = correct of true items, and held-out-precision and
// held-out-recall over the held-out manuals only, recall there = true items
// found) and one per manual (precision, and recall = true items found).
//
//	go test -run '^$' -bench BenchmarkMaintenanceSchedule -benchtime 2x ./internal/httpapi
func BenchmarkMaintenanceSchedule(b *testing.B) {
	truth := readTruth(b)
	names := slices.Sorted(maps.Keys(truth))
	// propose proposes the plans of the named manuals b.N times and
	// tallies the first round, manual by manual.
	propose := func(b *testing.B, s *service, md5s map[string]string, names []string, standIn bool) map[string]tally {
		tallies := map[string]tally{}
		b.ResetTimer()
		for i := range b.N {
			for _, name := range names {
				if standIn {
					s.fake.SetScript(openaifake.Script{Deltas: openaifake.Text(standInAnswer(truth[name]))})
				}
				resp := s.proposeSchedule(b, md5s[name])
				var got maintenance.Proposal
				decode(b, resp, http.StatusOK, &got)
				if i > 0 {
					continue
				}
				mt := truth[name]
				t := tally{proposed: len(got.Items), truth: len(mt.Items), answered: len(mt.Items) + len(mt.Distractors) + 1}
				var wrong []string
				for _, it := range got.Items {
					if slices.ContainsFunc(mt.Items, func(tr truthItem) bool { return matches(it, tr) }) {
						t.correct++
					} else {
						wrong = append(wrong, fmt.Sprintf("%q %d km %d mi %d mo p.%d", it.Title, intOr0(it.EveryKm), intOr0(it.EveryMiles), intOr0(it.EveryMonths), it.Page))
					}
				}
				for _, tr := range mt.Items {
					if slices.ContainsFunc(got.Items, func(it maintenance.Item) bool { return matches(it, tr) }) {
						t.found++
					}
				}
				tallies[name] = t
				b.Logf("%s: %d proposed, %d of %d true items found, pages %v; not true: %v", name, len(got.Items), t.found, len(mt.Items), got.Pages, wrong)
			}
		}
		b.StopTimer()
		return tallies
	}
	bench := func(b *testing.B, s *service, standIn bool) {
		md5s := map[string]string{}
		for _, name := range names {
			md5s[name] = s.uploadPDF(b, name+".pdf", readManual(b, name)).FileMD5
		}
		b.Run("all", func(b *testing.B) {
			var all, heldOut tally
			for name, t := range propose(b, s, md5s, names, standIn) {
				all.add(t)
				if truth[name].HeldOut {
					heldOut.add(t)
				}
			}
			b.ReportMetric(float64(all.correct)/float64(max(all.proposed, 1)), "precision")
			b.ReportMetric(float64(all.correct)/float64(all.truth), "recall")
			b.ReportMetric(float64(heldOut.correct)/float64(max(heldOut.proposed, 1)), "held-out-precision")
			b.ReportMetric(float64(heldOut.found)/float64(max(heldOut.truth, 1)), "held-out-recall")
			if standIn {
				b.ReportMetric(float64(all.truth)/float64(all.answered), "model-answer-precision")
			}
		})
		for _, name := range names {
			b.Run(name, func(b *testing.B) {
				t := propose(b, s, md5s, []string{name}, standIn)[name]
				b.ReportMetric(float64(t.correct)/float64(max(t.proposed, 1)), "precision")
				b.ReportMetric(float64(t.found)/float64(t.truth), "recall")
			})
		}
	}
	b.Run("rules", func(b *testing.B) { bench(b, newService(b, options{local: true}), false) })
	b.Run("model", func(b *testing.B) { bench(b, newService(b, options{}), true) })
	if url, model := os.Getenv("DOCQA_BENCH_CHAT_URL"), os.Getenv("DOCQA_BENCH_CHAT_MODEL"); url != "" && model != "" {
		b.Run("model-real", func(b *testing.B) {
			chat, err := provider.NewChat(provider.ChatConfig{BaseURL: url, APIKey: os.Getenv("DOCQA_BENCH_CHAT_KEY"), Model: model})
			if err != nil {
				b.Fatal(err)
			}
			bench(b, newService(b, options{local: true, chat: chat}), false)
		})
	}
}
