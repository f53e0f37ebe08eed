package api

import "net/http"

// subscriberView is one event subscriber's delivery status; never its secret, nor its URL's query.
type subscriberView struct {
	Name          string `json:"name"`
	URL           string `json:"url"`
	State         string `json:"state"`
	Pending       int    `json:"pending"`
	Failed        int    `json:"failed"`
	LastSuccessAt string `json:"last_success_at"`
	LastError     string `json:"last_error"`
	LastErrorAt   string `json:"last_error_at"`
}

func (h *handlers) eventSubscribers(w http.ResponseWriter, r *http.Request) {
	if _, err := parseQuery(r.URL.RawQuery, nil); err != nil {
		writeError(w, r, err)
		return
	}
	out := []subscriberView{}
	if h.subscribers != nil {
		sts, err := h.subscribers(r.Context(), workspaceFrom(r.Context()).ID)
		if err != nil {
			writeError(w, r, err)
			return
		}
		for _, s := range sts {
			out = append(out, subscriberView{Name: s.Name, URL: s.URL, State: s.State, Pending: s.Pending, Failed: s.Failed,
				LastSuccessAt: timeString(s.LastSuccessAt), LastError: s.LastError, LastErrorAt: timeString(s.LastErrorAt)})
		}
	}
	writeJSON(w, http.StatusOK, out)
}
