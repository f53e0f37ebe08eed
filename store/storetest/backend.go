package storetest

import (
	"testing"

	"github.com/feedbridge/feedbridge/core"
)

var backendTests = map[string]func(t *testing.T, f *fixture){
	"Ping": func(t *testing.T, f *fixture) {
		noErr(t, "ping", f.st.Ping(f.ctx))
	},
	"ClosedIsUnavailable": func(t *testing.T, f *fixture) {
		ws := f.workspace("A", 0).ID
		noErr(t, "close", f.st.Close())
		_, err := f.st.Workspace(f.ctx, ws)
		wantErr(t, "read after close", err, core.ErrUnavailable)
		_, err = f.svc.Submit(f.ctx, ws, core.Submission{Type: core.RecordIdea, Title: "x"})
		wantErr(t, "write after close", err, core.ErrUnavailable)
		if f.st.Ping(f.ctx) == nil {
			t.Fatal("ping of a closed store succeeded")
		}
	},
}
