package api

import (
	"errors"
	"net/http"
	"strings"

	"github.com/feedbridge/feedbridge/core"
)

// patchStrings are the string members PATCH /records/{id} accepts; tags and importance are the others.
var patchStrings = [...]string{"title", "description", "status", "product", "user", "release", "timeframe",
	"customer_email", "customer_name"}

// decodePatch reads PATCH /records/{id}'s body: names and types strictly as every body, null as absent
// except for importance, where null clears it. The body is parsed once; the members as given tell a
// field sent from one left out.
func decodePatch(body []byte) (core.Patch, error) {
	var (
		p    core.Patch
		strs [len(patchStrings)]string
		tags []string
		imp  int
	)
	dst := [len(patchStrings)]**string{&p.Title, &p.Description, &p.Status, &p.Product, &p.User, &p.Release,
		&p.Timeframe, &p.CustomerEmail, &p.CustomerName}
	fields := make([]bodyField, 0, len(patchStrings)+2)
	for i, name := range patchStrings {
		fields = append(fields, bodyField{name, &strs[i]})
	}
	fields = append(fields, bodyField{"tags", &tags}, bodyField{"importance", &imp})
	m, err := decodeMembers(body, fields...)
	if err != nil {
		return p, err
	}
	for i := range patchStrings {
		if m.given(i) {
			*dst[i] = &strs[i]
		}
	}
	const tagsField, importanceField = len(patchStrings), len(patchStrings) + 1
	if m.given(tagsField) {
		p.Tags = &tags
	}
	switch {
	case m.given(importanceField):
		p.Importance = &imp
	case m.sent&(1<<importanceField) != 0:
		p.ClearImportance = true
	}
	return p, nil
}

// ifMatch is the If-Match header as the service compares it; "*" matches any current version.
func ifMatch(r *http.Request) string {
	v := strings.TrimSpace(r.Header.Get("If-Match"))
	if v == "*" {
		return ""
	}
	return v
}

func (h *handlers) patchRecord(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r)
	if err == nil {
		_, err = parseQuery(r.URL.RawQuery, nil)
	}
	var raw []byte
	if err == nil {
		raw, err = readBody(r)
	}
	var p core.Patch
	if err == nil {
		p, err = decodePatch(raw)
	}
	if err != nil {
		writeError(w, r, err)
		return
	}
	rec, err := h.svc.Update(r.Context(), workspaceFrom(r.Context()).ID, id, p, ifMatch(r))
	if err != nil {
		writeError(w, r, notFound(err, "record", string(id)))
		return
	}
	writeRecord(w, http.StatusOK, rec)
}

