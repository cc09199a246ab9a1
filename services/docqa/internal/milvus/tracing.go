package milvus

import (
	"go.opentelemetry.io/contrib/instrumentation/google.golang.org/grpc/otelgrpc"
	"go.opentelemetry.io/otel/attribute"
	"google.golang.org/grpc"

	"github.com/milvus-io/milvus-sdk-go/v2/client"

	"github.com/carhub/backend/pkg/tracing"
)

// spanAttrs are the attributes of the store's spans ("milvus.Search", ...,
// one per docqa.VectorStore call, whatever number of gRPC calls it makes).
func (s *Store) spanAttrs() []attribute.KeyValue {
	return []attribute.KeyValue{
		attribute.String("db.system.name", "milvus"),
		attribute.String("db.collection.name", s.cfg.Collection),
	}
}

// dialOptions are the client's gRPC options: the SDK's defaults, and with
// tracing on a client span for every gRPC call (a child of the store
// call's span) whose metadata carries the trace on to Milvus. nil leaves
// the SDK's defaults.
func dialOptions() []grpc.DialOption {
	if !tracing.Enabled() {
		return nil
	}
	return append(append([]grpc.DialOption(nil), client.DefaultGrpcOpts...), grpc.WithStatsHandler(otelgrpc.NewClientHandler()))
}
