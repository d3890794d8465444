"""The MCP server: an on-call engineer's own assistant (Claude, Cursor, an IDE) asks rootward about incidents.

A surface like `cli/` and `web/` (the top row of the layering table): each
tool parses its arguments, checks the caller's role, calls one function
below, and returns a typed record. Every tool is read-only.
"""
