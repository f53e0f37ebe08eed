package storetest

import (
	"testing"

	"github.com/feedbridge/feedbridge/core"
)

func labels(ls []core.Lookup) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = l.Label
	}
	return out
}

var lookupTests = map[string]func(t *testing.T, f *fixture){
	"PutIsCaseInsensitiveAndSorted": func(t *testing.T, f *fixture) {
		ws := f.workspace("A", 0).ID
		first, err := f.st.PutLookups(f.ctx, ws, core.LookupTag, []string{"banana", "Apple", "cherry", "Straße"})
		noErr(t, "put", err)
		equal(t, "returned labels", labels(first), []string{"banana", "Apple", "cherry", "Straße"})
		again, err := f.st.PutLookups(f.ctx, ws, core.LookupTag, []string{"APPLE", "date", "STRASSE", "date"})
		noErr(t, "put again", err)
		equal(t, "existing labels are returned as stored", again[0], first[1])
		equal(t, "folded match (ß = ss)", again[2], first[3])
		if len(again) != 3 || again[1].Label != "date" {
			t.Fatalf("want APPLE→Apple, date once, STRASSE→Straße; got %+v", again)
		}
		all, err := f.st.Lookups(f.ctx, ws, core.LookupTag)
		noErr(t, "list", err)
		equal(t, "sorted case-insensitively", labels(all), []string{"Apple", "banana", "cherry", "date", "Straße"})
	},
	"KindsAreSeparate": func(t *testing.T, f *fixture) {
		ws := f.workspace("A", 0).ID
		tag := f.lookups(ws, core.LookupTag, "Web")
		prod := f.lookups(ws, core.LookupProduct, "Web", "API")
		if tag[0] == prod[0] {
			t.Fatal("a tag and a product with the same label share an id")
		}
		ps, err := f.st.Lookups(f.ctx, ws, core.LookupProduct)
		noErr(t, "products", err)
		equal(t, "products", labels(ps), []string{"API", "Web"})
	},
	"Scoped": func(t *testing.T, f *fixture) {
		a, b := f.workspace("A", 0).ID, f.workspace("B", 0).ID
		ta := f.lookups(a, core.LookupTag, "Bug")
		tb := f.lookups(b, core.LookupTag, "bug")
		if ta[0] == tb[0] {
			t.Fatal("two workspaces share a tag id")
		}
		bs, err := f.st.Lookups(f.ctx, b, core.LookupTag)
		noErr(t, "b's tags", err)
		equal(t, "b's tags", bs, []core.Lookup{{ID: tb[0], Label: "bug"}})
		_, err = f.st.PutLookups(f.ctx, core.NewID(), core.LookupTag, []string{"x"})
		wantErr(t, "lookups of an unknown workspace", err, core.ErrNotFound)
	},
	"Users": func(t *testing.T, f *fixture) {
		a, b := f.workspace("A", 0).ID, f.workspace("B", 0).ID
		u1 := core.User{ID: core.NewID(), Name: "zoe", Email: "zoe@acme.com"}
		u2 := core.User{ID: core.NewID(), Name: "Adam"}
		u3 := core.User{ID: core.NewID(), Name: "Bob"}
		for _, u := range []core.User{u1, u2, u3} {
			noErr(t, "create user", f.st.CreateUser(f.ctx, a, u))
		}
		us, err := f.st.Users(f.ctx, a)
		noErr(t, "users", err)
		equal(t, "users sorted by name case-insensitively", us, []core.User{u2, u3, u1})
		us, err = f.st.Users(f.ctx, b)
		noErr(t, "b's users", err)
		equal(t, "b's users", len(us), 0)
		wantErr(t, "user of unknown workspace", f.st.CreateUser(f.ctx, core.NewID(), core.User{ID: core.NewID(), Name: "x"}), core.ErrNotFound)
	},
	"Companies": func(t *testing.T, f *fixture) {
		a, b := f.workspace("A", 0).ID, f.workspace("B", 0).ID
		c, err := f.st.PutCompany(f.ctx, a, core.Company{ID: core.NewID(), Name: "Acme", Domain: "acme.com"})
		noErr(t, "put company", err)
		renamed, err := f.st.PutCompany(f.ctx, a, core.Company{ID: core.NewID(), Name: "ACME Inc.", Domain: "acme.com"})
		noErr(t, "rename company", err)
		equal(t, "renamed company", renamed, core.Company{ID: c.ID, Name: "ACME Inc.", Domain: "acme.com", CreatedAt: c.CreatedAt})
		cs, err := f.st.Companies(f.ctx, a)
		noErr(t, "companies", err)
		equal(t, "companies", cs, []core.Company{renamed})
		cs, err = f.st.Companies(f.ctx, b)
		noErr(t, "b's companies", err)
		equal(t, "b's companies", len(cs), 0)
		_, err = f.st.PutCompany(f.ctx, core.NewID(), core.Company{ID: core.NewID(), Name: "x", Domain: "x.com"})
		wantErr(t, "company of unknown workspace", err, core.ErrNotFound)
	},
}
