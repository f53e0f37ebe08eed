package api

import (
	"net/http"

	"github.com/feedbridge/feedbridge/core"
)

// lookups serves one of the API's label sets (tags, products, users).
func (h *handlers) lookups(w http.ResponseWriter, r *http.Request, list func(ws core.ID) ([]core.Lookup, error)) {
	if _, err := parseQuery(r.URL.RawQuery, nil); err != nil {
		writeError(w, r, err)
		return
	}
	ls, err := list(workspaceFrom(r.Context()).ID)
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, lookupViews(ls))
}

func (h *handlers) tags(w http.ResponseWriter, r *http.Request) {
	h.lookups(w, r, func(ws core.ID) ([]core.Lookup, error) { return h.svc.Tags(r.Context(), ws) })
}

func (h *handlers) products(w http.ResponseWriter, r *http.Request) {
	h.lookups(w, r, func(ws core.ID) ([]core.Lookup, error) { return h.svc.Products(r.Context(), ws) })
}

func (h *handlers) users(w http.ResponseWriter, r *http.Request) {
	h.lookups(w, r, func(ws core.ID) ([]core.Lookup, error) { return h.svc.Users(r.Context(), ws) })
}

func (h *handlers) imports(w http.ResponseWriter, r *http.Request) {
	if _, err := parseQuery(r.URL.RawQuery, nil); err != nil {
		writeError(w, r, err)
		return
	}
	runs, err := h.svc.ImportRuns(r.Context(), workspaceFrom(r.Context()).ID)
	if err != nil {
		writeError(w, r, err)
		return
	}
	out := make([]ImportRunView, len(runs))
	for i, run := range runs {
		out[i] = NewImportRunView(run)
	}
	writeJSON(w, http.StatusOK, out)
}

func (h *handlers) importRun() http.HandlerFunc {
	return byID("import run", h.svc.ImportRun, NewImportRunView)
}

func (h *handlers) connectors(w http.ResponseWriter, r *http.Request) {
	if _, err := parseQuery(r.URL.RawQuery, nil); err != nil {
		writeError(w, r, err)
		return
	}
	ws := workspaceFrom(r.Context()).ID
	sts, err := h.svc.Connectors(r.Context(), ws)
	if err != nil {
		writeError(w, r, err)
		return
	}
	out := make([]connectorView, 0, len(sts))
	for _, st := range sts {
		if h.configured != nil && !h.configured(ws, st.Kind, st.Name) {
			continue // removed by a reload: its last stored state describes nothing that runs
		}
		out = append(out, connectorView{Name: st.Name, Kind: st.Kind, State: st.State,
			LastSuccessAt: timeString(st.LastSuccessAt), LastError: st.LastError,
			Refused: st.Refused, LastRefused: st.LastRefused, LastRefusedAt: timeString(st.LastRefusedAt)})
	}
	writeJSON(w, http.StatusOK, out)
}
