// Package deployment holds the tests of the deployment files: the root
// docker-compose.yml (loaded with compose-go, since no Docker engine runs
// where the tests do) and the Dockerfiles under deploy/ (parsed with
// BuildKit's parser and compared with what the Makefile builds).
package deployment
