package slack

import (
	"context"
	"fmt"

	slackgo "github.com/slack-go/slack"

	"github.com/feedbridge/feedbridge/connectors"
)

// bot calls Slack's Web API with an entry's bot token. The token is read at each call, so a rotated token
// file is used by the next call without a restart; a client is only a few fields, so one per call costs
// nothing worth keeping.
type bot struct {
	token connectors.Secret
	opts  []slackgo.Option
}

// newBot returns nil without a token: the entry then has no author lookup, no modal and no threaded replies.
// apiURL is the entry's api_url; a test's options.apiURL goes before it.
func newBot(token connectors.Secret, apiURL string, o options) *bot {
	if token.Empty() {
		return nil
	}
	opts := []slackgo.Option{slackgo.OptionHTTPClient(o.httpClient)}
	if o.apiURL != "" {
		apiURL = o.apiURL
	}
	if apiURL != "" {
		opts = append(opts, slackgo.OptionAPIURL(apiURL))
	}
	return &bot{token: token, opts: opts}
}

// client returns a Web API client holding the token as it is now.
func (b *bot) client() (*slackgo.Client, error) {
	token, err := b.token.Value()
	if err != nil {
		return nil, fmt.Errorf("slack: bot_token: %w", err)
	}
	return slackgo.New(token, b.opts...), nil
}

func (b *bot) userInfo(ctx context.Context, user string) (*slackgo.User, error) {
	c, err := b.client()
	if err != nil {
		return nil, err
	}
	return c.GetUserInfoContext(ctx, user)
}

func (b *bot) postEphemeral(ctx context.Context, channel, user string, opts ...slackgo.MsgOption) error {
	c, err := b.client()
	if err != nil {
		return err
	}
	_, err = c.PostEphemeralContext(ctx, channel, user, opts...)
	return err
}

func (b *bot) openView(ctx context.Context, trigger string, view slackgo.ModalViewRequest) error {
	c, err := b.client()
	if err != nil {
		return err
	}
	_, err = c.OpenViewContext(ctx, trigger, view)
	return err
}
