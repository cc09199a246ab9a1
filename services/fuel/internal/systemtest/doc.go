// Package systemtest holds the fault and soak tests of the fuel service: they
// build the real fuel-service binary, run it as a separate process against a
// real PostgreSQL, and drive it over HTTP the way clients do. The package has
// no code of its own beyond this comment; the tests and their helpers live in
// the _test.go files (see proto-docs/system-tests.md).
package systemtest
