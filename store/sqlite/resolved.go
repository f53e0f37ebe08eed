package sqlite

import (
	"sync"

	"github.com/feedbridge/feedbridge/core"
)

// resolved remembers the contacts and companies this process has committed, so that a write that names a
// customer seen before (every row of an import from the same few thousand people, every mail from the
// same sender) does not look them up again. Companies are never deleted and never change, so an entry stays
// true; contacts go only by erasure, which moves the store's contacts epoch (sync). A contact's name and
// company are only ever filled in, and the UPDATE that fills them in keeps whatever another process wrote
// first. Entries are published only after their transaction commits. The cache is bounded: when full it
// starts again empty.
type resolved struct {
	mu        sync.Mutex
	contacts  map[resolvedKey]contactRow
	companies map[resolvedKey]companyRow
	epoch     int64 // the store's contacts epoch the entries are true for (erasekeys.go)
}

type resolvedKey struct {
	ws  core.ID
	key string // email key or domain
}

// resolvedMax bounds each map: about 5 MB of contacts.
const resolvedMax = 50_000

func newResolved() *resolved {
	return &resolved{contacts: map[resolvedKey]contactRow{}, companies: map[resolvedKey]companyRow{}}
}

func (r *resolved) contact(ws core.ID, emailKey string) (contactRow, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c, ok := r.contacts[resolvedKey{ws, emailKey}]
	return c, ok
}

func (r *resolved) company(ws core.ID, domain string) (companyRow, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c, ok := r.companies[resolvedKey{ws, domain}]
	return c, ok
}

func (r *resolved) putContact(ws core.ID, emailKey string, c contactRow) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.contacts) >= resolvedMax {
		clear(r.contacts)
	}
	r.contacts[resolvedKey{ws, emailKey}] = c
}

func (r *resolved) putCompany(ws core.ID, domain string, c companyRow) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.companies) >= resolvedMax {
		clear(r.companies)
	}
	r.companies[resolvedKey{ws, domain}] = c
}

// sync drops the contacts when the store's contacts epoch is not the one they were remembered at.
func (r *resolved) sync(epoch int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if epoch != r.epoch {
		clear(r.contacts)
		r.epoch = epoch
	}
}
