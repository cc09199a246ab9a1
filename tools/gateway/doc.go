// Package gateway holds the tests of the repository's Caddyfile: that it is
// valid and formatted, and that bin/caddy running it routes, limits, streams
// and answers errors the way proto-docs/foundation-decisions.md says, with
// small in-process HTTP servers standing in for the two services.
package gateway
