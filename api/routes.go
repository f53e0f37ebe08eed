package api

import "net/http"

// routes lists every endpoint. Routes under /api except the OpenAPI document need a key; the rest are
// operational and open.
func (s *Server) routes() {
	h := &handlers{svc: s.svc, now: s.now, signalCache: newSignalCache(s.now), configured: s.configured,
		subscribers: s.subscribers}
	api := func(pattern string, fn http.HandlerFunc) { s.mux.Handle(pattern, s.authed(fn)) }
	create := func(pattern string, fn http.HandlerFunc) { s.mux.Handle(pattern, s.authed(jsonBody(fn))) }

	api("GET /api/records/verify", h.verify)
	create("POST /api/records/feedback", h.createFeedback())
	create("POST /api/records/idea", h.createIdea())
	api("GET /api/records", h.listRecords)
	api("GET /api/records/{id}", h.record())
	api("GET /api/records/{id}/insights", h.recordInsights())
	create("PATCH /api/records/{id}", h.patchRecord)
	api("DELETE /api/records/{id}", h.deleteRecord)
	api("PUT /api/records/{id}/links/{target}", h.link)
	api("DELETE /api/records/{id}/links/{target}", h.unlink)
	api("GET /api/records/{id}/feedback", h.linkedFeedback)
	api("GET /api/records/{id}/history", h.history())
	create("POST /api/records/{id}/merge", h.merge)
	api("GET /api/records/{id}/suggestions", h.suggestions)
	api("GET /api/records/signals", h.signals)
	api("GET /api/records/tags", h.tags)
	api("GET /api/records/product", h.products)
	api("GET /api/records/users", h.users)
	api("GET /api/imports", h.imports)
	api("GET /api/imports/{id}", h.importRun())
	api("GET /api/connectors", h.connectors)
	api("GET /api/events/subscribers", h.eventSubscribers)
	api("GET /api/companies", h.companies)
	api("GET /api/companies/{id}", h.company())
	create("POST /api/contacts/forget", h.forgetContact)
	s.mux.HandleFunc("GET /api/openapi.json", s.serveOpenAPI)

	// Without these, GET on a create path would be read as GET /api/records/{id} with a malformed id
	// instead of the 405 the contract asks for.
	s.methodNotAllowed("GET /api/records/feedback", "GET /api/records/idea")
	// Likewise the fixed paths beside /api/records/{id}, for the methods a record answers.
	for _, p := range []string{"feedback", "idea", "verify", "signals", "tags", "product", "users"} {
		s.methodNotAllowed("PATCH /api/records/"+p, "DELETE /api/records/"+p)
	}
	// Everything else under /api: 404, or 405 with Allow when the path exists with another method.
	s.mux.HandleFunc("/api/", s.noRoute)

	s.mux.HandleFunc("GET /healthz", s.healthz)
	s.mux.HandleFunc("GET /readyz", s.readyz)
	s.mux.Handle("GET /metrics", s.metrics.Handler())
}
