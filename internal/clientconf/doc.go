// Package clientconf finds the MCP clients installed for a user and edits
// their configuration files to add or remove webpilot's server entry (and,
// where a client reads skills, webpilot's SKILL.md): `webpilot setup`.
//
// Edits are made in the text, not by decoding and re-encoding the file:
// only webpilot's own entry changes, and everything else — other servers,
// settings, comments, formatting — stays as the user or the client wrote
// it (JSON and JSONC by SetJSON and DeleteJSON, TOML by SetTOMLTable and
// DeleteTOMLTable). A file is written atomically, after a backup of what
// it held.
package clientconf
