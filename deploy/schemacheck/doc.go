// Package schemacheck validates deploy/'s Kubernetes manifests against the Kubernetes API types and
// deploy/compose.yaml against the Compose specification, offline. It is a module of its own so that those
// large dependencies stay out of feedbridge's go.mod; run it with `cd deploy/schemacheck && go test ./...`.
package schemacheck
