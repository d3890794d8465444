"""Chat surfaces: the conversation in an incident's Slack or Matrix thread.

A surface like `cli/`, `web/` and `mcp/` (the top row of the layering
table): it parses a chat event, calls one function below (the follow-up
answerer, the approval decision, the queue) and renders the reply, which
goes out through the durable outbox (`notify/threads.py`).
"""
