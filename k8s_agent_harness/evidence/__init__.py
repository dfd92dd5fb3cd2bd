"""What the tools showed, and what a report may rest on.

shapes        the shapes a tool result comes in (tables, describe blocks, JSON/YAML documents, lines), read into records
redact        secret redaction before anything reaches the model, a trace or a terminal
provenance    what each tool result shows and what a quote in it is about
grounding     which pod, node and namespace names an answer uses, and which no tool returned
report        the verifiable report's schema: findings, quotes, causes, limits; reading it from an answer
verification  each quote and finding checked against the run's tool results
rendering     a report for the terminal (each quote marked) and as markdown for a ticket
"""
