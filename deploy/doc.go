// Package deploy holds feedbridge's deployment artifacts (container image, Compose, Kubernetes, systemd,
// Grafana) as files; it has no code. Its tests parse every manifest and check the facts an operator relies
// on: probes, replica counts, non-root users, and that each shipped configuration loads and validates.
package deploy
