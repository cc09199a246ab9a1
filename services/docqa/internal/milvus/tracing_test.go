package milvus

import (
	"testing"

	"github.com/milvus-io/milvus-sdk-go/v2/client"

	"github.com/carhub/backend/pkg/tracing/otlptest"
)

// TestDialOptions: off, the SDK's defaults stay (nil); on, they are kept
// and the gRPC stats handler that makes a span of each call is added.
func TestDialOptions(t *testing.T) {
	if got := dialOptions(); got != nil {
		t.Fatalf("dial options with tracing off: %d, want nil (the SDK's defaults)", len(got))
	}
	otlptest.Traced(t, "milvus-test")
	if got, want := len(dialOptions()), len(client.DefaultGrpcOpts)+1; got != want {
		t.Errorf("dial options with tracing on: %d, want the %d defaults and the stats handler", got, want-1)
	}
}
