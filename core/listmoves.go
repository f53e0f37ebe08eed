package core

import (
	"context"
	"strings"
)

// parseMoveFilters reads the filters of statuses, customers, links and order into q (whose type is set).
func parseMoveFilters(q *ListQuery, req ListRequest) error {
	for _, v := range req.Statuses {
		st, _, ok := ParseStatus(q.Type, v)
		if !ok {
			return invalid("status", "invalid status", "%q is not a status of %s records; they are %s and Merged.",
				v, q.Type, strings.Join(boardStatuses[q.Type], ", "))
		}
		q.Statuses = append(q.Statuses, st)
	}
	if req.Company != "" {
		if !ValidID(req.Company) {
			return invalid("company", "invalid company id", "company must be a 24-character hex id.")
		}
		q.CompanyID = ID(req.Company)
	}
	if e := strings.TrimSpace(req.CustomerEmail); e != "" {
		if runeLen(e) > MaxCustomerEmail {
			return invalid("customer_email", "customer_email is too long", "The customer_email has more than %d characters.", MaxCustomerEmail)
		}
		q.CustomerEmailKey = strings.ToLower(e)
	} else if req.CustomerEmail != "" {
		return invalid("customer_email", "invalid customer_email", "customer_email must be an address.")
	}
	switch strings.ToLower(req.Linked) {
	case "":
	case "true", "false":
		b := strings.ToLower(req.Linked) == "true"
		q.Linked = &b
	default:
		return invalid("linked", "invalid linked", "linked must be true or false.")
	}
	switch o := strings.ToLower(req.Order); o {
	case "", OrderCreated:
	case OrderUpdated:
		q.Order = o
	case OrderDemand:
		if q.Type != RecordIdea && q.Type != RecordFeature {
			return invalid("order", "order demand is only for Ideas and Features", "Only Ideas and Features have demand; use created or updated.")
		}
		q.Order = o
	default:
		return invalid("order", "invalid order", "order must be created, updated or demand.")
	}
	return nil
}

// LinkedFeedback lists the Feedback linked to an Idea or Feature (merged feedback included), paged and
// sorted like List: req's sort, limit and cursor apply, its other filters must be empty.
func (s *Service) LinkedFeedback(ctx context.Context, ws, id ID, req ListRequest) (Page, error) {
	rec, err := s.store.Record(ctx, ws, id)
	if err != nil {
		return Page{}, err
	}
	if rec.Type != RecordIdea && rec.Type != RecordFeature {
		return Page{}, invalid("id", "not an idea or feature", "Only Ideas and Features have linked feedback; this record is a %s.", rec.Type)
	}
	q, err := ParseListRequest(ListRequest{RecordType: string(RecordFeedback), Sort: req.Sort, Limit: req.Limit})
	if err != nil {
		return Page{}, err
	}
	q.LinkedTo = id
	q.Statuses = append(Statuses(RecordFeedback), StatusMerged)
	return s.listPage(ctx, ws, q, req.Cursor)
}
