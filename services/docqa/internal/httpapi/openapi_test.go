package httpapi_test

import (
	"testing"

	"github.com/carhub/backend/pkg/openapicheck"
	"github.com/carhub/backend/services/docqa/internal/httpapi"
)

// TestRoutesMatchOpenAPI keeps proto-docs/docqa-service.openapi.yaml and the
// registered routes in step, and the document valid OpenAPI 3.1.
func TestRoutesMatchOpenAPI(t *testing.T) {
	s := newService(t, options{local: true})
	engine := httpapi.New(httpapi.Config{Store: s.store, Embedder: s.embedder, Chat: s.chatModel, Pipeline: s.pipeline, PDFEngine: pdfEngine})
	openapicheck.Check(t, "../../../../proto-docs/docqa-service.openapi.yaml", engine.Routes())
}
