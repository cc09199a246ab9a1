package httpapi_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"

	"github.com/carhub/backend/services/docqa/internal/ingest/ingesttest"
	"github.com/carhub/backend/services/docqa/internal/openaifake"
	"github.com/carhub/backend/services/docqa/internal/specs"
)

// specsDir holds the generated manuals of the specifications
// (testdata/specifications/make.sh) and their truth.json.
const specsDir = "../../testdata/specifications"

// specsManuals are the manuals the rules were written on; en-leaflet is
// held out (only the benchmark reads it).
var specsManuals = []string{"en-manual", "de-handbuch", "zh-shouce"}

func readSpecsManual(tb testing.TB, name string) []byte {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join(specsDir, name+".pdf"))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// specTruth is an item of testdata/specifications/truth.json.
type specTruth struct {
	Key      string  `json:"key"`
	Value    string  `json:"value"`
	Quantity *string `json:"quantity"`
	Unit     string  `json:"unit"`
	Page     int     `json:"page"`
}

// specsManualTruth is a manual's items, written by hand from its .html,
// and its distractors: numbers near them that a model may take for them
// (the engine's torque, the fuel tank, the spare wheel's pressure).
type specsManualTruth struct {
	Items       []specTruth `json:"items"`
	Distractors []specTruth `json:"distractors"`
}

func readSpecsTruth(tb testing.TB) map[string]specsManualTruth {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join(specsDir, "truth.json"))
	if err != nil {
		tb.Fatal(err)
	}
	var truth map[string]specsManualTruth
	if err := json.Unmarshal(b, &truth); err != nil {
		tb.Fatal(err)
	}
	return truth
}

// specMatches: the same key and page, and the same quantity and unit
// (the number compared as written with a point: "4.0" is not "4") or,
// for a value without a quantity, the same value in any case.
func specMatches(it specs.Item, tr specTruth) bool {
	if it.Key != tr.Key || it.Page != tr.Page || (it.Quantity == nil) != (tr.Quantity == nil) {
		return false
	}
	if tr.Quantity != nil {
		return strings.TrimRight(strings.TrimRight(*it.Quantity, "0"), ".") == strings.TrimRight(strings.TrimRight(*tr.Quantity, "0"), ".") &&
			it.Unit == tr.Unit
	}
	return strings.EqualFold(it.Value, tr.Value) && it.Unit == ""
}

func (s *service) proposeSpecs(t testing.TB, md5 string) *http.Response {
	t.Helper()
	return s.post(t, "/api/documents/"+md5+"/specifications", "", nil)
}

