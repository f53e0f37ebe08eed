package console

import (
	"net/http"

	"github.com/feedbridge/feedbridge/core"
)

// connectors shows the state of each connector entry of the workspace.
func (s *Server) connectors(w http.ResponseWriter, r *http.Request, m *core.Member) {
	sts, err := s.svc.Connectors(r.Context(), m.Workspace)
	if err != nil {
		s.internal(w, r, err)
		return
	}
	s.render(w, r, http.StatusOK, "connectors", view{Title: "Connectors", Nav: "connectors", Member: m, Data: sts})
}
