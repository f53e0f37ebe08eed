package core

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// CreateWorkspace makes a workspace; ideaLimit < 0 takes the plan's default.
func (s *Service) CreateWorkspace(ctx context.Context, name string, plan Plan, ideaLimit int) (Workspace, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return Workspace{}, invalid("name", "name is required", "A workspace needs a name.")
	}
	if _, ok := ParsePlan(string(plan)); !ok {
		return Workspace{}, invalid("plan", "invalid plan", "plan must be one of free, starter, pro, business.")
	}
	if ideaLimit < 0 {
		ideaLimit = plan.DefaultIdeaLimit()
	}
	w := Workspace{ID: NewID(), Name: name, Plan: plan, IdeaLimit: ideaLimit, CreatedAt: s.Now()}
	return w, s.store.CreateWorkspace(ctx, w)
}

// WorkspaceUpdate changes the fields that are set.
type WorkspaceUpdate struct {
	Name      *string
	Plan      *Plan
	IdeaLimit *int
	Suspended *bool
}

// UpdateWorkspace applies an update; a running daemon sees it on the next request.
func (s *Service) UpdateWorkspace(ctx context.Context, id ID, u WorkspaceUpdate) (Workspace, error) {
	w, err := s.store.Workspace(ctx, id)
	if err != nil {
		return Workspace{}, err
	}
	if u.Name != nil {
		if strings.TrimSpace(*u.Name) == "" {
			return Workspace{}, invalid("name", "name is required", "A workspace needs a name.")
		}
		w.Name = strings.TrimSpace(*u.Name)
	}
	if u.Plan != nil {
		p, ok := ParsePlan(string(*u.Plan))
		if !ok {
			return Workspace{}, invalid("plan", "invalid plan", "plan must be one of free, starter, pro, business.")
		}
		w.Plan = p
	}
	if u.IdeaLimit != nil {
		if *u.IdeaLimit < 0 {
			return Workspace{}, invalid("idea_limit", "invalid idea_limit", "idea_limit must be 0 (unlimited) or more.")
		}
		w.IdeaLimit = *u.IdeaLimit
	}
	if u.Suspended != nil {
		w.Suspended = *u.Suspended
	}
	return w, s.store.UpdateWorkspace(ctx, w)
}

// Workspaces lists every workspace.
func (s *Service) Workspaces(ctx context.Context) ([]Workspace, error) {
	return s.store.Workspaces(ctx)
}

// CreateKey issues a key for a workspace. The secret is returned once and only its hash is stored.
func (s *Service) CreateKey(ctx context.Context, ws ID, name string) (APIKey, string, error) {
	if _, err := s.store.Workspace(ctx, ws); err != nil {
		return APIKey{}, "", err
	}
	secret, err := NewAPIKeySecret()
	if err != nil {
		return APIKey{}, "", err
	}
	k := APIKey{ID: NewID(), Workspace: ws, Name: strings.TrimSpace(name), Prefix: secret[:8], Hash: HashAPIKey(secret), CreatedAt: s.Now()}
	if err := s.store.CreateAPIKey(ctx, k); err != nil {
		return APIKey{}, "", err
	}
	return k, secret, nil
}

// Keys lists a workspace's keys (hashes and prefixes only).
func (s *Service) Keys(ctx context.Context, ws ID) ([]APIKey, error) { return s.store.APIKeys(ctx, ws) }

// RevokeKey revokes a key by its id.
func (s *Service) RevokeKey(ctx context.Context, keyID ID) error {
	return s.store.RevokeAPIKey(ctx, keyID, s.Now())
}

// AddLookups adds tags or products; labels that exist already are returned, not duplicated.
func (s *Service) AddLookups(ctx context.Context, ws ID, kind LookupKind, labels []string) ([]Lookup, error) {
	clean := make([]string, 0, len(labels))
	for _, l := range labels {
		if l = strings.TrimSpace(l); l != "" {
			clean = append(clean, l)
		}
	}
	if len(clean) == 0 {
		return nil, invalid("label", "label is required", "Give at least one non-blank label.")
	}
	if _, err := s.store.Workspace(ctx, ws); err != nil {
		return nil, err
	}
	return s.store.PutLookups(ctx, ws, kind, clean)
}

