package httpapi_test

import (
	"testing"

	"github.com/carhub/backend/pkg/auth"
	"github.com/carhub/backend/pkg/openapicheck"
	"github.com/carhub/backend/services/docqa/internal/httpapi"
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
