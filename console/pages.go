package console

import (
	"net/http"

	"github.com/feedbridge/feedbridge/core"
)

// connectorsData is the connectors page: each entry configured now with its state and today's counts.
type connectorsData struct {
	Entries []core.ConnectorStatus
	At      string // when the page was made, for the live refresh's "updated" note
}

// connectors shows the state of each connector entry of the workspace that runs now (an entry removed
// by a reload keeps its last stored state, which describes nothing that runs). The script refreshes the
// table from this same page every few seconds.
func (s *Server) connectors(w http.ResponseWriter, r *http.Request, m *core.Member) {
	sts, err := s.svc.Connectors(r.Context(), m.Workspace)
	if err != nil {
		s.internal(w, r, err)
		return
	}
	d := connectorsData{At: s.now().UTC().Format("15:04:05 UTC")}
	for _, st := range sts {
		if s.configured == nil || s.configured(m.Workspace, st.Kind, st.Name) {
			d.Entries = append(d.Entries, st)
		}
	}
	s.render(w, r, http.StatusOK, "connectors", view{Title: "Connectors", Nav: "connectors", Member: m, Data: d})
}
