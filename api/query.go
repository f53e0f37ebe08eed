package api

import (
	"fmt"
	"net/url"
	"sort"

	"github.com/feedbridge/feedbridge/core"
)

// listParams are GET /records' query parameters; true marks the repeatable ones.
var listParams = map[string]bool{
	"record_type": false, "search": false, "sort": false, "created_from": false, "created_to": false,
	"updated_since": false, "product": false, "user": false, "tags": true, "limit": false, "cursor": false,
	"status": true, "company": false, "customer_email": false, "linked": false, "order": false,
}

// parseListQuery reads GET /records' query string. Nothing is silently ignored: a malformed query string,
// an unknown name and a repeated single-valued parameter are all 400s. The values are checked by core.
func parseListQuery(raw string) (core.ListRequest, url.Values, error) {
	vals, err := url.ParseQuery(raw)
	if err != nil {
		return core.ListRequest{}, nil, badRequest("invalid query string", "The query string is malformed: %v.", err)
	}
	if err := checkParams(vals, listParams); err != nil {
		return core.ListRequest{}, nil, err
	}
	req := core.ListRequest{
		RecordType: vals.Get("record_type"), Search: vals.Get("search"), Sort: vals.Get("sort"),
		CreatedFrom: vals.Get("created_from"), CreatedTo: vals.Get("created_to"),
		UpdatedSince: vals.Get("updated_since"), Product: vals.Get("product"), User: vals.Get("user"),
		Tags: vals["tags"], Limit: vals.Get("limit"), Cursor: vals.Get("cursor"),
		Statuses: vals["status"], Company: vals.Get("company"), CustomerEmail: vals.Get("customer_email"),
		Linked: vals.Get("linked"), Order: vals.Get("order"),
	}
	return req, vals, nil
}

// checkParams refuses names outside allowed (value: repeatable) and repeats of single-valued ones, the
// first offender in name order.
func checkParams(vals url.Values, allowed map[string]bool) error {
	names := make([]string, 0, len(vals))
	for n := range vals {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		rep, ok := allowed[n]
		if !ok {
			return badRequest(fmt.Sprintf("unknown query parameter %q", n), "The query parameter %q is not supported here.", n)
		}
		if !rep && len(vals[n]) > 1 {
			return badRequest(fmt.Sprintf("repeated query parameter %q", n), "The query parameter %q may be given only once.", n)
		}
	}
	return nil
}

// parseQuery applies checkParams to any endpoint's query string.
func parseQuery(raw string, allowed map[string]bool) (url.Values, error) {
	vals, err := url.ParseQuery(raw)
	if err != nil {
		return nil, badRequest("invalid query string", "The query string is malformed: %v.", err)
	}
	return vals, checkParams(vals, allowed)
}

// nextLink is the same listing with the next page's cursor, as a path-absolute reference.
func nextLink(path string, vals url.Values, cursor string) string {
	v := make(url.Values, len(vals)+1)
	for k, vs := range vals {
		v[k] = vs
	}
	v.Set("cursor", cursor)
	return fmt.Sprintf("<%s?%s>; rel=\"next\"", path, v.Encode())
}
