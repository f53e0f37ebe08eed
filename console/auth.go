package console

import (
	"errors"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

const sessionCookie = "feedbridge_session"

// memberHandler is a page that needs a signed-in member.
type memberHandler func(w http.ResponseWriter, r *http.Request, m *core.Member)

// current returns the signed-in member of the request, or nil. Each request asks the store, so a session
// that was signed out elsewhere or whose member was removed ends at once.
func (s *Server) current(r *http.Request) (*core.Member, string) {
	c, err := r.Cookie(sessionCookie)
	if err != nil || c.Value == "" {
		return nil, ""
	}
	m, err := s.svc.Session(r.Context(), c.Value)
	if err != nil {
		if !errors.Is(err, core.ErrNotFound) {
			s.log.WithError(err).Warn("console: session lookup failed")
		}
		return nil, ""
	}
	return &m, c.Value
}

// member lets a request through when a member with at least role need is signed in. A signed-out person
// is sent to the sign-in page (and back afterwards); a member without the role gets 403.
func (s *Server) member(need core.Role, next memberHandler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		m, _ := s.current(r)
		if m == nil {
			target := "/signin"
			if r.Method == http.MethodGet {
				target += "?next=" + url.QueryEscape(r.URL.RequestURI())
			}
			http.Redirect(w, r, target, http.StatusSeeOther)
			return
		}
		if !m.Role.Allows(need) {
			s.fail(w, r, http.StatusForbidden, "Your role ("+string(m.Role)+") does not allow this.")
			return
		}
		next(w, r, m)
	}
}

// setSession gives the browser its session cookie: never readable by scripts, not sent on cross-site
// subrequests, and only over HTTPS when the console is reached over HTTPS.
func setSession(w http.ResponseWriter, r *http.Request, token string) {
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: token, Path: "/", HttpOnly: true, SameSite: http.SameSiteLaxMode,
		Secure: overHTTPS(r), MaxAge: int(core.SessionMaxAge / time.Second)})
}

func clearSession(w http.ResponseWriter, r *http.Request) {
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: "", Path: "/", HttpOnly: true, SameSite: http.SameSiteLaxMode,
		Secure: overHTTPS(r), MaxAge: -1})
}

// overHTTPS reports whether the browser reached us over HTTPS, directly or through a proxy that says so.
// Trusting the proxy header can only add the Secure flag, never remove it.
func overHTTPS(r *http.Request) bool {
	return r.TLS != nil || strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https")
}

// safeNext keeps a post-sign-in destination on this site: a path, never another host.
func safeNext(next string) string {
	if next == "" || !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || strings.HasPrefix(next, "/\\") {
		return "/inbox"
	}
	return next
}

type signinData struct {
	Email string
	Next  string
}

func (s *Server) signinPage(w http.ResponseWriter, r *http.Request) {
	if m, _ := s.current(r); m != nil {
		http.Redirect(w, r, safeNext(r.URL.Query().Get("next")), http.StatusSeeOther)
		return
	}
	s.render(w, r, http.StatusOK, "signin", view{Title: "Sign in", Data: signinData{Next: r.URL.Query().Get("next")}})
}

// signin checks the form. Repeated failures from one client address, or for one address signed in as,
// make later attempts wait; whatever went wrong, the answer names neither the email nor the password.
func (s *Server) signin(w http.ResponseWriter, r *http.Request) {
	email, password, next := strings.TrimSpace(r.PostFormValue("email")), r.PostFormValue("password"), r.PostFormValue("next")
	keys := []string{"ip:" + clientIP(r), "email:" + strings.ToLower(email)}
	wait, ok := s.throttle.reserve(keys...)
	if !ok {
		s.render(w, r, http.StatusTooManyRequests, "signin", view{Title: "Sign in",
			Error: "Too many failed attempts. Wait a minute, then try again.", Data: signinData{Email: email, Next: next}})
		return
	}
	if wait > 0 {
		select {
		case <-time.After(wait):
		case <-r.Context().Done():
			return
		}
	}
	_, token, err := s.svc.SignIn(r.Context(), email, password)
	if errors.Is(err, core.ErrBadCredentials) {
		s.throttle.failed(keys...)
		s.render(w, r, http.StatusUnauthorized, "signin", view{Title: "Sign in",
			Error: "The email or password is wrong.", Data: signinData{Email: email, Next: next}})
		return
	}
	if err != nil {
		s.internal(w, r, err)
		return
	}
	s.throttle.succeeded(keys[1])
	setSession(w, r, token)
	http.Redirect(w, r, safeNext(next), http.StatusSeeOther)
}

func (s *Server) signout(w http.ResponseWriter, r *http.Request) {
	if _, token := s.current(r); token != "" {
		if err := s.svc.SignOut(r.Context(), token); err != nil {
			s.internal(w, r, err)
			return
		}
	}
	clearSession(w, r)
	http.Redirect(w, r, "/signin", http.StatusSeeOther)
}

type linkData struct {
	Email string
	Token string
}

// linkPage is where a new member (or one given a new link) chooses a password. The token is in the query,
// not the path, because request logs carry paths; the form posts it back in its body.
func (s *Server) linkPage(w http.ResponseWriter, r *http.Request) {
	token := r.URL.Query().Get("token")
	m, err := s.svc.SignInLinkMember(r.Context(), token)
	if errors.Is(err, core.ErrNotFound) {
		s.fail(w, r, http.StatusNotFound, "This sign-in link has expired or was already used. Ask an admin for a new one.")
		return
	}
	if err != nil {
		s.internal(w, r, err)
		return
	}
	s.render(w, r, http.StatusOK, "link", view{Title: "Choose a password", Data: linkData{Email: m.Email, Token: token}})
}

func (s *Server) useLink(w http.ResponseWriter, r *http.Request) {
	token := r.PostFormValue("token")
	password, confirm := r.PostFormValue("password"), r.PostFormValue("confirm")
	m, err := s.svc.SignInLinkMember(r.Context(), token)
	if errors.Is(err, core.ErrNotFound) {
		s.fail(w, r, http.StatusNotFound, "This sign-in link has expired or was already used. Ask an admin for a new one.")
		return
	}
	if err != nil {
		s.internal(w, r, err)
		return
	}
	retry := func(msg string) {
		s.render(w, r, http.StatusBadRequest, "link", view{Title: "Choose a password", Error: msg, Data: linkData{Email: m.Email, Token: token}})
	}
	if password != confirm {
		retry("The two passwords are not the same.")
		return
	}
	_, sess, err := s.svc.UseSignInLink(r.Context(), token, password)
	var ve *core.ValidationError
	switch {
	case errors.As(err, &ve):
		retry(ve.Message)
		return
	case errors.Is(err, core.ErrNotFound):
		s.fail(w, r, http.StatusNotFound, "This sign-in link has expired or was already used. Ask an admin for a new one.")
		return
	case err != nil:
		s.internal(w, r, err)
		return
	}
	setSession(w, r, sess)
	http.Redirect(w, r, "/inbox", http.StatusSeeOther)
}

// clientIP is the address of the connection: a forwarded-for header is anyone's to write, so it does not
// decide whose attempts are slowed.
func clientIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}
