package api

import (
	"math"
	"net/http"
)

// suggestionView is one item of GET /records/{id}/suggestions.
type suggestionView struct {
	Record recordView `json:"record"`
	Score  float64    `json:"score"`
	Reason string     `json:"reason"`
}

func (h *handlers) suggestions(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r)
	if err != nil {
		writeError(w, r, err)
		return
	}
	vals, err := parseQuery(r.URL.RawQuery, map[string]bool{"limit": false})
	if err != nil {
		writeError(w, r, err)
		return
	}
	ss, err := h.svc.Suggestions(r.Context(), workspaceFrom(r.Context()).ID, id, vals.Get("limit"))
	if err != nil {
		writeError(w, r, notFound(err, "record", string(id)))
		return
	}
	out := make([]suggestionView, len(ss))
	for i, s := range ss {
		// three decimals say all a score can say, and keep the body stable across platforms
		out[i] = suggestionView{Record: newRecordView(s.Record), Score: math.Round(s.Score*1000) / 1000, Reason: s.Reason}
	}
	writeJSON(w, http.StatusOK, out)
}
