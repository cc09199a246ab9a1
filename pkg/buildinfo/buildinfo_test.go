package buildinfo_test

import (
	"runtime"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/carhub/backend/pkg/buildinfo"
)

func TestReadAndString(t *testing.T) {
	i := buildinfo.Read("fuel-service", "v1.2.3-4-gabc")
	if i.Service != "fuel-service" || i.Version != "v1.2.3-4-gabc" || i.GoVersion != runtime.Version() {
		t.Errorf("info %+v", i)
	}
	i.Revision = "0123abc+dirty"
	s := i.String()
	for _, w := range []string{"fuel-service v1.2.3-4-gabc (revision 0123abc+dirty, ", runtime.Version(), runtime.GOOS + "/" + runtime.GOARCH} {
		if !strings.Contains(s, w) {
			t.Errorf("%q lacks %q", s, w)
		}
	}
	if got := buildinfo.Read("x", "").Version; got != "dev" {
		t.Errorf("unstamped version = %q, want dev", got)
	}
}

func TestRegister(t *testing.T) {
	reg := prometheus.NewRegistry()
	i := buildinfo.Info{Service: "docqa-service", Version: "v9", Revision: "abc+dirty", GoVersion: "go1.99"}
	if err := i.Register(reg); err != nil {
		t.Fatal(err)
	}
	want := `# HELP build_info The running build: its stamped version, the commit it was built from and the Go toolchain; always 1.
# TYPE build_info gauge
build_info{goversion="go1.99",revision="abc+dirty",service="docqa-service",version="v9"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "build_info"); err != nil {
		t.Error(err)
	}
}