// specsValidator checks answers against the OpenAPI document.
func specsValidator(t *testing.T) validator.Validator {
	t.Helper()
	src, err := os.ReadFile("../../../../proto-docs/docqa-service.openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := libopenapi.NewDocument(src)
	if err != nil {
		t.Fatal(err)
	}
	v, errs := validator.NewValidator(doc)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	return v
}

// TestSpecificationsRules: without a chat model, the rules read exactly
// the true items of each manual (value as printed, quantity, unit, page),
// in the order of the keys, and the answer is the OpenAPI document's.
func TestSpecificationsRules(t *testing.T) {
	truth := readSpecsTruth(t)
	v := specsValidator(t)
	s := newService(t, options{local: true})
	for _, name := range specsManuals {
		t.Run(name, func(t *testing.T) {
			doc := s.uploadPDF(t, name+".pdf", readSpecsManual(t, name))
			req, err := http.NewRequest(http.MethodPost, s.URL+"/api/documents/"+doc.FileMD5+"/specifications", nil)
			if err != nil {
				t.Fatal(err)
			}
			resp, body := exchange(t, s.client, req)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("status %d: %s", resp.StatusCode, body)
			}
			resp.Body = io.NopCloser(bytes.NewReader(body))
			if ok, errs := v.ValidateHttpResponse(req, resp); !ok {
				for _, e := range errs {
					t.Errorf("%s: %s %v", e.Message, e.Reason, e.SchemaValidationErrors)
				}
			}
			var got specs.Proposal
			if err := json.Unmarshal(body, &got); err != nil {
				t.Fatal(err)
			}
			type short struct {
				Key, Value, Quantity, Unit string
				Page                       int
			}
			shorten := func(key, value string, q *string, unit string, page int) short {
				sh := short{Key: key, Value: value, Unit: unit, Page: page, Quantity: "null"}
				if q != nil {
					sh.Quantity = *q
				}
				return sh
			}
			var gotShort, wantShort []short
			for _, it := range got.Items {
				gotShort = append(gotShort, shorten(it.Key, it.Value, it.Quantity, it.Unit, it.Page))
				if it.Quote == "" {
					t.Errorf("%s has no quote", it.Key)
				}
			}
			want := slices.Clone(truth[name].Items)
			slices.SortStableFunc(want, func(a, b specTruth) int { return slices.Index(specs.Keys, a.Key) - slices.Index(specs.Keys, b.Key) })
			for _, tr := range want {
				wantShort = append(wantShort, shorten(tr.Key, tr.Value, tr.Quantity, tr.Unit, tr.Page))
			}
			g, _ := json.MarshalIndent(gotShort, "", " ")
			w, _ := json.MarshalIndent(wantShort, "", " ")
			if !bytes.Equal(g, w) {
				t.Errorf("items\n%s\nwant\n%s", g, w)
			}
			if got.Mode != "rules" || len(got.Pages) == 0 {
				t.Errorf("mode %q pages %v", got.Mode, got.Pages)
			}
		})
	}
}

// TestSpecificationsRulesQuotes: a table row is its own quote, and a
// pressure table's row names what its pressures are.
func TestSpecificationsRulesQuotes(t *testing.T) {
	s := newService(t, options{local: true})
	doc := s.uploadPDF(t, "en-manual.pdf", readSpecsManual(t, "en-manual"))
	var got specs.Proposal
	decode(t, s.proposeSpecs(t, doc.FileMD5), http.StatusOK, &got)
	quotes := map[string]string{}
	for _, it := range got.Items {
		quotes[it.Key] = it.Quote
	}
	for key, want := range map[string]string{
		specs.EngineOilCapacity:        "Engine oil SAE 0W-30, ACEA C2 4.3 l",
		specs.TyrePressureRearFullLoad: "Rear 2.1 bar / 30 psi 2.9 bar / 42 psi",
		specs.WheelBoltTorque:          "Tighten the wheel bolts to 140 Nm and check them again after 50 km.",
	} {
		if quotes[key] != want {
			t.Errorf("%s quote %q, want %q", key, quotes[key], want)
		}
	}
}

// specsModelAnswer is what the stand-in model answers for en-manual: true
// items, and the mistakes a model makes.
const specsModelAnswer = `{"items": [
 {"key": "engine_oil_grade", "value": "SAE 0W-30", "quantity": null, "unit": "", "page": 2, "quote": "Engine oil SAE 0W-30, ACEA C2 4.3 l"},
 {"key": "engine_oil_capacity", "value": "4.3 l", "quantity": "4.3", "unit": "l", "page": 2, "quote": "the engine oil takes 4.3 l"},
 {"key": "tyre_pressure_front", "value": "2.3 bar", "quantity": "2,3", "unit": "bar", "page": 3, "quote": "Front 2.3 bar / 33 psi 2.5 bar / 36 psi"},
 {"key": "tyre_pressure_rear", "value": "2.2 bar", "quantity": "2.2", "unit": "bar", "page": 3, "quote": ""},
 {"key": "tyre_pressure_front_full_load", "value": "2.5 bar", "quantity": "2.5", "unit": "psi", "page": 3, "quote": ""},
 {"key": "tyre_pressure_rear_full_load", "value": "42 psi", "quantity": "42", "unit": "psi", "page": 3, "quote": ""},
 {"key": "tyre_pressure_rear_full_load", "value": "2.9 bar", "quantity": "2.9", "unit": "bar", "page": 3, "quote": ""},
 {"key": "fuel_grade", "value": "95 RON", "quantity": "95", "unit": "RON", "page": 3, "quote": ""},
 {"key": "coolant", "value": "G13", "quantity": "13", "unit": "", "page": 2, "quote": ""},
 {"key": "wheel_bolt_torque", "value": "250 Nm", "quantity": "250", "unit": "Nm", "page": 2, "quote": "Maximum torque 250 Nm at 1,500 rpm"},
 {"key": "battery", "value": "60 Ah", "quantity": "60", "unit": "Ah", "page": 4, "quote": ""},
 {"key": "top_speed", "value": "210 km/h", "quantity": "210", "unit": "km/h", "page": 2, "quote": ""}
]}`

