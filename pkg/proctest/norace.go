//go:build !race

package proctest

// RaceEnabled is true when the tests run with -race.
const RaceEnabled = false
