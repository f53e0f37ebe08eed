package api

import (
	"context"
	"net/http"
	"time"
)

// forgetTimeout bounds an erasure started by a request. It is not the request's deadline: a client that
// gives up must not leave the customer half erased, so the work outlives the connection.
const forgetTimeout = 10 * time.Minute

// forgetBody is POST /contacts/forget's body.
type forgetBody struct{ Email string }

func (h *handlers) forgetContact(w http.ResponseWriter, r *http.Request) {
	raw, err := readBody(r)
	if err != nil {
		writeError(w, r, err)
		return
	}
	var b forgetBody
	if err := decodeObject(raw, bodyField{"email", &b.Email}); err != nil {
		writeError(w, r, err)
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), forgetTimeout)
	defer cancel()
	out, err := h.svc.ForgetContact(ctx, workspaceFrom(r.Context()).ID, b.Email)
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}