// TestSpecificationsModel: with a chat model, the pages go to it with the
// schema, and of its items only those whose numbers their cited page
// prints, with a unit the key and the value agree on, are kept; a key
// answered two ways is left out.
func TestSpecificationsModel(t *testing.T) {
	s := newService(t, options{fake: []openaifake.Option{openaifake.WithScript(openaifake.Script{Deltas: openaifake.Text(specsModelAnswer)})}})
	doc := s.uploadPDF(t, "en-manual.pdf", readSpecsManual(t, "en-manual"))
	var got specs.Proposal
	decode(t, s.proposeSpecs(t, doc.FileMD5), http.StatusOK, &got)
	b, _ := json.Marshal(got.Items)
	want := `[` +
		`{"key":"engine_oil_grade","value":"SAE 0W-30","quantity":null,"unit":"","page":2,"quote":"Engine oil SAE 0W-30, ACEA C2 4.3 l"},` +
		// A quote the page does not hold is replaced by the line that
		// prints the value.
		`{"key":"engine_oil_capacity","value":"4.3 l","quantity":"4.3","unit":"l","page":2,"quote":"Engine oil SAE 0W-30, ACEA C2 4.3 l"},` +
		// "2,3" is read with a point.
		`{"key":"tyre_pressure_front","value":"2.3 bar","quantity":"2.3","unit":"bar","page":3,"quote":"Front 2.3 bar / 33 psi 2.5 bar / 36 psi"},` +
		// 2.2 bar is not printed on page 3; 2.5 bar is not psi; the rear
		// at full load answered in psi and in bar is two readings. 95 RON
		// is on page 2, not 3; G13 is no quantity; top_speed is no key.
		// 250 Nm is printed on page 2 (the engine's torque): the check of
		// numbers cannot tell it from the wheel bolts'.
		`{"key":"wheel_bolt_torque","value":"250 Nm","quantity":"250","unit":"Nm","page":2,"quote":"Maximum torque 250 Nm at 1,500 rpm"},` +
		`{"key":"battery","value":"60 Ah","quantity":"60","unit":"Ah","page":4,"quote":"The battery (12 V, 60 Ah) is under the boot floor. Its warranty lasts 2 years."}]`
	if string(b) != want {
		t.Errorf("items\n%s\nwant\n%s", b, want)
	}
	if got.Mode != "model" {
		t.Errorf("mode %q", got.Mode)
	}

	req, ok := s.fake.LastChatRequest()
	if !ok || req.Stream || len(req.Messages) != 2 || req.Messages[0].Role != "system" {
		t.Fatalf("chat request %+v", req)
	}
	var format struct {
		Type       string `json:"type"`
		JSONSchema struct {
			Name   string `json:"name"`
			Strict bool   `json:"strict"`
		} `json:"json_schema"`
	}
	if err := json.Unmarshal(req.ResponseFormat, &format); err != nil || format.Type != "json_schema" ||
		format.JSONSchema.Name != "specifications" || !format.JSONSchema.Strict {
		t.Errorf("response_format %s (%v)", req.ResponseFormat, err)
	}
	user := req.Messages[1].Content
	for _, part := range []string{"Page 2:\n", "Page 3:\n", "Front 2.3 bar / 33 psi 2.5 bar / 36 psi"} {
		if !strings.Contains(user, part) {
			t.Errorf("the prompt lacks %q:\n%s", part, user)
		}
	}
	if strings.Contains(user, "Page 1:") {
		t.Errorf("the prompt has the contents page:\n%s", user)
	}
}

