package systemtest

import (
	"testing"

	"github.com/carhub/backend/pkg/proctest"
)

// servicePackage is the command the tests build and run.
const servicePackage = "github.com/carhub/backend/services/fuel/cmd/fuel-service"

func TestMain(m *testing.M) { proctest.Main(m) }

// startService runs the real fuel-service binary (built with -race when the
// tests are) with env and FUEL_ADDR=127.0.0.1:0, and waits until it listens.
// When the test ends it is stopped with SIGTERM and must exit 0 without a
// data race report.
func startService(tb testing.TB, env map[string]string) *proctest.Process {
	tb.Helper()
	return proctest.Start(tb, servicePackage, "FUEL_ADDR", env)
}
