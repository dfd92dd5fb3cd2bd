"""The safety core: every tool call's one path, what may be read, the budgets, the review.

gateway       the one path of every tool call: allowlist, JSON, schema, cache, call, redact, trace
read_policy   which tools only read: decided by what the harness can stand behind, never by a server's word
supervisor    budgets outside the conversation: steps, time, repeats
approval      asking the operator before a write tool runs
review        the review policy: accept an answer or push back (zero-tool, evidence)
"""
