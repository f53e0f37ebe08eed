package slack

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/sirupsen/logrus"
	slackgo "github.com/slack-go/slack"

	"github.com/feedbridge/feedbridge/core"
)

// callbackIdeaModal identifies the /idea form's submissions.
const callbackIdeaModal = "feedbridge_idea"

// Block ids of the form; a ValidationError's field maps to the block that shows it.
const (
	blockTitle       = "title"
	blockDescription = "description"
	blockProduct     = "product"
	blockTags        = "tags"
	blockAssignee    = "assignee"
	actionValue      = "value"
)

var fieldBlocks = map[string]string{
	"title": blockTitle, "description": blockDescription, "product": blockProduct, "tags": blockTags, "user": blockAssignee,
}

// Slack's limits: options per select, characters of an option's text and of a plain-text input.
const (
	maxOptions     = 100
	maxOptionText  = 75
	maxInputLength = 3000
)

// openIdeaModal answers an empty /idea with the form. Slack's trigger_id lives 3 s, so the lookups and
// views.open share a 2.5 s budget; on failure the user gets the typed usage instead.
func (s *Set) openIdeaModal(w http.ResponseWriter, r *http.Request, a *app, cmd slackgo.SlashCommand, log *logrus.Entry) {
	ctx, cancel := context.WithTimeout(r.Context(), 2500*time.Millisecond)
	defer cancel()
	view, err := s.ideaModal(ctx, a, cmd.ChannelID)
	if err == nil {
		err = a.bot.openView(ctx, cmd.TriggerID, view)
	}
	if err != nil {
		log.WithError(err).Warn("slack: could not open the idea form")
		s.metrics.count("command", "error")
		writeJSON(w, ephemeral("The idea form could not be opened just now; type the idea instead.\n"+usage(cmd.Command, kindIdea, false)))
		return
	}
	s.metrics.count("command", "modal")
	w.WriteHeader(http.StatusOK)
}

// ideaModal builds the form from the workspace's products, tags and users. The channel travels in the
// private metadata so that a late outcome can be posted where /idea was typed.
func (s *Set) ideaModal(ctx context.Context, a *app, channel string) (slackgo.ModalViewRequest, error) {
	products, err := s.svc.Products(ctx, a.Workspace)
	if err != nil {
		return slackgo.ModalViewRequest{}, fmt.Errorf("slack: products: %w", err)
	}
	tags, err := s.svc.Tags(ctx, a.Workspace)
	if err != nil {
		return slackgo.ModalViewRequest{}, fmt.Errorf("slack: tags: %w", err)
	}
	users, err := s.svc.Users(ctx, a.Workspace)
	if err != nil {
		return slackgo.ModalViewRequest{}, fmt.Errorf("slack: users: %w", err)
	}
	title := slackgo.NewPlainTextInputBlockElement(nil, actionValue)
	title.MaxLength = core.MaxTitle
	desc := slackgo.NewPlainTextInputBlockElement(nil, actionValue)
	desc.Multiline, desc.MaxLength = true, maxInputLength
	blocks := []slackgo.Block{
		slackgo.NewInputBlock(blockTitle, plain("Title"), nil, title),
		optional(slackgo.NewInputBlock(blockDescription, plain("Description"), nil, desc)),
	}
	if len(products) > 0 {
		sel := slackgo.NewOptionsSelectBlockElement(slackgo.OptTypeStatic, plain("Choose a product"), actionValue, choices(products)...)
		blocks = append(blocks, optional(slackgo.NewInputBlock(blockProduct, plain("Product"), nil, sel)))
	}
	if len(tags) > 0 {
		sel := slackgo.NewOptionsMultiSelectBlockElement(slackgo.MultiOptTypeStatic, plain("Choose tags"), actionValue, choices(tags)...)
		blocks = append(blocks, optional(slackgo.NewInputBlock(blockTags, plain("Tags"), nil, sel)))
	}
	if len(users) > 0 {
		sel := slackgo.NewOptionsSelectBlockElement(slackgo.OptTypeStatic, plain("Choose a person"), actionValue, choices(users)...)
		blocks = append(blocks, optional(slackgo.NewInputBlock(blockAssignee, plain("Assignee"), nil, sel)))
	}
	return slackgo.ModalViewRequest{
		Type: slackgo.VTModal, CallbackID: callbackIdeaModal, PrivateMetadata: channel,
		Title: plain("New idea"), Submit: plain("Save"), Close: plain("Cancel"),
		Blocks: slackgo.Blocks{BlockSet: blocks},
	}, nil
}

