// Package httpapi is the HTTP face of the fuel service: the routes of
// proto-docs/fuel-service.openapi.yaml, request and response DTOs, and their conversion to
// and from the fuel domain types.
package httpapi

import (
	"log/slog"
	"net/netip"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/carhub/backend/pkg/ginauth"
	"github.com/carhub/backend/pkg/ginprobes"
	"github.com/carhub/backend/pkg/ginx"
	"github.com/carhub/backend/services/fuel/internal/attach"
	"github.com/carhub/backend/services/fuel/internal/filestore"
	"github.com/carhub/backend/services/fuel/internal/fuel"
	"github.com/carhub/backend/services/fuel/internal/notifications"
)

// MaxBodyBytes is the largest request body accepted (413 above it),
// except on the CSV import.
const MaxBodyBytes = 1 << 20

// MaxImportBytes is the largest CSV file an import takes; the request may
// be larger by the multipart framing, up to MaxImportBodyBytes.
const (
	MaxImportBytes     = 10 << 20
	MaxImportBodyBytes = MaxImportBytes + 64<<10
)

// Options configure New.
type Options struct {
	CORSOrigins []string
	// TrustedProxies: see ginx.Options.
	TrustedProxies []netip.Prefix
	// Now is the clock of /health; nil means time.Now.
	Now func() time.Time
	// Metrics, when set, gets the request metrics and the fuel counters
	// and is served at GET /metrics.
	Metrics *prometheus.Registry
	// Probes, when set, serve GET /livez and GET /readyz.
	Probes *ginprobes.Probes
	// Auth configures accounts; the zero value is AUTH_MODE=off.
	Auth AuthOptions
	// Files keeps the files of attachments; nil answers their routes 503.
	Files *filestore.Store
	// Notifications serves /api/notifications; nil answers its routes 503.
	Notifications *notifications.Service
}

// API serves the fuel endpoints from a Store.
type API struct {
	store    fuel.Store
	now      func() time.Time
	log      *slog.Logger
	metrics  serviceMetrics
	accounts *accountRoutes
	files    *filestore.Store
	attach   *attach.Service // nil without Files
	notify   *notifications.Service
}

// New returns the service's HTTP handler: the shared ginx engine with the
// fuel routes.
func New(log *slog.Logger, store fuel.Store, opts Options) *gin.Engine {
	// No engine-wide limit: the routes set theirs (Register), so that the
	// import may take more than the 1 MiB of every other body.
	e := ginx.New(log, ginx.Options{
		CORSOrigins: opts.CORSOrigins, TrustedProxies: opts.TrustedProxies, QuietPaths: []string{"/health"},
		Metrics: opts.Metrics, Probes: opts.Probes,
	})
	a := &API{store: store, now: opts.Now, log: log, metrics: newServiceMetrics(opts.Metrics), files: opts.Files,
		notify: opts.Notifications}
	if a.now == nil {
		a.now = time.Now
	}
	if opts.Files != nil {
		a.attach = attach.New(store, opts.Files, log)
	}
	a.accounts = newAccountRoutes(opts.Auth, a.now, log)
	a.Register(e)
	return e
}

// Register adds the routes to r.
func (a *API) Register(r gin.IRouter) {
	limit := ginx.BodyLimit(MaxBodyBytes)
	// Every /api route acts for the caller's identity (the built-in user
	// with accounts off); a read token may only read.
	authn := []gin.HandlerFunc{a.accounts.authenticate, ginauth.RequireScope()}
	r.GET("/health", limit, a.health)
	r.POST("/api/vehicles/:id/refuels/import", append(authn, ginx.BodyLimit(MaxImportBodyBytes), a.importRefuels)...)
	r.POST("/api/vehicles/:id/expenses/import", append(authn, ginx.BodyLimit(MaxImportBodyBytes), a.importExpenses)...)
	// The calendar feed alone also takes a read token in its query.
	r.GET("/api/reminders.ics", limit, a.accounts.authenticateFeed, ginauth.RequireScope(), a.reminderFeed)

	api := r.Group("/api", append(authn, limit, a.removeDeletedFiles)...)
	a.accounts.register(r, api, limit)
	a.registerAttachments(r, api, authn)
	api.GET("/vehicles", a.listVehicles)
	api.POST("/vehicles", a.createVehicle)
	api.GET("/vehicles/:id", a.getVehicle)
	api.PUT("/vehicles/:id", a.updateVehicle)
	api.DELETE("/vehicles/:id", a.deleteVehicle)
	api.POST("/vehicles/:id/default", a.setDefaultVehicle)
	api.GET("/vehicles/:id/statistics", a.statistics)
	api.GET("/vehicles/:id/statistics/monthly", a.monthlyStatistics)
	api.GET("/vehicles/:id/refuels.csv", a.exportRefuels)
	api.GET("/vehicles/:id/expenses.csv", a.exportExpenses)

	api.GET("/refuels", a.listRefuels)
	api.POST("/refuels", a.createRefuel)
	api.GET("/refuels/:id", a.getRefuel)
	api.PUT("/refuels/:id", a.updateRefuel)
	api.DELETE("/refuels/:id", a.deleteRefuel)

	api.GET("/expenses", a.listExpenses)
	api.POST("/expenses", a.createExpense)
	api.GET("/expenses/:id", a.getExpense)
	api.PUT("/expenses/:id", a.updateExpense)
	api.DELETE("/expenses/:id", a.deleteExpense)
	api.GET("/statistics", a.costStatistics)

	api.GET("/reminders", a.listReminders)
	api.POST("/reminders", a.createReminder)
	api.GET("/reminders/:id", a.getReminder)
	api.PUT("/reminders/:id", a.updateReminder)
	api.DELETE("/reminders/:id", a.deleteReminder)

	api.GET("/preferences", a.getPreferences)
	api.PUT("/preferences", a.updatePreferences)
	api.POST("/preferences/currency", a.changeCurrency)

	a.registerNotifications(api)
}