func (h *handlers) deleteRecord(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r)
	if err == nil {
		_, err = parseQuery(r.URL.RawQuery, nil)
	}
	if err == nil {
		err = notFound(h.svc.Delete(r.Context(), workspaceFrom(r.Context()).ID, id), "record", string(id))
	}
	if err != nil {
		writeError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// linkIDs reads the feedback and target ids of a link path.
func linkIDs(r *http.Request) (feedback, target core.ID, err error) {
	if feedback, err = pathID(r); err != nil {
		return "", "", err
	}
	if target, err = core.ParseID(r.PathValue("target")); err != nil {
		return "", "", badRequest("invalid id", "The target id in the path must be 24 lowercase hex characters.")
	}
	_, err = parseQuery(r.URL.RawQuery, nil)
	return feedback, target, err
}

func (h *handlers) link(w http.ResponseWriter, r *http.Request) {
	fb, target, err := linkIDs(r)
	var imp *int
	if err == nil {
		imp, err = decodeLinkBody(r)
	}
	if err != nil {
		writeError(w, r, err)
		return
	}
	rec, err := h.svc.Link(r.Context(), workspaceFrom(r.Context()).ID, fb, target, imp)
	if errors.Is(err, core.ErrNotFound) {
		err = newAPIError(http.StatusNotFound, "record not found", "No record with id %s or %s exists in this workspace.", fb, target)
	}
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeRecord(w, http.StatusOK, rec)
}

// decodeLinkBody reads the optional {"importance": 1-3} of a link: no body at all is no importance; a body
// must be JSON.
func decodeLinkBody(r *http.Request) (*int, error) {
	if r.ContentLength == 0 && r.Header.Get("Content-Type") == "" {
		return nil, nil
	}
	if !isJSONContentType(r.Header.Get("Content-Type")) {
		return nil, newAPIError(http.StatusUnsupportedMediaType, "unsupported media type",
			"Send the body as JSON with Content-Type: application/json.")
	}
	r.Body = http.MaxBytesReader(nil, r.Body, MaxBodyBytes)
	raw, err := readBody(r)
	if err != nil || len(strings.TrimSpace(string(raw))) == 0 {
		return nil, err
	}
	imp := 0
	if err := decodeObject(raw, bodyField{"importance", &imp}); err != nil {
		return nil, err
	}
	if imp == 0 {
		return nil, nil
	}
	return &imp, nil
}

func (h *handlers) unlink(w http.ResponseWriter, r *http.Request) {
	fb, target, err := linkIDs(r)
	if err == nil {
		err = h.svc.Unlink(r.Context(), workspaceFrom(r.Context()).ID, fb, target)
		if err != nil {
			err = notFoundLink(err)
		}
	}
	if err != nil {
		writeError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func notFoundLink(err error) error {
	if errors.Is(err, core.ErrNotFound) {
		return newAPIError(http.StatusNotFound, "link not found", "These two records are not linked in this workspace.")
	}
	return err
}

func (h *handlers) merge(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r)
	var raw []byte
	if err == nil {
		raw, err = readBody(r)
	}
	var into string
	if err == nil {
		err = decodeObject(raw, bodyField{"into", &into})
	}
	if err != nil {
		writeError(w, r, err)
		return
	}
	rec, err := h.svc.Merge(r.Context(), workspaceFrom(r.Context()).ID, id, core.ID(strings.TrimSpace(into)))
	if err != nil {
		writeError(w, r, notFound(err, "record", string(id)))
		return
	}
	writeRecord(w, http.StatusOK, rec)
}

// linkedParams are GET /records/{id}/feedback's query parameters.
var linkedParams = map[string]bool{"sort": false, "limit": false, "cursor": false}

func (h *handlers) linkedFeedback(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r)
	var vals map[string][]string
	if err == nil {
		vals, err = parseQuery(r.URL.RawQuery, linkedParams)
	}
	if err != nil {
		writeError(w, r, err)
		return
	}
	get := func(k string) string {
		if v := vals[k]; len(v) > 0 {
			return v[0]
		}
		return ""
	}
	page, err := h.svc.LinkedFeedback(r.Context(), workspaceFrom(r.Context()).ID, id,
		core.ListRequest{Sort: get("sort"), Limit: get("limit"), Cursor: get("cursor")})
	if err != nil {
		writeError(w, r, notFound(err, "record", string(id)))
		return
	}
	if page.Next != "" {
		w.Header().Set("Link", nextLink(r.URL.Path, vals, page.Next))
		w.Header().Set("X-Next-Cursor", page.Next)
	}
	writeJSON(w, http.StatusOK, recordViews(page.Records))
}

type actorView struct {
	Kind string `json:"kind"`
	Name string `json:"name"`
}

type historyView struct {
	At      string            `json:"at"`
	Actor   actorView         `json:"actor"`
	Action  string            `json:"action"`
	Changes map[string][2]any `json:"changes"`
}

// NewHistoryViews renders a record's history as the API shows it, for the command line's --json too.
func NewHistoryViews(hs []core.HistoryEntry) any { return historyViews(hs) }

func historyViews(hs []core.HistoryEntry) []historyView {
	out := make([]historyView, len(hs))
	for i, e := range hs {
		ch := e.Changes
		if ch == nil {
			ch = map[string][2]any{}
		}
		out[i] = historyView{At: timeString(e.At), Actor: actorView{Kind: e.Actor.Kind, Name: e.Actor.Name}, Action: e.Action, Changes: ch}
	}
	return out
}

func (h *handlers) history() http.HandlerFunc {
	return byID("record", h.svc.History, historyViews)
}

// NewInsightViews renders a record's insights as the API shows them, for the command line's --json.
func NewInsightViews(ins []core.Insight) any {
	out := make([]insightView, len(ins))
	for i, in := range ins {
		out[i] = newInsightView(in)
	}
	return out
}
