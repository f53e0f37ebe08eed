-- Console members, their one-time sign-in links and their sessions. An address is one member in the whole
-- store, so signing in needs no workspace. Only hashes of link and session tokens are kept; removing a member
-- removes its link and sessions with it.
CREATE TABLE members (
    id             text PRIMARY KEY,
    workspace_id   text NOT NULL REFERENCES workspaces (id),
    email          text NOT NULL UNIQUE,
    role           text NOT NULL,
    password_hash  text NOT NULL DEFAULT '',
    created_at     timestamptz NOT NULL
);
CREATE INDEX members_workspace ON members (workspace_id, email);

CREATE TABLE member_links (
    member_id   text PRIMARY KEY REFERENCES members (id) ON DELETE CASCADE,
    hash        text NOT NULL UNIQUE,
    expires_at  timestamptz NOT NULL
);

CREATE TABLE member_sessions (
    hash          text PRIMARY KEY,
    member_id     text NOT NULL REFERENCES members (id) ON DELETE CASCADE,
    created_at    timestamptz NOT NULL,
    last_seen_at  timestamptz NOT NULL
);
CREATE INDEX member_sessions_member ON member_sessions (member_id);
