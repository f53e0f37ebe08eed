package api

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

//go:embed openapi.json
var openAPIDoc []byte

// OpenAPI returns the embedded OpenAPI 3.1 document. The server answers /api/openapi.json with
// OpenAPIFor the connector kinds the daemon was built with.
func OpenAPI() []byte { return append([]byte(nil), openAPIDoc...) }

// OpenAPIFor returns the document whose Connector schema lists kinds as the possible values of "kind";
// with no kinds it is the embedded document. The kinds come from the connectors registry, so a new kind
// shows in the document without editing it.
func OpenAPIFor(kinds []string) ([]byte, error) { return openAPIFor(kinds, nil) }

// openAPIFor is OpenAPIFor that also lists sources as the Source schema's values (nil: the embedded list),
// since sources.add extends the set.
func openAPIFor(kinds, sources []string) ([]byte, error) {
	if len(kinds) == 0 && len(sources) == 0 {
		return OpenAPI(), nil
	}
	var doc map[string]any
	if err := json.Unmarshal(openAPIDoc, &doc); err != nil {
		return nil, fmt.Errorf("openapi: %w", err)
	}
	if len(kinds) > 0 {
		kind, ok := dig(doc, "components", "schemas", "Connector", "properties", "kind").(map[string]any)
		if !ok {
			return nil, fmt.Errorf("openapi: no Connector.kind schema")
		}
		kind["enum"] = append([]string(nil), kinds...)
	}
	if len(sources) > 0 {
		src, ok := dig(doc, "components", "schemas", "Source").(map[string]any)
		if !ok {
			return nil, fmt.Errorf("openapi: no Source schema")
		}
		src["enum"] = append([]string(nil), sources...)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("openapi: %w", err)
	}
	return b.Bytes(), nil
}

func dig(v any, path ...string) any {
	for _, p := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[p]
	}
	return v
}

func (s *Server) serveOpenAPI(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", contentTypeJSON)
	_, _ = w.Write(s.openAPI)
}

func (s *Server) healthz(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

// readyz answers 200 only when the store answers and the daemon's own checks pass.
func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 3*time.Second)
	defer cancel()
	err := s.svc.Ping(ctx)
	msg := "The store is not reachable, or its writes are failing."
	if err == nil && s.ready != nil {
		err, msg = s.ready(ctx), "The daemon is not ready yet."
	}
	if err != nil {
		writeError(w, r, &apiError{status: http.StatusServiceUnavailable, code: "not ready", message: msg, cause: err})
		return
	}
	// Outside sources that are failing are named (never their errors: this endpoint needs no key) but do
	// not make the replica unready: serving the API does not depend on them.
	body := map[string]any{"status": "ready"}
	if f := s.svc.Faults().List(); len(f) > 0 {
		body["failing"] = f
	}
	writeJSON(w, http.StatusOK, body)
}

// methodNotAllowed registers patterns whose only purpose is a 405, for paths that another route's
// wildcard would otherwise claim.
func (s *Server) methodNotAllowed(patterns ...string) {
	for _, p := range patterns {
		s.notAllowed[p] = true
		s.mux.HandleFunc(p, s.noRoute)
	}
}

// probeMethods are the methods an Allow header can name.
var probeMethods = []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete}

// noRoute answers for /api paths no route serves: 405 with Allow when the path exists with other methods,
// 404 otherwise. The Allow set is found by asking the mux itself, so it cannot drift from routes.go.
func (s *Server) noRoute(w http.ResponseWriter, r *http.Request) {
	var allow []string
	for _, m := range probeMethods {
		if m == r.Method {
			continue
		}
		probe := r.Clone(r.Context())
		probe.Method = m
		if _, pattern := s.mux.Handler(probe); pattern != "" && pattern != "/api/" && !s.notAllowed[pattern] {
			allow = append(allow, m)
		}
	}
	if len(allow) == 0 {
		writeError(w, r, newAPIError(http.StatusNotFound, "not found", "There is no endpoint at %s.", r.URL.Path))
		return
	}
	err := newAPIError(http.StatusMethodNotAllowed, "method not allowed", "%s is not allowed on %s; use %s.",
		r.Method, r.URL.Path, strings.Join(allow, " or "))
	err.header = http.Header{"Allow": {strings.Join(allow, ", ")}}
	writeError(w, r, err)
}
