// Package grpc_retry is go-grpc-middleware v1's retry API over v2's retry
// interceptor (github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors/retry):
// the names Milvus's Go client calls, each forwarding to its v2 namesake,
// which has the same loop, defaults and semantics (attempts counted from 0,
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

// BackoffFuncContext is v1's backoff with the call's context; v2's
// BackoffFunc has this shape.
type BackoffFuncContext func(ctx context.Context, attempt uint) time.Duration

// DefaultRetriableCodes are the codes retried when WithCodes is not given.
var DefaultRetriableCodes = retry.DefaultRetriableCodes

// UnaryClientInterceptor retries unary calls as the options say.
func UnaryClientInterceptor(opts ...CallOption) grpc.UnaryClientInterceptor {
	return retry.UnaryClientInterceptor(opts...)
}

// StreamClientInterceptor retries server-streaming calls as the options say.
func StreamClientInterceptor(opts ...CallOption) grpc.StreamClientInterceptor {
	return retry.StreamClientInterceptor(opts...)
}

// Disable turns retrying off for a call.
func Disable() CallOption { return retry.Disable() }

// WithMax sets how many attempts a call gets in all (0: no retry).
func WithMax(maxAttempts uint) CallOption { return retry.WithMax(maxAttempts) }

// WithBackoff sets the wait before each retry.
func WithBackoff(bf BackoffFunc) CallOption {
	return retry.WithBackoff(func(_ context.Context, attempt uint) time.Duration { return bf(attempt) })
}

// WithBackoffContext sets the wait before each retry, given the call's context.
func WithBackoffContext(bf BackoffFuncContext) CallOption {
	return retry.WithBackoff(retry.BackoffFunc(bf))
}

// WithCodes sets which status codes are retried.
func WithCodes(retryCodes ...codes.Code) CallOption { return retry.WithCodes(retryCodes...) }

// WithPerRetryTimeout bounds each attempt (the call's own deadline still
// bounds them all).
func WithPerRetryTimeout(timeout time.Duration) CallOption {
	return retry.WithPerRetryTimeout(timeout)
}
