package api

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"maps"
	"net/http"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/feedbridge/feedbridge/core"
)

// reqInfo travels in the request context so that the log line, written last, knows what the inner layers
// found: the workspace, and the error behind a failure.
type reqInfo struct {
	id string
	// workspace is the authenticated key's workspace, set by authed for the handlers and the log line.
	workspace core.Workspace
	errorID   string
	err       error
}

type infoKey struct{}

func infoFrom(ctx context.Context) *reqInfo {
	i, _ := ctx.Value(infoKey{}).(*reqInfo)
	return i
}

// RequestID returns the request id of a request served by this package ("" outside one), for connector
// routes mounted through Options.Extra that log on their own.
func RequestID(ctx context.Context) string {
	if i := infoFrom(ctx); i != nil {
		return i.id
	}
	return ""
}

// withRequestID echoes a sane X-Request-ID or makes one, on every response, and gives the request's
// context its deadline (see DefaultRequestTimeout) in the same step, so the request is copied once for both.
func (s *Server) withRequestID(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get("X-Request-ID")
		if !saneRequestID(id) {
			id = newRequestID()
		}
		h := w.Header()
		h.Set("X-Request-ID", id)
		// Bodies echo what clients sent (titles, descriptions); a browser must never sniff them into HTML.
		h.Set("X-Content-Type-Options", "nosniff")
		ctx := context.WithValue(r.Context(), infoKey{}, &reqInfo{id: id})
		if s.requestTimeout > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, s.requestTimeout)
			defer cancel()
		}
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// saneRequestID keeps a caller's id only when it is short printable ASCII, so it cannot forge log lines.
func saneRequestID(id string) bool {
	if id == "" || len(id) > 128 {
		return false
	}
	for i := 0; i < len(id); i++ {
		if id[i] < 0x21 || id[i] > 0x7e {
			return false
		}
	}
	return true
}

func newRequestID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// statusWriter remembers the status for the log line and the metrics.
type statusWriter struct {
	http.ResponseWriter
	status int
	wrote  bool
}

func (w *statusWriter) WriteHeader(code int) {
	if !w.wrote {
		w.status, w.wrote = code, true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if !w.wrote {
		w.status, w.wrote = http.StatusOK, true
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// withLogging writes one line per request and observes the metrics. It sits right outside the mux, which
// sets r.Pattern on this very request, so the route label is the registered pattern, never the raw path.
func (s *Server) withLogging(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		next.ServeHTTP(sw, r)
		d := time.Since(start)
		route := r.Pattern
		if route == "" {
			route = "unmatched"
		}
		s.metrics.observe(route, sw.status, d)
		level, msg := logrus.InfoLevel, "request"
		switch {
		case sw.status >= 500:
			level, msg = logrus.ErrorLevel, "request failed"
		case sw.status >= 400:
			msg = "request refused"
		}
		if !s.log.Logger.IsLevelEnabled(level) {
			return
		}
		// The entry is built whole rather than by WithFields, which would copy the fields once more and
		// look into each value; these are all plain strings and numbers.
		f := make(logrus.Fields, len(s.log.Data)+8)
		maps.Copy(f, s.log.Data)
		f["route"], f["method"], f["path"], f["status"], f["duration"] = route, r.Method, r.URL.Path, sw.status, d.String()
		if info := infoFrom(r.Context()); info != nil {
			f["request_id"] = info.id
			if info.workspace.ID != "" {
				f["workspace"] = string(info.workspace.ID)
			}
			if info.errorID != "" {
				f["error_id"] = info.errorID
			}
			if info.err != nil {
				f["error"] = info.err.Error()
			}
		}
		e := &logrus.Entry{Logger: s.log.Logger, Data: f, Time: s.log.Time, Context: s.log.Context}
		e.Log(level, msg)
	})
}

// withRecovery turns a panic into a 500 with an error_id; the stack goes to the log only.
func (s *Server) withRecovery(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sw, _ := w.(*statusWriter)
		defer func() {
			v := recover()
			if v == nil {
				return
			}
			if v == http.ErrAbortHandler {
				panic(v)
			}
			err := fmt.Errorf("panic: %v", v)
			s.log.WithField("request_id", RequestID(r.Context())).WithField("stack", string(debug.Stack())).Error(err.Error())
			if sw != nil && sw.wrote {
				return // headers are gone; the client sees a cut response
			}
			writeError(w, r, err)
		}()
		next.ServeHTTP(w, r)
	})
}

// jsonBody enforces the create endpoints' Content-Type (415) and body limit (413).
func jsonBody(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !isJSONContentType(r.Header.Get("Content-Type")) {
			writeError(w, r, newAPIError(http.StatusUnsupportedMediaType, "unsupported media type",
				"Send the body as JSON with Content-Type: application/json."))
			return
		}
		if r.ContentLength > MaxBodyBytes {
			writeError(w, r, &http.MaxBytesError{Limit: MaxBodyBytes})
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, MaxBodyBytes)
		next(w, r)
	}
}

// retryAfter renders a wait as whole seconds, at least one.
func retryAfter(d time.Duration) string {
	s := int((d + time.Second - 1) / time.Second)
	if s < 1 {
		s = 1
	}
	return strconv.Itoa(s)
}
