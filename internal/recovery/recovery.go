// Package recovery keeps a panic in a goroutine that serves outside input (a Slack request's background
// save, a mail parser, a connector's loop) from ending the whole daemon: the panic is logged with an error
// id and its stack, and only that piece of work fails.
package recovery

import (
	"fmt"
	"runtime/debug"

	"github.com/sirupsen/logrus"

	"github.com/feedbridge/feedbridge/core"
)

// Error is a recovered panic; its ID is the error_id of the log line that holds the stack.
type Error struct {
	ID    string
	Value any
}

func (e *Error) Error() string { return fmt.Sprintf("internal error (error_id %s)", e.ID) }

// Guard is deferred at the top of a goroutine: `defer recovery.Guard(log, "slack: background save", &err)`.
// A panic is logged at error level with a fresh error_id and the stack, and *errp (when errp is not nil)
// becomes an *Error carrying that id. Without a panic it does nothing.
func Guard(log *logrus.Entry, what string, errp *error) {
	v := recover()
	if v == nil {
		return
	}
	e := &Error{ID: string(core.NewID()), Value: v}
	if log != nil {
		log.WithFields(logrus.Fields{"error_id": e.ID, "panic": fmt.Sprint(v), "stack": string(debug.Stack())}).
			Error(what + ": recovered from a panic")
	}
	if errp != nil {
		*errp = e
	}
}

// Go runs fn on a new goroutine under Guard.
func Go(log *logrus.Entry, what string, fn func()) {
	go func() {
		defer Guard(log, what, nil)
		fn()
	}()
}
