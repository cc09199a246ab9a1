// Package deploycheck holds the tests of the Kubernetes base in deploy/k8s:
// it is rendered with the kustomize library `kubectl apply -k` uses, every
// object is decoded strictly into the Kubernetes API types (an unknown or
// misspelled field fails), and the objects are checked against the code
// they run: every probe asks a route the service registers, every
// environment variable is one its configuration reads (the services'
// Config structs, read from their Go source; the gateway's Caddyfile), and
// the same for docker-compose.yml and deploy/*.env.example.
package deploycheck
