// Package apperr is the one error type of both services: a code from the
// contract, a message fit for the client, and the cause kept for the log.
// Status is the only place where a code becomes an HTTP status.
package apperr

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// Code is a machine-readable error code of the API contract.
type Code string

// Codes of proto-docs/contract.md, "Errors". Unauthorized and Forbidden come with accounts
// (AUTH_MODE=local); ResourceExhausted is a rate limit's answer.
const (
	InvalidArgument Code = "INVALID_ARGUMENT"
	NotFound        Code = "NOT_FOUND"
	PayloadTooLarge Code = "PAYLOAD_TOO_LARGE"
	Internal        Code = "INTERNAL"
	Unavailable     Code = "UNAVAILABLE"
	Conflict        Code = "CONFLICT"
	Unauthorized    Code = "UNAUTHORIZED"
	Forbidden       Code = "FORBIDDEN"
	// ResourceExhausted: a rate limit refused the request; RetryAfter
	// says when to try again.
	ResourceExhausted Code = "RESOURCE_EXHAUSTED"
	// ClientClosed: the client went away before the answer was ready
	// (its request's context was cancelled). Nobody reads the answer; the
	// code exists so that logs tell it apart from a failure of ours.
	ClientClosed Code = "CLIENT_CLOSED_REQUEST"
)

// StatusClientClosedRequest is the status logged for ClientClosed (nginx's
// 499): no standard status means "the client left".
const StatusClientClosedRequest = 499

// internalMessage is what a client sees of any INTERNAL error; the cause
// goes to the log only.
const internalMessage = "internal error"

// Status maps a code to its HTTP status. Unknown codes are 500.
func Status(c Code) int {
	switch c {
	case InvalidArgument:
		return http.StatusBadRequest
	case NotFound:
		return http.StatusNotFound
	case PayloadTooLarge:
		return http.StatusRequestEntityTooLarge
	case Unavailable:
		return http.StatusServiceUnavailable
	case Conflict:
		return http.StatusConflict
	case Unauthorized:
		return http.StatusUnauthorized
	case Forbidden:
		return http.StatusForbidden
	case ResourceExhausted:
		return http.StatusTooManyRequests
	case ClientClosed:
		return StatusClientClosedRequest
	default:
		return http.StatusInternalServerError
	}
}

// Error is an error with a contract code. Field names the offending input,
// when there is one; Err is the cause, logged but never sent.
type Error struct {
	Code    Code
	Field   string
	Message string
	Err     error
	// RetryAfter, when positive, tells the client when to try again
	// (the Retry-After header of an UNAVAILABLE answer).
	RetryAfter time.Duration
}

func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Err)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

func (e *Error) Unwrap() error { return e.Err }

// New returns an error with code and a formatted message.
func New(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Invalid returns an INVALID_ARGUMENT error about field; the message starts
// with the field's name so a client can tell which input was wrong:
// Invalid("liters", "must be greater than 0") reads "liters: must be greater than 0".
func Invalid(field, format string, args ...any) *Error {
	msg := fmt.Sprintf(format, args...)
	if field != "" {
		msg = field + ": " + msg
	}
	return &Error{Code: InvalidArgument, Field: field, Message: msg}
}

// InvalidCause is Invalid keeping err as the cause, for the log.
func InvalidCause(err error, field, format string, args ...any) *Error {
	e := Invalid(field, format, args...)
	e.Err = err
	return e
}

// Join combines the results of several checks of one input, so that one
// answer names every field that is wrong. Nil errors are dropped; none
// left is nil and one is itself. Several INVALID_ARGUMENT errors become one
// whose message lists theirs in order ("name: is required; fuel_type: is
// required"), whose Field is the first's and whose cause joins theirs. Any
// other error wins over them and is returned alone: a failure is not one
// more thing wrong with the input.
func Join(errs ...error) error {
	var (
		invalid []*Error
		causes  []error
	)
	for _, err := range errs {
		if err == nil {
			continue
		}
		var e *Error
		if !errors.As(err, &e) || e.Code != InvalidArgument {
			return err
		}
		invalid = append(invalid, e)
		if e.Err != nil {
			causes = append(causes, e.Err)
		}
	}
	switch len(invalid) {
	case 0:
		return nil
	case 1:
		return invalid[0]
	}
	msgs := make([]string, len(invalid))
	for i, e := range invalid {
		msgs[i] = e.Message
	}
	return &Error{Code: InvalidArgument, Field: invalid[0].Field, Message: strings.Join(msgs, "; "), Err: errors.Join(causes...)}
}

// Wrap returns an error with code and message that keeps err as its cause.
func Wrap(code Code, err error, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Err: err}
}

// From returns err as an *Error. A cancelled context is CLIENT_CLOSED_REQUEST
// (a request's context is cancelled when its client goes away); other
// errors that carry no code are INTERNAL, with err kept as the cause.
func From(err error) *Error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	if errors.Is(err, context.Canceled) {
		return &Error{Code: ClientClosed, Message: "the client closed the request", Err: err}
	}
	return &Error{Code: Internal, Message: internalMessage, Err: err}
}

// Body is the JSON error body of both services.
type Body struct {
	Code    Code   `json:"code"`
	Message string `json:"message"`
}

// BodyOf returns the HTTP status and the body to send for err. INTERNAL
// errors get a generic message whatever they say inside.
func BodyOf(err error) (int, Body) {
	e := From(err)
	msg := e.Message
	if e.Code == Internal || msg == "" {
		msg = internalMessage
		if e.Code != Internal {
			msg = http.StatusText(Status(e.Code))
		}
	}
	return Status(e.Code), Body{Code: e.Code, Message: msg}
}
