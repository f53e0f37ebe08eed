package api

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
)

// specChecker validates real responses against the embedded OpenAPI document.
type specChecker struct {
	doc    *openapi3.T
	router routers.Router
}

var loadSpecOnce = sync.OnceValues(func() (*specChecker, error) {
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(openAPIDoc)
	if err != nil {
		return nil, err
	}
	if err := doc.Validate(context.Background()); err != nil {
		return nil, err
	}
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		return nil, err
	}
	return &specChecker{doc: doc, router: router}, nil
})

func loadSpec(t testing.TB) *specChecker {
	t.Helper()
	c, err := loadSpecOnce()
	if err != nil {
		t.Fatalf("openapi.json: %v", err)
	}
	return c
}

// check validates one response. A request the document has no operation for must have been answered 404
// or 405, with the error body.
func (c *specChecker) check(t testing.TB, hr *http.Request, r *resp) {
	t.Helper()
	ctx := context.Background()
	route, params, err := c.router.FindRoute(hr)
	if err != nil {
		if !strings.HasPrefix(hr.URL.Path, "/api/") {
			return // connector routes mounted through Options.Extra are not part of the document
		}
		if r.status != http.StatusNotFound && r.status != http.StatusMethodNotAllowed {
			t.Errorf("%s %s: no operation in openapi.json, yet status %d", hr.Method, hr.URL.Path, r.status)
			return
		}
		var v any
		if err := json.Unmarshal(r.body, &v); err != nil {
			t.Errorf("%s %s: body is not JSON: %s", hr.Method, hr.URL.Path, r.body)
			return
		}
		if err := c.doc.Components.Schemas["Error"].Value.VisitJSON(v, openapi3.EnableJSONSchema2020()); err != nil {
			t.Errorf("%s %s: %d body is not the error shape: %v", hr.Method, hr.URL.Path, r.status, err)
		}
		return
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: hr, PathParams: params, Route: route},
		Status:                 r.status,
		Header:                 r.header,
		Options:                &openapi3filter.Options{IncludeResponseStatus: true},
	}
	in.SetBodyBytes(r.body)
	if err := openapi3filter.ValidateResponse(ctx, in); err != nil {
		t.Errorf("%s %s: response %d does not match openapi.json: %v\nbody: %.600s", hr.Method, hr.URL.Path, r.status, err, r.body)
	}
}

func TestOpenAPIDocument(t *testing.T) {
	c := loadSpec(t)
	if c.doc.OpenAPI != "3.1.0" || c.doc.Info.Version != "1.0.0" {
		t.Fatalf("openapi %q version %q", c.doc.OpenAPI, c.doc.Info.Version)
	}
}
