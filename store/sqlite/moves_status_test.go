package sqlite

import (
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

// TestMoveStatusReturnsTheRecordRead: the record a move returns (the record as it was before the move)
// must equal a read of it, labels, tags, links and accounts included; a read after it must show the move
// alone, with one history entry; the same move again, or one from a stale version, moves nothing.
func TestMoveStatusReturnsTheRecordRead(t *testing.T) {
	st := openT(t, filepath.Join(t.TempDir(), "move.db"))
	svc := core.NewService(st, core.Options{})
	ctx := t.Context()
	ws, err := svc.CreateWorkspace(ctx, "Acme", core.PlanBusiness, 0)
	if err != nil {
		t.Fatal(err)
	}
	tags, err := svc.AddLookups(ctx, ws.ID, core.LookupTag, []string{"Bug", "Pricing"})
	if err != nil {
		t.Fatal(err)
	}
	prods, err := svc.AddLookups(ctx, ws.ID, core.LookupProduct, []string{"Web App"})
	if err != nil {
		t.Fatal(err)
	}
	u, err := svc.AddUser(ctx, ws.ID, "Ana", "ana@example.com")
	if err != nil {
		t.Fatal(err)
	}
	idea, err := svc.Submit(ctx, ws.ID, core.Submission{Type: core.RecordIdea, Title: "Export", CustomerEmail: "bo@acme.example",
		CustomerName: "Bo", ProductID: prods[0].ID, AssigneeID: u.ID, TagIDs: []core.ID{tags[1].ID, tags[0].ID}})
	if err != nil {
		t.Fatal(err)
	}
	fb, err := svc.Submit(ctx, ws.ID, core.Submission{Type: core.RecordFeedback, Title: "Want export", CustomerEmail: "cy@other.example"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Link(ctx, ws.ID, fb.Record.ID, idea.Record.ID, nil); err != nil {
		t.Fatal(err)
	}
	for _, id := range []core.ID{idea.Record.ID, fb.Record.ID} {
		before, err := st.Record(ctx, ws.ID, id)
		if err != nil {
			t.Fatal(err)
		}
		at := before.UpdatedAt.Add(time.Second)
		m := core.StatusMove{ID: id, To: map[core.RecordType]string{core.RecordIdea: "Planned", core.RecordFeedback: "Archived"},
			IfVersion: before.Version, At: at, Actor: core.Actor{Kind: "user", Name: "ana"}}
		got, moved, err := st.MoveStatus(ctx, ws.ID, m)
		if err != nil || !moved {
			t.Fatalf("%s: moved %v, %v", before.Type, moved, err)
		}
		if !reflect.DeepEqual(got, before) {
			t.Errorf("%s: returned\n%+v\nread before\n%+v", before.Type, got, before)
		}
		after, err := st.Record(ctx, ws.ID, id)
		if err != nil {
			t.Fatal(err)
		}
		want := before
		want.Status, want.UpdatedAt, want.Version = m.To[before.Type], at.Truncate(time.Millisecond).UTC(), before.Version+1
		if !reflect.DeepEqual(after, want) {
			t.Errorf("%s: read after\n%+v\nwant\n%+v", before.Type, after, want)
		}
		h, err := st.History(ctx, ws.ID, id)
		if err != nil {
			t.Fatal(err)
		}
		last := h[len(h)-1]
		if last.Action != core.ActionStatus || !reflect.DeepEqual(last.Changes, map[string][2]any{"status": {before.Status, want.Status}}) {
			t.Errorf("%s: history %+v", before.Type, last)
		}
		// The same move again is no move, and a stale version none either.
		for _, v := range []int64{-1, before.Version} {
			m.IfVersion = v
			if got, moved, err := st.MoveStatus(ctx, ws.ID, m); err != nil || moved || !reflect.DeepEqual(got, after) {
				t.Errorf("%s: repeated move (if %d): moved %v, %v, %+v", before.Type, v, moved, err, got)
			}
		}
	}
}
