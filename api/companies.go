package api

import (
	"net/http"

	"github.com/feedbridge/feedbridge/core"
)

// CompanyView is a company as GET /companies shows it.
type CompanyView struct {
	ID            core.ID `json:"id"`
	Name          string  `json:"name"`
	Domain        string  `json:"domain"`
	FeedbackCount int     `json:"feedback_count"`
	CreatedAt     string  `json:"created_at"`
}

func newCompanyView(c core.Company) CompanyView {
	return CompanyView{ID: c.ID, Name: c.Name, Domain: c.Domain, FeedbackCount: c.FeedbackCount, CreatedAt: timeString(c.CreatedAt)}
}

// companyParams are GET /companies' query parameters.
var companyParams = map[string]bool{"limit": false, "cursor": false}

// companies lists the workspace's companies by feedback_count, paged as GET /records is.
func (h *handlers) companies(w http.ResponseWriter, r *http.Request) {
	vals, err := parseQuery(r.URL.RawQuery, companyParams)
	if err != nil {
		writeError(w, r, err)
		return
	}
	page, err := h.svc.CompanyList(r.Context(), workspaceFrom(r.Context()).ID, vals.Get("limit"), vals.Get("cursor"))
	if err != nil {
		writeError(w, r, err)
		return
	}
	if page.Next != "" {
		w.Header().Set("Link", nextLink(r.URL.Path, vals, page.Next))
		w.Header().Set("X-Next-Cursor", page.Next)
	}
	out := make([]CompanyView, len(page.Companies))
	for i, c := range page.Companies {
		out[i] = newCompanyView(c)
	}
	writeJSON(w, http.StatusOK, out)
}

func (h *handlers) company() http.HandlerFunc {
	return byID("company", h.svc.Company, newCompanyView)
}
