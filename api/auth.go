package api

import (
	"context"
	"errors"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

// workspaceFrom is the workspace of the request's key, as authed found it.
func workspaceFrom(ctx context.Context) core.Workspace {
	if i := infoFrom(ctx); i != nil {
		return i.workspace
	}
	return core.Workspace{}
}

// apiKey reads the key from x-api-key (Go canonicalises the name, so any case works) or a Bearer token.
func apiKey(r *http.Request) string {
	if k := strings.TrimSpace(r.Header.Get("X-Api-Key")); k != "" {
		return k
	}
	scheme, token, ok := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
	if ok && strings.EqualFold(scheme, "Bearer") {
		return strings.TrimSpace(token)
	}
	return ""
}

// authed resolves the key to its workspace, then spends a token of that key's bucket. Every response past
// authentication carries the X-RateLimit headers.
func (s *Server) authed(next http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := apiKey(r)
		if key == "" {
			writeError(w, r, errMissingKey)
			return
		}
		addr := clientAddr(r)
		var (
			ws  core.Workspace
			k   core.APIKey
			err error
		)
		if limited, retry := s.failedAuthLimited(addr); limited {
			var ok bool
			if ws, k, ok = s.auth.cached(key); !ok {
				writeError(w, r, tooManyFailures(retry))
				return
			}
		} else if ws, k, err = s.auth.authenticate(r.Context(), key); err != nil {
			if errors.Is(err, core.ErrUnauthorized) {
				s.authFailures.take(addr)
			}
			writeError(w, r, err)
			return
		}
		ctx := r.Context()
		info := infoFrom(ctx)
		if info == nil { // served outside withRequestID
			info = &reqInfo{}
			ctx = context.WithValue(ctx, infoKey{}, info)
		}
		info.workspace = ws
		d := s.limiter.take(string(k.ID))
		h := w.Header()
		h.Set("X-RateLimit-Limit", strconv.Itoa(d.limit))
		h.Set("X-RateLimit-Remaining", strconv.Itoa(d.remaining))
		h.Set("X-RateLimit-Reset", strconv.Itoa(int((d.reset+time.Second-1)/time.Second)))
		if !d.allowed {
			unit := "seconds"
			if retryAfter(d.retry) == "1" {
				unit = "second"
			}
			err := newAPIError(http.StatusTooManyRequests, "rate limit exceeded",
				"This key sent more than %d requests at once; retry after %s %s.", d.limit, retryAfter(d.retry), unit)
			err.header = http.Header{"Retry-After": {retryAfter(d.retry)}}
			writeError(w, r, err)
			return
		}
		// Every change made through the API is credited to the key by its name, never its secret.
		next(w, r.WithContext(core.WithActor(ctx, core.Actor{Kind: core.ActorAPIKey, Name: k.Name})))
	})
}

// authCache remembers successful lookups for a short ttl; failures are never cached, so a key that was
// just created works at once, and a revoked one is refused within ttl.
type authCache struct {
	svc *core.Service
	ttl time.Duration
	now func() time.Time

	mu      sync.Mutex
	entries map[string]authEntry // by key hash
}

type authEntry struct {
	ws      core.Workspace
	key     core.APIKey
	expires time.Time
}

const authCacheMax = 10_000

func newAuthCache(svc *core.Service, ttl time.Duration, now func() time.Time) *authCache {
	return &authCache{svc: svc, ttl: ttl, now: now, entries: map[string]authEntry{}}
}

// cached returns a key's lookup when it succeeded within the ttl, without asking the store.
func (c *authCache) cached(key string) (core.Workspace, core.APIKey, bool) {
	if c.ttl < 0 {
		return core.Workspace{}, core.APIKey{}, false
	}
	c.mu.Lock()
	e, ok := c.entries[core.HashAPIKey(key)]
	c.mu.Unlock()
	if !ok || !c.now().Before(e.expires) {
		return core.Workspace{}, core.APIKey{}, false
	}
	return e.ws, e.key, true
}

func (c *authCache) authenticate(ctx context.Context, key string) (core.Workspace, core.APIKey, error) {
	if c.ttl < 0 {
		return c.svc.Authenticate(ctx, key)
	}
	h := core.HashAPIKey(key)
	now := c.now()
	c.mu.Lock()
	e, ok := c.entries[h]
	c.mu.Unlock()
	if ok && now.Before(e.expires) {
		return e.ws, e.key, nil
	}
	ws, k, err := c.svc.Authenticate(ctx, key)
	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil {
		delete(c.entries, h)
		return ws, k, err
	}
	if len(c.entries) >= authCacheMax {
		for hh, old := range c.entries {
			if !now.Before(old.expires) {
				delete(c.entries, hh)
			}
		}
		if len(c.entries) >= authCacheMax {
			clear(c.entries)
		}
	}
	c.entries[h] = authEntry{ws: ws, key: k, expires: now.Add(c.ttl)}
	return ws, k, nil
}

// isJSONContentType accepts application/json with any parameters (charset).
func isJSONContentType(v string) bool {
	if v == "application/json" { // the usual header, which needs no parsing
		return true
	}
	mt, _, err := mime.ParseMediaType(v)
	return err == nil && mt == "application/json"
}
