package postgres

import (
	"sync"

	"github.com/feedbridge/feedbridge/core"
)

// known remembers, across bulk writes, the companies and contacts they resolved, so that a long import
// whose rows keep naming the same customers stops sending them to the database. It may hold only facts
// that never change once committed: a company's id for its domain, and a contact's id for its address key
// with whether it has a name and a company (a contact only ever gains those, and is deleted only by an
// erasure, which moves the store's contacts epoch). Entries are added after their transaction commits.
type known struct {
	mu        sync.Mutex
	companies map[wsKey]core.ID
	contacts  map[wsKey]knownContact
	// dupsMet holds the workspaces whose last bulk write met a stored dedup key: their next write looks its
	// keys up first instead of trying the COPY and going back on a conflict.
	dupsMet map[core.ID]bool
	// epoch is the store's contacts epoch the contacts are true for: an erasure deletes contacts and moves it.
	epoch int64
}

type wsKey struct {
	ws  core.ID
	key string
}

type knownContact struct {
	id                 core.ID
	named, withCompany bool
}

// maxKnown bounds each map: past it the map starts over, so memory stays small whatever the imports.
const maxKnown = 50_000

func newKnown() *known {
	return &known{companies: map[wsKey]core.ID{}, contacts: map[wsKey]knownContact{}, dupsMet: map[core.ID]bool{}}
}

// company returns the id of the workspace's company for domain, if known.
func (k *known) company(ws core.ID, domain string) (core.ID, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	id, ok := k.companies[wsKey{ws, domain}]
	return id, ok
}

// contact returns the id of the contact for c when it exists and a write for c would not change it: it has
// a name or c gives none, and a company or c names no domain.
func (k *known) contact(ws core.ID, c *core.ContactRef) (core.ID, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	e, ok := k.contacts[wsKey{ws, c.EmailKey}]
	if !ok || (!e.named && c.Name != "") || (!e.withCompany && c.Domain != "") {
		return "", false
	}
	return e.id, true
}

// add records what a committed bulk write resolved.
func (k *known) add(ws core.ID, companies map[string]core.ID, contacts map[string]knownContact) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if len(k.companies)+len(companies) > maxKnown {
		clear(k.companies)
	}
	if len(k.contacts)+len(contacts) > maxKnown {
		clear(k.contacts)
	}
	for d, id := range companies {
		if id != "" {
			k.companies[wsKey{ws, d}] = id
		}
	}
	for key, c := range contacts {
		k.contacts[wsKey{ws, key}] = c
	}
}

func (k *known) lookFirst(ws core.ID) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.dupsMet[ws]
}

func (k *known) setDupsMet(ws core.ID, met bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if !met {
		delete(k.dupsMet, ws)
		return
	}
	if len(k.dupsMet) >= maxKnown {
		clear(k.dupsMet)
	}
	k.dupsMet[ws] = true
}

func (k *known) currentEpoch() int64 {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.epoch
}

// sync drops the contacts when the store's contacts epoch has moved, and reports whether it had.
func (k *known) sync(epoch int64) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	if epoch == k.epoch {
		return false
	}
	clear(k.contacts)
	k.epoch = epoch
	return true
}
