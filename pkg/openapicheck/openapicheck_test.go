package openapicheck

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/gin-gonic/gin"
)

// recorder is a testing.TB that keeps failures instead of failing.
type recorder struct {
	testing.TB
	errors []string
	fatal  string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}
func (r *recorder) Fatalf(format string, args ...any) { r.fatal = fmt.Sprintf(format, args...) }

func garageEngine(extra ...func(*gin.Engine)) *gin.Engine {
	gin.SetMode(gin.ReleaseMode)
	e := gin.New()
	h := func(c *gin.Context) { c.Status(http.StatusOK) }
	e.GET("/health", h)
	e.GET("/api/cars", h)
	e.POST("/api/cars", h)
	e.GET("/api/cars/:carID", h)
	e.DELETE("/api/cars/:carID", h)
	e.GET("/files/*path", h)
	for _, f := range extra {
		f(e)
	}
	return e
}

func TestLoad(t *testing.T) {
	got, err := Load("testdata/garage.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want := []Route{
		{"GET", "/api/cars"}, {"POST", "/api/cars"},
		{"DELETE", "/api/cars/{id}"}, {"GET", "/api/cars/{id}"},
		{"GET", "/files/{path}"}, {"GET", "/health"},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("Load = %v, want %v", got, want)
	}
}

func TestLoadRefuses(t *testing.T) {
	tests := map[string]string{
		"testdata/openapi30.yaml": `want 3.1.x`,
		"testdata/invalid.yaml":   `invalid OpenAPI 3.1 document`,
		"testdata/broken.yaml":    `testdata/broken.yaml`,
		"testdata/absent.yaml":    `no such file`,
	}
	for path, want := range tests {
		t.Run(path, func(t *testing.T) {
			_, err := Load(path)
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Fatalf("Load(%s) error = %v, want one containing %q", path, err, want)
			}
		})
	}
}

func TestCheckInStep(t *testing.T) {
	// The real thing: nothing to report.
	Check(t, "testdata/garage.yaml", garageEngine().Routes())
}

func TestCheckReportsBothSides(t *testing.T) {
	e := garageEngine(func(e *gin.Engine) {
		e.PUT("/api/cars/:id", func(c *gin.Context) {})
	})
	routes := FromGin(e.Routes())
	routes = slices.DeleteFunc(routes, func(r Route) bool { return r.Method == "DELETE" })
	rec := &recorder{TB: t}
	CheckRoutes(rec, "testdata/garage.yaml", routes)
	if rec.fatal != "" {
		t.Fatalf("unexpected fatal: %s", rec.fatal)
	}
	if len(rec.errors) != 2 ||
		!strings.Contains(rec.errors[0], "route PUT /api/cars/{id} is registered in code but not documented") ||
		!strings.Contains(rec.errors[1], "operation DELETE /api/cars/{id} is documented") {
		t.Fatalf("reported %q", rec.errors)
	}
}

func TestCheckStopsOnABrokenDocument(t *testing.T) {
	rec := &recorder{TB: t}
	Check(rec, "testdata/invalid.yaml", garageEngine().Routes())
	if !strings.Contains(rec.fatal, "invalid OpenAPI 3.1 document") {
		t.Fatalf("fatal = %q", rec.fatal)
	}
}

func TestFromGin(t *testing.T) {
	got := FromGin(gin.RoutesInfo{
		{Method: "get", Path: "/api/vehicles/:id/statistics"},
		{Method: "DELETE", Path: "/api/documents/:md5"},
		{Method: "GET", Path: "/static/*filepath"},
	})
	want := []Route{
		{"GET", "/api/vehicles/{id}/statistics"},
		{"DELETE", "/api/documents/{md5}"},
		{"GET", "/static/{filepath}"},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("FromGin = %v, want %v", got, want)
	}
}

func TestDiffParameterWithASuffix(t *testing.T) {
	undoc, unimpl := Diff(
		[]Route{{"GET", "/p/{n}.png"}, {"GET", "/p/{n}.pdf"}, {"GET", "/q/{n}.png"}, {"GET", "/r/a.png"}},
		[]Route{{"GET", "/p/{page}"}, {"GET", "/r/{x}"}},
	)
	if !slices.Equal(undoc, []Route{{"GET", "/r/{x}"}}) || !slices.Equal(unimpl, []Route{{"GET", "/q/{n}.png"}, {"GET", "/r/a.png"}}) {
		t.Fatalf("Diff = %v, %v", undoc, unimpl)
	}
}

func TestDiffIgnoresParameterNames(t *testing.T) {
	undoc, unimpl := Diff(
		[]Route{{"GET", "/x/{id}/y/{name}"}, {"POST", "/x"}},
		[]Route{{"GET", "/x/{vehicleId}/y/{n}"}, {"post", "/x"}, {"GET", "/x/{id}"}},
	)
	if !slices.Equal(undoc, []Route{{"GET", "/x/{id}"}}) || len(unimpl) != 0 {
		t.Fatalf("Diff = %v, %v", undoc, unimpl)
	}
}