// TestSpecificationsModelFails: a model answer that is not the schema's
// document is 503 naming the chat model.
func TestSpecificationsModelFails(t *testing.T) {
	for _, answer := range []string{`Here are the specifications: {`, `{"specifications": []}`, `[]`} {
		s := newService(t, options{fake: []openaifake.Option{openaifake.WithScript(openaifake.Script{Deltas: openaifake.Text(answer)})}})
		doc := s.uploadPDF(t, "en-manual.pdf", readSpecsManual(t, "en-manual"))
		wantError(t, s.proposeSpecs(t, doc.FileMD5), http.StatusServiceUnavailable, "UNAVAILABLE", "the chat model did not answer the specifications")
	}
}

// TestSpecificationsErrors: a malformed id is 400 naming md5; a document
// that is not stored, or is another user's, is 404.
func TestSpecificationsErrors(t *testing.T) {
	s := newService(t, options{local: true})
	wantError(t, s.proposeSpecs(t, "not-an-md5"), http.StatusBadRequest, "INVALID_ARGUMENT", "md5")
	wantError(t, s.proposeSpecs(t, strings.Repeat("ab", 16)), http.StatusNotFound, "NOT_FOUND", "document abababababababababababababababab not found")

	s = newService(t, options{identitySecret: limitSecret, local: true})
	doc := alice.upload(t, s, "de-handbuch.pdf", readSpecsManual(t, "de-handbuch"))
	path := "/api/documents/" + doc.FileMD5 + "/specifications"
	if code, body := alice.do(t, s, http.MethodPost, path, "", nil); code != http.StatusOK || !strings.Contains(string(body), `"value":"5,2 Liter","quantity":"5.2","unit":"l"`) {
		t.Fatalf("alice's own manual: %d %s", code, body)
	}
	if code, body := bob.do(t, s, http.MethodPost, path, "", nil); code != http.StatusNotFound || !strings.Contains(string(body), `"NOT_FOUND"`) {
		t.Errorf("bob reads alice's manual: %d %s; want 404", code, body)
	}
}

// TestSpecificationsNone: a document without specifications gets an empty
// list, without asking a model; its distractors (a speed, a consumption,
// the engine's torque, a spare wheel) give no item to the rules either.
func TestSpecificationsNone(t *testing.T) {
	s := newService(t, options{})
	doc := s.uploadPDF(t, "notes.pdf", ingesttest.PDF("Warranty: 3 years or 100,000 km, whichever comes first.", "Service history of the car."))
	var got specs.Proposal
	resp := s.proposeSpecs(t, doc.FileMD5)
	raw, _ := io.ReadAll(resp.Body)
	resp.Body = io.NopCloser(bytes.NewReader(raw))
	decode(t, resp, http.StatusOK, &got)
	if got.Mode != "model" || len(got.Pages) != 0 || !bytes.Contains(raw, []byte(`"items":[]`)) {
		t.Errorf("proposal %s", raw)
	}
	if reqs := s.fake.ChatRequests(); len(reqs) != 0 {
		t.Errorf("the model was asked %d times", len(reqs))
	}

	s = newService(t, options{local: true})
	doc = s.uploadPDF(t, "data.pdf", ingesttest.PDF("Top speed: 190 km/h. Consumption: 5.8 l/100 km. Maximum torque: 250 Nm at 1,500 rpm.",
		"Temporary spare wheel: 4.2 bar (60 psi). Engine oil consumption: up to 0.5 l per 1,000 km."))
	resp = s.proposeSpecs(t, doc.FileMD5)
	raw, _ = io.ReadAll(resp.Body)
	resp.Body = io.NopCloser(bytes.NewReader(raw))
	decode(t, resp, http.StatusOK, &got)
	if got.Mode != "rules" || !bytes.Contains(raw, []byte(`"items":[]`)) {
		t.Errorf("proposal %s", raw)
	}
}