// AddUser adds a workspace member.
func (s *Service) AddUser(ctx context.Context, ws ID, name, email string) (User, error) {
	u := User{ID: NewID(), Name: strings.TrimSpace(name), Email: strings.TrimSpace(email)}
	if u.Name == "" {
		return User{}, invalid("name", "name is required", "A user needs a display name.")
	}
	if u.Email != "" {
		if _, err := ParseEmail(u.Email); err != nil {
			return User{}, invalid("email", "invalid email", "email must be one bare address.")
		}
	}
	if _, err := s.store.Workspace(ctx, ws); err != nil {
		return User{}, err
	}
	return u, s.store.CreateUser(ctx, ws, u)
}

// AllUsers lists the workspace's users with their emails.
func (s *Service) AllUsers(ctx context.Context, ws ID) ([]User, error) { return s.store.Users(ctx, ws) }

// AddCompany creates a company for a domain, or renames the existing one.
func (s *Service) AddCompany(ctx context.Context, ws ID, domain, name string) (Company, error) {
	return s.putCompany(ctx, ws, domain, name, false)
}

// CompanyExistsError is AddCompany's answer for a domain that already has a company under another name:
// adding never renames silently; RenameCompany does it on purpose. It is an ErrConflict.
type CompanyExistsError struct {
	Domain  string
	Company Company
}

func (e *CompanyExistsError) Error() string {
	return fmt.Sprintf("the domain %s already belongs to the company %q (id %s); rename it with --rename", e.Domain, e.Company.Name, e.Company.ID)
}

func (e *CompanyExistsError) Unwrap() error { return ErrConflict }

// RenameCompany gives the company of domain a new name, creating it when the domain has none.
func (s *Service) RenameCompany(ctx context.Context, ws ID, domain, name string) (Company, error) {
	return s.putCompany(ctx, ws, domain, name, true)
}

func (s *Service) putCompany(ctx context.Context, ws ID, domain, name string, rename bool) (Company, error) {
	d, err := companyDomain(domain)
	if err != nil {
		return Company{}, invalid("domain", "invalid domain", "domain must be a registrable domain such as acme.com.")
	}
	if strings.TrimSpace(name) == "" {
		name = CompanyNameFromDomain(d)
	}
	name = strings.TrimSpace(name)
	if _, err := s.store.Workspace(ctx, ws); err != nil {
		return Company{}, err
	}
	if !rename {
		all, err := s.store.Companies(ctx, ws)
		if err != nil {
			return Company{}, err
		}
		for _, c := range all {
			switch {
			case c.Domain != d:
			case c.Name == name:
				return c, nil // adding what is there changes nothing
			default:
				return Company{}, &CompanyExistsError{Domain: d, Company: c}
			}
		}
	}
	return s.store.PutCompany(ctx, ws, Company{ID: NewID(), Name: name, Domain: d})
}

// Companies lists the workspace's companies.
func (s *Service) Companies(ctx context.Context, ws ID) ([]Company, error) {
	return s.store.Companies(ctx, ws)
}

// SeedDemo creates a demo workspace with lookups and a key when the store has no workspace yet. It returns
// created=false (and no key) when the store already holds data.
func (s *Service) SeedDemo(ctx context.Context) (ws Workspace, key string, created bool, err error) {
	all, err := s.store.Workspaces(ctx)
	if err != nil || len(all) > 0 {
		return Workspace{}, "", false, err
	}
	if ws, err = s.CreateWorkspace(ctx, "Demo Workspace", PlanBusiness, -1); err != nil {
		return Workspace{}, "", false, err
	}
	steps := []func() error{
		func() error {
			_, err := s.AddLookups(ctx, ws.ID, LookupTag, []string{"Bug", "Onboarding", "Performance", "Pricing", "Integrations"})
			return err
		},
		func() error {
			_, err := s.AddLookups(ctx, ws.ID, LookupProduct, []string{"Web App", "Mobile App", "API"})
			return err
		},
		func() error { _, err := s.AddUser(ctx, ws.ID, "Ada Lovelace", "ada@example.com"); return err },
		func() error { _, err := s.AddUser(ctx, ws.ID, "Grace Hopper", "grace@example.com"); return err },
		func() error { _, key, err = s.CreateKey(ctx, ws.ID, "demo"); return err },
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return Workspace{}, "", false, errors.Join(errors.New("seed demo workspace"), err)
		}
	}
	return ws, key, true, nil
}
