// Package check validates polgraph's deployment files offline: the container image that
// deploy/build-image.sh makes and deploy/Dockerfile describes, the Compose file, the Kubernetes base and
// the values for Dgraph's Helm chart, and the Grafana dashboard.
//
// Each Check function takes what was read from a file and returns every problem it finds, so that the
// tests can run it both on the committed files (no problem allowed) and on broken copies of them (the
// problem planted must be found). It is a module of its own, so that the Compose, Kubernetes, Prometheus
// and container libraries it uses stay out of polgraph's go.mod; `make deploy-check` runs it.
package check
