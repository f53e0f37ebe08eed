package core

import (
	"context"
	"strings"
	"time"
)

// Actor kinds: who made a change, as the history shows it.
const (
	ActorAPIKey    = "api_key"
	ActorMember    = "member"
	ActorConnector = "connector"
	ActorCLI       = "cli"
	ActorSystem    = "system"
)

// Actor is who made a change: an API key (by its name), a member, a connector entry, the CLI or the
// system itself.
type Actor struct {
	Kind string
	Name string
}

type actorKey struct{}

// WithActor marks ctx with who acts; every write of a record under ctx is credited to a.
func WithActor(ctx context.Context, a Actor) context.Context {
	return context.WithValue(ctx, actorKey{}, a)
}

// ActorFrom is the actor of ctx; the system when nobody was named.
func ActorFrom(ctx context.Context) Actor {
	if a, ok := ctx.Value(actorKey{}).(Actor); ok && a.Kind != "" {
		return a
	}
	return Actor{Kind: ActorSystem}
}

// String is the stored form of an actor: "kind:name". Kinds hold no colon, names may.
func (a Actor) String() string { return a.Kind + ":" + a.Name }

// ParseActor reads the stored form; an empty one is the system.
func ParseActor(s string) Actor {
	kind, name, _ := strings.Cut(s, ":")
	if kind == "" {
		return Actor{Kind: ActorSystem}
	}
	return Actor{Kind: kind, Name: name}
}

// History actions.
const (
	ActionCreated  = "created"
	ActionUpdated  = "updated"
	ActionStatus   = "status"
	ActionLinked   = "linked"
	ActionUnlinked = "unlinked"
	ActionMerged   = "merged"
)

// HistoryEntry is one change of a record. Changes maps a field to its [from, to] values; a value is a
// string, a number, a list of strings or nil.
type HistoryEntry struct {
	At      time.Time
	Actor   Actor
	Action  string
	Changes map[string][2]any
}
