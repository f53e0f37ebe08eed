package api

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/feedbridge/feedbridge/core"
)

// apiError is a failure the HTTP layer finds itself: bad JSON, an unknown parameter, a wrong method.
type apiError struct {
	status  int
	code    string // short lowercase text, the body's "error"
	message string // a sentence for a person
	header  http.Header
	cause   error // for the log line only
}

func (e *apiError) Error() string {
	if e.cause != nil {
		return e.code + ": " + e.cause.Error()
	}
	return e.code
}

func (e *apiError) Unwrap() error { return e.cause }

func newAPIError(status int, code, format string, args ...any) *apiError {
	return &apiError{status: status, code: code, message: fmt.Sprintf(format, args...)}
}

func badRequest(code, format string, args ...any) *apiError {
	return newAPIError(http.StatusBadRequest, code, format, args...)
}

var errMissingKey = fmt.Errorf("missing api key: %w", core.ErrUnauthorized)

// errorBody is the contract's error shape; error_id only on 5xx.
type errorBody struct {
	Success bool   `json:"success"`
	Error   string `json:"error"`
	Message string `json:"message"`
	ErrorID string `json:"error_id,omitempty"`
}

// classify is the one place that decides a failure's status and body.
func classify(err error) (int, errorBody) {
	var (
		ae  *apiError
		ve  *core.ValidationError
		le  *core.IdeaLimitError
		mbe *http.MaxBytesError
	)
	body := func(code, msg string) errorBody { return errorBody{Error: code, Message: msg} }
	switch {
	case errors.As(err, &ae):
		return ae.status, body(ae.code, ae.message)
	case errors.As(err, &ve):
		return http.StatusBadRequest, body(ve.Code, ve.Message)
	case errors.As(err, &mbe):
		return http.StatusRequestEntityTooLarge, body("request body too large",
			fmt.Sprintf("The request body is larger than %d bytes.", mbe.Limit))
	case errors.As(err, &le):
		return http.StatusPaymentRequired, body(core.ErrIdeaLimit.Error(),
			fmt.Sprintf("The workspace has used %d of the %d ideas its %s plan allows.", le.Used, le.Limit, le.Plan))
	case errors.Is(err, core.ErrIdeaLimit):
		return http.StatusPaymentRequired, body(core.ErrIdeaLimit.Error(), "The workspace has reached its plan's idea limit.")
	case errors.Is(err, errMissingKey):
		return http.StatusUnauthorized, body("missing api key", "Send the key in the x-api-key header or as Authorization: Bearer <key>.")
	case errors.Is(err, core.ErrUnauthorized):
		return http.StatusUnauthorized, body("invalid api key", "The API key is unknown or has been revoked.")
	case errors.Is(err, core.ErrWorkspaceNotFound):
		return http.StatusForbidden, body(core.ErrWorkspaceNotFound.Error(), "The workspace of this key is deleted or suspended.")
	case errors.Is(err, core.ErrPlan):
		return http.StatusForbidden, body(core.ErrPlan.Error(), "The API is available on the pro and business plans.")
	case errors.Is(err, core.ErrNotFound):
		return http.StatusNotFound, body("not found", "Nothing with that id exists in this workspace.")
	case errors.Is(err, core.ErrIdempotencyConflict):
		return http.StatusConflict, body("idempotency key reused",
			"This Idempotency-Key was used with a different request in the last 24 hours; use a new key.")
	case errors.Is(err, core.ErrMerged):
		return http.StatusConflict, body(core.ErrMerged.Error(), "The record was merged into another; change that one instead.")
	case errors.Is(err, core.ErrPrecondition):
		return http.StatusPreconditionFailed, body("precondition failed", "The record changed since the ETag in If-Match; read it again.")
	case errors.Is(err, core.ErrStale), errors.Is(err, core.ErrConflict):
		return http.StatusConflict, body("conflict", "The request conflicts with the current state; retry it.")
	case errors.Is(err, context.DeadlineExceeded):
		return http.StatusServiceUnavailable, body("request timed out", "The request took too long to answer; retry shortly.")
	case errors.Is(err, core.ErrUnavailable):
		return http.StatusServiceUnavailable, body("service unavailable", "The store is unavailable right now; retry shortly.")
	}
	return http.StatusInternalServerError, body("internal error", "Something went wrong on our side; quote the error_id when reporting it.")
}

// writeError answers with the error body. A 5xx gets an error_id that the request's log line repeats with
// the underlying error, which never reaches the client.
func writeError(w http.ResponseWriter, r *http.Request, err error) {
	status, body := classify(err)
	info := infoFrom(r.Context())
	if status >= 500 {
		body.ErrorID = newErrorID()
		if info != nil {
			info.errorID, info.err = body.ErrorID, err
		}
	} else if info != nil {
		info.err = err
	}
	var ae *apiError
	if errors.As(err, &ae) {
		for k, v := range ae.header {
			w.Header()[k] = v
		}
	}
	switch status {
	case http.StatusUnauthorized:
		w.Header().Set("WWW-Authenticate", `Bearer realm="feedbridge"`)
	case http.StatusServiceUnavailable:
		if w.Header().Get("Retry-After") == "" {
			w.Header().Set("Retry-After", strconv.Itoa(1))
		}
	}
	writeJSON(w, status, body)
}

// notFound names what was missing; an id of another workspace reaches here exactly like an absent one.
func notFound(err error, what string, id string) error {
	if errors.Is(err, core.ErrNotFound) {
		return newAPIError(http.StatusNotFound, what+" not found", "No %s with id %s exists in this workspace.", what, id)
	}
	return err
}

func newErrorID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
