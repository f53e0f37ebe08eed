package core

import (
	"errors"
	"fmt"
)

// Sentinel errors; the HTTP layer maps them to statuses in one place.
var (
	ErrNotFound            = errors.New("not found")
	ErrUnauthorized        = errors.New("invalid api key")
	ErrWorkspaceNotFound   = errors.New("workspace not found")
	ErrPlan                = errors.New("plan does not include API access")
	ErrIdeaLimit           = errors.New("idea limit reached")
	ErrIdempotencyConflict = errors.New("idempotency key reused with a different request")
	ErrConflict            = errors.New("conflict")
	// ErrMerged is a change of a record that was merged into another.
	ErrMerged = errors.New("record merged")
	// ErrStale is a change computed from a version of the record that is no longer current.
	ErrStale = errors.New("record changed")
	// ErrUnavailable wraps store failures that are worth retrying (database down, busy).
	ErrUnavailable = errors.New("store unavailable")
)

// ValidationError is a request that breaks a rule of the contract. Code is the short contract text
// ("title is required"), Message the sentence for a person.
type ValidationError struct {
	Field   string
	Code    string
	Message string
}

func (e *ValidationError) Error() string { return e.Code }

func invalid(field, code, format string, args ...any) *ValidationError {
	return &ValidationError{Field: field, Code: code, Message: fmt.Sprintf(format, args...)}
}

// IdeaLimitError carries the numbers for the 402 message.
type IdeaLimitError struct {
	Used, Limit int
	Plan        Plan
}

func (e *IdeaLimitError) Error() string { return ErrIdeaLimit.Error() }
func (e *IdeaLimitError) Unwrap() error { return ErrIdeaLimit }
