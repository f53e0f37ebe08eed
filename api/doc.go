// Package api serves feedbridge's HTTP interface: the /api/records endpoints of the public contract, the
// lookups, import runs and connector states, and the operational endpoints (/healthz, /readyz, /metrics).
// Every handler goes through core.Service; this package only translates HTTP to the service and back.
package api
