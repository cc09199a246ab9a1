package milvus

import (
	"context"
	"testing"

	"github.com/milvus-io/milvus-sdk-go/v2/client"

	"github.com/carhub/backend/pkg/tracing"
	"github.com/carhub/backend/pkg/tracing/otlptest"
)

// TestDialOptions: off, the SDK's defaults stay (nil); on, they are kept
// and the gRPC stats handler that makes a span of each call is added.
func TestDialOptions(t *testing.T) {
	if got := dialOptions(); got != nil {
		t.Fatalf("dial options with tracing off: %d, want nil (the SDK's defaults)", len(got))
	}
	rcv := otlptest.Start(t)
	shutdown, err := tracing.Setup(context.Background(), func(k string) string {
		return map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": rcv.URL}[k]
	}, "milvus-test")
	if err != nil {
		t.Fatal(err)
	}
	defer shutdown(context.Background())
	if got, want := len(dialOptions()), len(client.DefaultGrpcOpts)+1; got != want {
		t.Errorf("dial options with tracing on: %d, want the %d defaults and the stats handler", got, want-1)
	}
}
