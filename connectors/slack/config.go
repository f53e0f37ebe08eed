package slack

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/feedbridge/feedbridge/connectors"
)

// Config is one connectors.slack entry: one Slack app, or one team of an app, feeding one
// feedbridge workspace.
type Config struct {
	Name          string            `koanf:"name" required:"yes" doc:"Required, unique within the kind. Names the entry in GET /api/connectors."`
	Workspace     string            `koanf:"workspace" required:"yes" doc:"Required. Id of the workspace that receives the records."`
	SigningSecret connectors.Secret `koanf:"signing_secret" required:"yes" doc:"Required. Slack app signing secret; read again for each request."`
	BotToken      connectors.Secret `koanf:"bot_token" doc:"Optional. Bot token for message-shortcut replies, modals and author emails."`
	TeamID        string            `koanf:"team_id" doc:"Optional. Selects this entry for requests from that Slack team."`
	Commands      map[string]string `koanf:"commands" default:"{/feedback: feedback, /idea: idea}" doc:"Slash command → record type (feedback or idea)."`
	APIURL        string            `koanf:"api_url" default:"https://slack.com/api/" doc:"Slack Web API base every call uses (Slack's government cloud, a gateway). https; plain http only to a loopback address."`
}

// DefaultAPIURL is Slack's Web API base.
const DefaultAPIURL = "https://slack.com/api/"

// checkAPIURL returns the Web API base with a trailing slash: https, or http only to a loopback address,
// since the bot token travels in every call.
func checkAPIURL(raw string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	switch {
	case err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") || u.User != nil || u.RawQuery != "" || u.Fragment != "":
		return "", errors.New("must be an absolute https URL such as https://slack.com/api/")
	case u.Scheme == "http" && !loopbackHost(u.Hostname()):
		return "", errors.New("must be https (plain http only to a loopback address)")
	}
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
	}
	return u.String(), nil
}

func loopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Command kinds a slash command can be mapped to.
const (
	kindFeedback = "feedback"
	kindIdea     = "idea"
)

// defaultCommands is used when an entry names none.
func defaultCommands() map[string]string {
	return map[string]string{"/feedback": kindFeedback, "/idea": kindIdea}
}

// validate checks one entry, all but its name and workspace (connectors.Entries checks those), without
// any network call, and fills in defaults. Errors name the key, never a secret's value.
func (c *Config) validate() error {
	var errs []error
	bad := func(key, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", key, fmt.Sprintf(format, args...)))
	}
	if c.SigningSecret == "" {
		bad("signing_secret", "is required")
	}
	if len(c.Commands) == 0 {
		c.Commands = defaultCommands()
	}
	if c.APIURL == "" {
		c.APIURL = DefaultAPIURL
	}
	if u, err := checkAPIURL(c.APIURL); err != nil {
		bad("api_url", "%v", err)
	} else {
		c.APIURL = u
	}
	for name, kind := range c.Commands {
		if !strings.HasPrefix(name, "/") || len(name) < 2 || strings.ContainsAny(name, " \t\n") {
			bad("commands", "%q is not a slash command name such as /feedback", name)
		}
		switch strings.ToLower(kind) {
		case kindFeedback, kindIdea:
			c.Commands[name] = strings.ToLower(kind)
		default:
			bad("commands", "%s must be feedback or idea, not %q", name, kind)
		}
	}
	return errors.Join(errs...)
}

// checkRoutes checks that each request can reach exactly one entry: entries sharing a signing secret (one
// app, several teams) must have distinct team_id values.
func checkRoutes(cfgs []Config) error {
	var errs []error
	type route struct{ secret, team string }
	routes := map[route]string{}
	for _, c := range cfgs {
		key := route{string(c.SigningSecret), c.TeamID}
		if other, dup := routes[key]; dup {
			errs = append(errs, fmt.Errorf("%s: team_id: same signing_secret and team_id as entry %q; set team_id to tell them apart", c.Name, other))
		}
		routes[key] = c.Name
	}
	return errors.Join(errs...)
}

// pick chooses among the entries whose secret signed a request: the one configured for the request's
// team, else the one without a team_id. ok is false when the team is not connected.
func pick(cfgs []Config, signed []int, teamID string) (int, bool) {
	fallback := -1
	for _, i := range signed {
		switch cfgs[i].TeamID {
		case teamID:
			return i, true
		case "":
			fallback = i
		}
	}
	return fallback, fallback >= 0
}
