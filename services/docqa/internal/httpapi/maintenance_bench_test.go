package httpapi_test

import (
	"encoding/json"
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
// service indicator).
type manualTruth struct {
	Items       []truthItem `json:"items"`
	Distractors []truthItem `json:"distractors"`
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
//	go test -run '^$' -bench BenchmarkMaintenanceSchedule -benchtime 2x ./internal/httpapi
func BenchmarkMaintenanceSchedule(b *testing.B) {
	truth := readTruth(b)
	names := slices.Sorted(func(yield func(string) bool) {
		for k := range truth {
			if !yield(k) {
				return
			}
		}
	})
	bench := func(b *testing.B, s *service, standIn bool) {
		md5s := map[string]string{}
		for _, name := range names {
			md5s[name] = s.uploadPDF(b, name+".pdf", readManual(b, name)).FileMD5
		}
		var proposed, correct, truthful, answered int
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
				found := 0
				for _, it := range got.Items {
					if slices.ContainsFunc(mt.Items, func(tr truthItem) bool { return matches(it, tr) }) {
						correct++
					}
				}
				for _, tr := range mt.Items {
					if slices.ContainsFunc(got.Items, func(it maintenance.Item) bool { return matches(it, tr) }) {
						found++
					}
				}
				proposed += len(got.Items)
				truthful += len(mt.Items)
				answered += len(mt.Items) + len(mt.Distractors) + 1
				b.Logf("%s: %d proposed, %d of %d true items found, pages %v", name, len(got.Items), found, len(mt.Items), got.Pages)
			}
		}
		b.StopTimer()
		b.ReportMetric(float64(correct)/float64(max(proposed, 1)), "precision")
		b.ReportMetric(float64(correct)/float64(truthful), "recall")
		if standIn {
			b.ReportMetric(float64(truthful)/float64(answered), "model-answer-precision")
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
