package httpapi_test

import (
	"io"
	"log/slog"
	"testing"

	"github.com/carhub/backend/pkg/auth"
	"github.com/carhub/backend/pkg/openapicheck"
	"github.com/carhub/backend/services/fuel/internal/httpapi"
)

// TestOpenAPIInStep fails for every route the OpenAPI document lacks and
// every documented operation no route serves. Accounts on: their routes
// are only registered then.
func TestOpenAPIInStep(t *testing.T) {
	e := httpapi.New(slog.New(slog.NewTextHandler(io.Discard, nil)), nil, httpapi.Options{Auth: httpapi.AuthOptions{Mode: auth.ModeLocal}})
	openapicheck.Check(t, "../../../../proto-docs/fuel-service.openapi.yaml", e.Routes())
}