// choices makes select options of lookups. Slack shows at most 100; beyond that the first 100 by label
// are offered (a type-ahead select would need an options endpoint, see the README).
func choices(ls []core.Lookup) []*slackgo.OptionBlockObject {
	ls = ls[:min(len(ls), maxOptions)]
	out := make([]*slackgo.OptionBlockObject, len(ls))
	for i, l := range ls {
		out[i] = slackgo.NewOptionBlockObject(string(l.ID), plain(core.Truncate(l.Label, maxOptionText, "…")), nil)
	}
	return out
}

func plain(s string) *slackgo.TextBlockObject {
	return slackgo.NewTextBlockObject(slackgo.PlainTextType, s, false, false)
}

func optional(b *slackgo.InputBlock) *slackgo.InputBlock {
	b.Optional = true
	return b
}

// submitIdeaModal creates the Idea of a submitted form. A quick outcome replaces the form (or marks the
// field at fault); a slow one closes it and is posted ephemerally where /idea was typed.
func (s *Set) submitIdeaModal(w http.ResponseWriter, a *app, team string, cb slackgo.InteractionCallback, log *logrus.Entry) {
	var values map[string]map[string]slackgo.BlockAction
	if cb.View.State != nil {
		values = cb.View.State.Values
	}
	field := func(block string) slackgo.BlockAction { return values[block][actionValue] }
	sub := core.Submission{
		Type:               core.RecordIdea,
		CountsAgainstLimit: true,
		// Input values arrive as typed, without Slack's message escaping.
		Title:       field(blockTitle).Value,
		Description: field(blockDescription).Value,
		PlainText:   true,
		ProductID:   core.ID(field(blockProduct).SelectedOption.Value),
		AssigneeID:  core.ID(field(blockAssignee).SelectedOption.Value),
		Reporter:    reporter(cb.User.Name, cb.User.ID),
		DedupKey:    "slack:" + team + ":view:" + cb.View.ID,
		Origin:      &core.Origin{Kind: core.OriginSlack, Entry: a.Name, User: cb.User.ID},
	}
	for _, o := range field(blockTags).SelectedOptions {
		sub.TagIDs = append(sub.TagIDs, core.ID(o.Value))
	}
	ch := s.saveAsync(a, sub)
	o, ok := s.within(ch)
	if !ok {
		writeJSON(w, slackgo.NewClearViewSubmissionResponse())
		s.background(func() {
			text := s.settle(a, "modal", <-ch, log)
			if a.bot == nil {
				// Without a bot token there is no channel to post to; the record is saved all the same.
				log.Warn("slack: the idea form's outcome cannot be shown without a bot_token")
				return
			}
			ctx, cancel := deliveryContext()
			defer cancel()
			if err := a.bot.postEphemeral(ctx, cb.View.PrivateMetadata, cb.User.ID, slackgo.MsgOptionText(text, false)); err != nil {
				log.WithError(err).Warn("slack: could not deliver the idea form's outcome")
			}
		})
		return
	}
	text := s.settle(a, "modal", o, log)
	var invalid *core.ValidationError
	if errors.As(o.err, &invalid) && fieldBlocks[invalid.Field] != "" {
		writeJSON(w, slackgo.NewErrorsViewSubmissionResponse(map[string]string{fieldBlocks[invalid.Field]: invalid.Message}))
		return
	}
	done := slackgo.ModalViewRequest{
		Type: slackgo.VTModal, Title: plain("feedbridge"), Close: plain("Done"),
		Blocks: slackgo.Blocks{BlockSet: []slackgo.Block{
			slackgo.NewSectionBlock(slackgo.NewTextBlockObject(slackgo.MarkdownType, text, false, false), nil, nil),
		}},
	}
	writeJSON(w, slackgo.NewUpdateViewSubmissionResponse(&done))
}
