// Package openapicheck keeps an OpenAPI 3.1 document and the routes a service
// registers in step: a service's tests hand it the spec file and the routes,
// and every route missing from the document, every documented operation the
// code lacks, and every fault in the document itself fails the test.
//
//	openapicheck.Check(t, "../../../../proto-docs/fuel-service.openapi.yaml", engine.Routes())
package openapicheck

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gin-gonic/gin"
	"github.com/pb33f/libopenapi"
	"github.com/pb33f/libopenapi-validator/schema_validation"
)

// Route is one operation: an upper-case HTTP method and a path in OpenAPI
// template form ("/api/vehicles/{id}").
type Route struct {
	Method string
	Path   string
}

func (r Route) String() string { return r.Method + " " + r.Path }

// Check loads and validates the OpenAPI 3.1 document at specPath and compares
// its operations with routes (as gin's Engine.Routes returns them). A broken
// document stops the test; each route or operation present on one side only
// is reported as its own failure.
func Check(tb testing.TB, specPath string, routes gin.RoutesInfo) {
	tb.Helper()
	CheckRoutes(tb, specPath, FromGin(routes))
}

// CheckRoutes is Check for routes that are not gin's.
func CheckRoutes(tb testing.TB, specPath string, routes []Route) {
	tb.Helper()
	documented, err := Load(specPath)
	if err != nil {
		tb.Fatalf("openapicheck: %v", err)
		return
	}
	undocumented, unserved := Diff(documented, routes)
	for _, r := range undocumented {
		tb.Errorf("openapicheck: route %s is registered in code but not documented in %s", r, specPath)
	}
	for _, r := range unserved {
		tb.Errorf("openapicheck: operation %s is documented in %s but no route serves it", r, specPath)
	}
}

// Load reads the OpenAPI document at specPath, refuses anything but a valid
// OpenAPI 3.1 document, and returns its operations sorted.
func Load(specPath string) ([]Route, error) {
	src, err := os.ReadFile(specPath)
	if err != nil {
		return nil, err
	}
	doc, err := libopenapi.NewDocument(src)
	if err != nil {
		return nil, fmt.Errorf("%s: not an OpenAPI document: %w", specPath, err)
	}
	if v := doc.GetSpecInfo().Version; !strings.HasPrefix(v, "3.1.") && v != "3.1" {
		return nil, fmt.Errorf("%s: OpenAPI version %q, want 3.1.x", specPath, v)
	}
	if ok, verrs := schema_validation.ValidateOpenAPIDocument(doc); !ok {
		msgs := make([]string, 0, len(verrs))
		for _, e := range verrs {
			msgs = append(msgs, describe(e.Message, e.Reason, e.SchemaValidationErrors))
		}
		return nil, fmt.Errorf("%s: invalid OpenAPI 3.1 document:\n%s", specPath, strings.Join(msgs, "\n"))
	}
	model, err := doc.BuildV3Model()
	if err != nil {
		return nil, fmt.Errorf("%s: building the model: %w", specPath, err)
	}
	if model == nil || model.Model.Paths == nil || model.Model.Paths.PathItems == nil {
		return nil, errors.New(specPath + ": the document has no paths")
	}
	var routes []Route
	for path, item := range model.Model.Paths.PathItems.FromOldest() {
		for method := range item.GetOperations().KeysFromOldest() {
			routes = append(routes, Route{Method: strings.ToUpper(method), Path: path})
		}
	}
	sortRoutes(routes)
	return routes, nil
}

// describe renders one validation error with the schema failures behind it.
func describe[F error](msg, reason string, failures []F) string {
	var b strings.Builder
	b.WriteString("  " + msg)
	if reason != "" {
		b.WriteString(": " + reason)
	}
	for _, f := range failures {
		b.WriteString("\n    " + f.Error())
	}
	return b.String()
}

var ginParam = regexp.MustCompile(`[:*]([A-Za-z0-9_]+)`)

// FromGin converts gin routes to Routes, writing path parameters (":id",
// "*path") in OpenAPI form ("{id}", "{path}").
func FromGin(routes gin.RoutesInfo) []Route {
	out := make([]Route, 0, len(routes))
	for _, r := range routes {
		out = append(out, Route{Method: strings.ToUpper(r.Method), Path: ginParam.ReplaceAllString(r.Path, "{$1}")})
	}
	return out
}

// Diff compares documented operations with registered routes. Parameter
// names do not matter ("/x/{id}" matches "/x/{vehicleId}"), only where the
// parameters are. A documented parameter with a suffix in its segment
// ("/pages/{n}.png") is served by a route whose parameter takes the whole
// segment ("/pages/{page}"), as gin's parameters do: gin cannot end one
// with a suffix, so the handler splits it. Both results are sorted.
func Diff(documented, registered []Route) (undocumented, unserved []Route) {
	key := func(r Route) Route {
		return Route{Method: strings.ToUpper(r.Method), Path: specParam.ReplaceAllString(r.Path, "{}")}
	}
	doc := make(map[Route]bool, len(documented))
	for _, r := range documented {
		doc[key(r)] = true
	}
	code := make(map[Route]bool, len(registered))
	for _, r := range registered {
		code[key(r)] = true
		if !doc[key(r)] {
			undocumented = append(undocumented, r)
		}
	}
	for _, r := range documented {
		if !code[key(r)] {
			unserved = append(unserved, r)
		}
	}
	sortRoutes(undocumented)
	sortRoutes(unserved)
	return undocumented, unserved
}

// specParam is a parameter and whatever follows it in its segment.
var specParam = regexp.MustCompile(`\{[^}/]*\}[^/]*`)

func sortRoutes(rs []Route) {
	slices.SortFunc(rs, func(a, b Route) int {
		if c := strings.Compare(a.Path, b.Path); c != 0 {
			return c
		}
		return strings.Compare(a.Method, b.Method)
	})
}
