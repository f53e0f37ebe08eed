package queueworker

import "time"

type retryAfterError struct {
	err   error
	after time.Duration
}

func (e *retryAfterError) Error() string { return e.err.Error() }
func (e *retryAfterError) Unwrap() error { return e.err }

// RetryAfter is err with the wait the other side asked for before the next try (an HTTP Retry-After).
// The wait is still bounded by the item's give-up time: one that falls after it keeps the item as failed.
func RetryAfter(err error, after time.Duration) error {
	return &retryAfterError{err: err, after: after}
}

type permanentError struct{ err error }

func (e *permanentError) Error() string { return e.err.Error() }
func (e *permanentError) Unwrap() error { return e.err }

// Permanent is err marked as not worth retrying: the item is kept as failed at once (and can be queued
// again by hand, as any failed item).
func Permanent(err error) error { return &permanentError{err: err} }
