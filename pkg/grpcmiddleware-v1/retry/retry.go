// Package grpc_retry is go-grpc-middleware v1's retry API over v2's retry
// interceptor (github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors/retry):
// the names Milvus's Go client calls, and only those (another importer of v1
// would fail to compile, naming what is missing), each forwarding to its v2
// namesake, which has the same loop, defaults and semantics (attempts counted from 0,
// the backoff asked for attempts after the first, Unavailable and
// ResourceExhausted retried by default, no retry unless WithMax says so).
// Nothing is retried here: v2 does it. Build with the retrynotrace tag so
// that v2 leaves golang.org/x/net/trace out (see this module's go.mod).
//
// The package keeps v1's name, grpc_retry, which its importers use.
package grpc_retry

import (
	"context"
	"time"

	"github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors/retry"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
)

// CallOption configures the interceptor at creation or per call (it is a
// grpc.CallOption too).
type CallOption = retry.CallOption

// BackoffFunc is v1's backoff without a context: how long to wait before
// the given attempt (1 for the first retry).
type BackoffFunc func(attempt uint) time.Duration

// BackoffFuncContext is v1's backoff with the call's context (the Milvus
// client's rate-limit retry takes one).
type BackoffFuncContext func(ctx context.Context, attempt uint) time.Duration

// UnaryClientInterceptor retries unary calls as the options say.
func UnaryClientInterceptor(opts ...CallOption) grpc.UnaryClientInterceptor {
	return retry.UnaryClientInterceptor(opts...)
}

// WithMax sets how many attempts a call gets in all (0: no retry).
func WithMax(maxAttempts uint) CallOption { return retry.WithMax(maxAttempts) }

// WithBackoff sets the wait before each retry.
func WithBackoff(bf BackoffFunc) CallOption {
	return retry.WithBackoff(func(_ context.Context, attempt uint) time.Duration { return bf(attempt) })
}

// WithCodes sets which status codes are retried.
func WithCodes(retryCodes ...codes.Code) CallOption { return retry.WithCodes(retryCodes...) }
