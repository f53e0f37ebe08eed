package console

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/feedbridge/feedbridge/core"
)

// inboxPageSize is how many rows the inbox shows at once.
const inboxPageSize = 50

// companyChoices bounds the companies offered as a filter: the ones with most feedback come first.
const companyChoices = "100"

// inboxFilter is what the inbox's GET form asks for; ids are kept as given and checked by the listing.
type inboxFilter struct {
	Search, Source, Company, Tag, Product string
	Theme                                 string // from a signal: feedback one of whose insights names it
}

func readFilter(q url.Values) inboxFilter {
	get := func(k string) string { return strings.TrimSpace(q.Get(k)) }
	return inboxFilter{Search: get("search"), Source: get("source"), Company: get("company"), Tag: get("tag"), Product: get("product"),
		Theme: get("theme")}
}

// values is the filter as a query, without empty fields.
func (f inboxFilter) values() url.Values {
	v := url.Values{}
	for k, x := range map[string]string{"search": f.Search, "source": f.Source, "company": f.Company, "tag": f.Tag, "product": f.Product, "theme": f.Theme} {
		if x != "" {
			v.Set(k, x)
		}
	}
	return v
}

// Narrowed reports whether anything beyond the whole inbox is asked for.
func (f inboxFilter) Narrowed() bool { return len(f.values()) > 0 }

func (f inboxFilter) request() core.ListRequest {
	req := core.ListRequest{RecordType: string(core.RecordFeedback), Statuses: []string{core.StatusTriage},
		Search: f.Search, Source: f.Source, Company: f.Company, Product: f.Product, Theme: f.Theme,
		Limit: strconv.Itoa(inboxPageSize)}
	if f.Tag != "" {
		req.Tags = []string{f.Tag}
	}
	return req
}

type inboxRow struct {
	Record  core.Record
	Insight *core.Insight // the first, nil when there is none yet
}

type inboxData struct {
	Filter    inboxFilter
	Query     string // the filter as a query, to come back to after an action
	Sources   []string
	Companies []core.Company
	Tags      []core.Lookup
	Products  []core.Lookup
	Rows      []inboxRow
	Next      string // the query of the following page, "" on the last
}

// inbox lists Feedback in Triage, newest first, filtered in the store; older pages follow by cursor.
func (s *Server) inbox(w http.ResponseWriter, r *http.Request, m *core.Member) {
	q := r.URL.Query()
	f := readFilter(q)
	v := view{Title: "Inbox", Nav: "inbox", Member: m}
	d, err := s.inboxChoices(r, m.Workspace, f)
	if err != nil {
		s.internal(w, r, err)
		return
	}
	req := f.request()
	req.Cursor = q.Get("cursor")
	page, err := s.svc.List(r.Context(), m.Workspace, req)
	var ve *core.ValidationError
	if errors.As(err, &ve) {
		v.Error, v.Data = ve.Message, d
		s.render(w, r, http.StatusBadRequest, "inbox", v)
		return
	}
	if err != nil {
		s.internal(w, r, err)
		return
	}
	ids := make([]core.ID, len(page.Records))
	for i, rec := range page.Records {
		ids[i] = rec.ID
	}
	// One query for the whole page, not one per row.
	ins, err := s.svc.InsightsOf(r.Context(), m.Workspace, ids)
	if err != nil {
		s.internal(w, r, err)
		return
	}
	for _, rec := range page.Records {
		row := inboxRow{Record: rec}
		if list := ins[rec.ID]; len(list) > 0 {
			row.Insight = &list[0]
		}
		d.Rows = append(d.Rows, row)
	}
	if page.Next != "" {
		next := f.values()
		next.Set("cursor", page.Next)
		d.Next = next.Encode()
	}
	v.Data = d
	s.render(w, r, http.StatusOK, "inbox", v)
}

// inboxChoices fills in what the filter form offers: sources, the busiest companies (and the chosen one
// even when it is not among them), tags and products.
func (s *Server) inboxChoices(r *http.Request, ws core.ID, f inboxFilter) (inboxData, error) {
	ctx := r.Context()
	d := inboxData{Filter: f, Query: f.values().Encode(), Sources: s.svc.Sources().Labels()}
	cs, err := s.svc.CompanyList(ctx, ws, companyChoices, "")
	if err != nil {
		return d, err
	}
	d.Companies = cs.Companies
	if id, err := core.ParseID(f.Company); err == nil && !hasCompany(d.Companies, id) {
		c, err := s.svc.Company(ctx, ws, id)
		if err != nil && !errors.Is(err, core.ErrNotFound) {
			return d, err
		}
		if err == nil {
			d.Companies = append(d.Companies, c)
		}
	}
	if d.Tags, err = s.svc.Tags(ctx, ws); err != nil {
		return d, err
	}
	d.Products, err = s.svc.Products(ctx, ws)
	return d, err
}

func hasCompany(cs []core.Company, id core.ID) bool {
	for _, c := range cs {
		if c.ID == id {
			return true
		}
	}
	return false
}
