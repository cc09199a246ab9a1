//go:build race

package proctest

// RaceEnabled is true when the tests run with -race: the binaries are then
// built with -race too, so a data race in a service fails the test that hit it.
const RaceEnabled = true
