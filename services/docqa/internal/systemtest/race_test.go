//go:build race

package systemtest

// raceEnabled makes the service binary be built with -race too when the
// tests are, so that a data race in the service fails the test that hit it.
const raceEnabled = true
