package core

import (
	"slices"
	"strings"
)

// The editable fields of a patch beyond title, description and status, each checked against the record's
// type and compared with its current value: only a real difference goes into the change.

func (s *Service) changeRefs(rec Record, p Patch, c *RecordChange, set func(string, any, any), only func(string, ...RecordType) error) error {
	for _, f := range []struct {
		name string
		v    *string
		cur  ID
		dst  *ID
	}{{"product", p.Product, rec.ProductID, &c.ProductID}, {"user", p.User, rec.AssigneeID, &c.AssigneeID}} {
		if f.v == nil {
			continue
		}
		if f.name == "product" {
			if err := only("product", RecordIdea, RecordFeedback, RecordFeature); err != nil {
				return err
			}
		}
		v := strings.TrimSpace(*f.v)
		if v != "" && !ValidID(v) {
			return invalid(f.name, "invalid "+f.name+" id", "%s must be a 24-character hex id or \"\".", f.name)
		}
		if ID(v) != f.cur {
			set(f.name, string(f.cur), v)
			*f.dst = ID(v)
		}
	}
	if p.Tags != nil {
		if len(*p.Tags) > MaxTags {
			return invalid("tags", "too many tags", "A record takes at most %d tags; %d were given.", MaxTags, len(*p.Tags))
		}
		tags := []ID{}
		for _, t := range *p.Tags {
			if !ValidID(t) {
				return invalid("tags", "invalid tag id", "Each tag must be a 24-character hex id; %q is not.", t)
			}
			if !slices.Contains(tags, ID(t)) {
				tags = append(tags, ID(t))
			}
		}
		if !slices.Equal(tags, rec.TagIDs) {
			set("tags", idStrings(rec.TagIDs), idStrings(tags))
			c.TagIDs, c.SetTags = tags, true
		}
	}
	return nil
}

func (s *Service) changePlanning(rec Record, p Patch, c *RecordChange, set func(string, any, any), only func(string, ...RecordType) error) error {
	if p.Importance != nil || p.ClearImportance {
		if err := only("importance", RecordFeedback); err != nil {
			return err
		}
		n := 0
		if p.Importance != nil {
			if n = *p.Importance; n < 1 || n > 3 {
				return invalid("importance", "invalid importance", "importance must be 1, 2 or 3, or null.")
			}
		}
		if n != rec.Importance {
			set("importance", importanceValue(rec.Importance), importanceValue(n))
			c.Importance = n
		}
	}
	for _, f := range []struct {
		name  string
		v     *string
		owner RecordType
		cur   string
		dst   *string
	}{{"release", p.Release, RecordFeature, rec.Release, &c.Release}, {"timeframe", p.Timeframe, RecordObjective, rec.Timeframe, &c.Timeframe}} {
		if f.v == nil {
			continue
		}
		if err := only(f.name, f.owner); err != nil {
			return err
		}
		v := strings.TrimSpace(*f.v)
		if runeLen(v) > MaxRelease {
			return invalid(f.name, f.name+" is too long", "The %s has %d characters; the limit is %d.", f.name, runeLen(v), MaxRelease)
		}
		if v != f.cur {
			set(f.name, f.cur, v)
			*f.dst = v
		}
	}
	return nil
}

// changeCustomer regroups the record by the new address as a create would; a name alone renames the
// record's contact.
func (s *Service) changeCustomer(rec Record, p Patch, c *RecordChange, set func(string, any, any), only func(string, ...RecordType) error) error {
	if p.CustomerEmail == nil && p.CustomerName == nil {
		return nil
	}
	for _, f := range []struct {
		name string
		v    *string
	}{{"customer_email", p.CustomerEmail}, {"customer_name", p.CustomerName}} {
		if f.v != nil {
			if err := only(f.name, RecordFeedback, RecordIdea); err != nil {
				return err
			}
		}
	}
	email, name := rec.CustomerEmail, rec.CustomerName
	if p.CustomerEmail != nil {
		email = strings.TrimSpace(*p.CustomerEmail)
	}
	if p.CustomerName != nil {
		name = strings.TrimSpace(*p.CustomerName)
		if n := runeLen(name); n > MaxCustomerName {
			return invalid("customer_name", "customer_name is too long", "The customer_name has %d characters; the limit is %d.", n, MaxCustomerName)
		}
	}
	if email == "" {
		if p.CustomerName != nil && name != "" {
			return invalid("customer_name", "customer_name needs customer_email", "A customer is named by an address; give customer_email too.")
		}
		if rec.CustomerEmail != "" {
			set("customer_email", rec.CustomerEmail, "")
			c.SetContact = true
		}
		return nil
	}
	if runeLen(email) > MaxCustomerEmail {
		return invalid("customer_email", "customer_email is too long", "The customer_email has more than %d characters.", MaxCustomerEmail)
	}
	addr, err := ParseEmail(email)
	if err != nil {
		return invalid("customer_email", "invalid customer_email", "customer_email must be one bare address such as jane@acme.com.")
	}
	ref := &ContactRef{Email: addr, EmailKey: strings.ToLower(addr), Name: name}
	ref.Domain, ref.CompanyName, _ = s.companies.Resolve(addr)
	if addr != rec.CustomerEmail {
		set("customer_email", rec.CustomerEmail, addr)
		c.SetContact, c.Contact = true, ref
		if p.CustomerName == nil {
			ref.Name = "" // a new address keeps its own contact's name
		}
	}
	if p.CustomerName != nil && name != rec.CustomerName {
		set("customer_name", rec.CustomerName, name)
		c.SetContact, c.Contact, c.RenameContact = true, ref, true
	}
	return nil
}

func importanceValue(n int) any {
	if n == 0 {
		return nil
	}
	return n
}

func idStrings(ids []ID) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = string(id)
	}
	return out
}
