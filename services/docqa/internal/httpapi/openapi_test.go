package httpapi_test

import (
	"maps"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/carhub/backend/pkg/auth"
	"github.com/carhub/backend/pkg/openapicheck"
	"github.com/carhub/backend/services/docqa/internal/httpapi"
	"github.com/carhub/backend/services/docqa/internal/maintenance"
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
