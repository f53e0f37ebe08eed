package console

import (
	"errors"
	"net/http"
	"strings"

	"github.com/feedbridge/feedbridge/core"
)

// roles are the choices of the role pickers, least power first.
var roles = []core.Role{core.RoleViewer, core.RoleEditor, core.RoleAdmin}

// newLink is a sign-in link just made, shown to the admin this once.
type newLink struct {
	Email string
	URL   string
}

// signInURL is the address of a sign-in link token: under public_url when configured, otherwise on the
// host the admin reached the console by, which is where the new member can reach it too.
func (s *Server) signInURL(r *http.Request, token string) string {
	if s.publicURL != "" {
		return SignInLink(s.publicURL, "", token)
	}
	scheme := "http://"
	if overHTTPS(r) {
		scheme = "https://"
	}
	return SignInLink(scheme+r.Host, "", token)
}

// addMember makes a member and shows its one-time sign-in link.
func (s *Server) addMember(w http.ResponseWriter, r *http.Request, m *core.Member) {
	email := strings.TrimSpace(r.PostFormValue("email"))
	role, ok := core.ParseRole(r.PostFormValue("role"))
	if !ok {
		s.showSettings(w, r, m, http.StatusBadRequest, settingsNote{}, "Choose a role: viewer, editor or admin.")
		return
	}
	added, token, err := s.svc.AddMember(r.Context(), m.Workspace, email, role)
	var ve *core.ValidationError
	if errors.As(err, &ve) {
		s.showSettings(w, r, m, http.StatusBadRequest, settingsNote{}, ve.Message)
		return
	}
	if err != nil {
		s.internal(w, r, err)
		return
	}
	s.log.WithFields(map[string]any{"workspace": m.Workspace, "member": m.ID, "added": added.ID, "role": role}).Info("console: member added")
	s.showSettings(w, r, m, http.StatusOK, settingsNote{Link: &newLink{Email: added.Email, URL: s.signInURL(r, token)}}, "")
}

// otherMember reads the member named in the path, of the signed-in admin's workspace and not the admin:
// nobody demotes or removes themselves, so a workspace always keeps an admin.
func (s *Server) otherMember(w http.ResponseWriter, r *http.Request, m *core.Member) (core.Member, bool) {
	target, ok := byPathID(s, w, r, func(id core.ID) (core.Member, error) { return s.svc.WorkspaceMember(r.Context(), m.Workspace, id) },
		"There is no such member in this workspace.")
	if ok && target.ID == m.ID {
		s.showSettings(w, r, m, http.StatusBadRequest, settingsNote{}, "You cannot change your own membership; ask another admin.")
		return target, false
	}
	return target, ok
}

func (s *Server) changeRole(w http.ResponseWriter, r *http.Request, m *core.Member) {
	target, ok := s.otherMember(w, r, m)
	if !ok {
		return
	}
	role, valid := core.ParseRole(r.PostFormValue("role"))
	if !valid {
		s.showSettings(w, r, m, http.StatusBadRequest, settingsNote{}, "Choose a role: viewer, editor or admin.")
		return
	}
	if _, err := s.svc.SetMemberRole(r.Context(), m.Workspace, target.ID, role); err != nil {
		s.internal(w, r, err)
		return
	}
	s.log.WithFields(map[string]any{"workspace": m.Workspace, "member": m.ID, "changed": target.ID, "role": role}).Info("console: member role changed")
	http.Redirect(w, r, "/settings", http.StatusSeeOther)
}

func (s *Server) removeMember(w http.ResponseWriter, r *http.Request, m *core.Member) {
	target, ok := s.otherMember(w, r, m)
	if !ok {
		return
	}
	if err := s.svc.RemoveMember(r.Context(), target.ID); err != nil && !errors.Is(err, core.ErrNotFound) {
		s.internal(w, r, err)
		return
	}
	s.log.WithFields(map[string]any{"workspace": m.Workspace, "member": m.ID, "removed": target.ID}).Info("console: member removed")
	http.Redirect(w, r, "/settings", http.StatusSeeOther)
}

// memberLink gives a member a new sign-in link (a forgotten password, an expired link); the old one stops.
func (s *Server) memberLink(w http.ResponseWriter, r *http.Request, m *core.Member) {
	target, ok := s.otherMember(w, r, m)
	if !ok {
		return
	}
	_, token, err := s.svc.NewSignInLink(r.Context(), target.ID)
	if err != nil {
		s.internal(w, r, err)
		return
	}
	s.showSettings(w, r, m, http.StatusOK, settingsNote{Link: &newLink{Email: target.Email, URL: s.signInURL(r, token)}}, "")
}
