package slack

import "github.com/feedbridge/feedbridge/connectors"

// Poster is what closing the loop needs of a Slack entry to write to people: its bot token (read at each
// use) and its Web API base.
type Poster struct {
	Token  connectors.Secret
	APIURL string
}

// Posters returns the entries of raw that can post, those with a bot token, by name. Entries with problems
// are left out: `config check` and the connector report them.
func Posters(raw []map[string]any) map[string]Poster {
	cfgs, _ := connectors.Entries(Kind, raw, connectors.Env{}, func(_ connectors.Entry, c *Config) (Config, error) {
		return *c, c.validate()
	})
	out := map[string]Poster{}
	for _, c := range cfgs {
		if !c.BotToken.Empty() {
			out[c.Name] = Poster{Token: c.BotToken, APIURL: c.APIURL}
		}
	}
	return out
}
