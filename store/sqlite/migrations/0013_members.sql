-- Console members, their one-time sign-in links and their sessions. An address is one member in the whole
-- store, so signing in needs no workspace. Only hashes of link and session tokens are kept; removing a member
-- removes its link and sessions with it.
CREATE TABLE members (
    id             TEXT PRIMARY KEY,
    workspace_id   TEXT NOT NULL REFERENCES workspaces(id),
    email          TEXT NOT NULL UNIQUE,
    role           TEXT NOT NULL,
    password_hash  TEXT NOT NULL DEFAULT '',
    created_at     INTEGER NOT NULL
);
CREATE INDEX members_workspace ON members(workspace_id, email);

CREATE TABLE member_links (
    member_id   TEXT PRIMARY KEY REFERENCES members(id) ON DELETE CASCADE,
    hash        TEXT NOT NULL UNIQUE,
    expires_at  INTEGER NOT NULL
);

CREATE TABLE member_sessions (
    hash          TEXT PRIMARY KEY,
    member_id     TEXT NOT NULL REFERENCES members(id) ON DELETE CASCADE,
    created_at    INTEGER NOT NULL,
    last_seen_at  INTEGER NOT NULL
);
CREATE INDEX member_sessions_member ON member_sessions(member_id);
