package console

import (
	"cmp"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"

	"github.com/feedbridge/feedbridge/core"
)

// Company page sizes. The ideas a company asks for are gathered from its latest feedback: enough to show
// what it wants now without reading all of a large customer's history on every view.
const (
	companiesShown    = 50
	companyFeedback   = 50
	companyIdeasFrom  = "200"
	companyIdeasShown = 20
)

type companiesData struct {
	Companies []core.Company
	Next      string
}

// companies lists the workspace's companies, most feedback first.
func (s *Server) companies(w http.ResponseWriter, r *http.Request, m *core.Member) {
	page, err := s.svc.CompanyList(r.Context(), m.Workspace, strconv.Itoa(companiesShown), r.URL.Query().Get("cursor"))
	var ve *core.ValidationError
	if errors.As(err, &ve) {
		s.render(w, r, http.StatusBadRequest, "companies", view{Title: "Companies", Nav: "companies", Member: m, Error: ve.Message, Data: companiesData{}})
		return
	}
	if err != nil {
		s.internal(w, r, err)
		return
	}
	d := companiesData{Companies: page.Companies}
	if page.Next != "" {
		d.Next = url.Values{"cursor": {page.Next}}.Encode()
	}
	s.render(w, r, http.StatusOK, "companies", view{Title: "Companies", Nav: "companies", Member: m, Data: d})
}

// askedFor is an Idea or Feature with how many of the company's feedback ask for it.
type askedFor struct {
	Record core.Record
	Count  int
}

type companyData struct {
	Company  core.Company
	Feedback []core.Record
	Next     string
	Ideas    []askedFor
}

// company shows one company's feedback, newest first, and the ideas that feedback is linked to.
func (s *Server) company(w http.ResponseWriter, r *http.Request, m *core.Member) {
	ctx, ws := r.Context(), m.Workspace
	id, err := core.ParseID(r.PathValue("id"))
	if err != nil {
		s.fail(w, r, http.StatusNotFound, "There is no company at this address.")
		return
	}
	c, err := s.svc.Company(ctx, ws, id)
	if errors.Is(err, core.ErrNotFound) {
		s.fail(w, r, http.StatusNotFound, "There is no company at this address.")
		return
	}
	if err != nil {
		s.internal(w, r, err)
		return
	}
	d := companyData{Company: c}
	v := view{Title: c.Name, Nav: "companies", Member: m}
	page, err := s.svc.List(ctx, ws, core.ListRequest{RecordType: string(core.RecordFeedback), Company: string(id),
		Limit: strconv.Itoa(companyFeedback), Cursor: r.URL.Query().Get("cursor")})
	var ve *core.ValidationError
	if errors.As(err, &ve) {
		v.Error, v.Data = ve.Message, d
		s.render(w, r, http.StatusBadRequest, "company", v)
		return
	}
	if err == nil {
		d.Feedback = page.Records
		if page.Next != "" {
			d.Next = url.Values{"cursor": {page.Next}}.Encode()
		}
		d.Ideas, err = s.askedFor(r, ws, id)
	}
	if err != nil {
		s.internal(w, r, err)
		return
	}
	v.Data = d
	s.render(w, r, http.StatusOK, "company", v)
}

// askedFor counts the links of the company's latest feedback and reads the most asked-for targets.
func (s *Server) askedFor(r *http.Request, ws, company core.ID) ([]askedFor, error) {
	ctx := r.Context()
	page, err := s.svc.List(ctx, ws, core.ListRequest{RecordType: string(core.RecordFeedback), Company: string(company),
		Linked: "true", Limit: companyIdeasFrom})
	if err != nil {
		return nil, err
	}
	counts := map[core.ID]int{}
	for _, fb := range page.Records {
		for _, l := range fb.Links {
			counts[l]++
		}
	}
	ids := make([]core.ID, 0, len(counts))
	for id := range counts {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(a, b core.ID) int { return cmp.Or(counts[b]-counts[a], cmp.Compare(a, b)) })
	var out []askedFor
	for _, id := range ids[:min(len(ids), companyIdeasShown)] {
		rec, err := s.svc.Record(ctx, ws, id)
		if errors.Is(err, core.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, askedFor{Record: rec, Count: counts[id]})
	}
	return out, nil
}
