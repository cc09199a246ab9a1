package httpapi_test

import (
	"encoding/json"
	"net/http"
	"os"
	"slices"
	"testing"

	"github.com/carhub/backend/services/docqa/internal/openaifake"
	"github.com/carhub/backend/services/docqa/internal/provider"
	"github.com/carhub/backend/services/docqa/internal/specs"
)

// specsStandInAnswer is what the model stand-in answers for a manual:
// every true item (a model that reads every wording), a true item with
// its number misread, and with distractors every distractor too (a
// distractor of a key that has a true item answers that key twice).
func specsStandInAnswer(mt specsManualTruth, distractors bool) string {
	items := slices.Clone(mt.Items)
	if distractors {
		items = append(items, mt.Distractors...)
	}
	for _, tr := range mt.Items {
		if tr.Quantity != nil {
			wrong := tr
			q := *tr.Quantity + "1" // 2.3 -> 2.31, 140 -> 1401: not printed
			wrong.Quantity, wrong.Value = &q, q+" "+tr.Unit
			items = append(items, wrong)
			break
		}
	}
	type answerItem struct {
		specTruth
		Quote string `json:"quote"`
	}
	out := struct {
		Items []answerItem `json:"items"`
	}{Items: []answerItem{}}
	for _, it := range items {
		out.Items = append(out.Items, answerItem{specTruth: it})
	}
	b, _ := json.Marshal(out)
	return string(b)
}

// BenchmarkSpecifications reads the specifications of the generated
// manuals (testdata/specifications: en-manual, de-handbuch and zh-shouce,
// which the rules were written on, and en-leaflet, held out) and reports
// the precision and recall of the items against truth.json, over all and
// per manual, without a model (rules) and with the model stand-in (the
// items after the check of numbers and Resolve; the stand-in answers every
// true item and one misread number: model-clean, and the distractors too:
// model-distractors). With
// DOCQA_BENCH_CHAT_URL and DOCQA_BENCH_CHAT_MODEL (and DOCQA_BENCH_CHAT_KEY)
// set, model-real asks that OpenAI-compatible server instead, with the
// local embedder.
//
//	go test -run '^$' -bench BenchmarkSpecifications -benchtime 2x ./internal/httpapi
func BenchmarkSpecifications(b *testing.B) {
	truth := readSpecsTruth(b)
	names := slices.Sorted(func(yield func(string) bool) {
		for k := range truth {
			if !yield(k) {
				return
			}
		}
	})
	// standIn: "" asks the service's own model (none: the rules), "clean"
	// and "distractors" script the stand-in (specsStandInAnswer).
	bench := func(b *testing.B, s *service, standIn string) {
		md5s := map[string]string{}
		for _, name := range names {
			md5s[name] = s.uploadPDF(b, name+".pdf", readSpecsManual(b, name)).FileMD5
		}
		var proposed, correct, truthful int
		perManual := map[string][2]float64{}
		b.ResetTimer()
		for i := range b.N {
			for _, name := range names {
				if standIn != "" {
					s.fake.SetScript(openaifake.Script{Deltas: openaifake.Text(specsStandInAnswer(truth[name], standIn == "distractors"))})
				}
				var got specs.Proposal
				decode(b, s.proposeSpecs(b, md5s[name]), http.StatusOK, &got)
				if i > 0 {
					continue
				}
				mt := truth[name]
				right := 0
				for _, it := range got.Items {
					if slices.ContainsFunc(mt.Items, func(tr specTruth) bool { return specMatches(it, tr) }) {
						right++
					} else {
						b.Logf("%s: wrong %s %q page %d", name, it.Key, it.Value, it.Page)
					}
				}
				for _, tr := range mt.Items {
					if !slices.ContainsFunc(got.Items, func(it specs.Item) bool { return specMatches(it, tr) }) {
						b.Logf("%s: missed %s %q page %d", name, tr.Key, tr.Value, tr.Page)
					}
				}
				proposed += len(got.Items)
				correct += right
				truthful += len(mt.Items)
				perManual[name] = [2]float64{float64(right) / float64(max(len(got.Items), 1)), float64(right) / float64(len(mt.Items))}
				b.Logf("%s: %d proposed, %d correct, %d true items, pages %v", name, len(got.Items), right, len(mt.Items), got.Pages)
			}
		}
		b.StopTimer()
		b.ReportMetric(float64(correct)/float64(max(proposed, 1)), "precision")
		b.ReportMetric(float64(correct)/float64(truthful), "recall")
		for name, pr := range perManual {
			b.ReportMetric(pr[0], name+"-precision")
			b.ReportMetric(pr[1], name+"-recall")
		}
	}
	b.Run("rules", func(b *testing.B) { bench(b, newService(b, options{local: true}), "") })
	b.Run("model-clean", func(b *testing.B) { bench(b, newService(b, options{}), "clean") })
	b.Run("model-distractors", func(b *testing.B) { bench(b, newService(b, options{}), "distractors") })
	if url, model := os.Getenv("DOCQA_BENCH_CHAT_URL"), os.Getenv("DOCQA_BENCH_CHAT_MODEL"); url != "" && model != "" {
		b.Run("model-real", func(b *testing.B) {
			chat, err := provider.NewChat(provider.ChatConfig{BaseURL: url, APIKey: os.Getenv("DOCQA_BENCH_CHAT_KEY"), Model: model})
			if err != nil {
				b.Fatal(err)
			}
			bench(b, newService(b, options{local: true, chat: chat}), "")
		})
	}
}
