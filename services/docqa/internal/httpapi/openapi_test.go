package httpapi_test

import (
	"bytes"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"go.yaml.in/yaml/v3"

	"github.com/carhub/backend/pkg/auth"
	"github.com/carhub/backend/pkg/openapicheck"
	"github.com/carhub/backend/services/docqa/internal/httpapi"
	"github.com/carhub/backend/services/docqa/internal/maintenance"
	"github.com/carhub/backend/services/docqa/internal/retrieval"
)

// TestRoutesMatchOpenAPI keeps proto-docs/docqa-service.openapi.yaml and the
// registered routes in step, and the document valid OpenAPI 3.1, in both
// modes of AUTH_MODE (accounts register no routes of their own here, but
// a route added only with them on must be documented too).
func TestRoutesMatchOpenAPI(t *testing.T) {
	s := newService(t, options{local: true})
	for _, mode := range []auth.Mode{auth.ModeOff, auth.ModeLocal} {
		t.Run(string(mode), func(t *testing.T) {
			engine := httpapi.New(httpapi.Config{
				Store: s.store, Embedder: s.embedder, Chat: s.chatModel, Pipeline: s.pipeline, PDFEngine: pdfEngine,
				AuthMode: mode, IdentitySecret: accountsSecret,
			})
			openapicheck.Check(t, "../../../../proto-docs/docqa-service.openapi.yaml", engine.Routes())
		})
	}
}

// TestMaintenanceScheduleSchemaMatchesGo keeps the OpenAPI document's
// MaintenanceSchedule and MaintenanceItem equal to the JSON of
// maintenance.Proposal and maintenance.Item: the same properties, and as
// required every one that is always sent (no omitempty).
func TestMaintenanceScheduleSchemaMatchesGo(t *testing.T) {
	src, err := os.ReadFile("../../../../proto-docs/docqa-service.openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Required   []string       `yaml:"required"`
				Properties map[string]any `yaml:"properties"`
			} `yaml:"schemas"`
		} `yaml:"components"`
	}
	if err := yaml.Unmarshal(src, &doc); err != nil {
		t.Fatal(err)
	}
	for name, v := range map[string]any{"MaintenanceSchedule": maintenance.Proposal{}, "MaintenanceItem": maintenance.Item{}} {
		schema, ok := doc.Components.Schemas[name]
		if !ok {
			t.Fatalf("no schema %s", name)
		}
		var props, required []string
		typ := reflect.TypeOf(v)
		for i := range typ.NumField() {
			tag, opts, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
			props = append(props, tag)
			if opts != "omitempty" {
				required = append(required, tag)
			}
		}
		slices.Sort(props)
		slices.Sort(required)
		documented := slices.Sorted(maps.Keys(schema.Properties))
		if !slices.Equal(documented, props) {
			t.Errorf("%s: documented properties %v, Go sends %v", name, documented, props)
		}
		if got := slices.Sorted(slices.Values(schema.Required)); !slices.Equal(got, required) {
			t.Errorf("%s: documented as required %v, Go always sends %v", name, got, required)
		}
	}
}

// TestHealthMatchesOpenAPI validates /health's answers, with the local
// fallbacks and with a provider, against the document's schema: the
// retrieval modes and the reason it says are documented.
func TestHealthMatchesOpenAPI(t *testing.T) {
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
	validate := func(t *testing.T, req *http.Request, resp *http.Response, body []byte) {
		t.Helper()
		resp.Body = io.NopCloser(bytes.NewReader(body))
		if ok, verrs := v.ValidateHttpResponse(req, resp); !ok {
			for _, e := range verrs {
				t.Errorf("%s: %s %v; body %s", e.Message, e.Reason, e.SchemaValidationErrors, body)
			}
		}
	}
	for _, local := range []bool{true, false} {
		s := newService(t, options{local: local})
		req, err := http.NewRequest(http.MethodGet, s.URL+"/health", nil)
		if err != nil {
			t.Fatal(err)
		}
		resp := s.anonymous(t, "/health")
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		validate(t, req, resp, body)
		var h map[string]any
		if err := json.Unmarshal(body, &h); err != nil {
			t.Fatal(err)
		}
		r, _ := h["retrieval"].(map[string]any)
		if reason, _ := r["reason"].(string); reason == "" {
			t.Errorf("local %v: no retrieval reason in %s", local, body)
		}
		// Every mode the service knows is in the document's enums: one
		// missing there would fail only once it served.
		for _, m := range retrieval.Modes {
			r["mode"], r["serving"] = string(m), string(m)
			b, err := json.Marshal(h)
			if err != nil {
				t.Fatal(err)
			}
			validate(t, req, resp, b)
		}
		// And the check sees a mode that is not documented.
		r["mode"] = "bm25"
		b, _ := json.Marshal(h)
		resp.Body = io.NopCloser(bytes.NewReader(b))
		if ok, _ := v.ValidateHttpResponse(req, resp); ok {
			t.Errorf("an undocumented mode passed: %s", b)
		}
	}
}
