package api

import "net/http"

func (h *handlers) signals(w http.ResponseWriter, r *http.Request) {
	writeError(w, r, newAPIError(http.StatusNotImplemented, "not implemented", "Signals are not available yet."))
}
