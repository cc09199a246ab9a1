// Package ginprobes answers an orchestrator's two questions about a service:
// is the process alive (GET /livez: it can serve HTTP, nothing else is
// asked) and should it get traffic (GET /readyz: every dependency answers
// within a short timeout and the service is not draining for a stop).
//
// Liveness never touches a dependency, so a database outage makes a
// service unready (the gateway sends its work elsewhere) but never gets it
// killed and restarted for something a restart cannot mend.
package ginprobes

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gin-gonic/gin"
)

// DefaultTimeout bounds each readiness check when Probes.Timeout is zero:
// below the gateway's 2 s health-check timeout, so a slow dependency is
// reported as failing rather than the probe itself timing out.
const DefaultTimeout = time.Second

// ErrDraining is the readiness error of a service that is stopping.
var ErrDraining = errors.New("the service is stopping")

// Check is one dependency of readiness. Run returns nil when the dependency
// answers; its context carries the check's timeout.
type Check struct {
	Name string // "database", "vector_store", ...: names the check in /readyz
	Run  func(ctx context.Context) error
}

// Probes holds a service's readiness checks and its draining state. The
// zero value has no checks and is ready.
type Probes struct {
	// Timeout bounds every check (DefaultTimeout when zero).
	Timeout time.Duration

	checks   []Check
	draining atomic.Bool
}

// New returns Probes with the given checks.
func New(checks ...Check) *Probes {
	return &Probes{checks: checks}
}

// Drain makes every later readiness answer 503 "draining": called when the
// service is told to stop, so the gateway and an orchestrator stop sending
// it work while it still serves what reaches it.
func (p *Probes) Drain() { p.draining.Store(true) }

// Draining reports whether Drain was called.
func (p *Probes) Draining() bool { return p.draining.Load() }

// CheckResult is the outcome of one check in a readiness answer.
type CheckResult struct {
	Name   string `json:"name"`
	Status string `json:"status"` // "ok" | "failing"
	Error  string `json:"error,omitempty"`
}

// Readiness is the body of /readyz.
type Readiness struct {
	Status string        `json:"status"` // "ready" | "unready" | "draining"
	Checks []CheckResult `json:"checks"`
}

// Ready runs every check at once, each bounded by the timeout, and reports
// whether all passed. A draining service is not ready whatever its checks say
// (they are still run and reported, which helps when reading the answer).
func (p *Probes) Ready(ctx context.Context) (bool, Readiness) {
	timeout := p.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	res := Readiness{Status: "ready", Checks: make([]CheckResult, len(p.checks))}
	var wg sync.WaitGroup
	for i, c := range p.checks {
		wg.Go(func() {
			res.Checks[i] = run(ctx, c, timeout)
		})
	}
	wg.Wait()
	ok := true
	for _, r := range res.Checks {
		if r.Status != "ok" {
			ok, res.Status = false, "unready"
		}
	}
	if p.Draining() {
		ok, res.Status = false, "draining"
	}
	return ok, res
}

// run runs one check under timeout. A check that does not return in time
// fails even if it ignores its context: the answer does not wait for it.
func run(ctx context.Context, c Check, timeout time.Duration) CheckResult {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		defer func() {
			if v := recover(); v != nil {
				done <- fmt.Errorf("check panicked: %v", v)
			}
		}()
		done <- c.Run(ctx)
	}()
	var err error
	select {
	case err = <-done:
	case <-ctx.Done():
		err = ctx.Err()
	}
	switch {
	case err == nil:
		return CheckResult{Name: c.Name, Status: "ok"}
	case errors.Is(err, context.DeadlineExceeded):
		return CheckResult{Name: c.Name, Status: "failing", Error: fmt.Sprintf("no answer within %s", timeout)}
	default:
		return CheckResult{Name: c.Name, Status: "failing", Error: err.Error()}
	}
}

// Register adds GET /livez and GET /readyz to r.
func (p *Probes) Register(r gin.IRoutes) {
	r.GET("/livez", p.livez)
	r.GET("/readyz", p.readyz)
}

// livez answers 200 whenever the process can serve HTTP: it touches no
// dependency and ignores draining (a draining service is alive).
func (p *Probes) livez(c *gin.Context) {
	c.Header("Cache-Control", "no-store")
	c.JSON(http.StatusOK, gin.H{"status": "alive"})
}

func (p *Probes) readyz(c *gin.Context) {
	c.Header("Cache-Control", "no-store")
	ok, res := p.Ready(c.Request.Context())
	status := http.StatusOK
	if !ok {
		status = http.StatusServiceUnavailable
	}
	c.JSON(status, res)
}
